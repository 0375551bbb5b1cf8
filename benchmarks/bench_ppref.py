"""Benchmark: ppref@10, rpref@10 and APpref beside pytrec_eval's nDCG@10 on the same input.

Input (seeded): 200 queries x 1000 retrieved docs, 100 judged docs per query. Judgments two ways:
graded qrels (preferences derived from grades), and explicit preferences: every pair among 95 good
docs (4,465 per query; equal latent grades written as duplicates) plus 5 bad docs. Every variant runs
in a fresh process, from in-memory frames through ``ir_measures.calc_aggregate`` (the call users make),
and reports wall time and peak RSS. ``--reference PATH`` also times Elsas' pairwise_pref_eval.py (needs
``python2``) on the explicit preferences written to files.

    python benchmarks/bench_ppref.py [--queries 200] [--reference path/to/pairwise_pref_eval.py]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from harness import peak_rss_mb

SEED = 2008
DOCS, JUDGED, BAD = 1000, 100, 5


def make_input(n_queries: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``(qrels, prefs, run)``, built with numpy (no Python object per line)."""
    rng = np.random.default_rng(SEED)
    pool = DOCS + JUDGED
    judged = np.argsort(rng.random((n_queries, pool)), axis=1)[:, :JUDGED]  # per query: judged doc numbers
    grades = rng.choice(5, size=(n_queries, JUDGED), p=[0.4, 0.25, 0.15, 0.1, 0.1])
    retrieved = np.argsort(rng.random((n_queries, pool)), axis=1)[:, :DOCS]
    grade_of = np.zeros((n_queries, pool), dtype=np.int64)
    np.put_along_axis(grade_of, judged, grades, axis=1)
    scores = np.take_along_axis(grade_of, retrieved, axis=1) + rng.normal(0, 2.0, size=(n_queries, DOCS))

    def names(q: np.ndarray, d: np.ndarray) -> np.ndarray:
        return np.char.add(np.char.add("doc", q.astype(str)), np.char.add("_", d.astype(str)))

    qid = np.arange(n_queries)[:, None]
    qrels = pd.DataFrame(
        {
            "query_id": np.repeat(np.arange(n_queries), JUDGED).astype(str),
            "doc_id": names(np.broadcast_to(qid, judged.shape).ravel(), judged.ravel()),
            "relevance": grades.ravel(),
        }
    )
    good = JUDGED - BAD
    latent = rng.integers(1, 5, size=(n_queries, good))
    a, b = np.triu_indices(good, k=1)
    value = np.sign(latent[:, b] - latent[:, a])  # -1: a preferred, 1: b preferred, 0: duplicates
    q_pairs = np.broadcast_to(qid, value.shape).ravel()
    q_bad = np.broadcast_to(qid, (n_queries, BAD)).ravel()
    prefs = pd.DataFrame(
        {
            "query_id": np.concatenate([q_pairs, q_bad]).astype(str),
            "doc_id_a": np.concatenate([names(q_pairs, judged[:, a].ravel()), names(q_bad, judged[:, good:].ravel())]),
            "doc_id_b": np.concatenate([names(q_pairs, judged[:, b].ravel()), np.full(len(q_bad), "NA")]),
            "preference": np.concatenate([value.ravel(), np.full(len(q_bad), -2)]),
        }
    )
    run = pd.DataFrame(
        {
            "query_id": np.repeat(np.arange(n_queries), DOCS).astype(str),
            "doc_id": names(np.broadcast_to(qid, retrieved.shape).ravel(), retrieved.ravel()),
            "score": scores.ravel(),
        }
    )
    return qrels, prefs, run


def measure_one(variant: str, folder: Path) -> dict:
    import ir_measures
    import pytrec_eval

    import ir_pref_measures as ipm  # registers the measures
    from ir_pref_measures.model.judgments import Judgments

    qrels, prefs, run = (pd.read_pickle(folder / f"{name}.pkl") for name in ("qrels", "prefs", "run"))
    ours = [ir_measures.parse_measure(m) for m in ("ppref@10", "rpref@10", "APpref")]
    start = time.perf_counter()
    if variant == "nDCG@10 (ir_measures -> pytrec_eval)":
        ir_measures.calc_aggregate([ir_measures.parse_measure("nDCG@10")], qrels, run)
    elif variant == "nDCG@10 (pytrec_eval on dicts)":
        qrels_dict = {
            q: dict(zip(g.doc_id, g.relevance.astype(int), strict=True)) for q, g in qrels.groupby("query_id")
        }
        run_dict = {q: dict(zip(g.doc_id, g.score, strict=True)) for q, g in run.groupby("query_id")}
        start = time.perf_counter()
        pytrec_eval.RelevanceEvaluator(qrels_dict, {"ndcg_cut.10"}).evaluate(run_dict)
    elif variant == "ppref family, derived from grades":
        ir_measures.calc_aggregate(ours, qrels, run)
    elif variant == "ppref family, explicit preferences":
        ir_measures.calc_aggregate(ours, Judgments.from_preferences(prefs), run)
    elif variant == "ppref family, explicit, no closure":
        ir_measures.calc_aggregate([m(transitive=False) for m in ours], Judgments.from_preferences(prefs), run)
    elif variant == "ppref family, explicit, from TREC files":
        judgments = ipm.load_judgments(folder / "prefs.txt", format="carterette")
        ir_measures.calc_aggregate(ours, judgments, ipm.as_ranking(folder / "run.txt"))
    seconds = time.perf_counter() - start
    return {"variant": variant, "seconds": seconds, "peak_mb": peak_rss_mb()}


VARIANTS = [
    "nDCG@10 (ir_measures -> pytrec_eval)",
    "nDCG@10 (pytrec_eval on dicts)",
    "ppref family, derived from grades",
    "ppref family, explicit preferences",
    "ppref family, explicit, no closure",
    "ppref family, explicit, from TREC files",
]


def write_input(n_queries: int, folder: Path) -> int:
    """Pickles for the in-memory variants and TREC files for the file variants; the number of prefs."""
    qrels, prefs, run = make_input(n_queries)
    for name, frame in (("qrels", qrels), ("prefs", prefs), ("run", run)):
        frame.to_pickle(folder / f"{name}.pkl")
    prefs.to_csv(folder / "prefs.txt", sep=" ", header=False, index=False)
    trec = run.assign(Q0="Q0", rank=run.groupby("query_id").cumcount() + 1, tag="bench")
    trec[["query_id", "Q0", "doc_id", "rank", "score", "tag"]].to_csv(
        folder / "run.txt", sep=" ", header=False, index=False
    )
    return len(prefs)


def reference_seconds(tool: str, folder: Path) -> float | None:
    python2 = shutil.which("python2")
    if python2 is None:
        print("  (python2 not found: the reference tool is not timed)")
        return None
    start = time.perf_counter()
    subprocess.run([python2, tool, str(folder / "prefs.txt"), str(folder / "run.txt")], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--reference", help="path to pairwise_pref_eval.py (run with python2)")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one[0], Path(args.one[1]))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        n_prefs = write_input(args.queries, Path(tmp))
        print(
            f"{args.queries} queries x {DOCS} retrieved docs, {JUDGED} judged per query, {n_prefs:,} preference lines"
        )
        print("each row runs in a fresh process (peak MB = that process's peak RSS, input included)")
        results = {}
        for variant in VARIANTS:
            out = subprocess.run(
                [sys.executable, __file__, "--one", variant, tmp], check=True, capture_output=True, text=True
            )
            results[variant] = json.loads(out.stdout.strip().splitlines()[-1])
        reference = reference_seconds(args.reference, Path(tmp)) if args.reference else None
    floor = results[VARIANTS[0]]["seconds"]
    print(f"{'variant':40s} {'seconds':>8s} {'x nDCG@10':>10s} {'peak MB':>8s}")
    for variant, r in results.items():
        print(f"{variant:40s} {r['seconds']:8.3f} {r['seconds'] / floor:10.2f} {r['peak_mb']:8.0f}")
    if reference is not None:
        ours = results[VARIANTS[-1]]["seconds"]
        print(f"pairwise_pref_eval.py on the same files: {reference:.1f} s ({reference / ours:.0f}x ours)")


if __name__ == "__main__":
    main()
