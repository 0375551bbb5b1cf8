"""Benchmark: ir_measures' standard measures (nDCG@10 by default) of one run through the engine, on a seeded input.

Input (seeded): 1,000 queries x 1,000 retrieved docs, 100 judged docs per query (grades 0-3), as a DataFrame qrels
and a :class:`~ir_pref_measures.Ranking`. Each case runs in a fresh Python process and prints its wall time (best of
``--repeat``, after one warm-up), the ratio to pytrec_eval's ``evaluate`` alone, and the child's peak RSS (VmHWM):

* ``columnar``: ``engine.evaluate`` (the kernels of ``measures/graded.py``), from the qrels frame and the Ranking to
  the per-query metrics;
* ``ir_measures``: the path the engine took before the kernels, and still takes for a measure they do not
  compute: ``checks.integer_qrels`` and ``ir_measures.iter_calc`` on the run's ranks (``ranked_frame``);
* ``pytrec_eval``: ``RelevanceEvaluator.evaluate`` alone, on dicts built beforehand (the floor of that path), when
  every measure is one of pytrec_eval's (:data:`PYTREC_EVAL`); else (``RBP(rel=1)``: cwl_eval's) the ratios are to
  the ``ir_measures`` path, its provider's own.

    python benchmarks/bench_trec_eval.py [--queries 1000] [--docs 1000] [--measures nDCG@10 AP P@10] [--repeat 3]
    python benchmarks/bench_trec_eval.py --measures "RBP(rel=1)" --repeat 1

The rows are saved to ``results/trec_eval.json`` (for the default measure; ``--quick``: 10 queries x 50 docs, once,
nothing saved).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import numpy as np
import pandas as pd
from harness import Report, best_seconds, peak_rss_mb

SEED = 20240611
JUDGED = 100
PYTREC_EVAL = {"nDCG@10": "ndcg_cut_10", "AP": "map", "P@10": "P_10", "nDCG": "ndcg", "RR": "recip_rank"}


def make_input(n_queries: int, n_docs: int):
    from ir_pref_measures import as_ranking

    rng = np.random.default_rng(SEED)
    query = np.repeat(np.char.add("q", np.arange(n_queries).astype(str)), n_docs)
    doc = np.char.add(
        "d", rng.permuted(np.tile(np.arange(2 * n_docs), (n_queries, 1)), axis=1)[:, :n_docs].ravel().astype(str)
    )
    run = pd.DataFrame({"query_id": query, "doc_id": doc, "score": rng.normal(size=len(query)).round(3)})
    judged = rng.random(len(query)) < JUDGED / n_docs
    qrels = pd.DataFrame(
        {
            "query_id": query[judged],
            "doc_id": doc[judged],
            "relevance": rng.choice(4, size=int(judged.sum()), p=[0.6, 0.2, 0.12, 0.08]),
        }
    )
    return qrels, as_ranking(run)


def case(name: str, n_queries: int, n_docs: int, measures: list[str], repeat: int) -> dict:
    import ir_measures

    import ir_pref_measures  # noqa: F401 (registers RBPResidual)
    from ir_pref_measures import engine
    from ir_pref_measures.model import checks

    qrels, ranking = make_input(n_queries, n_docs)
    parsed = [ir_measures.parse_measure(m) for m in measures]
    if name == "columnar":

        def work():
            return engine.evaluate(parsed, ranking, qrels=qrels)
    elif name == "ir_measures":

        def work():
            return list(
                ir_measures.iter_calc(parsed, checks.integer_qrels(parsed, qrels), engine.ranked_frame(ranking))
            )
    else:
        import pytrec_eval

        run = ir_measures.util.RunConverter(engine.ranked_frame(ranking)).as_dict_of_dict()
        judgments = ir_measures.util.QrelsConverter(qrels).as_dict_of_dict()
        evaluator = pytrec_eval.RelevanceEvaluator(judgments, {PYTREC_EVAL[m] for m in measures})

        def work():
            return evaluator.evaluate(run)

    work()  # the warm-up
    return {"seconds": best_seconds(work, repeat), "peak_rss_mb": peak_rss_mb()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--measures", nargs="+", default=["nDCG@10"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="10 queries x 50 docs, once, nothing saved")
    args = parser.parse_args()
    if args.quick:
        args.queries, args.docs, args.repeat = 10, 50, 1
    if args.case:
        print(json.dumps(case(args.case, args.queries, args.docs, args.measures, args.repeat)))
        return
    results = {}
    floor_name = "pytrec_eval" if all(m in PYTREC_EVAL for m in args.measures) else "ir_measures"
    for name in ("pytrec_eval", "ir_measures", "columnar")[floor_name == "ir_measures" :]:
        argv = [sys.executable, __file__, "--case", name, "--queries", str(args.queries), "--docs", str(args.docs)]
        argv += ["--repeat", str(args.repeat), "--measures", *args.measures]
        results[name] = json.loads(subprocess.run(argv, check=True, capture_output=True, text=True).stdout)
    floor = results[floor_name]["seconds"]
    floor_label = "pytrec_eval.evaluate" if floor_name == "pytrec_eval" else "the ir_measures path"
    inputs = f"{args.queries} queries x {args.docs} docs, {' '.join(args.measures)}"
    print(inputs)
    named = args.measures == ["nDCG@10"]  # the other measure sets are printed only
    report = Report("trec_eval", f"{inputs}; best of {args.repeat}", floor=floor_name, quick=args.quick or not named)
    for name, result in results.items():
        print(
            f"{name:12s} {result['seconds']:8.3f} s  {result['seconds'] / floor:8.4f} x {floor_label}  "
            f"peak RSS {result['peak_rss_mb']:7.1f} MB"
        )
        report.add(name, result["seconds"], result["peak_rss_mb"])
    report.save(quiet=True)


if __name__ == "__main__":
    main()
