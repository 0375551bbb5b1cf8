"""Benchmark: ``ir-pref-measures experiment`` (the experiment table) beside the floor, pytrec_eval and ranx.

Input (seeded, written as TREC files in a temporary folder): R runs x Q queries x D retrieved docs (default
10 x 1000 x 1000: 10M run lines) and graded qrels with J = D / 10 judged docs per query (grades 0-3 with
probabilities .5/.25/.15/.10, so about half of them relevant). Each query has a pool of 1.5 D docs; run r
scores the pool by ``grade x (1.5 - 0.1 r) + N(0, 1 + 0.3 r)`` (three decimals, so with some ties) and ranks
its top D in trec_eval's order (score descending, ties by doc id descending). Doc ids differ between queries.

Every variant runs in a fresh Python process from the temporary folder (the installed package, not the
checkout) through the wrapper of ``harness.py`` that prints the process's own peak RSS (VmHWM); the wall
time is taken around the subprocess, the best of ``--repeat`` (default 3; the peak: the largest). Variants,
all on the same files:

- floor: a Python that only reads the qrels and every run with ``pyarrow.csv.read_csv`` (delimiter ' ',
  string id columns, pyarrow's default threads), one file at a time;
- ours: ``ir-pref-measures experiment QRELS RUN... -m nDCG@10 AP P@10 ppref@10 APpref PGC rpp --baseline
  r00`` (paired t test against the first run; the preference measures derive their preferences from the
  grades), and the same with ``-m nDCG@10`` alone, with the three graded measures of the peers (``nDCG@10 AP
  P@10``) and with the four preference measures alone (``ppref@10 APpref PGC rpp``);
- pytrec_eval: ``parse_qrel``/``parse_run`` and ``RelevanceEvaluator(qrels, {ndcg_cut.10, map, P.10})``'s
  ``evaluate`` on each run in turn (one run held at a time); a second row gives its ``evaluate`` calls alone,
  timed inside that process;
- ranx: ``Qrels.from_file``/``Run.from_file`` and ``ranx.evaluate`` for ndcg@10, map and precision@10 on each
  run in turn, and ``ranx.compare`` (all runs loaded; its default paired t test between every pair of runs,
  the table call). ranx compiles its kernels with numba and caches them on disk: "first call" runs each
  process with an empty numba cache (``NUMBA_CACHE_DIR`` a new folder: what a first use pays), "warm" with
  the cache a first run filled. A row gives the ``evaluate`` calls alone (warm), timed inside the process.

Every output is checked: the floor's line counts, and for each run the means of nDCG@10, AP and P@10 of ours,
pytrec_eval and ranx agree within 1e-3. The table (markdown) gives the
best seconds, the ratio to the floor, the peak MB and the ratio to ours with all seven measures; then the
targets: ours with all seven measures <= 6x the floor, its peak <= 1 GB, ours on the peers' three measures
faster than ranx (warm) on the same measures. ``--small`` is a quick check (3 runs x 100 queries x 100 docs).
ranx is not a dependency of the package: ``pip install 'ir-pref-measures[bench]'`` (or ``pip install ranx``);
without it its rows are marked as not installed.

    python benchmarks/bench_experiment.py [--runs 30] [--queries 1000] [--docs 1000] [--repeat 3] [--small]
    python benchmarks/bench_experiment.py --scaling [--quick] [--inputs DIR] [--repeat 3]  # peaks at 10, 30, 100 runs
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import doc_names, fastest, run_child, write_table  # noqa: E402

SEED = 31
GRADE_P = [0.5, 0.25, 0.15, 0.10]
GRADED = ["nDCG@10", "AP", "P@10"]  # the peers' measures, in ir_measures' names
PREFERENCE = ["ppref@10", "APpref", "PGC", "rpp"]
# ir_measures name -> (pytrec_eval's name in its result, ranx's metric)
PEER_NAMES = {"nDCG@10": ("ndcg_cut_10", "ndcg@10"), "AP": ("map", "map"), "P@10": ("P_10", "precision@10")}
TOLERANCE = 1e-3
BYTES_PER_LINE = 32

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


qrels = read(sys.argv[1], ["query_id", "iteration", "doc_id", "relevance"], ["query_id", "iteration", "doc_id"])
lines = [qrels.num_rows]
for path in sys.argv[2:]:
    run = read(path, ["query_id", "Q0", "doc_id", "rank", "score", "tag"], ["query_id", "Q0", "doc_id", "tag"])
    lines.append(run.num_rows)
print(*lines)
"""

PYTREC_EVAL = """
import os
import sys
import time

import pytrec_eval

with open(sys.argv[1]) as file:
    qrels = pytrec_eval.parse_qrel(file)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "P.10"})
evaluate = 0.0
for path in sys.argv[2:]:
    with open(path) as file:
        run = pytrec_eval.parse_run(file)
    start = time.perf_counter()
    per_query = evaluator.evaluate(run)
    evaluate += time.perf_counter() - start
    for measure in ("ndcg_cut_10", "map", "P_10"):
        mean = sum(values[measure] for values in per_query.values()) / len(per_query)
        print("mean", os.path.basename(path).split(".")[0], measure, mean)
print("evaluate_seconds", evaluate)
"""

RANX = """
import os
import sys
import time

from ranx import Qrels, Run, compare, evaluate

METRICS = ["ndcg@10", "map", "precision@10"]
mode, qrels_path, *paths = sys.argv[1:]
qrels = Qrels.from_file(qrels_path, kind="trec")
names = [os.path.basename(path).split(".")[0] for path in paths]
if mode == "evaluate":
    seconds = 0.0
    for name, path in zip(names, paths):
        run = Run.from_file(path, kind="trec", name=name)
        start = time.perf_counter()
        means = evaluate(qrels, run, METRICS)
        seconds += time.perf_counter() - start
        for metric in METRICS:
            print("mean", name, metric, means[metric])
    print("evaluate_seconds", seconds)
else:
    runs = [Run.from_file(path, kind="trec", name=name) for name, path in zip(names, paths)]
    report = compare(qrels, runs, METRICS)
    for name in names:
        for metric in METRICS:
            print("mean", name, metric, report.results[name][metric])
"""


def write_input(n_runs: int, n_queries: int, n_docs: int, folder: Path) -> dict[str, int]:
    """Write ``qrels.txt`` and ``runs/rNN.txt`` into ``folder``; return the line count of each file."""
    rng = np.random.default_rng(SEED)
    pool, judged_per_query = n_docs * 3 // 2, max(n_docs // 10, 1)
    qids = np.arange(1, n_queries + 1)
    judged = np.argsort(rng.random((n_queries, pool)), axis=1)[:, :judged_per_query]
    grades = rng.choice(len(GRADE_P), size=judged.shape, p=GRADE_P)
    grade_of = np.zeros((n_queries, pool))
    np.put_along_axis(grade_of, judged, grades, axis=1)
    first_doc = (qids * pool)[:, None]  # doc number = query x pool + position: unique over the input
    lines = {}
    qrels = {
        "q": np.repeat(qids, judged_per_query),
        "it": 0,
        "doc": doc_names((first_doc + judged).ravel(), "d", 9),
        "grade": grades.ravel(),
    }
    write_table(folder / "qrels.txt", qrels)
    lines["qrels.txt"] = judged.size
    (folder / "runs").mkdir()
    for r in range(n_runs):
        rng = np.random.default_rng([SEED, r])
        scale, noise = 1.5 - 0.1 * (r % 10), 1.0 + 0.3 * (r % 10)
        scores = np.round(grade_of * scale + rng.normal(0, noise, size=grade_of.shape), 3)
        # score descending, ties by doc id descending (trec_eval's order): a stable sort of the reversed pool
        top = pool - 1 - np.argsort(-scores[:, ::-1], axis=1, kind="stable")[:, :n_docs]
        run = {
            "q": np.repeat(qids, n_docs),
            "Q0": "Q0",
            "doc": doc_names((first_doc + top).ravel(), "d", 9),
            "rank": np.tile(np.arange(1, n_docs + 1), n_queries),
            "score": np.take_along_axis(scores, top, axis=1).ravel(),
            "tag": f"r{r:02d}",
        }
        name = f"runs/r{r:02d}.txt"
        write_table(folder / name, run, float_format="%.3f")
        lines[name] = top.size
    return lines


def _ours(measures: list[str], qrels: str, runs: list[str]) -> list[str]:
    return ["ir-pref-measures", "experiment", qrels, *runs, "-m", *measures, "--baseline", "r00", "--format", "csv"]


def variants(folder: Path, runs: list[str]) -> dict[str, tuple[list[str], str, list[str]]]:
    """Name -> (command, kind of output, the graded measures whose means it prints)."""
    qrels, scripts = (
        str(folder / "qrels.txt"),
        {name: str(folder / f"peer_{name}.py") for name in ("floor", "pytrec_eval", "ranx")},
    )
    return {
        "floor: pyarrow reads qrels + every run": ([scripts["floor"], qrels, *runs], "floor", []),
        "ours: experiment, all seven measures": (_ours(GRADED + PREFERENCE, qrels, runs), "ours", GRADED),
        "ours: experiment -m nDCG@10": (_ours(["nDCG@10"], qrels, runs), "ours", ["nDCG@10"]),
        "ours: experiment -m nDCG@10 AP P@10": (_ours(GRADED, qrels, runs), "ours", GRADED),
        "ours: experiment, the four preference measures": (_ours(PREFERENCE, qrels, runs), "ours", []),
        "pytrec_eval: parse + evaluate": ([scripts["pytrec_eval"], qrels, *runs], "pytrec_eval", GRADED),
        "ranx: from_file + evaluate, first call": ([scripts["ranx"], "evaluate", qrels, *runs], "ranx cold", GRADED),
        "ranx: from_file + evaluate, warm": ([scripts["ranx"], "evaluate", qrels, *runs], "ranx", GRADED),
        "ranx: from_file + compare, first call": ([scripts["ranx"], "compare", qrels, *runs], "ranx cold", GRADED),
        "ranx: from_file + compare, warm": ([scripts["ranx"], "compare", qrels, *runs], "ranx", GRADED),
    }


FLOOR_NAME, OURS_NAME, OURS_GRADED, RANX_WARM = (
    "floor: pyarrow reads qrels + every run",
    "ours: experiment, all seven measures",
    "ours: experiment -m nDCG@10 AP P@10",
    "ranx: from_file + evaluate, warm",
)
# the evaluate calls alone, timed inside the process of the row named
INSIDE = {
    "pytrec_eval: evaluate calls alone": "pytrec_eval: parse + evaluate",
    "ranx: evaluate calls alone, warm": "ranx: from_file + evaluate, warm",
}


def parse_means(kind: str, stdout: str) -> dict[tuple[str, str], float]:
    """(run, ir_measures name) -> mean, from the output of ours (CSV: name, then a column per measure) or of a
    peer script (``mean RUN MEASURE VALUE`` lines)."""
    means = {}
    if kind == "ours":
        header, *rows = [line.split(",") for line in stdout.splitlines() if line]
        for row in rows:
            for column, value in zip(header[1:], row[1:], strict=False):
                if column in PEER_NAMES and value:
                    means[row[0], column] = float(value)
        return means
    index = 0 if kind == "pytrec_eval" else 1
    to_ours = {names[index]: ours for ours, names in PEER_NAMES.items()}
    for line in stdout.splitlines():
        fields = line.split()
        if fields[0] == "mean":
            means[fields[1], to_ours[fields[2]]] = float(fields[3])
    return means


def check(name: str, kind: str, expected: list[str], stdout: str, lines: dict[str, int], truth: dict) -> None:
    """The floor read every line; every other variant printed finite means of ``expected`` for every run,
    equal (within TOLERANCE) to the first such means seen (``truth``, filled by the first variant)."""
    if kind == "floor":
        if stdout.split() != [str(n) for n in lines.values()]:
            raise RuntimeError(f"the floor read {stdout.strip()!r} lines, not {list(lines.values())}")
        return
    means = parse_means("ours" if kind == "ours" else kind.split()[0], stdout)
    runs = [Path(path).stem for path in lines if path.startswith("runs/")]
    for run in runs:
        for measure in expected:
            value = means.get((run, measure))
            if value is None or not math.isfinite(value):
                raise RuntimeError(f"{name}: no finite mean of {measure} for {run} in {stdout[-2000:]!r}")
            seen = truth.setdefault((run, measure), (value, name))
            if abs(value - seen[0]) > TOLERANCE:
                raise RuntimeError(f"{name}: {measure} of {run} is {value}, {seen[1]} gave {seen[0]}")


def measure(name: str, command: list[str], kind: str, folder: Path, repeat: int, timeout: float) -> list[tuple]:
    """``repeat`` runs of ``command``, each (seconds, peak MB, stdout); ranx's numba cache is a new folder for
    each run of a first-call variant and a shared folder (filled by an unmeasured run first) for a warm one."""
    results = []
    warm_cache = folder / "numba_warm"
    if kind == "ranx":
        os.environ["NUMBA_CACHE_DIR"] = str(warm_cache)
        run_child(command, folder, timeout)
    for k in range(repeat):
        if kind.startswith("ranx"):
            cold_cache = folder / f"numba_cold_{k}"
            shutil.rmtree(cold_cache, ignore_errors=True)
            os.environ["NUMBA_CACHE_DIR"] = str(warm_cache if kind == "ranx" else cold_cache)
        child = run_child(command, folder, timeout)
        results.append((child.seconds, child.peak_mb, child.stdout))
    return results


def _has_ranx() -> bool:
    try:
        import ranx  # noqa: F401
    except ImportError:
        return False
    return True


def run_all(args: argparse.Namespace, folder: Path) -> list[dict]:
    start = time.perf_counter()
    lines = write_input(args.runs, args.queries, args.docs, folder)
    size = sum((folder / name).stat().st_size for name in lines) / 2**20
    n_run_lines = sum(n for name, n in lines.items() if name.startswith("runs/"))
    print(
        f"{args.runs} runs x {args.queries} queries x {args.docs} docs: {n_run_lines:,} run lines, "
        f"{lines['qrels.txt']:,} qrels lines ({size:,.0f} MB of files, "
        f"written in {time.perf_counter() - start:.0f} s); "
        f"best of {args.repeat}, each variant in a fresh process",
        flush=True,
    )
    (folder / "peer_floor.py").write_text(FLOOR)
    (folder / "peer_pytrec_eval.py").write_text(PYTREC_EVAL)
    (folder / "peer_ranx.py").write_text(RANX)
    runs = [str(folder / name) for name in lines if name.startswith("runs/")]
    truth: dict = {}
    rows = []
    ranx = _has_ranx()
    for name, (command, kind, expected) in variants(folder, runs).items():
        row = {"name": name, "seconds": math.nan, "peak": math.nan, "error": None}
        if kind.startswith("ranx") and not ranx:
            row["error"] = "ranx not installed (pip install ranx)"
        else:
            try:
                results = measure(name, command, kind, folder, args.repeat, args.timeout)
                for _, _, stdout in results:
                    check(name, kind, expected, stdout, lines, truth)
            except RuntimeError as error:
                row["error"] = str(error)[-1000:]
            else:
                row["seconds"] = min(seconds for seconds, _, _ in results)
                row["peak"] = max(peak for _, peak, _ in results)
                inside = [
                    float(line.split()[1])
                    for _, _, out in results
                    for line in out.splitlines()
                    if line.startswith("evaluate_seconds")
                ]
                if inside:
                    row["inside"] = min(inside)
        status = row["error"] or f"{row['seconds']:8.2f} s {row['peak']:8.0f} MB"
        print(f"  {name:48s} {status}", flush=True)
        rows.append(row)
    for inner, outer in INSIDE.items():
        source = next(row for row in rows if row["name"] == outer)
        seconds = source.get("inside", math.nan)
        rows.append({"name": inner, "seconds": seconds, "peak": math.nan, "error": source["error"]})
    return rows


def _cell(value: float, digits: int, suffix: str = "") -> str:
    return "-" if not math.isfinite(value) else f"{value:,.{digits}f}{suffix}"


def print_table(rows: list[dict]) -> None:
    by = {row["name"]: row for row in rows}
    floor, ours = by[FLOOR_NAME]["seconds"], by[OURS_NAME]["seconds"]
    print()
    print("| command | best s | × floor | peak MB | × ours (all seven) |")
    print("|---|---|---|---|---|")
    for row in rows:
        if row["error"]:
            print(f"| {row['name']} | failed: {row['error'].splitlines()[-1][:120]} | | | |")
            continue
        print(
            f"| {row['name']} | {_cell(row['seconds'], 2)} | {_cell(row['seconds'] / floor, 1, '×')} "
            f"| {_cell(row['peak'], 0)} | {_cell(row['seconds'] / ours, 2, '×')} |"
        )
    print()
    print("targets:")
    targets = [
        ("ours, all seven measures <= 6× the floor", ours / floor, ours <= 6 * floor, f"{ours / floor:.1f}×"),
        (
            "ours, all seven measures: peak <= 1 GB",
            by[OURS_NAME]["peak"],
            by[OURS_NAME]["peak"] <= 1024,
            f"{by[OURS_NAME]['peak']:,.0f} MB",
        ),
        (
            "ours (nDCG@10 AP P@10) faster than ranx (warm) on the same measures",
            by[RANX_WARM]["seconds"],
            by[OURS_GRADED]["seconds"] < by[RANX_WARM]["seconds"],
            f"{by[OURS_GRADED]['seconds']:.2f} s vs {by[RANX_WARM]['seconds']:.2f} s",
        ),
    ]
    for text, value, met, shown in targets:
        verdict = "not measured" if not math.isfinite(value) else "met" if met else "NOT met"
        print(f"- {text}: {shown} ({verdict})")


def scaling(args: argparse.Namespace, folder: Path) -> None:
    """Peak RSS of ours (all seven measures, baseline r00) and of the floor at 10, 30 and 100 runs (``--quick``:
    3, 6 and 12 runs of 100 queries x 100 docs), ``--repeat`` fresh processes each, the floor and ours in turn;
    saved as ``experiment_scaling`` by the harness (``benchmarks/results/experiment_scaling.json``): per row the
    best wall and CPU seconds, the largest peak, and every repeat's peak (``peaks``)."""
    from harness import Report

    counts = (3, 6, 12) if args.quick else (10, 30, 100)
    if args.inputs is not None:  # written once, kept between runs of the benchmark
        folder = Path(args.inputs)
        if not (folder / "runs" / f"r{max(counts) - 1:02d}.txt").exists():
            folder.mkdir(parents=True, exist_ok=True)
            write_input(max(counts), args.queries, args.docs, folder)
    else:
        write_input(max(counts), args.queries, args.docs, folder)
    qrels = str(folder / "qrels.txt")
    (folder / "peer_floor.py").write_text(FLOOR)
    inputs = f"R runs x {args.queries} queries x {args.docs} docs, qrels {args.docs // 10}"
    report = Report("experiment_scaling", inputs, quick=args.quick)  # a --quick run is printed, not saved
    for n in counts:
        runs = [str(folder / f"runs/r{r:02d}.txt") for r in range(n)]
        commands = {
            "floor": [str(folder / "peer_floor.py"), qrels, *runs],
            "ours": _ours(GRADED + PREFERENCE, qrels, runs),
        }
        children: dict[str, list] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, command in commands.items():
                children[name].append(run_child(command, folder, args.timeout))
        for name, found in children.items():
            peaks = [round(child.peak_mb, 1) for child in found]
            best = fastest(found)
            report.add(f"{name}, {n} runs", best.seconds, best.peak_mb, f"floor, {n} runs", cpu=best.cpu, peaks=peaks)
        ours, floor = fastest(children["ours"]), fastest(children["floor"])
        print(
            f"{n} runs: ours {ours.seconds:.1f} s ({ours.seconds / floor.seconds:.2f}x the floor), CPU "
            f"{ours.cpu:.1f} s ({ours.cpu / floor.cpu:.2f}x); peaks ours {[c.peak_mb for c in children['ours']]} MB, "
            f"floor {[c.peak_mb for c in children['floor']]} MB; load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    report.save()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=1000, help="retrieved docs per query (judged: a tenth)")
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per variant (the best time is shown)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per child before it is stopped")
    parser.add_argument("--small", action="store_true", help="3 runs x 100 queries x 100 docs: a quick check")
    parser.add_argument("--scaling", action="store_true", help="peak RSS at 10, 30 and 100 runs beside the floor")
    parser.add_argument("--quick", action="store_true", help="with --scaling: 3, 6, 12 runs x 100 queries x 100 docs")
    parser.add_argument("--inputs", help="with --scaling: a folder for the input files, written once and reused")
    args = parser.parse_args()
    if args.scaling:
        if args.quick:
            args.queries, args.docs = 100, 100
        with tempfile.TemporaryDirectory(prefix="bench_experiment_") as tmp:
            scaling(args, Path(tmp))
        return
    if args.small:
        args.runs, args.queries, args.docs = 3, 100, 100
    with tempfile.TemporaryDirectory(prefix="bench_experiment_") as tmp:
        folder = Path(tmp)
        need = args.runs * args.queries * args.docs * BYTES_PER_LINE
        free = shutil.disk_usage(folder).free
        if free < 1.5 * need + 2**30:
            raise SystemExit(f"needs about {need / 2**20:,.0f} MB of files, {free / 2**20:,.0f} MB free in {folder}")
        rows = run_all(args, folder)
    print_table(rows)
    if any(row["error"] for row in rows):
        raise SystemExit("some variants failed")


if __name__ == "__main__":
    main()
