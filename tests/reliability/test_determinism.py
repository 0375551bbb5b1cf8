"""Nothing depends on input line order or on the string hash seed (rule 14).

Each command runs as a subprocess (the hash seed is fixed when Python starts) on the generated CAsT-like, DL-like
and Carterette inputs of tests/data/inputs, with every input file in 3 line orders (original, reversed, shuffled)
under PYTHONHASHSEED 0 and 1: 6 runs per command, started together, that must print the same bytes. Drop-ins of
reference tools may print their lines in input order, so for them the sorted lines must be the same.
"""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from contextlib import redirect_stdout

import pandas as pd
import pytest
from conftest import fixture_path

ORDERS = ("original", "reversed", "shuffled")
HASH_SEEDS = ("0", "1")
INPUTS = ("qrels", "fqrels", "winner", "pairs", "dlrun", "carterette", "crun", "run1", "run2", "run3")


@pytest.fixture(scope="module")
def inputs() -> dict[str, list[str]]:
    """The generated inputs of ``tests/data/inputs`` (tied scores in every run) and pref_eval's JSON lines."""
    files = {name: fixture_path("inputs", name).read_text().splitlines() for name in INPUTS}
    files["jsonl"] = fixture_path("pref_eval", "outputs", "all_q.jsonl").read_text().splitlines()
    return files


def _reorder(lines: list[str], order: str) -> list[str]:
    if order == "reversed":
        return lines[::-1]
    if order == "shuffled":
        lines = list(lines)
        random.Random(20240601).shuffle(lines)
    return lines


# name, argv with {file} slots, files kept in their order (a drop-in's ties by file order), drop-in
COMMANDS = {
    "eval": (
        "eval -q {qrels} {run1} nDCG@10 P@5 ppref@10 APpref PGC --prefs {winner} --prefs-format winner",
        (),
        False,
    ),
    "eval-preferences-alone": ("eval - {dlrun} ppref@5 rpref@5 APpref nwppref@10 PGC --prefs {pairs}", (), False),
    "eval-jsonl": ("eval -q -o jsonl {qrels} {run2} ppref@10 nDCG@5", (), False),
    "eval-compatibility": ("eval -q {fqrels} {run2} Compatibility ppref@10", (), False),
    "compare": ("compare -R {qrels} -q {run1} {run2} {run3}", (), True),
    "compare-graded-rpp": ("compare -R {qrels} -m rpp -m lexiprecision --graded-rpp {run1} {run2} {run3}", (), True),
    "aggregate": ("aggregate -P {jsonl} -q", (), True),
    "greedy-pgc": ("greedy-pgc {pairs} {dlrun}", (), True),
    "compatibility": ("compatibility {fqrels} {run1}", (), True),
    "pairwise-pref-eval": ("pairwise-pref-eval -q {carterette} {crun}", ("crun", "carterette"), True),
    "pairwise-pref-eval-i": ("pairwise-pref-eval -i {carterette} {crun}", ("crun", "carterette"), True),
    "experiment": (
        "experiment {qrels} {run1} {run2} {run3} --prefs {winner} --prefs-format winner -m nDCG@10 ppref@10 PGC rpp",
        (),
        False,
    ),
    "experiment-baseline": (
        "experiment {qrels} {run1} {run2} {run3} -m APpref nDCG@10 lexiprecision --baseline run1 --test sign "
        "--correction holm --format csv",
        (),
        False,
    ),
    "experiment-perquery": ("experiment {qrels} {run1} {run2} --perquery -m ppref@10 rpp --format json", (), False),
    "meta-runs": ("meta runs -j {qrels} {run1} {run2} {run3} -m nDCG@10 ppref@10 APpref", (), False),
    "meta-sensitivity": (
        "meta sensitivity -j g={qrels} -j p={winner} --prefs-format winner {run1} {run2} {run3} "
        "-m g:nDCG@10 p:PGC --test permutation --samples 200",
        (),
        False,
    ),
    "meta-pr-curve": ("meta pr-curve -j {qrels}+{winner} --prefs-format winner --depth 20 {run1} {run2}", (), False),
    "meta-stability": (
        "meta stability --prefs {winner} --prefs-format winner --remove 0.5 --repeats 3 --seed 7 "
        "{run1} {run2} {run3} -m ppref@10 APpref",
        (),
        False,
    ),
}


@pytest.mark.parametrize("name", COMMANDS)
def test_output_does_not_depend_on_line_order_or_hash_seed(name, inputs, tmp_path):
    template, fixed, drop_in = COMMANDS[name]
    wanted = [f for f in inputs if "{" + f + "}" in template]
    jobs = {}
    for order in ORDERS:
        folder = tmp_path / order
        folder.mkdir()
        paths = {}
        for f in wanted:
            lines = inputs[f] if f in fixed else _reorder(inputs[f], order)
            (folder / f).write_text("".join(line + "\n" for line in lines))
            paths[f] = str(folder / f)
        argv = [sys.executable, "-m", "ir_pref_measures", *template.format(**paths).split()]
        for seed in HASH_SEEDS:
            env = {**os.environ, "PYTHONHASHSEED": seed}
            jobs[order, seed] = (
                folder,
                # run from the input folder: `python -m` puts the working folder first on sys.path, and the
                # checkout's ir_pref_measures/ (no adapters/ inside) must not shadow the installed package
                subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=folder),
            )
    outputs = {}
    for key, (folder, job) in jobs.items():
        out, err = job.communicate(timeout=300)
        assert job.returncode == 0, f"{name} {key}: {err.decode()[-2000:]}"
        text = out.decode().replace(str(folder), "<DIR>")  # greedy_pgc.py's run id is the run's path
        outputs[key] = sorted(text.splitlines()) if drop_in else text
    reference = outputs["original", "0"]
    assert reference
    for key, output in outputs.items():
        assert output == reference, f"{name}: the output with lines {key[0]} under PYTHONHASHSEED={key[1]} differs"


# -- eval -q: measures in command-line order, queries in string order ----------------------------------------------


def test_eval_per_query_order(inputs, tmp_path):
    from ir_pref_measures.commands import main

    for f in ("qrels", "run1", "winner"):
        (tmp_path / f).write_text("".join(line + "\n" for line in _reorder(inputs[f], "shuffled")))
    measures = ["nDCG@10", "P@5", "ppref@10", "APpref", "PGC"]
    out = io.StringIO()
    with redirect_stdout(out):
        argv = ["eval", "-q", str(tmp_path / "qrels"), str(tmp_path / "run1"), *measures]
        assert main([*argv, "--prefs", str(tmp_path / "winner"), "--prefs-format", "winner"]) == 0
    rows = [line.split("\t") for line in out.getvalue().splitlines()]
    queries = list(dict.fromkeys(row[0] for row in rows))
    assert queries == [*sorted(q for q in queries if q != "all"), "all"]
    for query in queries:
        assert [row[1] for row in rows if row[0] == query] == measures, f"measure order of query {query}"


# -- the Python API on shuffled DataFrames -------------------------------------------------------------------------


def _frames(inputs, tmp_path):
    import ir_pref_measures

    for f in ("qrels", "run1", "run2", "run3"):
        (tmp_path / f).write_text("".join(line + "\n" for line in inputs[f]))
    qrels = ir_pref_measures.read_qrels(tmp_path / "qrels")
    runs = {r: ir_pref_measures.read_run(tmp_path / r) for r in ("run1", "run2", "run3")}
    return qrels, runs


def _variants(frame: pd.DataFrame):
    yield "reversed", frame.iloc[::-1].reset_index(drop=True)
    yield "shuffled", frame.sample(frac=1.0, random_state=11).reset_index(drop=True)


def test_experiment_api_ignores_row_order(inputs, tmp_path):
    import ir_pref_measures

    qrels, runs = _frames(inputs, tmp_path)
    measures = ["nDCG@10", "ppref@10", "APpref", "PGC", "rpp"]
    expected = ir_pref_measures.Experiment(runs, qrels, measures, baseline="run1", perquery=False)
    expected_long = ir_pref_measures.Experiment(runs, qrels, measures, perquery=True)
    for how, shuffled_qrels in _variants(qrels):
        shuffled_runs = {name: dict(_variants(run))[how] for name, run in runs.items()}
        got = ir_pref_measures.Experiment(shuffled_runs, shuffled_qrels, measures, baseline="run1", perquery=False)
        pd.testing.assert_frame_equal(got, expected, check_exact=True, obj=f"Experiment ({how})")
        got = ir_pref_measures.Experiment(shuffled_runs, shuffled_qrels, measures, perquery=True)
        pd.testing.assert_frame_equal(got, expected_long, check_exact=True, obj=f"Experiment perquery ({how})")


def test_compare_api_ignores_row_order(inputs, tmp_path):
    import ir_pref_measures

    qrels, runs = _frames(inputs, tmp_path)
    expected = ir_pref_measures.compare(runs, qrels, perquery=True)
    for how, shuffled_qrels in _variants(qrels):
        shuffled_runs = {name: dict(_variants(run))[how] for name, run in runs.items()}
        got = ir_pref_measures.compare(shuffled_runs, shuffled_qrels, perquery=True)
        pd.testing.assert_frame_equal(got, expected, check_exact=True, obj=f"compare ({how})")
