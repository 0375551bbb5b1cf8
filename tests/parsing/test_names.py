"""Run names: one rule (ir_pref_measures.parsing.names) in every command; the drop-ins keep their tool's run id unless
asked."""

from __future__ import annotations

import pytest

from ir_pref_measures.commands import main
from ir_pref_measures.errors import InputError
from ir_pref_measures.parsing.names import named_paths, pref_eval_id, renamed_report, run_name


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("runs/input.ICT-BERT2.txt.gz", "ICT-BERT2"),
        ("decaf_exp1.run.gz", "decaf_exp1"),
        ("/a/b/run1", "run1"),
        ("bm25.k1.2.res", "bm25.k1.2"),
        ("input.x.gz", "x"),
        (".run", ".run"),
    ],
)
def test_run_name(path, name):
    assert run_name(path) == name


def test_pref_eval_id_keeps_the_extension():
    assert pref_eval_id("runs/input.ICT-BERT2.txt.gz") == "ICT-BERT2.txt"


def test_named_paths_refuses_clashes_and_counts():
    assert list(named_paths(["a/x.run", "b/y.run"])) == ["x", "y"]
    with pytest.raises(InputError, match="both named 'x'"):
        named_paths(["a/x.run", "b/x.txt"])
    assert list(named_paths(["a/x.run", "b/x.txt"], ["one", "two"])) == ["one", "two"]
    with pytest.raises(InputError, match="1 names for 2 runs"):
        named_paths(["a", "b"], ["one"])


def test_renamed_report_replaces_the_run_id_only():
    report = "runid,topic,compatibility\nrun,1,0.5\nrun,2,0.25\nrun,average,0.375\n"
    assert (
        renamed_report(report, "X", "path/input.r.txt")
        == "runid,topic,compatibility\nX,1,0.5\nX,2,0.25\nX,average,0.375\n"
    )
    assert renamed_report(report, "", "path/input.r.txt").splitlines()[1] == "r,1,0.5"
    assert renamed_report(report, None, "path") == report


def _output(capsys, argv) -> str:
    assert main(argv) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_drop_ins_keep_the_tools_run_id_unless_asked(capsys, data):
    qrels = str(data("cast2019_qrels", "2019qrels.txt"))
    run = str(data("cast2019_runs_decaf", "decaf_exp5.run.gz"))
    tool = _output(capsys, ["compatibility", qrels, run])
    assert tool.splitlines()[1].startswith("exp5,")  # compatibility.py's run tag (its reference outputs)
    by_file = _output(capsys, ["compatibility", "--file-name", qrels, run])
    assert by_file == tool.replace("\nexp5,", "\ndecaf_exp5,")
    assert _output(capsys, ["compatibility", "--name", "mine", qrels, run]) == tool.replace("\nexp5,", "\nmine,")
    prefs = data("dl_llm_prefs_arabzadeh", "llm_pref_judgments", "DL2019", "judge.00")
    dl_run = str(data("dl_llm_prefs_arabzadeh", "runs", "input.ICT-BERT2.txt.gz"))
    greedy = _output(capsys, ["greedy-pgc", str(prefs), dl_run])
    assert greedy.splitlines()[1].startswith(dl_run + ",")  # greedy_pgc.py's: the run path
    assert _output(capsys, ["greedy-pgc", "--file-name", str(prefs), dl_run]) == greedy.replace(
        dl_run + ",", "ICT-BERT2,"
    )
