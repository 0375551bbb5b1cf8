"""Benchmark: one large query: combined judgments, long preference chains, huge RBO depths.

Workloads (seeded, one query each; the run ranks ``RUN_DEPTH`` docs drawn from the judged ones, scored by
grade plus noise):

* ``graded N``: N graded docs (grades 0-4), no explicit pairs: the graded-only fast path, the floor;
* ``combined N``: the same N graded docs plus 100 explicit pairs between random graded docs, random
  direction (the "combined" graphs of Luo 2021): every derived pair a -> b for grade(a) > grade(b) plus
  the explicit ones, closed transitively by the ppref family;
* ``chain``: 99,999 explicit pairs d0 > d1 > d2 > ... (ppref@10 with the transitive closure: about 5e9
  pairs, which the library refuses at once with a clear error);
* ``cyclic N``: 2,000,000 explicit pairs between random docs of N, random direction (cycles everywhere, as
  noisy judges make them): Greedy PGC's feedback-arc-set order of the whole graph;
* ``PGC(depth=10**9)`` on the graded 10,000-doc query.

Every variant runs in a fresh process through ``ir_measures.calc_aggregate`` and reports wall time and
peak RSS (VmHWM); each child is capped (``--cap-gb`` of address space, ``--timeout`` seconds), so a
variant that blows up is reported as such instead of taking the machine down.

    python benchmarks/bench_large_query.py [--only SUBSTRING] [--cap-gb 12] [--timeout 300]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from harness import peak_rss_mb

SEED = 11
RUN_DEPTH = 1000
N_PAIRS = 100
CHAIN = 100_000
CYCLIC_PAIRS = 2_000_000


def make_graded(n_docs: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``(qrels, prefs, run)`` of one query with ``n_docs`` graded docs and ``N_PAIRS`` explicit pairs."""
    rng = np.random.default_rng(SEED)
    docs = np.char.add("d", np.arange(n_docs).astype(str))
    grades = rng.choice(5, size=n_docs, p=[0.4, 0.25, 0.15, 0.1, 0.1])
    qrels = pd.DataFrame({"query_id": "q1", "doc_id": docs, "relevance": grades})
    a = rng.integers(0, n_docs, N_PAIRS)
    b = (a + rng.integers(1, n_docs, N_PAIRS)) % n_docs  # never a == b
    prefs = pd.DataFrame({"query_id": "q1", "doc_id_a": docs[a], "doc_id_b": docs[b], "preference": -1})
    score = grades + rng.normal(0, 2.0, n_docs)
    top = np.argsort(-score, kind="stable")[:RUN_DEPTH]
    run = pd.DataFrame({"query_id": "q1", "doc_id": docs[top], "score": score[top]})
    return qrels, prefs, run


def make_chain() -> tuple[pd.DataFrame, pd.DataFrame]:
    docs = np.char.add("d", np.arange(CHAIN).astype(str))
    prefs = pd.DataFrame({"query_id": "q1", "doc_id_a": docs[:-1], "doc_id_b": docs[1:], "preference": -1})
    rng = np.random.default_rng(SEED)
    top = rng.permutation(CHAIN)[:RUN_DEPTH]
    run = pd.DataFrame({"query_id": "q1", "doc_id": docs[top], "score": -np.arange(RUN_DEPTH, dtype=float)})
    return prefs, run


def make_cyclic(n_docs: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(prefs, run)`` of one query: ``CYCLIC_PAIRS`` pairs between random docs (a != b) of ``n_docs``."""
    rng = np.random.default_rng(SEED)
    docs = np.char.add("d", np.arange(n_docs).astype(str))
    a = rng.integers(0, n_docs, CYCLIC_PAIRS)
    b = (a + rng.integers(1, n_docs, CYCLIC_PAIRS)) % n_docs
    prefs = pd.DataFrame({"query_id": "q1", "doc_id_a": docs[a], "doc_id_b": docs[b], "preference": -1})
    top = rng.permutation(n_docs)[:RUN_DEPTH]
    run = pd.DataFrame({"query_id": "q1", "doc_id": docs[top], "score": -np.arange(RUN_DEPTH, dtype=float)})
    return prefs, run


# variant name -> (workload, measure)
VARIANTS = {
    "graded 10,000: PGC (floor)": ("graded", 10_000, "PGC"),
    "graded 10,000: APpref": ("graded", 10_000, "APpref"),
    "combined 10,000 + 100 pairs: PGC": ("combined", 10_000, "PGC"),
    "combined 10,000 + 100 pairs: APpref": ("combined", 10_000, "APpref"),
    "combined 20,000 + 100 pairs: PGC": ("combined", 20_000, "PGC"),
    "combined 20,000 + 100 pairs: APpref": ("combined", 20_000, "APpref"),
    "combined 100,000 + 100 pairs: PGC": ("combined", 100_000, "PGC"),
    "combined 100,000 + 100 pairs: APpref": ("combined", 100_000, "APpref"),
    "chain 99,999 pairs: ppref@10": ("chain", CHAIN, "ppref@10"),
    "cyclic 2,000 docs, 2,000,000 pairs: PGC": ("cyclic", 2_000, "PGC"),
    "cyclic 20,000 docs, 2,000,000 pairs: PGC": ("cyclic", 20_000, "PGC"),
    "graded 10,000: PGC(depth=10**9)": ("graded", 10_000, "PGC(depth=1000000000)"),
}


def measure_one(variant: str) -> dict:
    import ir_measures

    import ir_pref_measures  # noqa: F401  (registers the measures)
    from ir_pref_measures.errors import InputError
    from ir_pref_measures.model.judgments import Judgments, combine

    workload, size, measure = VARIANTS[variant]
    if workload == "chain":
        prefs, run = make_chain()
    elif workload == "cyclic":
        prefs, run = make_cyclic(size)
    else:
        qrels, prefs, run = make_graded(size)
    start = time.perf_counter()
    if workload in ("chain", "cyclic"):
        judgments = Judgments.from_preferences(prefs)
    elif workload == "combined":
        judgments = combine(Judgments.from_qrels(qrels), Judgments.from_preferences(prefs))
    else:
        judgments = Judgments.from_qrels(qrels)
    try:
        value = ir_measures.calc_aggregate([ir_measures.parse_measure(measure)], judgments, run)
        outcome = f"{next(iter(value.values())):.6f}"
    except InputError as error:
        outcome = f"InputError: {str(error)[:90]}"
    seconds = time.perf_counter() - start
    return {"variant": variant, "seconds": seconds, "peak_mb": peak_rss_mb(), "outcome": outcome}


def run_child(variant: str, cap_gb: float, timeout: float) -> dict:
    def limit() -> None:
        cap = int(cap_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    start = time.perf_counter()
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--one", variant],
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=limit,
        )
    except subprocess.TimeoutExpired:
        return {"variant": variant, "seconds": float("nan"), "peak_mb": float("nan"), "outcome": f"> {timeout:.0f} s"}
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["killed"])[-1][:60]
        took = time.perf_counter() - start
        return {
            "variant": variant,
            "seconds": float("nan"),
            "peak_mb": float("nan"),
            "outcome": f"{last} ({took:.0f} s)",
        }
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="run only the variants whose name contains this")
    parser.add_argument("--cap-gb", type=float, default=12.0, help="address-space cap per child (GB)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per child")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one)))
        return
    floor_name = next(iter(VARIANTS))
    names = [v for v in VARIANTS if args.only is None or args.only in v or v == floor_name]
    print("one query per variant; each row runs in a fresh process (peak MB = its peak RSS, input included)")
    results = [run_child(v, args.cap_gb, args.timeout) for v in names]
    floor = results[0]
    print(f"{'variant':42s} {'seconds':>8s} {'x floor':>8s} {'peak MB':>8s} {'x floor':>8s}  result")
    for r in results:
        print(
            f"{r['variant']:42s} {r['seconds']:8.2f} {r['seconds'] / floor['seconds']:8.1f} "
            f"{r['peak_mb']:8.0f} {r['peak_mb'] / floor['peak_mb']:8.1f}  {r['outcome']}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
