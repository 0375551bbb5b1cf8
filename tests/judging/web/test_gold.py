"""Gold pairs on the desk (real SQLite stores): their share, that they never reach the progress or the export, the
flag in a simulated study (an assessor answering at random against one answering truthfully), and ``judge export
--exclude-flagged``."""

from __future__ import annotations

import re
import subprocess
import sys

import httpx
import numpy as np
import pytest

from ir_pref_measures.judging import AllPairs, Store, export_lines, gold_from_file, gold_from_qrels, load_texts
from ir_pref_measures.judging.web import open_desk

KEYS = ("left", "right", "tie", "bad-left", "bad-right")


def graded_effort(seed: int, queries: int = 4, docs: int = 12):
    """Pools of ``queries`` x ``docs`` docs with grades 0..3 drawn by ``seed``, and their texts."""
    rng = np.random.default_rng(seed)
    grades = {f"q{q}": {f"q{q}d{i}": float(rng.integers(4)) for i in range(docs)} for q in range(queries)}
    pools = {q: sorted(g) for q, g in grades.items()}
    texts = load_texts({q: f"query {q}" for q in pools}, {d: f"text of {d}" for g in grades.values() for d in g})
    return grades, pools, texts


def truthful_key(grades, query: str, left: str, right: str, rng, noise: float) -> str:
    """The answer of graded qrels to the pair as shown; a strict preference turned round with probability
    ``noise``."""
    a, b = grades[query].get(left, 0.0), grades[query].get(right, 0.0)
    if a == b:
        return "tie"
    key = "left" if a > b else "right"
    if rng.random() < noise:
        key = "right" if key == "left" else "left"
    return key


def row_of(desk, name: str) -> dict:
    return next(row for row in desk.report()["assessors"] if row["name"] == name)


def study(tmp_path, seed: int, gold_answers: int = 10):
    """One simulated study: ``random`` clicks the five answer keys at random, ``truthful`` answers as the qrels
    (5 % of strict preferences turned round); each goes on until ``gold_answers`` gold answers. Returns whether
    ``random`` was flagged at some point within its gold answers, and whether ``truthful`` is flagged at the end."""
    grades, pools, texts = graded_effort(seed)
    store = Store(tmp_path / f"study{seed}.sqlite")
    gold = gold_from_qrels(grades, pools)
    desk = open_desk(store, AllPairs(pools, seed=seed), ["random", "truthful"], texts, seed=seed, gold=gold,
                     gold_share=0.2)  # fmt: skip
    rng = np.random.default_rng([seed, 1])
    flagged = {}
    for name in ("random", "truthful"):
        ever = False
        while row_of(desk, name)["gold_answered"] < gold_answers:
            shown = desk.next_pair(name)
            assert shown is not None, "the effort ran out before the gold answers"
            if name == "random":
                key = KEYS[int(rng.integers(len(KEYS)))]
            else:
                key = truthful_key(grades, shown.query_id, shown.left, shown.right, rng, noise=0.05)
            desk.answer(name, shown.assignment, key)
            ever |= row_of(desk, name)["flagged"]
        flagged[name] = ever if name == "random" else row_of(desk, name)["flagged"]
    store.close()
    return flagged["random"], flagged["truthful"]


def test_a_random_answerer_is_flagged_within_ten_gold_answers_and_a_truthful_one_is_not(tmp_path):
    outcomes = [study(tmp_path, seed) for seed in range(20)]
    assert sum(random for random, _ in outcomes) >= 19
    assert sum(not truthful for _, truthful in outcomes) >= 19


def write_gold(path, queries: int, per_query: int) -> None:
    """Gold pairs over docs of their own (``g...``), in the carterette format: the first doc preferred."""
    lines = [f"q{q} g{q}x{i} g{q}y{i} -1\n" for q in range(queries) for i in range(per_query)]
    path.write_text("".join(lines))


def test_gold_is_the_configured_share_and_never_in_the_progress_or_the_export(tmp_path):
    grades, pools, _ = graded_effort(0, queries=5, docs=20)
    write_gold(tmp_path / "gold.txt", 5, 80)
    gold = gold_from_file(tmp_path / "gold.txt")
    docs = {d: f"text of {d}" for g in grades.values() for d in g}
    docs |= {d: f"text of {d}" for g in gold for d in (g.pair.first, g.pair.second)}
    texts = load_texts({q: f"query {q}" for q in pools}, docs)
    store = Store(tmp_path / "effort.sqlite")
    desk = open_desk(store, AllPairs(pools, seed=1), ["ann"], texts, seed=1, gold=gold, gold_share=0.3)
    gold_docs = {d for g in gold for d in (g.pair.first, g.pair.second)}
    shown_gold = 0
    for _ in range(1000):
        shown = desk.next_pair("ann")
        shown_gold += shown.left in gold_docs
        desk.answer("ann", shown.assignment, "left")
    assert abs(shown_gold / 1000 - 0.3) <= 0.01
    row = row_of(desk, "ann")
    assert row["gold_answered"] == shown_gold and row["answers"] == 1000 - shown_gold
    done, total = desk.progress("ann")
    assert done == 1000 - shown_gold and total == 5 * 190
    for format in ("carterette", "log", "shown"):
        exported = "".join(export_lines(store, format))
        assert not gold_docs & set(exported.split())
    assert len(export_lines(store, "shown")) == 1000 - shown_gold


def test_a_gold_answer_survives_a_restart_and_is_undone(tmp_path, store_location):
    """On a SQLite file and on a PostgreSQL database."""
    write_gold(tmp_path / "gold.txt", 1, 3)
    gold = gold_from_file(tmp_path / "gold.txt")
    pools = {"q0": ["a", "b", "c", "d"]}
    docs = ["a", "b", "c", "d"] + [f"g0{side}{i}" for side in "xy" for i in range(3)]
    texts = load_texts({"q0": "zero"}, {d: f"text {d}" for d in docs})

    def opened():
        return open_desk(Store(store_location), AllPairs(pools, seed=2), ["ann"], texts, seed=2, gold=gold,
                         gold_share=0.5)  # fmt: skip

    desk = opened()
    seen = []
    while not (seen and seen[-1].left.startswith("g")):  # until a gold pair is the last one answered
        seen.append(desk.next_pair("ann"))
        desk.answer("ann", seen[-1].assignment, "left")
    before = row_of(desk, "ann")
    assert before["gold_answered"] >= 1 and before["gold_right"] == sum(s.left.startswith("g0x") for s in seen)
    again = opened()
    assert row_of(again, "ann") == before
    again.undo("ann")
    reopened = again.next_pair("ann")
    assert (reopened.left, reopened.right) == (seen[-1].left, seen[-1].right)
    after = row_of(again, "ann")
    assert after["gold_answered"] == before["gold_answered"] - 1 and after["answers"] == before["answers"]


def test_export_exclude_flagged_leaves_out_the_flagged_assessors_answers(tmp_path):
    grades, pools, texts = graded_effort(5)
    store = Store(tmp_path / "effort.sqlite")
    desk = open_desk(store, AllPairs(pools, seed=5), ["careless", "careful"], texts, seed=5,
                     gold=gold_from_qrels(grades, pools), gold_share=0.3)  # fmt: skip
    rng = np.random.default_rng(5)
    for name in ("careless", "careful"):
        for _ in range(40):
            shown = desk.next_pair(name)
            truth = truthful_key(grades, shown.query_id, shown.left, shown.right, rng, noise=0.0)
            key = {"left": "right", "right": "left", "tie": "left"}[truth] if name == "careless" else truth
            desk.answer(name, shown.assignment, key)
    assert row_of(desk, "careless")["flagged"] and not row_of(desk, "careful")["flagged"]
    kept = row_of(desk, "careful")["answers"]
    assert len(desk.export("shown", exclude_flagged=True).splitlines()) == kept  # the admin page's export
    store.close()
    command = [sys.executable, "-m", "ir_pref_measures", "judge", "export", str(tmp_path / "effort.sqlite")]
    every = subprocess.run([*command, "--format", "shown"], capture_output=True, text=True, check=True).stdout
    careful = subprocess.run(
        [*command, "--format", "shown", "--exclude-flagged"], capture_output=True, text=True, check=True
    ).stdout
    assert (
        len(every.splitlines())
        == 80 - row_of(desk, "careless")["gold_answered"] - row_of(desk, "careful")["gold_answered"]
    )
    assert len(careful.splitlines()) == kept and set(careful.splitlines()) < set(every.splitlines())


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--gold-share", "0.2"], "--gold-share needs gold pairs"),
        (["--gold-share", "1"], "below 1"),
        (["--gold-gap", "2", "--gold", "g.txt"], "--gold-gap is the grade gap of --gold-qrels"),
    ],
)
def test_gold_options_are_checked_in_one_line(tmp_path, options, said):
    (tmp_path / "qrels.txt").write_text("".join(f"q1 0 d{i} {i % 3}\n" for i in range(6)))
    (tmp_path / "g.txt").write_text("q1 d0 d2 1\n")
    command = [sys.executable, "-m", "ir_pref_measures", "judge"]
    subprocess.run([*command, "plan", "s.sqlite", "--selector", "all", "--qrels", "qrels.txt"], cwd=tmp_path,
                   check=True, capture_output=True)  # fmt: skip
    done = subprocess.run(
        [*command, "serve", "s.sqlite", "--assessors", "a", "--queries", "qrels.txt", "--docs", "qrels.txt", *options],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2 and said in done.stderr.strip().splitlines()[-1] and "Traceback" not in done.stderr


def test_the_live_fleiss_kappa_and_krippendorff_alpha_equal_ipm_judges_on_the_same_answers(tmp_path):
    import pandas as pd

    import ir_pref_measures as ipm

    grades, pools, texts = graded_effort(3, queries=3, docs=8)
    store = Store(tmp_path / "effort.sqlite")
    names = ["ann", "ben", "cho"]
    desk = open_desk(store, AllPairs(pools, seed=3), names, texts, seed=3, overlap=0.7)
    rng = np.random.default_rng(3)
    for _ in range(3):
        for name in names:  # in turns, so that every assessor shares questions with every other
            for _ in range(20):
                shown = desk.next_pair(name)
                if shown is None:
                    break
                noise = {"ann": 0.1, "ben": 0.3, "cho": 0.6}[name]
                desk.answer(name, shown.assignment, truthful_key(grades, shown.query_id, shown.left, shown.right, rng,
                                                                 noise))  # fmt: skip
    live = desk.report()["reliability"]
    assert live["pairs"] > 20
    code = {"first": -1, "second": 1, "tie": 0}
    frames = {
        name: pd.DataFrame(
            [
                (s.answer.pair.query_id, s.answer.pair.first, s.answer.pair.second, code[s.answer.answer])
                for s in store.answers()
                if s.answer.assessor == name
            ],
            columns=["query_id", "doc_id_a", "doc_id_b", "preference"],
        )
        for name in names
    }
    table = ipm.agreement.reliability(ipm.agreement.align(frames), samples=10).set_index("statistic")["value"]
    assert live["fleiss_kappa"] == pytest.approx(table["Fleiss kappa"], abs=1e-12)
    assert live["krippendorff_alpha"] == pytest.approx(table["Krippendorff alpha"], abs=1e-12)
    assert live["pairs"] == ipm.agreement.reliability(ipm.agreement.align(frames), samples=10)["pairs"].iloc[0]


def test_the_admin_page_shows_the_reliability_once_pairs_are_shared(server):
    s = server(assessors=["alice", "bob"], overlap=1.0)
    field = re.compile(r'name="(csrf|assignment)" value="([^"]*)"')
    with httpx.Client(base_url=s.url) as client:
        admin = s.links["admin"].replace(s.url, "")
        assert 'id="reliability"' not in client.get(admin).text  # no shared pair yet
        for name, answers in (("alice", ["left"] * 30), ("bob", ["right", "tie"])):  # bob then shares alice's pairs
            token = s.links[name].rsplit("/", 1)[1]
            for answer in answers:
                fields = dict(field.findall(client.get(f"/a/{token}").text))
                assert client.post(f"/a/{token}/answer", data={**fields, "answer": answer}).status_code == 303
        page = client.get(admin).text
    assert 'id="reliability">On the 2 pairs judged by two or more assessors' in page
    assert "/export/log?exclude-flagged=1" in page
    assert re.search(r'id="fleiss-kappa">-?\d\.\d{4}</span>', page) and "nan" not in page
