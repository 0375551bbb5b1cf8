"""Benchmark: tie-aware RBO between two runs beside the plain RBO of Compatibility and the reference rbo.py.

Input (seeded, synthetic): two runs of 10,000 queries x 1,000 docs, each drawn from a pool of 1,500 docs per
query (about two thirds shared), scores rounded to 1/200 so that ties are common (groups of ~5 docs).

Timed (best of ``--repeat``, in one process; CPU time beside wall time, as the machine may be shared):

* ``rbo_between``: the whole comparison from the two :class:`Ranking` objects (tie groups, matching the
  docs of the two runs, the kernel), RBO^a with ext, min, max and res;
* ``tied_rbo`` kernel alone, for each of w, a, b (the tie groups and shared positions given);
* floor: ``measures.rbo.rbo_sums``, the untied depth-1000 RBO that Compatibility and PGC use, on the same
  shared positions (one score instead of four; ratios are against it);
* peer: Corsi and Urbano's reference ``rbo/Python/rbo.py`` (MIT; read from the git mirror given by
  ``--reference-repo`` into a temporary folder, never stored here) on ``--reference-queries`` queries, the
  time extrapolated to all queries.

Peak RSS of the process is printed last: with the two runs, after ``rbo_between``, and at the end.

    python benchmarks/bench_tied_rbo.py [--queries 10000] [--depth 1000]
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from ir_pref_measures.comparison import rbo_between
from ir_pref_measures.measures.rbo import rbo_sums
from ir_pref_measures.measures.tied_rbo import TiedLists, tied_rbo
from ir_pref_measures.model.rankings import Ranking


def make_run(rng: np.random.Generator, queries: int, depth: int, pool: int) -> Ranking:
    """A run: per query ``depth`` docs of a pool of ``pool``, by rounded score descending (ties kept adjacent)."""
    names = pa.array([f"doc{k}" for k in range(pool)])
    docs = np.argsort(rng.random((queries, pool)), axis=1)[:, :depth]
    scores = -np.sort(-np.round(rng.random((queries, depth)) * 200) / 200, axis=1)
    return Ranking(
        query_ids=np.array([f"q{k:05d}" for k in range(queries)], dtype=object),
        offsets=np.arange(queries + 1, dtype=np.int64) * depth,
        doc_text=names.take(pa.array(docs.ravel())),
        scores=scores.ravel(),
    )


def best(repeat: int, call) -> tuple[float, float]:
    """(wall, CPU) seconds of the fastest of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        times.append((time.perf_counter() - wall, time.process_time() - cpu))
    return min(times)


def reference_rbo(repo: str):
    """The reference ``rbo`` function, from the mirror's HEAD, or ``None`` when the mirror is absent."""
    try:
        source = subprocess.run(
            ["git", "--git-dir", repo, "show", "HEAD:rbo/Python/rbo.py"], check=True, capture_output=True, text=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    path = Path(tempfile.mkdtemp(prefix="sigir2024_rbo_")) / "rbo_reference.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("rbo_reference", path)
    module = importlib.util.module_from_spec(spec)
    if not hasattr(np, "in1d"):
        np.in1d = np.isin
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reference-repo", default="/work/.mirror/julian-urbano+sigir2024-rbo/repo")
    parser.add_argument("--reference-queries", type=int, default=10)
    args = parser.parse_args()
    rng = np.random.default_rng(2024)
    pool = args.depth * 3 // 2
    a, b = make_run(rng, args.queries, args.depth, pool), make_run(rng, args.queries, args.depth, pool)
    print(f"input: 2 runs x {args.queries} queries x {args.depth} docs (pool {pool}), ties by score rounded to 1/200")

    inputs_rss = peak_rss_mb()
    whole = best(args.repeat, lambda: rbo_between(a, b, a.query_ids))
    whole_rss = peak_rss_mb()

    # the kernel's inputs, as rbo_between makes them
    lists_a = TiedLists.from_scores(a.scores, np.diff(a.offsets))
    lists_b = TiedLists.from_scores(b.scores, np.diff(b.offsets))
    query = np.repeat(np.arange(args.queries), args.depth)
    rank_b = b.rank_in(query, a.doc_text)
    shared = np.flatnonzero(np.isfinite(rank_b))
    pos_a = (np.arange(len(query)) - a.offsets[query])[shared]
    q, pos_b = query[shared], (rank_b[shared] - 1).astype(np.int64)
    print(
        f"shared docs per query: {len(shared) / args.queries:.0f}; tie groups per query: "
        f"{np.count_nonzero(lists_a.top == np.arange(len(query)) - a.offsets[query]) / args.queries:.0f}"
    )

    floor = best(args.repeat, lambda: rbo_sums(q, np.maximum(pos_a, pos_b) + 1, args.queries, 0.9, 1000))
    rows = [("floor: plain RBO (rbo_sums, depth 1000)", floor)]
    rows.append(("rbo_between, ties=a, from two Rankings", whole))
    for ties in ("w", "a", "b"):
        timing = best(args.repeat, lambda ties=ties: tied_rbo(lists_a, lists_b, q, pos_a, pos_b, 0.9, ties))
        rows.append((f"tied_rbo kernel, ties={ties}", timing))
    reference = reference_rbo(args.reference_repo)
    if reference is not None:
        n = args.reference_queries
        docs = a.doc_ids
        other = b.doc_ids

        def lists(run, names, k):
            lo, hi = run.offsets[k], run.offsets[k + 1]
            return reference.extract_ranking(list(names[lo:hi]), run.scores[lo:hi])

        pairs = [(lists(a, docs, k), lists(b, other, k)) for k in range(n)]
        wall, cpu = best(1, lambda: [reference.rbo(x, y, 0.9, ties="a") for x, y in pairs])
        rows.append(
            (
                f"peer: reference rbo.py, ties=a ({n} queries, extrapolated)",
                (wall * args.queries / n, cpu * args.queries / n),
            )
        )
    print(f"{'variant':58s} {'wall s':>9s} {'CPU s':>9s} {'x floor (CPU)':>14s}")
    for name, (wall, cpu) in rows:
        print(f"{name:58s} {wall:9.3f} {cpu:9.3f} {cpu / floor[1]:14.2f}")
    print(f"peak RSS: {inputs_rss:.0f} MB with the two runs, {whole_rss:.0f} MB after rbo_between, ", end="")
    print(f"{peak_rss_mb():.0f} MB at the end (the kernel's inputs, the floor and the reference held too)")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    sys.exit(main())
