"""The ``ppi`` and ``topicsize`` subcommands."""

from __future__ import annotations

import numpy as np

from ir_pref_measures.commands import main
from ir_pref_measures.stats import topic_set_size as tss


def test_topicsize_both_ways(capsys):
    assert main(["topicsize", "--variance", "0.05", "--difference", "0.1", "--systems", "10", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].endswith(f",{tss.anova_topics(10, 0.1, 0.05)}")
    assert main(["topicsize", "--variance", "0.05", "--topics", "50", "--format", "csv"]) == 0
    first = capsys.readouterr().out.splitlines()[1].split(",")
    assert float(first[-2]) == tss.t_test_detectable(50, 0.05)


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
