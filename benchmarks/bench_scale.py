"""Benchmark: how ``ir-pref-measures eval`` scales with the run size, end to end from the TREC files.

Input (seeded, built with numpy in chunks of queries, written as TREC files in a temporary folder): Q
queries x 1000 retrieved docs (a 6-field run; scores with three decimals, so with some ties; ranks in
trec_eval's order: score descending, ties by doc id descending), graded qrels with 100 judged docs per
query (grades 0-4, about 55 of them relevant, about 78 retrieved), and 85 explicit preferences per query
among the judged docs (``pairs`` format, ``qid winner loser``; the winner has the higher noisy grade: about
2/3 agree with the qrels, 1/3 are between equal grades, a few contradict them). Doc ids differ between
queries. Q is 200 and 2000 by default; ``--queries 200 2000 20000`` adds 20M run lines (about 700 MB of
files, checked against the free space of the temporary folder).

Every variant runs in a fresh Python process from the temporary folder (the installed package, not the
checkout) through a small wrapper that prints the process's own peak RSS (VmHWM) at exit; the wall time is
taken around the subprocess, the best of ``--repeat`` (the peak: the largest). Variants:

- floor: a Python that only reads the run and the qrels with ``pyarrow.csv.read_csv`` (delimiter ' ',
  column names, string id columns; pyarrow's default threads), the floor;
- ``eval QRELS RUN ppref@10 rpref@10 APpref PGC`` (preferences derived from the grades);
- the same with ``--prefs PAIRS --prefs-format pairs`` (the explicit pairs combined with the graded ones);
- ``eval - RUN ppref@10 APpref --prefs PAIRS --prefs-format pairs`` (the explicit pairs alone);
- ``eval QRELS RUN nDCG@10`` (pytrec_eval through ir_measures), a peer.

The table gives seconds, the ratio to the floor, the peak MB and the peak per 1000 run lines; with two or
more sizes, the growth between consecutive sizes: time and peak ratios, their exponent against the lines
(1.0 = linear; below 1 while fixed start-up costs dominate) and the marginal cost per extra line.
``--check`` (or ``--quick``) runs 20 queries once, checks every output and exits non-zero on a failure (a smoke
test); otherwise the rows are saved to ``results/scale.json`` (each size's rows against that size's floor).

    python benchmarks/bench_scale.py [--queries 200 2000 [20000]] [--repeat 2] [--check]
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import Report, best_child, doc_names, write_table  # noqa: E402

SEED = 11
DOCS, JUDGED, PAIRS, POOL = 1000, 100, 85, 1500
GRADE_P = [0.45, 0.25, 0.15, 0.10, 0.05]
CHECK = 20  # queries of --check, and of the start-up reference
CHUNK = 500  # queries generated at a time: the generator's memory does not grow with Q
BYTES_PER_QUERY = DOCS * 32 + JUDGED * 17 + PAIRS * 23  # about the size of the three files, per query

FLOOR = """
import sys

import pyarrow as pa
import pyarrow.csv as csv


def read(path, names, ids):
    return csv.read_csv(
        path,
        read_options=csv.ReadOptions(column_names=names),
        parse_options=csv.ParseOptions(delimiter=" "),
        convert_options=csv.ConvertOptions(column_types={name: pa.string() for name in ids}),
    )


run = read(sys.argv[1], ["query_id", "Q0", "doc_id", "rank", "score", "tag"], ["query_id", "Q0", "doc_id", "tag"])
qrels = read(sys.argv[2], ["query_id", "iteration", "doc_id", "relevance"], ["query_id", "iteration", "doc_id"])
print(run.num_rows, qrels.num_rows)
"""

OURS = ["ppref@10", "rpref@10", "APpref", "PGC"]
EXPLICIT = ["ppref@10", "APpref"]
VARIANTS = {  # name -> (command, the measures its output must show); files as {run}, {qrels}, {pairs}, {floor}
    "floor: pyarrow reads run + qrels": (["{floor}", "{run}", "{qrels}"], []),
    "eval graded: ppref rpref APpref PGC": (["ir-pref-measures", "eval", "{qrels}", "{run}", *OURS], OURS),
    "eval graded + pairs (combined)": (
        ["ir-pref-measures", "eval", "{qrels}", "{run}", *OURS, "--prefs", "{pairs}", "--prefs-format", "pairs"],
        OURS,
    ),
    "eval pairs alone: ppref APpref": (
        ["ir-pref-measures", "eval", "-", "{run}", *EXPLICIT, "--prefs", "{pairs}", "--prefs-format", "pairs"],
        EXPLICIT,
    ),
    "eval nDCG@10 (pytrec_eval)": (["ir-pref-measures", "eval", "{qrels}", "{run}", "nDCG@10"], ["nDCG@10"]),
}
FLOOR_NAME = next(iter(VARIANTS))


def _names(query: np.ndarray, doc: np.ndarray) -> np.ndarray:
    """Doc ids unique over the whole input: ``d`` + 8 digits (query x pool + doc), in numeric order."""
    return doc_names(query.astype(np.int64) * POOL + doc, "d", 8)


def write_input(n_queries: int, folder: Path) -> dict[str, int]:
    """Write ``run.txt``, ``qrels.txt`` and ``pairs.txt`` into ``folder``, CHUNK queries at a time (each
    chunk from its own seed); return the line counts."""
    a, b = np.triu_indices(JUDGED, k=1)
    counts = {"run": 0, "qrels": 0, "pairs": 0}
    for name in counts:
        (folder / f"{name}.txt").unlink(missing_ok=True)
    for chunk, first in enumerate(range(0, n_queries, CHUNK)):
        rng = np.random.default_rng([SEED, chunk])
        qids = np.arange(first, min(first + CHUNK, n_queries)) + 1
        n = len(qids)
        column = np.broadcast_to(qids[:, None], (n, DOCS))
        judged = np.argsort(rng.random((n, POOL)), axis=1)[:, :JUDGED]  # per query: the judged doc numbers
        grades = rng.choice(len(GRADE_P), size=(n, JUDGED), p=GRADE_P)
        grade_of = np.zeros((n, POOL))
        np.put_along_axis(grade_of, judged, grades, axis=1)
        scores = np.round(grade_of * 0.8 + rng.normal(0, 1.5, size=(n, POOL)), 3)  # three decimals: some ties
        # score descending, ties by doc id descending (trec_eval's order): a stable sort of the reversed pool
        top = POOL - 1 - np.argsort(-scores[:, ::-1], axis=1, kind="stable")[:, :DOCS]
        run = {
            "q": column.ravel(),
            "Q0": "Q0",
            "doc": _names(column.ravel(), top.ravel()),
            "rank": np.tile(np.arange(1, DOCS + 1), n),
            "score": np.take_along_axis(scores, top, axis=1).ravel(),
            "tag": "scale",
        }
        write_table(folder / "run.txt", run, append=True, float_format="%.3f")
        q_judged = np.repeat(qids, JUDGED)
        qrels = {"q": q_judged, "it": 0, "doc": _names(q_judged, judged.ravel()), "grade": grades.ravel()}
        write_table(folder / "qrels.txt", qrels, append=True)
        pick = np.argpartition(rng.random((n, len(a))), PAIRS, axis=1)[:, :PAIRS]  # distinct pairs per query
        first_doc, second_doc = a[pick], b[pick]  # positions among the judged docs
        latent = grades + rng.normal(0, 0.6, size=grades.shape)
        wins = np.take_along_axis(latent, first_doc, axis=1) >= np.take_along_axis(latent, second_doc, axis=1)
        winner = np.where(wins, first_doc, second_doc)
        loser = np.where(wins, second_doc, first_doc)
        q_pairs = np.repeat(qids, PAIRS)
        pairs = {
            "q": q_pairs,
            "winner": _names(q_pairs, np.take_along_axis(judged, winner, axis=1).ravel()),
            "loser": _names(q_pairs, np.take_along_axis(judged, loser, axis=1).ravel()),
        }
        write_table(folder / "pairs.txt", pairs, append=True)
        counts["run"] += n * DOCS
        counts["qrels"] += len(q_judged)
        counts["pairs"] += len(q_pairs)
    return counts


def check_output(variant: str, stdout: str, counts: dict[str, int]) -> None:
    """The floor printed the line counts; an eval printed a finite mean for each measure asked for."""
    _, expected = VARIANTS[variant]
    if variant == FLOOR_NAME:
        if stdout.split() != [str(counts["run"]), str(counts["qrels"])]:
            raise RuntimeError(f"the floor read {stdout.strip()!r}, not {counts['run']} {counts['qrels']} rows")
        return
    means = {}
    for line in stdout.splitlines():
        fields = line.split("\t")  # the summary: ``measure<TAB>mean``
        if len(fields) == 2:
            means[fields[0]] = float(fields[1])
    for measure in expected:
        value = means.get(measure)
        if value is None or not math.isfinite(value):
            raise RuntimeError(f"no finite mean for {measure} in the output: {stdout.strip()!r}")


def run_size(n_queries: int, folder: Path, repeat: int, timeout: float | None) -> list[dict]:
    """Write the input for ``n_queries``, run every variant ``repeat`` times, remove the input."""
    need = n_queries * BYTES_PER_QUERY
    free = shutil.disk_usage(folder).free
    if free < 1.5 * need + 2**30:
        print(f"{n_queries} queries: skipped, needs about {need / 2**20:,.0f} MB, {free / 2**20:,.0f} MB free")
        return []
    start = time.perf_counter()
    counts = write_input(n_queries, folder)
    size = sum((folder / f"{name}.txt").stat().st_size for name in counts) / 2**20
    print(
        f"{n_queries} queries: {counts['run']:,} run lines, {counts['qrels']:,} qrels, {counts['pairs']:,} pairs"
        f" ({size:,.0f} MB of files, written in {time.perf_counter() - start:.0f} s)",
        flush=True,
    )
    files = {name: str(folder / f"{name}.txt") for name in counts}
    files["floor"] = str(folder / "floor.py")
    rows = []
    for variant, (template, _) in VARIANTS.items():
        command = [part.format(**files) for part in template]
        try:
            check = lambda out, v=variant: check_output(v, out, counts)  # noqa: E731
            child = best_child(command, folder, repeat, timeout, check)
        except RuntimeError as error:
            row = {"seconds": math.nan, "cpu": math.nan, "peak": math.nan, "error": str(error)}
            print(f"  {variant:38s} FAILED: {error}", flush=True)
        else:
            row = {"seconds": child.seconds, "cpu": child.cpu, "peak": child.peak_mb, "error": None}
            print(f"  {variant:38s} {child.seconds:8.2f} s {child.cpu:8.2f} s CPU {child.peak_mb:8.0f} MB", flush=True)
        rows.append({"queries": n_queries, "lines": counts["run"], "variant": variant, **row})
    for name in counts:
        (folder / f"{name}.txt").unlink()
    return rows


def save(rows: list[dict], repeat: int, quick: bool) -> None:
    """The rows as ``results/scale.json`` (:class:`harness.Report`): each against its size's floor."""
    inputs = f"Q queries x {DOCS} run docs, {JUDGED} graded docs and {PAIRS} pairs per query; best of {repeat}"
    report = Report("scale", inputs, quick=quick)
    for r in rows:
        variant, floor = (f"{r['lines']:,} run lines: {name}" for name in (r["variant"], FLOOR_NAME))
        report.add(variant, r["seconds"], r["peak"], floor=floor, cpu=r["cpu"], queries=r["queries"])
    report.save(quiet=True)


def print_table(rows: list[dict]) -> None:
    print()
    print(
        f"{'queries':>7s} {'run lines':>11s}  {'variant':38s} {'seconds':>8s} {'x floor':>8s} {'CPU s':>7s} "
        f"{'peak MB':>8s} {'MB/1k lines':>11s}"
    )
    floors = {r["queries"]: r["seconds"] for r in rows if r["variant"] == FLOOR_NAME}
    for r in rows:
        if r["error"]:
            print(f"{r['queries']:7d} {r['lines']:11,d}  {r['variant']:38s} {'failed':>8s}")
            continue
        print(
            f"{r['queries']:7d} {r['lines']:11,d}  {r['variant']:38s} {r['seconds']:8.2f} "
            f"{r['seconds'] / floors[r['queries']]:8.2f} {r['cpu']:7.2f} {r['peak']:8.0f} "
            f"{r['peak'] / r['lines'] * 1000:11.3f}"
        )


def _exponent(small: float, large: float, base: float, factor: float) -> float | None:
    """How ``value - base`` grows against the lines (1.0: linear); None while ``base`` is most of ``small``."""
    if small - base < 0.25 * small or large <= base:
        return None
    return math.log((large - base) / (small - base)) / math.log(factor)


def _verdict(exponent: float | None) -> str:
    if exponent is None:
        return "start-up dominated"
    return "superlinear" if exponent > 1.15 else "sublinear" if exponent < 0.85 else "linear"


def print_growth(rows: list[dict]) -> None:
    """Between consecutive sizes above the start-up size: wall, CPU and peak ratios; the exponents of the CPU
    time and of the peak above the start-up size's (the work itself: 1.0 = linear); marginal costs."""
    sizes = sorted({r["queries"] for r in rows})
    by = {(r["queries"], r["variant"]): r for r in rows}
    base = sizes[0]
    print()
    print(
        f"start-up = the {base}-query input; 'work exp' / 'mem exp': how the CPU time / peak above the start-up "
        "grow with the run lines (1.0 = linear)"
    )
    for small, large in zip(sizes[1:], sizes[2:], strict=False):
        lines_small, lines_large = by[small, FLOOR_NAME]["lines"], by[large, FLOOR_NAME]["lines"]
        factor = lines_large / lines_small
        extra = lines_large - lines_small
        print()
        print(f"growth from {small} to {large} queries ({factor:.0f}x the run lines)")
        print(
            f"{'variant':38s} {'wall x':>6s} {'CPU x':>6s} {'peak x':>6s} {'work exp':>8s} {'mem exp':>7s} "
            f"{'s/extra 1M lines':>16s} {'MB/extra 1k lines':>17s}  verdict (time, memory)"
        )
        for variant in VARIANTS:
            a, b, start = by[small, variant], by[large, variant], by[base, variant]
            if a["error"] or b["error"] or start["error"]:
                print(f"{variant:38s} {'(failed)':>6s}")
                continue
            work = _exponent(a["cpu"], b["cpu"], start["cpu"], factor)
            memory = _exponent(a["peak"], b["peak"], start["peak"], factor)
            print(
                f"{variant:38s} {b['seconds'] / a['seconds']:6.2f} {b['cpu'] / a['cpu']:6.2f} "
                f"{b['peak'] / a['peak']:6.2f} {'-' if work is None else f'{work:.2f}':>8s} "
                f"{'-' if memory is None else f'{memory:.2f}':>7s} "
                f"{(b['seconds'] - a['seconds']) / extra * 1e6:16.2f} {(b['peak'] - a['peak']) / extra * 1000:17.3f}"
                f"  {_verdict(work)}, {_verdict(memory)}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, nargs="+", default=[200, 2000], help="sizes (20000: ~700 MB of files)")
    parser.add_argument("--repeat", type=int, default=2, help="runs per variant (the best time is shown)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per child before it is stopped")
    parser.add_argument(
        "--check", "--quick", action="store_true", help=f"{CHECK} queries, once, outputs checked: a smoke test"
    )
    args = parser.parse_args()
    # the 20-query input also measures the start-up, against which the growth of the work is judged
    sizes, repeat = ([CHECK], 1) if args.check else (sorted({CHECK, *args.queries}), args.repeat)
    print(f"{DOCS} retrieved, {JUDGED} judged and {PAIRS} preference pairs per query; best of {repeat}")
    print("each variant in a fresh process, end to end from the files (peak MB = that process's own peak RSS)")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_scale_") as tmp:
        folder = Path(tmp)
        (folder / "floor.py").write_text(FLOOR)
        for n_queries in sizes:
            rows += run_size(n_queries, folder, repeat, args.timeout)
    if not rows:
        raise SystemExit("no size was run")
    print_table(rows)
    save(rows, repeat, quick=args.check)
    if len({r["queries"] for r in rows}) > 2 and rows[0]["queries"] == CHECK:
        print_growth(rows)
    if any(r["error"] for r in rows):
        raise SystemExit("some variants failed")


if __name__ == "__main__":
    main()
