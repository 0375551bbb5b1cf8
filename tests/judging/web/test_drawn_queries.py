"""``judge serve`` after ``ppi --choose``: the web desk offers people only the pairs of the queries drawn for them
(a real store, a simulated LLM's answers to every pair, the real command serving on loopback, one assessor
answering over HTTP until nothing is left)."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import httpx
import numpy as np

from ir_pref_measures import judging
from ir_pref_measures.judging import SimulatedJudge, Store

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


def _answer_everything(link: str) -> int:
    """Answer every pair the assessor's page offers; the number answered."""
    answered = 0
    with httpx.Client(follow_redirects=False) as client:
        for _ in range(100):
            try:
                client.get(link)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        while True:
            fields = dict(FIELD.findall(client.get(link).text))
            if "assignment" not in fields:
                return answered
            assert client.post(f"{link}/answer", data={**fields, "answer": "left"}).status_code == 303
            answered += 1


def test_people_are_offered_only_the_drawn_queries(tmp_path, free_port):
    store, runs, grades = _effort(tmp_path)
    judging.run(store, SimulatedJudge(grades, seed=1, noise=0.3, name="gpt"))  # the LLM judges every pair
    chosen, _ = judging.choose_for_people(store, runs, "Compatibility", 4, seed=2)
    assert 0 < len(chosen) < len(QUERIES)
    command = [sys.executable, "-m", "ir_pref_measures", "judge", "serve", store, "--assessors", "ann", "--overlap",
               "0", "--queries", str(tmp_path / "queries.tsv"), "--docs", str(tmp_path / "docs.tsv"), "--port",
               str(free_port)]  # fmt: skip
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        links = dict(server.stderr.readline().rstrip("\n").split("\t") for _ in range(2))
        answered = _answer_everything(links["ann"])
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
