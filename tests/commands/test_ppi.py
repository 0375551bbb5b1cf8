"""The ``ppi`` and ``topicsize`` subcommands."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from ir_pref_measures.commands import main
from ir_pref_measures.stats import labels_for_width, ppi_power
from ir_pref_measures.stats import topic_set_size as tss


def test_topicsize_both_ways(capsys):
    assert main(["topicsize", "--variance", "0.05", "--difference", "0.1", "--systems", "10", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].endswith(f",{tss.anova_topics(10, 0.1, 0.05)}")
    assert main(["topicsize", "--variance", "0.05", "--topics", "50", "--format", "csv"]) == 0
    first = capsys.readouterr().out.splitlines()[1].split(",")
    assert float(first[-2]) == tss.t_test_detectable(50, 0.05)


def test_topicsize_at_two_topics_prints_finite_numbers(capsys):
    for variance in ("0.01", "0.02", "0.05"):
        assert main(["topicsize", "--variance", variance, "--topics", "2", "--format", "csv"]) == 0
        out = capsys.readouterr().out
        assert "nan" not in out.lower() and "inf" not in out.lower()


def test_topicsize_bad_input(capsys):
    assert main(["topicsize", "--variance", "0.05"]) == 2
    assert "--difference" in capsys.readouterr().err
    assert main(["topicsize", "--difference", "0.1"]) == 2
    assert "--variance" in capsys.readouterr().err


def test_ppi_battles(tmp_path, capsys):
    rng = np.random.default_rng(4)
    names = np.array(["x", "y", "z"])

    def write(path, k, flip):
        a = rng.integers(0, 3, k)
        b = (a + rng.integers(1, 3, k)) % 3
        y = rng.random(k) < np.where(a < b, 0.7, 0.3)
        f = np.where(rng.random(k) < flip, ~y, y)
        for name, won in ((path + ".people", y), (path + ".llm", f)):
            lines = [f"q{i} {names[a[i]]} {names[b[i]]} {'a' if won[i] else 'b'}" for i in range(k)]
            (tmp_path / name).write_text("\n".join(lines) + "\n")

    write("labelled", 150, 0.2)
    write("unlabelled", 600, 0.2)
    files = [str(tmp_path / n) for n in ("labelled.people", "labelled.llm", "unlabelled.llm")]
    assert main(["ppi", "--battles", *files, "--format", "csv"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "system,rating,ci low,ci high,se,rank"
    assert [line.split(",")[0] for line in out[1:]] == ["x", "y", "z"]
    assert main(["ppi", "people=" + files[0]]) == 2
    assert "ppi PEOPLE=SOURCE LLM=SOURCE --runs" in capsys.readouterr().err


def _judged_files(tmp_path):
    """People's and an LLM's preferences (Carterette format) on 30 queries, people on the first 15; three runs."""
    rng = np.random.default_rng(6)
    people, llm, runs = [], [], {name: [] for name in ("A", "B", "C")}
    for q in range(30):
        grades = rng.integers(0, 4, 6)
        for i in range(6):
            for j in range(i + 1, 6):
                label = int(np.sign(grades[j] - grades[i]))
                if label:
                    guess = -label if rng.random() < 0.25 else label
                    llm.append(f"q{q} d{i} d{j} {guess}")
                    if q < 15:
                        people.append(f"q{q} d{i} d{j} {label}")
        for name, lines in runs.items():
            order = np.argsort(-(grades * (name != "C") + rng.normal(size=6)))
            lines += [f"q{q} Q0 d{d} {r + 1} {6 - r} {name}" for r, d in enumerate(order)]
    paths = {}
    for name, lines in {"people": people, "llm": llm, **{f"run{k}": v for k, v in runs.items()}}.items():
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("\n".join(lines) + "\n")
    return paths


def test_ppi_plans_from_the_people_queries_as_a_pilot(tmp_path, capsys):
    paths = _judged_files(tmp_path)
    base = ["ppi", f"people={paths['people']}", f"llm={paths['llm']}", "--prefs-format", "carterette", "--runs"]
    base += [str(paths[f"run{k}"]) for k in "ABC"] + ["-m", "ppref@5", "--format", "csv"]
    assert main([*base, "--width", "0.1", "--costs", "10", "0.2"]) == 0
    plan = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(plan.columns) == [
        "run", "pilot", "correlation", "sd", "target n", "people", "llm only", "cost", "effective n", "people only cost"
    ]  # fmt: skip
    row = plan.iloc[0]
    assert row["target n"] == labels_for_width(0.1, row["sd"] ** 2)
    expected = ppi_power(row["correlation"], 10, 0.2, effective_n=int(row["target n"]))
    assert (row["people"], row["llm only"]) == (expected.n, expected.N)
    assert row["cost"] < row["people only cost"] and row["pilot"] == 15
    assert main([*base]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert "effective n" in table.columns and (table["effective n"] > 0).all()
    assert main([*base, "--experiment", "20", "--sample-size", "10", "--rule", "uncertainty"]) == 0
    experiment = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert experiment["size"].between(5, 15).all() and experiment["coverage"].between(0, 1).all()
    assert main([*base, "--experiment", "20", "--sample-size", "10", "--rule", "stratified"]) == 0
    stratified = pd.read_csv(io.StringIO(capsys.readouterr().out))  # exactly 10 people's queries: no mean size
    assert "size" not in stratified.columns and stratified["coverage"].between(0, 1).all()
    for extra, message in [
        (["--width", "0.1"], "needs the prices: --costs PEOPLE LLM"),
        (["--width", "0.1", "--budget", "50", "--costs", "1", "1"], "plan for one target, not --width and --budget"),
        (["--costs", "1", "1"], "give a target"),
    ]:
        assert main([*base, *extra]) == 2
        assert message in capsys.readouterr().err
