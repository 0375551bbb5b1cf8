"""One rule for a run of another collection, query set or year, in every interface: no scores from nothing (a run
that retrieves no judged document on any judged query it holds is refused, naming it), and a warning naming the run
when it retrieves none on half of the judged queries or more. ``ir_measures`` calls warn in both cases: their own
measures in the same call score such a run."""

from __future__ import annotations

import warnings

import ir_measures
import pandas as pd
import pytest

import ir_pref_measures as ipm
from ir_pref_measures.commands import main

QUERIES = ("q1", "q2", "q3", "q4")
REFUSED = "none of its retrieved documents is judged on 100% of queries"
WARNED = "none of its retrieved documents is judged on 2 of the 4 judged queries (50%)"


def write_run(path, judged_queries) -> str:
    """A run of three docs per query: the judged ones on ``judged_queries``, others elsewhere."""
    lines = []
    for q in QUERIES:
        prefix = "d" if q in judged_queries else "x"
        lines += [f"{q} Q0 {prefix}{k} {k + 1} {3 - k} r\n" for k in range(3)]
    path.write_text("".join(lines))
    return str(path)


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d{k} {k}\n" for q in QUERIES for k in range(3)))
    return {
        "qrels": str(qrels),
        "good": write_run(tmp_path / "good.txt", QUERIES),
        "other": write_run(tmp_path / "other.txt", ()),
        "half": write_run(tmp_path / "half.txt", QUERIES[:2]),
    }


COMMANDS = {
    "eval": lambda f, run: ["eval", f["qrels"], run, "ppref@10"],
    "experiment": lambda f, run: ["experiment", f["qrels"], f["good"], run, "-m", "ppref@10"],
    "compare": lambda f, run: ["compare", "-R", f["qrels"], f["good"], run],
    "leaderboard": lambda f, run: ["leaderboard", "--qrels", f["qrels"], f["good"], run, "--rounds", "0"],
}


def calc(f, run):
    return ir_measures.calc_aggregate([ipm.ppref @ 10], ipm.read_qrels(f["qrels"]), ipm.read_run(run))


CALLS = {
    "Experiment": lambda f, run: ipm.Experiment([f["good"], run], f["qrels"], [ipm.ppref @ 10]),
    "compare": lambda f, run: ipm.compare([f["good"], run], f["qrels"]),
    "leaderboard": lambda f, run: ipm.leaderboards.battles_from_runs([f["good"], run], f["qrels"]),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_command_line(files, capsys, command):
    assert main(COMMANDS[command](files, files["other"])) == 2
    captured = capsys.readouterr()
    named = command == "eval" or "other" in captured.err  # eval takes one run: its error need not name it
    assert REFUSED in captured.err and named and captured.out == "", captured.err
    assert main(COMMANDS[command](files, files["half"])) == 0
    err = capsys.readouterr().err
    assert err.count(WARNED) == 1 and "half" in err, err


@pytest.mark.parametrize("call", sorted(CALLS))
def test_python_and_ir_measures(files, call):
    with pytest.raises(ipm.InputError, match=REFUSED):
        CALLS[call](files, files["other"])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = CALLS[call](files, files["half"])
    found = [str(w.message) for w in record if WARNED in str(w.message)]
    assert len(found) == 1, [str(w.message) for w in record]
    assert result is not None and (not isinstance(result, pd.DataFrame) or len(result))


def test_ir_measures_calls_warn_where_the_others_refuse(files):
    for run, share in (("other", "4 of the 4 judged queries (100%)"), ("half", "2 of the 4 judged queries (50%)")):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            values = calc(files, files[run])
        found = [str(w.message) for w in record if "none of its retrieved documents is judged" in str(w.message)]
        assert len(found) == 1 and share in found[0], found
        assert ipm.ppref @ 10 in values
