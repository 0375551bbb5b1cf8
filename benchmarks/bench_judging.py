"""Benchmark: the judging engine's own overhead per judgment, and the rating-driven selector at 1,000 docs.

1. Overhead: 10,000 questions (seeded graded qrels, 50 queries x 60 docs) through the runner with the simulated
   judge and an on-disk store (WAL), for the ``random`` selector (10 questions a round) and the ``topk`` one; the
   judge's own time (the same questions answered alone) is subtracted. Target: under 1 ms a judgment.
2. Rating-driven next pair: one query of 1,000 docs, 2,000 (and 10,000) verdicts so far; the time of
   ``next_round`` (the Bradley-Terry fit of the verdicts so far and the choice) pair by pair (rounds of 1 question,
   each fit warm-started from the last), for a fresh selector (a resumed run: the fit from zero), and per question
   for the default round (a tenth of the pool). Target: under 10 ms a question pair by pair. Also given 12
   seeded random systems (to depth 10): the selector then asks where they disagree.

    python benchmarks/bench_judging.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np
import pandas as pd

from ir_pref_measures.judging import runner
from ir_pref_measures.judging.judges import SimulatedJudge
from ir_pref_measures.judging.rules import combine_answers
from ir_pref_measures.judging.selectors import RatingDriven, TopK, random_pairs
from ir_pref_measures.judging.store import Store

SEED = 20261126
QUESTIONS = 10_000


def graded(queries: int, docs: int) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(SEED)
    return {f"q{q:03d}": {f"d{d:04d}": float(rng.integers(1, 5)) for d in range(docs)} for q in range(queries)}


def overhead(name: str, make, grades) -> tuple[float, float]:
    """(seconds a judgment, of which the judge's) for QUESTIONS questions."""
    judge = SimulatedJudge(grades, seed=1, noise=0.1)
    with tempfile.TemporaryDirectory() as folder:
        with Store(os.path.join(folder, "bench.sqlite")) as store:
            start = time.perf_counter()
            report = runner.run(store, make(), judge, budget=QUESTIONS)
            total = time.perf_counter() - start
            pairs = [r.pair for r in store.requests()]
    start = time.perf_counter()
    judge.judge(pairs)
    alone = time.perf_counter() - start
    return total / report.asked, alone / report.asked, report.asked


def seeded_runs(docs: list[str], systems: int) -> dict[str, pd.DataFrame]:
    """``systems`` runs of one query ``q``, each a seeded random ranking of ``docs``."""
    rng = np.random.default_rng(SEED)
    scores = np.arange(len(docs), 0, -1.0)
    return {
        f"s{s}": pd.DataFrame({"query_id": "q", "doc_id": rng.permutation(docs), "score": scores})
        for s in range(systems)
    }


def rating_next(
    docs: int = 1000, verdicts: int = 2000, steps: int = 20, systems: int = 0
) -> tuple[float, float, float]:
    """(seconds for the next pair pair by pair, of the first call of a fresh selector, a question in default
    rounds) on one query of ``docs`` docs with ``verdicts`` verdicts so far; given ``systems`` runs (to depth
    10), the selector asks where they disagree."""
    pools = {"q": [f"d{i:04d}" for i in range(docs)]}
    runs = seeded_runs(pools["q"], systems) if systems else None
    grades = {"q": {d: float(i % 7) for i, d in enumerate(pools["q"])}}
    judge = SimulatedJudge(grades, seed=2, noise=0.2)
    history = []
    filler = RatingDriven(pools, seed=3, batch=200)
    while sum(len(r) for r in history) < verdicts:
        pairs = filler.next_round("q", history)
        history.append([combine_answers(p, judge.judge([p]), round=len(history)) for p in pairs])
    selector = RatingDriven(pools, seed=3, batch=1, runs=runs)
    start = time.perf_counter()
    pairs = selector.next_round("q", history)  # a fresh selector (a resumed run): the fit from zero
    fresh = time.perf_counter() - start
    elapsed = 0.0
    for _ in range(steps):  # pair by pair: each call fits one verdict more, from the last fit
        history = [*history, [combine_answers(p, judge.judge([p]), round=len(history)) for p in pairs]]
        start = time.perf_counter()
        pairs = selector.next_round("q", history)
        elapsed += time.perf_counter() - start
    default = RatingDriven(pools, seed=3, runs=runs)
    start = time.perf_counter()
    chosen = default.next_round("q", history)
    return elapsed / steps, fresh, (time.perf_counter() - start) / len(chosen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    grades = graded(50, 60)
    pools = {q: sorted(g) for q, g in grades.items()}
    cases = {"random": lambda: random_pairs(pools, 1, batch=10), "topk": lambda: TopK(grades, 1, k=5, f=9, p=7)}
    for name, make in cases.items():
        best = min((overhead(name, make, grades) for _ in range(args.repeat)), key=lambda t: t[0] - t[1])
        per, judge, asked = best
        print(f"{name}: {asked} judgments, {1000 * per:.3f} ms each, judge {1000 * judge:.3f} ms, "
              f"engine overhead {1000 * (per - judge):.3f} ms")  # fmt: skip
    for verdicts, systems in ((2000, 0), (10_000, 0), (2000, 12)):
        single, fresh, default = min(rating_next(verdicts=verdicts, systems=systems) for _ in range(args.repeat))
        given = f", {systems} systems" if systems else ""
        print(
            f"rating{given}, 1,000 docs, {verdicts:,} verdicts: next pair {1000 * single:.1f} ms (pair by pair, "
            f"the fit warm-started), {1000 * fresh:.1f} ms for a fresh selector (the fit from zero); "
            f"{1000 * default:.2f} ms a question in rounds of 100"
        )


if __name__ == "__main__":
    main()
