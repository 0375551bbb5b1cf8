"""The judging loop: budgets, reuse or re-asking, people who have not answered yet, and resuming after kill -9."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import astuple

import numpy as np

from ir_pref_measures.judging import AllPairs, FilesJudge, SimulatedJudge, Store, TopK, random_pairs, runner


def graded(queries: int, docs: int, seed: int = 0) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(seed)
    return {f"q{q:02d}": {f"d{d:03d}": float(rng.integers(4)) for d in range(docs)} for q in range(queries)}


def pools(grades):
    return {q: sorted(g) for q, g in grades.items()}


def test_a_budget_share_of_each_query(tmp_path):
    grades = graded(3, 10)
    with Store(tmp_path / "s.sqlite") as store:
        report = runner.run(store, random_pairs(pools(grades), 1, batch=4), SimulatedJudge(grades), budget=0.25)
        assert report.asked == 3 * 12 == store.counts()["answers"]  # ceil(0.25 * 45) each
        assert sorted(report.budget) == ["q00", "q01", "q02"]


def test_a_total_budget_round_robin(tmp_path):
    grades = graded(4, 10)
    with Store(tmp_path / "s.sqlite") as store:
        report = runner.run(store, random_pairs(pools(grades), 1, batch=3), SimulatedJudge(grades), budget=20)
        assert report.asked == 20
        per_query = {q: sum(len(r) for r in h) for q, h in report.history.items()}
        assert per_query == {"q00": 6, "q01": 6, "q02": 5, "q03": 3}  # 12 in the first sweep, then 3, 3, 2 and 0


def test_a_larger_budget_later_continues_the_same_effort(tmp_path):
    grades = graded(2, 12)
    selector = random_pairs(pools(grades), 3, batch=5)
    with Store(tmp_path / "a.sqlite") as store:
        runner.run(store, selector, SimulatedJudge(grades), budget=10)
        report = runner.run(store, selector, SimulatedJudge(grades), budget=30)
        assert (report.asked, report.stored) == (20, 10)
        later = snapshot(store)
    with Store(tmp_path / "b.sqlite") as store:
        runner.run(store, selector, SimulatedJudge(grades), budget=30)
        assert snapshot(store) == later


def test_a_pair_asked_again_reuses_its_verdict_unless_told_to_reask(tmp_path):
    grades = graded(6, 14, seed=3)
    selector = TopK(grades, seed=2, k=2, f=5, p=3)
    with Store(tmp_path / "reuse.sqlite") as store:
        reused = runner.run(store, selector, SimulatedJudge(grades))
    with Store(tmp_path / "reask.sqlite") as store:
        reasked = runner.run(store, selector, SimulatedJudge(grades), reask=True)
    assert reused.reused > 0 and reasked.reused == 0
    assert reasked.asked == reused.asked + reused.reused
    assert reused.history == reasked.history  # a consistent judge: the same verdicts either way


def test_people_through_files(tmp_path):
    grades = {"q": {"a": 2.0, "b": 1.0, "c": 0.0}}
    requests, judgments = tmp_path / "requests.txt", tmp_path / "judgments.txt"
    judge = FilesJudge(requests, judgments, assessor="ann")
    selector = AllPairs(pools(grades), 0)
    with Store(tmp_path / "s.sqlite") as store:
        report = runner.run(store, selector, judge)
        assert report.waiting == ["q"] and report.asked == 3 and report.answered == 0
        asked = requests.read_text().splitlines()
        assert len(asked) == 3 and {frozenset(line.split()[1:]) for line in asked} == {
            frozenset("ab"),
            frozenset("ac"),
            frozenset("bc"),
        }
        judgments.write_text("q a b\nq c b =\n")
        report = runner.run(store, selector, judge)
        assert report.waiting == ["q"] and report.answered == 2
        assert requests.read_text().split()[1:] in (["a", "c"], ["c", "a"])
        judgments.write_text("q a b\nq c b =\nq a c bad:c\n")
        report = runner.run(store, selector, judge)
        assert report.done == ["q"] and report.asked == 1
        outcomes = {frozenset((v.pair.first, v.pair.second)): v.outcome for v in report.history["q"][0]}
        assert outcomes[frozenset("bc")] == "tie" and outcomes[frozenset("ab")] in ("first", "second")
        assert {a.answer.assessor for a in store.answers()} == {"ann"}
        assert requests.read_text() == ""


def snapshot(store: Store):
    """The store without its ids and times: what an uninterrupted run must equal."""
    requests = {r.id: (astuple(r.pair), r.round, r.judge) for r in store.requests()}
    answers = sorted((requests[a.request_id], repr(a.answer)) for a in store.answers())
    return sorted(requests.values()), answers


RESUMABLE = """
import sqlite3, sys
import numpy as np
from ir_pref_measures.judging import runner
from ir_pref_measures.judging.judges import SimulatedJudge
from ir_pref_measures.judging.selectors import random_pairs
from ir_pref_measures.judging.store import Store

rng = np.random.default_rng(0)
grades = {f"q{q:02d}": {f"d{d:03d}": float(rng.integers(4)) for d in range(40)} for q in range(20)}
path = sys.argv[1]
watch = sqlite3.connect(path, timeout=60)


class Watched(SimulatedJudge):
    def judge(self, pairs):  # a question that already has a stored answer must never reach the judge
        for p in pairs:
            found = watch.execute(
                "SELECT COUNT(*) FROM answers a JOIN requests r ON a.request_id = r.id "
                "WHERE r.query_id = ? AND r.first = ? AND r.second = ?", (p.query_id, p.first, p.second)
            ).fetchone()[0]
            if found:
                with open(sys.argv[2], "a") as out:
                    out.write(f"{p}\\n")
        return super().judge(pairs)


with Store(path) as store:
    selector = random_pairs({q: sorted(g) for q, g in grades.items()}, seed=5, batch=7)
    runner.run(store, selector, Watched(grades, seed=9, noise=0.2, tie_rate=0.1), budget=10_000)
"""


def test_killed_five_times_and_resumed_equals_an_uninterrupted_run(tmp_path):
    script = tmp_path / "resumable.py"
    script.write_text(RESUMABLE)
    twice = tmp_path / "asked_twice.txt"

    def start(path):
        return subprocess.Popen([sys.executable, str(script), str(path), str(twice)], cwd=tmp_path)

    assert start(tmp_path / "whole.sqlite").wait(300) == 0
    killed = tmp_path / "killed.sqlite"
    rng = np.random.default_rng(2024)
    progress = []
    for _ in range(5):
        process = start(killed)
        deadline = time.monotonic() + 60
        before = progress[-1] if progress else 0
        while time.monotonic() < deadline and process.poll() is None:  # kill at a random moment of the work
            time.sleep(0.05)
            if _answers(killed) > before + rng.integers(200, 1500):
                break
        process.send_signal(signal.SIGKILL)
        process.wait(60)
        progress.append(_answers(killed))
    assert progress == sorted(progress) and 0 < progress[0] and progress[-1] < 10_000  # each kill cut the work
    assert start(killed).wait(300) == 0
    with Store(tmp_path / "whole.sqlite") as whole, Store(killed) as resumed:
        assert snapshot(whole) == snapshot(resumed)
        assert whole.counts() == {"requests": 10_000, "answers": 10_000, "unanswered": 0}
    assert not twice.exists()


def _answers(path) -> int:
    try:
        with sqlite3.connect(path, timeout=60) as db:
            return db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
    except sqlite3.OperationalError:  # not made yet
        return 0
