"""Benchmark: PGC and Compatibility beside ir_measures' Compat (pure Python) and pytrec_eval's nDCG@10.

Inputs: TREC CAsT 2019 (16 DECAF runs x 194 topics x 100 docs; graded qrels, i.e. the thesis' "derived"
graphs of ~5,550 edges per topic; also the "combined" graphs with the crowd preferences), read from
``../shared/testdata`` (or ``IR_PREF_MEASURES_TESTDATA``), and the seeded synthetic input of
``bench_ppref.py`` (200 queries x 1000 docs, 100 graded docs per query). Every variant runs in a fresh
process through ``ir_measures.calc_aggregate`` (the call users make) and reports wall time, including
reading the files for CAsT, and peak RSS; ratios are against pytrec_eval's nDCG@10 on the same input.

    python benchmarks/bench_pgc.py [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_ppref import make_input  # noqa: E402  (the shared synthetic input)
from harness import peak_rss_mb  # noqa: E402

TESTDATA = Path(os.environ.get("IR_PREF_MEASURES_TESTDATA", HERE.parent.parent / "shared" / "testdata"))
CAST_RUNS = [TESTDATA / "cast2019_runs_decaf" / f"decaf_exp{i}.run.gz" for i in range(1, 17)]
CAST_QRELS = TESTDATA / "cast2019_qrels" / "2019qrels.txt"
CAST_PREFS = TESTDATA / "cast2019_toppref" / "TREC-CAsT-2019.pref"

OURS = {"PGC": "PGC(p=0.8)", "Compatibility": "Compatibility"}
VARIANTS = {
    "cast": [
        "nDCG@10 (pytrec_eval on dicts)",
        "nDCG@10 (ir_measures -> pytrec_eval)",
        "Compat (ir_measures, pure Python)",
        "PGC, derived",
        "Compatibility",
        "PGC, combined graphs",
    ],
    "synthetic": [
        "nDCG@10 (pytrec_eval on dicts)",
        "nDCG@10 (ir_measures -> pytrec_eval)",
        "Compat (ir_measures, pure Python)",
        "PGC, derived",
        "Compatibility",
    ],
}


def _inputs(source: str, folder: Path):
    """``(judgments source, runs)``; for CAsT the files are read inside the timed part."""
    from ir_pref_measures.parsing.formats import read_qrels, read_run

    if source == "synthetic":
        return pd.read_pickle(folder / "qrels.pkl"), [pd.read_pickle(folder / "run.pkl")]
    qrels = read_qrels(CAST_QRELS)[["query_id", "doc_id", "relevance"]]
    return qrels, [read_run(path)[["query_id", "doc_id", "score"]] for path in CAST_RUNS]


def measure_one(source: str, variant: str, folder: Path) -> dict:
    import ir_measures
    import pytrec_eval

    import ir_pref_measures  # noqa: F401  (registers the measures)
    from ir_pref_measures import load_judgments
    from ir_pref_measures.model.judgments import combine

    if source == "synthetic":
        qrels, runs = _inputs(source, folder)
        start = time.perf_counter()
    else:
        start = time.perf_counter()
        qrels, runs = _inputs(source, folder)
    if variant == "nDCG@10 (pytrec_eval on dicts)":
        qrels_dict = {
            q: dict(zip(g.doc_id, g.relevance.astype(int), strict=True)) for q, g in qrels.groupby("query_id")
        }
        evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, {"ndcg_cut.10"})
        for run in runs:
            evaluator.evaluate({q: dict(zip(g.doc_id, g.score, strict=True)) for q, g in run.groupby("query_id")})
    elif variant == "nDCG@10 (ir_measures -> pytrec_eval)":
        evaluator = ir_measures.evaluator([ir_measures.parse_measure("nDCG@10")], qrels)
        for run in runs:
            evaluator.calc_aggregate(run)
    elif variant == "Compat (ir_measures, pure Python)":
        evaluator = ir_measures.evaluator([ir_measures.parse_measure("Compat(p=0.8)")], qrels)
        for run in runs:
            evaluator.calc_aggregate(run)
    else:
        judgments = load_judgments(qrels)
        if variant == "PGC, combined graphs":
            judgments = combine(judgments, load_judgments(CAST_PREFS, format="winner"))
        name = OURS["Compatibility" if variant == "Compatibility" else "PGC"]
        evaluator = ir_measures.evaluator([ir_measures.parse_measure(name)], judgments)
        for run in runs:
            evaluator.calc_aggregate(run)
    return {"seconds": time.perf_counter() - start, "peak_mb": peak_rss_mb()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--one", nargs=3, metavar=("SOURCE", "VARIANT", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one[0], args.one[1], Path(args.one[2]))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        qrels, _, run = make_input(args.queries)
        qrels.to_pickle(folder / "qrels.pkl")
        run.to_pickle(folder / "run.pkl")
        sources = ["synthetic"] + (["cast"] if all(p.exists() for p in (*CAST_RUNS, CAST_QRELS, CAST_PREFS)) else [])
        for source in sources:
            title = (
                f"{args.queries} queries x 1000 docs, 100 graded per query, 1 run"
                if source == "synthetic"
                else "TREC CAsT 2019: 16 runs x 194 topics x 100 docs, graded qrels (read from files)"
            )
            print(f"\n{title}")
            print(f"{'variant':40} {'seconds':>8} {'x nDCG':>7} {'x Compat':>9} {'peak MB':>8}")
            results = {}
            for variant in VARIANTS[source]:
                command = [sys.executable, __file__, "--one", source, variant, str(folder)]
                out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
                results[variant] = json.loads(out.strip().splitlines()[-1])
            floor = results["nDCG@10 (pytrec_eval on dicts)"]["seconds"]
            compat = results["Compat (ir_measures, pure Python)"]["seconds"]
            for variant, r in results.items():
                print(
                    f"{variant:40} {r['seconds']:8.3f} {r['seconds'] / floor:7.2f} "
                    f"{r['seconds'] / compat:9.3f} {r['peak_mb']:8.0f}"
                )


if __name__ == "__main__":
    main()
