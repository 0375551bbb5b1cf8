"""Benchmark: ``ir_pref_measures.dask.evaluate`` on a ``distributed.LocalCluster`` of 1 and 2 workers beside the
local path, and each worker's peak memory.

Input (seeded, generated chunk by chunk *on the workers*, never on the client: ``dask.dataframe.from_map``):
Q queries, each with D retrieved docs in each of R runs (scores with two decimals, so with ties) and 20 judged
docs (grades 0-3, 10 of them among the retrieved). Chunk k holds queries ``k*C .. (k+1)*C - 1`` (C =
``--chunk``) and is made from the seed ``SEED + k``, so every configuration sees the same data. Each
configuration evaluates the R runs with ``--measures`` (default nDCG@10 (pytrec_eval), ppref@10 and APpref
(ours)), end to end from generation to the per-query values on the client; partitions = Q / C.

- ``local``: the same chunks generated in one process, then the local path
  (:func:`ir_pref_measures.engine.evaluate`), in a fresh process (its peak RSS is its own);
- ``dask N``: a fresh LocalCluster of N single-threaded worker processes; peak = each worker process's peak
  RSS (VmHWM) at the end, the largest and the mean over workers.

Memory per worker is bounded by its partitions: with two sizes (default Q = 4000 and 8000, C = 1000), the
worker peak barely moves while the input doubles, whereas the local peak grows with the input. The issue's
size is ``--queries 200000 --docs 100 --runs 10`` (``--full``); it takes a while on 2 cores.

    python benchmarks/bench_dask.py [--queries 4000 8000] [--docs 100] [--runs 2] [--chunk 1000] [--full]
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd
from harness import peak_rss_mb

SEED = 12
JUDGED, RETRIEVED_JUDGED = 20, 10
MEASURES = ["nDCG@10", "ppref@10", "APpref"]


def chunk(k: int, *, size: int, docs: int, runs: int, kind: str) -> pd.DataFrame:
    """Chunk ``k``: qrels (``kind="qrels"``) or run ``r`` (``kind="run<r>"``) of queries ``k*size ..``."""
    rng = np.random.default_rng([SEED, k])
    n = size
    query_ids = np.array([f"q{k * size + i:07d}" for i in range(n)], dtype=object)
    judged = np.array([f"d{j}" for j in range(JUDGED)], dtype=object)  # doc ids are local to a query
    if kind == "qrels":
        return pd.DataFrame(
            {
                "query_id": np.repeat(query_ids, JUDGED),
                "doc_id": np.tile(judged, n),
                "relevance": rng.choice(4, n * JUDGED, p=[0.5, 0.25, 0.15, 0.1]).astype(np.int64),
            }
        )
    r = int(kind[3:])
    rng = np.random.default_rng([SEED, k, r + 1])
    pool = np.concatenate([judged[:RETRIEVED_JUDGED], np.array([f"u{j}" for j in range(docs)], dtype=object)])
    picks = np.argsort(rng.random((n, len(pool))), axis=1)[:, :docs]
    return pd.DataFrame(
        {
            "query_id": np.repeat(query_ids, docs),
            "doc_id": pool[picks].ravel(),
            "score": np.round(rng.random(n * docs), 2),
        }
    )


def _local(queries: int, size: int, docs: int, runs: int, measures: list[str]) -> tuple[float, float, int]:
    """The local path in this (fresh) process: seconds, peak MB, per-query values."""
    import ir_pref_measures
    from ir_pref_measures.engine import evaluate
    from ir_pref_measures.loading import sources
    from ir_pref_measures.measures.names import parse_measure as parse

    start = time.perf_counter()
    parts = range(queries // size)
    named = {"size": size, "docs": docs, "runs": runs}
    qrels = pd.concat([chunk(k, kind="qrels", **named) for k in parts], ignore_index=True)
    judgments = ir_pref_measures.Judgments.from_qrels(qrels)
    parsed = [parse(m) for m in measures]
    count = 0
    for r in range(runs):
        run = pd.concat([chunk(k, kind=f"run{r}", **named) for k in parts], ignore_index=True)
        count += len(evaluate(parsed, sources.ranking(run), qrels=judgments.qrels(), judgments=judgments))
    return time.perf_counter() - start, peak_rss_mb(), count


def _worker_peak_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _on_cluster(workers: int, queries: int, size: int, docs: int, runs: int, measures: list[str]):
    """A fresh LocalCluster of ``workers`` processes: seconds, worker peaks (MB), per-query values."""
    import dask
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from ir_pref_measures import dask as cluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as local:
        with Client(local) as client:
            client.run(lambda: __import__("ir_pref_measures.dask.dataframes"))  # start-up is not timed
            start = time.perf_counter()
            parts = list(range(queries // size))
            named = {"size": size, "docs": docs, "runs": runs}
            qrels = dd.from_map(chunk, parts, kind="qrels", **named)
            results = [
                cluster.evaluate(qrels, dd.from_map(chunk, parts, kind=f"run{r}", **named), measures)
                for r in range(runs)
            ]
            count = sum(len(frame) for frame in dask.compute(*results))
            seconds = time.perf_counter() - start
            peaks = list(client.run(_worker_peak_mb).values())
    return seconds, peaks, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[4000, 8000])
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=1000, help="queries per partition")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--measures", nargs="+", default=MEASURES)
    parser.add_argument("--full", action="store_true", help="the issue's size: 200000 queries x 100 docs x 10 runs")
    args = parser.parse_args()
    if args.full:
        args.queries, args.docs, args.runs, args.chunk = [200_000], 100, 10, 5000
    rows = []
    for queries in args.queries:
        common = (queries, args.chunk, args.docs, args.runs, args.measures)
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as fresh:
            seconds, peak, count = fresh.submit(_local, *common).result()
        rows.append(("local", queries, seconds, queries / seconds, peak, peak, count))
        for workers in args.workers:
            seconds, peaks, found = _on_cluster(workers, *common)
            if found != count:
                raise SystemExit(f"dask {workers}: {found} values, the local path {count}")
            rows.append((f"dask {workers}", queries, seconds, queries / seconds, max(peaks), np.mean(peaks), found))
    table = pd.DataFrame(
        rows, columns=["variant", "queries", "seconds", "queries/s", "peak MB", "mean peak MB", "values"]
    )
    print(f"{args.docs} docs x {args.runs} runs per query, {args.chunk} queries per partition, {args.measures}")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.1f}"))


if __name__ == "__main__":
    main()
