"""Compare two installs of the package (two virtualenvs, say the last release and a checkout) on the workloads of
every benchmark, each in a fresh process, old and new alternately.

Each workload is a command line of ``ir-pref-measures`` or, where the benchmark times a library call, a small
script that uses names both versions have (an older path is tried when a top-level name is missing). The inputs
are written once, by the benchmarks' own input writers, and both versions read the same files. For each workload
the two interpreters run in turn, old, new, old, new, ... (``--repeat`` rounds), each run in a fresh process
through :func:`harness.run_child` (wall and CPU seconds, the process's own peak RSS); a row keeps the best of its
rounds (the shortest times, the largest peak) and says whether the two versions printed the same output (values
printed to 9 decimals, so that a difference in the last bits of a float is not one). The load
average is printed before and after: on a shared machine, read the ratios, not the seconds.

Workloads (moderate sizes: the whole table takes some minutes; ``--quick``: tiny inputs, one round):

* scale (``bench_scale.py``), trec_eval (``bench_trec_eval.py``: nDCG@10 through the engine): its four ``eval``
  commands on 2,000 queries x 1,000 docs with graded qrels and preference pairs;
* ppref (``bench_ppref.py``), pgc (``bench_pgc.py``): ``eval`` of the ppref family from graded qrels and from
  explicit preferences (the transitive closure), ``eval`` of PGC and Compatibility; on TREC CAsT 2019 (the
  reference test data, when present) ``experiment`` of PGC and Compatibility on the 16 runs, with and without the
  crowd preferences;
* large_query (``bench_large_query.py``): one query of 100,000 graded docs plus 100 explicit pairs, PGC and APpref;
* compare (``bench_compare.py``): ``compare`` on 10 runs x 1,000 queries, all measures and ``-m rpp``;
* experiment (``bench_experiment.py``): ``experiment`` with seven measures and a baseline on 5 runs x 1,000 queries;
* tied_rbo (``bench_tied_rbo.py``): ``rbo`` between two of those runs (scores with three decimals: ties);
* leaderboard (``bench_leaderboard.py``): ``leaderboard`` of 100 systems from 1,000,000 battles, 200 rounds;
* judges (``bench_judges.py``): ``judges`` on four judges' pairs (agreement, reliability, 1,000 bootstrap samples);
* tukey (``bench_tukey.py``): ``randomised_tukey`` (B = 10,000) and ``tukey_hsd`` on 20 systems x 100 topics;
* dask (``bench_dask.py``): ``dask.evaluate`` of two runs of 8,000 queries (Dask's threaded scheduler);
* calling forms (``bench_calling_forms.py``): ``ir_measures.calc_aggregate`` of the ppref family and PGC on
  namedtuple lists, dicts of dicts and PyTerrier frames.

The judging benchmarks (``bench_judging.py``, ``bench_web.py``, ``bench_llm_judge.py``,
``simulate_judging_dl2019.py``) measure features an older version may lack: they are not compared.

    python benchmarks/versions.py --old OLD_VENV/bin/python --new NEW_VENV/bin/python [--repeat 3] [--only TEXT]
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_calling_forms  # noqa: E402
import bench_compare  # noqa: E402
import bench_dask  # noqa: E402
import bench_experiment  # noqa: E402
import bench_judges  # noqa: E402
import bench_large_query  # noqa: E402
import bench_leaderboard  # noqa: E402
import bench_pgc  # noqa: E402
import bench_ppref  # noqa: E402
import bench_scale  # noqa: E402
import bench_tukey  # noqa: E402
from harness import Child, fastest, run_child, write_table  # noqa: E402

TUKEY = """
import sys

import numpy as np

try:
    from ir_pref_measures import randomised_tukey, tukey_hsd
except ImportError:  # a version before the stats package
    from ir_pref_measures.analysis.tukey import randomised_tukey, tukey_hsd

x = np.load(sys.argv[1])
shuffled = randomised_tukey(x, int(sys.argv[2]), np.random.default_rng(0))
print(np.round(shuffled.p, 9).tolist(), np.round(tukey_hsd(x).p, 9).tolist())
"""

CALLING_FORMS = """
import pickle
import sys

import ir_measures

import ir_pref_measures  # noqa: F401  (registers the measures)

with open(sys.argv[1], "rb") as file:
    forms = pickle.load(file)
measures = [ir_measures.parse_measure(name) for name in ("ppref@10", "rpref@10", "APpref", "PGC(p=0.8)")]
for form, (qrels, run) in forms.items():
    means = ir_measures.calc_aggregate(measures, qrels, run)
    print(form, sorted((str(measure), round(value, 9)) for measure, value in means.items()))
"""

DASK = """
import sys

import dask.dataframe as dd
import pandas as pd

import ir_pref_measures

qrels_path, partitions, *runs = sys.argv[1:]
qrels = dd.from_pandas(pd.read_pickle(qrels_path), npartitions=int(partitions))
for path in runs:
    run = dd.from_pandas(pd.read_pickle(path), npartitions=int(partitions))
    values = ir_pref_measures.dask.evaluate(qrels, run, ["nDCG@10", "ppref@10", "APpref"])
    means = values.compute(scheduler="threads").groupby("measure")["value"].mean().round(9)
    print(path.rsplit("/", 1)[-1], sorted(means.items()))
"""

SNIPPETS = {"tukey.py": TUKEY, "calling_forms.py": CALLING_FORMS, "dask_evaluate.py": DASK}
CLI = "ir-pref-measures"
PPREF = ["ppref@10", "rpref@10", "APpref"]
SKIPPED = ("bench_judging.py", "bench_web.py", "bench_llm_judge.py", "simulate_judging_dl2019.py")


@dataclass(frozen=True)
class Sizes:
    """The input sizes of the workloads."""

    scale_queries: int = 2000
    ppref_queries: int = 200
    large_query_docs: int = 100_000
    compare_queries: int = 1000
    experiment: tuple[int, int, int] = (5, 1000, 1000)  # runs, queries, docs
    tukey: tuple[int, int, int] = (20, 100, 10_000)  # systems, topics, shuffles
    leaderboard: tuple[int, int, int, int] = (100, 1_000_000, 1000, 200)  # systems, battles, queries, rounds
    judges: tuple[int, int, int] = (100, 2000, 1000)  # queries, votes per judge and query, bootstrap samples
    dask: tuple[int, int, int, int] = (8000, 100, 2, 1000)  # queries, docs, runs, queries per partition
    calling_forms_queries: int = 200
    cast: bool = True  # the TREC CAsT 2019 workloads, when the reference test data is there


QUICK = Sizes(20, 3, 1000, 20, (3, 20, 50), (5, 10, 100), (5, 1000, 10, 10), (5, 50, 10), (200, 10, 2, 100), 5, False)


def _trec_run(path: Path, run: pd.DataFrame, tag: str) -> None:
    """``run`` (query_id, doc_id, score; ranked within each query) as a 6-field TREC run file."""
    rank = run.groupby("query_id", sort=False).cumcount() + 1
    write_table(path, {"q": run.query_id, "Q0": "Q0", "doc": run.doc_id, "rank": rank, "score": run.score, "tag": tag})


def _trec_qrels(path: Path, qrels: pd.DataFrame) -> None:
    write_table(path, {"q": qrels.query_id, "it": 0, "doc": qrels.doc_id, "grade": qrels.relevance})


def _folder(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir()
    return folder


def write_inputs(root: Path, sizes: Sizes) -> dict[str, list[str]]:
    """Write every workload's input under ``root`` (once, read by both versions); workload name -> command."""
    for name, source in SNIPPETS.items():
        (root / name).write_text(source)
    work: dict[str, list[str]] = {}

    folder = _folder(root, "scale")
    bench_scale.write_input(sizes.scale_queries, folder)
    files = {name: str(folder / f"{name}.txt") for name in ("run", "qrels", "pairs")}
    for variant, (template, _) in bench_scale.VARIANTS.items():
        if template[0] == CLI:
            work[f"scale: {variant}"] = [part.format(**files) for part in template]

    folder = _folder(root, "ppref")
    bench_ppref.write_input(sizes.ppref_queries, folder)
    _trec_qrels(folder / "qrels.txt", pd.read_pickle(folder / "qrels.pkl"))
    qrels, run, prefs = (str(folder / name) for name in ("qrels.txt", "run.txt", "prefs.txt"))
    work["ppref: eval ppref rpref APpref, graded"] = [CLI, "eval", qrels, run, *PPREF]
    explicit = ["--prefs", prefs, "--prefs-format", "carterette"]
    work["ppref: eval ppref rpref APpref, explicit prefs"] = [CLI, "eval", "-", run, *PPREF, *explicit]
    work["pgc: eval PGC Compatibility, graded"] = [CLI, "eval", qrels, run, "PGC(p=0.8)", "Compatibility"]
    cast = [bench_pgc.CAST_QRELS, bench_pgc.CAST_PREFS, *bench_pgc.CAST_RUNS]
    if sizes.cast and all(path.exists() for path in cast):
        runs = [str(path) for path in bench_pgc.CAST_RUNS]
        command = [CLI, "experiment", str(bench_pgc.CAST_QRELS), *runs, "-m", "PGC(p=0.8)", "Compatibility"]
        work["pgc: experiment PGC Compatibility, CAsT 16 runs"] = [*command, "--format", "csv"]
        crowd = ["--prefs", str(bench_pgc.CAST_PREFS), "--prefs-format", "winner", "--format", "csv"]
        work["pgc: the same, combined with CAsT's preferences"] = [*command, *crowd]

    folder = _folder(root, "large_query")
    qrels, prefs, run = bench_large_query.make_graded(sizes.large_query_docs)
    _trec_qrels(folder / "qrels.txt", qrels)
    write_table(folder / "prefs.txt", prefs)
    _trec_run(folder / "run.txt", run, "large")
    files = [str(folder / name) for name in ("qrels.txt", "run.txt")]
    combined = ["--prefs", str(folder / "prefs.txt"), "--prefs-format", "carterette"]
    label = f"large_query: eval PGC APpref, {sizes.large_query_docs:,} docs + 100 pairs"
    work[label] = [CLI, "eval", *files, "PGC", "APpref", *combined]

    folder = _folder(root, "compare")
    runs = [str(path) for path in bench_compare.write_input(sizes.compare_queries, folder)]
    qrels = ["-R", str(folder / "qrels.txt")]
    work["compare: all measures, 10 runs"] = [CLI, "compare", *qrels, *runs]
    work["compare: -m rpp, 10 runs"] = [CLI, "compare", *qrels, "-m", "rpp", *runs]

    folder = _folder(root, "experiment")
    n_runs, n_queries, n_docs = sizes.experiment
    bench_experiment.write_input(n_runs, n_queries, n_docs, folder)
    runs = [str(folder / "runs" / f"r{r:02d}.txt") for r in range(n_runs)]
    measures = bench_experiment.GRADED + bench_experiment.PREFERENCE
    command = [CLI, "experiment", str(folder / "qrels.txt"), *runs, "-m", *measures, "--baseline", "r00"]
    work[f"experiment: seven measures, t test, {n_runs} runs"] = [*command, "--format", "csv"]
    work["tied_rbo: rbo between two runs"] = [CLI, "rbo", *runs[:2]]

    systems, battles, queries, rounds = sizes.leaderboard
    path = root / "battles.txt"
    bench_leaderboard.make_battles(path, systems, battles, queries)
    command = [CLI, "leaderboard", str(path), "--rounds", str(rounds), "--format", "csv", "--digits", "9"]
    work[f"leaderboard: {systems} systems, {battles:,} battles, {rounds} rounds"] = command

    queries, votes, samples = sizes.judges
    paths = bench_judges.make_synthetic(_folder(root, "judges"), queries, votes)
    judges = [f"{name}={path}" for name, path in paths.items()]
    options = ["--prefs-format", "winner", "--samples", str(samples)]
    work[f"judges: 4 judges, {samples} bootstrap samples"] = [CLI, "judges", *judges, *options]

    systems, topics, samples = sizes.tukey
    np.save(root / "tukey.npy", bench_tukey.matrix(systems, topics))
    label = f"tukey: randomised_tukey B={samples:,} + tukey_hsd"
    work[label] = [str(root / "tukey.py"), str(root / "tukey.npy"), str(samples)]

    queries, docs, n_runs, chunk = sizes.dask
    folder = _folder(root, "dask")
    named = {"size": chunk, "docs": docs, "runs": n_runs}
    for kind in ("qrels", *(f"run{r}" for r in range(n_runs))):
        frames = [bench_dask.chunk(k, kind=kind, **named) for k in range(queries // chunk)]
        pd.concat(frames, ignore_index=True).to_pickle(folder / f"{kind}.pkl")
    runs = [str(folder / f"run{r}.pkl") for r in range(n_runs)]
    label = f"dask: evaluate {n_runs} runs x {queries:,} queries"
    work[label] = [str(root / "dask_evaluate.py"), str(folder / "qrels.pkl"), str(queries // chunk), *runs]

    qrels, run = bench_calling_forms.make_input(sizes.calling_forms_queries)
    forms = {"namedtuple lists": (qrels, run)}
    for form, convert in (
        ("dicts of dicts", bench_calling_forms.as_dicts),
        ("PyTerrier frames", bench_calling_forms.as_pyterrier),
    ):
        forms[form] = (convert(qrels, "relevance"), convert(run, "score"))
    with open(root / "forms.pkl", "wb") as file:
        pickle.dump(forms, file)
    work["calling forms: calc_aggregate, 3 forms"] = [str(root / "calling_forms.py"), str(root / "forms.pkl")]
    return work


@dataclass
class Row:
    """One workload's best run under each version, and whether their outputs agree."""

    workload: str
    old: Child | None = None
    new: Child | None = None
    error: str | None = None

    def cells(self) -> list[str]:
        if self.error:
            return [self.workload, "failed", "", "", "", "", "", "", self.error]
        old, new = self.old, self.new
        same = "same" if old.stdout == new.stdout else "DIFFERS"
        numbers = [old.seconds, new.seconds, new.seconds / old.seconds, old.cpu, new.cpu]
        return [self.workload, *(f"{n:.2f}" for n in numbers), f"{old.peak_mb:.0f}", f"{new.peak_mb:.0f}", same]


HEADER = ["workload", "old s", "new s", "new/old", "old CPU s", "new CPU s", "old MB", "new MB", "output"]


def alternate(workload: str, command: list[str], cwd: Path, pythons: dict[str, str], rounds: int, timeout: float):
    """Run ``command`` under each interpreter in turn, ``rounds`` times; the best of each."""
    runs: dict[str, list[Child]] = {version: [] for version in pythons}
    try:
        for _ in range(rounds):
            for version, python in pythons.items():
                runs[version].append(run_child(command, cwd, timeout, python))
    except RuntimeError as error:
        return Row(workload, error=f"{version}: {str(error).splitlines()[0][-120:]}")
    return Row(workload, fastest(runs["old"]), fastest(runs["new"]))


def markdown(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    return "\n".join([*lines, *("| " + " | ".join(row.cells()) + " |" for row in rows)])


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def _interpreter(path: str) -> str:
    """A Python executable, or a virtualenv's folder (its ``bin/python``)."""
    return str(Path(path) / "bin" / "python") if Path(path).is_dir() else path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", required=True, help="the old install's Python (or its virtualenv folder)")
    parser.add_argument("--new", required=True, help="the new install's Python (or its virtualenv folder)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of old then new per workload (best of)")
    parser.add_argument("--only", help="run only the workloads whose name contains this text")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per run before it is stopped")
    parser.add_argument("--quick", action="store_true", help="tiny inputs, one round: a smoke test")
    args = parser.parse_args()
    pythons = {"old": _interpreter(args.old), "new": _interpreter(args.new)}
    sizes, rounds = (QUICK, 1) if args.quick else (Sizes(), args.repeat)
    print(f"old: {pythons['old']}\nnew: {pythons['new']}")
    print(f"not compared (no older counterpart): {', '.join(SKIPPED)}")
    with tempfile.TemporaryDirectory(prefix="versions_") as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        work = write_inputs(root, sizes)
        print(f"inputs written in {time.perf_counter() - start:.0f} s; best of {rounds} alternating rounds")
        print(f"load average at start: {_load()}", flush=True)
        rows = []
        for workload, command in work.items():
            if args.only and args.only not in workload:
                continue
            rows.append(alternate(workload, command, root, pythons, rounds, args.timeout))
            print("  " + " | ".join(rows[-1].cells()), flush=True)
        print(f"load average at end: {_load()}\n")
    print(markdown(rows))
    if any(row.error for row in rows):
        raise SystemExit("some workloads failed")


if __name__ == "__main__":
    main()
