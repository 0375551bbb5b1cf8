"""Benchmark: the ir_measures calling forms (namedtuple lists, iterators, dicts of dicts, PyTerrier frames)
beside pytrec_eval's nDCG@10 on the same objects, in one process, best of 3.

Input (seeded): graded qrels, 100 judged docs per query, and a run of 1000 docs per query, built once as
ir_measures' ``Qrel``/``ScoredDoc`` lists, then as dicts of dicts and as PyTerrier frames (``qid, docno,
label``/``score``). For each form the floor is ``ir_measures.calc_aggregate([nDCG@10], ...)`` (pytrec_eval);
pytrec_eval reads a PyTerrier frame renamed to ir_measures' columns (as PyTerrier does); ours read it as
it is. Each row's ``x_floor`` is taken against the floor of its form. The variants of a form are timed in
rounds, each round calling every variant once (best of ``--repeat``, default 3), so that a burst of load on a
shared machine falls on the floor and on ours alike; each row also records its best CPU seconds (this process's,
every thread). A last table prints the ratios alone, forms by measure sets.

    python benchmarks/bench_calling_forms.py [--queries 200] [--repeat 3] [--quick]

``--quick``: 5 queries, nothing saved (a smoke test).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from harness import Report

SEED = 35
DOCS, JUDGED = 1000, 100


def make_input(n_queries: int) -> tuple[list, list]:
    """``(qrels, run)`` as lists of ir_measures' ``Qrel`` and ``ScoredDoc``."""
    from ir_measures import Qrel, ScoredDoc

    rng = np.random.default_rng(SEED)
    qrels, run = [], []
    for q in range(n_queries):
        judged = rng.choice(DOCS + JUDGED, JUDGED, replace=False).tolist()
        grades = rng.integers(0, 5, JUDGED).tolist()
        qrels += [Qrel(str(q), f"d{q}_{d}", g) for d, g in zip(judged, grades, strict=True)]
        retrieved = rng.choice(DOCS + JUDGED, DOCS, replace=False).tolist()
        run += [ScoredDoc(str(q), f"d{q}_{d}", s) for d, s in zip(retrieved, rng.random(DOCS).tolist(), strict=True)]
    return qrels, run


IR_MEASURES_NAMES = {"qid": "query_id", "docno": "doc_id", "label": "relevance"}


def as_dicts(rows: list, value: str) -> dict:
    out: dict = {}
    for row in rows:
        out.setdefault(row.query_id, {})[row.doc_id] = getattr(row, value)
    return out


def as_pyterrier(rows: list, value: str) -> pd.DataFrame:
    frame = pd.DataFrame({"qid": [r.query_id for r in rows], "docno": [r.doc_id for r in rows]})
    frame["label" if value == "relevance" else "score"] = [getattr(r, value) for r in rows]
    return frame


def main() -> None:
    import ir_measures

    import ir_pref_measures  # noqa: F401  (registers the measures)

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="5 queries, nothing saved: a smoke test")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; each variant's best is kept")
    args = parser.parse_args()
    if args.quick:
        args.queries = 5
    qrels, run = make_input(args.queries)
    forms = {
        "namedtuple lists": (qrels, run),
        "dicts of dicts": (as_dicts(qrels, "relevance"), as_dicts(run, "score")),
        "PyTerrier frames": (as_pyterrier(qrels, "relevance"), as_pyterrier(run, "score")),
    }
    measures = {
        "nDCG@10 (pytrec_eval)": ["nDCG@10"],
        "ppref@10 + rpref@10 + APpref": ["ppref@10", "rpref@10", "APpref"],
        "PGC(p=0.8)": ["PGC(p=0.8)"],
    }
    report = Report(
        "calling_forms",
        f"{args.queries} queries x {DOCS} docs, {JUDGED} graded per query; ir_measures.calc_aggregate",
        quick=args.quick,
    )
    for form, (q, r) in forms.items():
        calls = {}
        for label, names in measures.items():
            parsed = [ir_measures.parse_measure(n) for n in names]
            if label.startswith("nDCG") and form == "PyTerrier frames":  # ir_measures reads its own column names
                qq, rr = (f.rename(columns=IR_MEASURES_NAMES) for f in (q, r))
            else:
                qq, rr = q, r
            calls[f"{label}, {form}"] = lambda p=parsed, q=qq, r=rr: ir_measures.calc_aggregate(p, q, r)
        floor = next(iter(calls))  # the first variant of each form: pytrec_eval's nDCG@10
        for variant, (seconds, cpu) in rounds(calls, args.repeat).items():
            report.add(variant, seconds, floor=floor, cpu=cpu)
    report.save()
    print_matrix(report.ratios(), list(forms), list(measures)[1:])


def rounds(calls: dict, repeat: int) -> dict[str, tuple[float, float]]:
    """``repeat`` rounds, each calling every one of ``calls`` once: per call its best wall and CPU seconds."""
    best = {name: (float("inf"), float("inf")) for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            wall, cpu = time.perf_counter(), time.process_time()
            call()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    return best


def print_matrix(rows: list[dict], forms: list[str], measure_sets: list[str]) -> None:
    """The ratios to pytrec_eval's nDCG@10 on the same objects, wall (CPU), forms by measure sets."""
    by_variant = {r["variant"]: r for r in rows}
    floors = {r["variant"]: r for r in rows if r["variant"] == r["floor"]}
    print(f"\n{'x pytrec_eval nDCG@10, wall (CPU)':34s}" + "".join(f"{m:>32s}" for m in measure_sets))
    for form in forms:
        cells = []
        for measures in measure_sets:
            row = by_variant[f"{measures}, {form}"]
            cpu = row["cpu"] / floors[row["floor"]]["cpu"]
            cells.append(f"{row['x_floor']:.2f}x ({cpu:.2f}x)")
        print(f"{form:34s}" + "".join(f"{c:>32s}" for c in cells))


if __name__ == "__main__":
    main()
