"""Benchmark: ``ir-pref-measures compare`` (pairwise run comparison) on a seeded input, end to end.

Input (seeded): 10 runs x 200 evaluated queries (201 in the qrels, one without relevant docs) x 1000
retrieved docs, about 100 judged and 43 relevant docs per query; one run is 500-1000 deep, one is
short, one misses some queries; runs are written as TREC files in a temporary folder. Each case runs the
command in a fresh Python process, run from the temporary folder, and prints its wall time and peak RSS
(the child's own VmHWM). ``--reference PATH`` (a checkout of diazf/pref_eval) also runs
``pref_eval.py`` on the same files and prints the ratio (its row's ``x_floor`` in ``results/compare.json``: the
tool's time over ours). Cases: all measures (the default set) on 10 runs,
``-m rpp`` alone on 10 runs, and all measures on each larger count of ``--runs`` (the 10 runs copied: 30 by
default; ``--runs 30 100`` adds 100 runs, where ``pref_eval.py`` takes several minutes). ``--quick``: 20 queries, 10
runs, once, nothing saved (a smoke test).

    python benchmarks/bench_compare.py [--queries 200] [--runs 30 100] [--reference path/to/pref_eval] [--repeat 3]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import numpy as np
from harness import Report, doc_names, write_table

SEED = 20240601
N_RUNS, DOCS, JUDGED = 10, 1000, 103
POOL = 3 * DOCS


def write_input(n_queries: int, folder: Path) -> list[Path]:
    """Write ``qrels.txt`` and ``runs/run00..run09`` into ``folder``; return the run paths."""
    rng = np.random.default_rng(SEED)
    qids = np.arange(1, n_queries + 2)  # the last query gets no relevant doc
    docs = rng.permuted(np.tile(np.arange(100_000, 100_000 + POOL), (len(qids), 1)), axis=1)  # per-query pool
    grades = rng.choice(4, size=(len(qids), JUDGED), p=[0.58, 0.22, 0.12, 0.08])
    grades[-1] = 0
    qrels = {"q": np.repeat(qids, JUDGED), "it": 0, "doc": doc_names(docs[:, :JUDGED].ravel()), "grade": grades.ravel()}
    write_table(folder / "qrels.txt", qrels)
    latent = np.zeros((len(qids), POOL))
    latent[:, :JUDGED] = grades
    (folder / "runs").mkdir()
    paths = []
    for r in range(N_RUNS):
        noise = rng.normal(0, 1.0 + 0.3 * r, size=latent.shape)
        scores = np.round(latent * (1.5 - 0.1 * r) + noise, 4)
        top = np.argsort(-scores, axis=1, kind="stable")[:, :DOCS]
        depth = np.full(len(qids), DOCS)
        if r == N_RUNS - 2:
            depth = rng.integers(500, DOCS + 1, size=len(qids))
        if r == N_RUNS - 1:
            depth = rng.integers(10, 100, size=len(qids))
        keep = np.arange(DOCS)[None, :] < depth[:, None]
        if r == 3:
            keep[rng.choice(len(qids), 5, replace=False)] = False  # a few queries missing from this run
        q = np.broadcast_to(qids[:, None], keep.shape)[keep]
        rank = np.broadcast_to(np.arange(1, DOCS + 1)[None, :], keep.shape)[keep]
        doc = np.take_along_axis(docs, top, axis=1)[keep]
        score = np.take_along_axis(scores, top, axis=1)[keep]
        path = folder / "runs" / f"run{r:02d}"
        run = {"q": q, "Q0": "Q0", "doc": doc_names(doc), "rank": rank, "score": score, "tag": f"run{r:02d}"}
        write_table(path, run, float_format="%.4f")
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--reference", help="a checkout of diazf/pref_eval (pref_eval.py is run with this Python)")
    parser.add_argument("--repeat", type=int, default=3, help="repeats per case (the best time is shown)")
    parser.add_argument("--runs", type=int, nargs="*", default=[30], help="larger run counts (copies of the 10)")
    parser.add_argument("--quick", action="store_true", help="20 queries, 10 runs, once, nothing saved: a smoke test")
    args = parser.parse_args()
    if args.quick:
        args.queries, args.runs, args.repeat = 20, [], 1
    ours = ["ir-pref-measures", "compare"]
    reference = None
    if args.reference:
        reference = [str(Path(args.reference).resolve() / "pref_eval.py")]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runs = write_input(args.queries, folder)
        copies = folder / "copies"
        copies.mkdir()
        for k in range(1, -(-max([len(runs), *args.runs]) // len(runs))):
            for path in runs:
                shutil.copy(path, copies / f"{path.name}_{k:02d}")
        copied = sorted(copies.iterdir(), key=lambda p: (p.name[-2:], p.name))  # each of the 10, then again
        lines = sum(1 for path in runs for _ in open(path))
        inputs = f"{len(runs)} runs x {args.queries} queries, {lines:,} run lines; best of {args.repeat}"
        print(inputs)
        report = Report("compare", inputs, quick=args.quick)
        qrels = ["-R", str(folder / "qrels.txt")]
        cases = [
            ("all measures, 10 runs", [*qrels, *map(str, runs)]),
            ("rpp only, 10 runs", [*qrels, "-m", "rpp", *map(str, runs)]),
        ]
        for n in args.runs:
            cases.append((f"all measures, {n} runs", [*qrels, *map(str, [*runs, *copied][:n])]))
        print(
            f"{'case':26s} {'ours s':>8s} {'peak MB':>8s}"
            + (f" {'tool s':>8s} {'tool MB':>8s} {'ratio':>6s}" if reference else "")
        )
        for name, arguments in cases:
            variant = f"ir-pref-measures compare: {name}"
            child = report.command(variant, [*ours, *arguments], folder, args.repeat, floor=variant)
            row = f"{name:26s} {child.seconds:8.2f} {child.peak_mb:8.0f}"
            if reference:
                tool = report.command(f"pref_eval.py: {name}", [*reference, *arguments], folder, 1, floor=variant)
                row += f" {tool.seconds:8.2f} {tool.peak_mb:8.0f} {tool.seconds / child.seconds:6.1f}"
            print(row, flush=True)
        report.save(quiet=True)


if __name__ == "__main__":
    main()
