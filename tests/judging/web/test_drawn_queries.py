"""``judge serve`` after ``ppi --choose``: the web desk offers people only the pairs of the queries drawn for them
(a real store, a simulated LLM's answers to every pair, the real command serving on loopback, one assessor
answering over HTTP until nothing is left); the admin page names the drawn queries; a draw made while the desk
runs takes effect without a restart."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import httpx
import numpy as np

from ir_pref_measures import judging
from ir_pref_measures.judging import SimulatedJudge, Store

DRAW_CHECK = 1.0  # the desk reads the draw again at most once a second

QUERIES = [f"q{k:02d}" for k in range(12)]
DOCS = [f"d{i}" for i in range(5)]
FIELD = re.compile(r'name="(csrf|assignment)" value="([^"]*)"')


def _effort(tmp_path) -> tuple[str, list[str], dict]:
    """A planned effort (every pair of 5 graded docs of 12 queries), two runs, and the graded truth."""
    rng = np.random.default_rng(8)
    grades = {q: {d: float(g) for d, g in zip(DOCS, rng.integers(0, 4, len(DOCS)), strict=True)} for q in QUERIES}
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {int(g)}\n" for q in QUERIES for d, g in grades[q].items()))
    runs = []
    for name in ("one", "two"):
        lines = [
            f"{q} Q0 {d} {r + 1} {len(DOCS) - r} {name}\n" for q in QUERIES for r, d in enumerate(rng.permutation(DOCS))
        ]
        (tmp_path / f"{name}.run").write_text("".join(lines))
        runs.append(str(tmp_path / f"{name}.run"))
    store = str(tmp_path / "effort.sqlite")
    judging.plan(store, "all", qrels=str(qrels), seed=0)
    (tmp_path / "queries.tsv").write_text("".join(f"{q}\ttopic {q}\n" for q in QUERIES))
    (tmp_path / "docs.tsv").write_text("".join(f"{d}\tdocument {d}\n" for d in DOCS))
    return store, runs, grades


def _answer(link: str, most: int | None = None) -> int:
    """Answer the pairs the assessor's page offers, every one or ``most``; the number answered."""
    answered = 0
    with httpx.Client(follow_redirects=False) as client:
        for _ in range(100):
            try:
                client.get(link)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        while most is None or answered < most:
            fields = dict(FIELD.findall(client.get(link).text))
            if "assignment" not in fields:
                return answered
            assert client.post(f"{link}/answer", data={**fields, "answer": "left"}).status_code == 303
            answered += 1
    return answered


def _serve(store: str, tmp_path, port: int) -> tuple[subprocess.Popen, dict[str, str]]:
    """``judge serve`` for the assessor ann, and the links it prints (ann's, the admin's)."""
    command = [sys.executable, "-m", "ir_pref_measures", "judge", "serve", store, "--assessors", "ann", "--overlap",
               "0", "--queries", str(tmp_path / "queries.tsv"), "--docs", str(tmp_path / "docs.tsv"), "--port",
               str(port)]  # fmt: skip
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    return server, dict(server.stderr.readline().rstrip("\n").split("\t") for _ in range(2))


def test_people_are_offered_only_the_drawn_queries(tmp_path, free_port):
    store, runs, grades = _effort(tmp_path)
    judging.run(store, SimulatedJudge(grades, seed=1, noise=0.3, name="gpt"))  # the LLM judges every pair
    chosen, _ = judging.choose_for_people(store, runs, "Compatibility", 4, seed=2)
    assert 0 < len(chosen) < len(QUERIES)
    server, links = _serve(store, tmp_path, free_port)
    try:
        answered = _answer(links["ann"])
        admin = httpx.get(links["admin"]).text
    finally:
        server.terminate()
        server.wait(10)
    with Store(store) as opened:
        people = [s.answer.pair.query_id for s in opened.answers() if s.answer.judge == "people"]
        asked = [r.pair.query_id for r in opened.requests() if r.pair.query_id in set(chosen)]
    assert set(people) == set(chosen)  # every drawn query, no other
    assert answered == len(people) == len(asked)  # each question of the drawn queries once
    said = f"people are offered the pairs of the {len(chosen)} queries drawn for them (ppi --choose)"
    assert said in server.stderr.read()  # judge serve says so
    assert f'<span id="drawn-count">{len(chosen)}</span>' in admin  # and so does the admin page, naming them
    assert f'<span id="drawn-queries">{", ".join(sorted(chosen))}</span>' in admin


def test_a_draw_made_while_the_desk_runs_takes_effect_without_a_restart(tmp_path, free_port):
    store, runs, grades = _effort(tmp_path)
    judging.run(store, SimulatedJudge(grades, seed=1, noise=0.3, name="gpt"))
    server, links = _serve(store, tmp_path, free_port)
    try:
        before = _answer(links["ann"], 3)  # every query offered: ann answers three pairs, and is shown a fourth
        with httpx.Client() as client:
            assert client.get(links["ann"]).status_code == 200
            assert "People are offered the pairs of every query" in client.get(links["admin"]).text
        drawn_at = time.time()
        chosen, _ = judging.choose_for_people(store, runs, "Compatibility", 4, seed=2)
        time.sleep(DRAW_CHECK + 0.2)
        admin = httpx.get(links["admin"]).text
        after = _answer(links["ann"])
    finally:
        server.terminate()
        server.wait(10)
    assert before == 3 and 0 < len(chosen) < len(QUERIES)
    assert f'<span id="drawn-count">{len(chosen)}</span>' in admin
    assert f'<span id="drawn-queries">{", ".join(sorted(chosen))}</span>' in admin
    with Store(store) as opened:
        people = [s for s in opened.answers() if s.answer.judge == "people"]
        asked = [r for r in opened.requests() if r.pair.query_id in set(chosen)]
    late = {s.answer.pair.query_id for s in people if s.answered_at > drawn_at}
    assert late and late <= set(chosen)  # after the draw: the drawn queries only
    answered = {s.request_id for s in people if s.answer.pair.query_id in set(chosen)}
    assert answered == {r.id for r in asked} and after == len(people) - before
