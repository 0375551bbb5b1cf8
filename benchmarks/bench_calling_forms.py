"""Benchmark: the ir_measures calling forms (namedtuple lists, iterators, dicts of dicts, PyTerrier frames)
beside pytrec_eval's nDCG@10 on the same objects, in one process, best of 3.

Input (seeded): graded qrels, 100 judged docs per query, and a run of 1000 docs per query, built once as
ir_measures' ``Qrel``/``ScoredDoc`` lists, then as dicts of dicts and as PyTerrier frames (``qid, docno,
label``/``score``). For each form the floor is ``ir_measures.calc_aggregate([nDCG@10], ...)`` (pytrec_eval);
pytrec_eval reads a PyTerrier frame renamed to ir_measures' columns (as PyTerrier does); ours read it as
it is. Each row's ``x_floor`` is taken against the floor of its form.

    python benchmarks/bench_calling_forms.py [--queries 200] [--quick]

``--quick``: 5 queries, nothing saved (a smoke test).
"""

from __future__ import annotations

import argparse

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
        floor = None  # the first row of each form: pytrec_eval's nDCG@10
        for label, names in measures.items():
            parsed = [ir_measures.parse_measure(n) for n in names]
            if form == "PyTerrier frames" and label.startswith("nDCG"):  # ir_measures reads its own column names
                q, r = (f.rename(columns=IR_MEASURES_NAMES) for f in (q, r))
            call = lambda p=parsed, q=q, r=r: ir_measures.calc_aggregate(p, q, r)  # noqa: E731
            variant = f"{label}, {form}"
            floor = floor or variant
            report.time(variant, call, floor=floor)
    report.save()


if __name__ == "__main__":
    main()
