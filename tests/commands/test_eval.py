"""The `ir-pref-measures` command: eval (the ir_measures command line plus preferences) and demo."""

from __future__ import annotations

import argparse
import importlib

import pytest

from ir_pref_measures.commands import main

QRELS = "q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 a 1\nq2 0 b 0\n"
RUN = "q1 Q0 b 1 3.0 r\nq1 Q0 a 2 2.0 r\nq1 Q0 c 3 1.0 r\nq2 Q0 a 1 1.0 r\n"
PREFS = "q1 c a -1\nq1 c b -1\n"


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in (("qrels", QRELS), ("run", RUN), ("prefs", PREFS)):
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    return paths


def test_eval_mixes_ordinary_and_preference_measures(files, capsys):
    assert main(["eval", str(files["qrels"]), str(files["run"]), "nDCG@10", "ppref@10", "APpref"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in lines] == ["nDCG@10", "ppref@10", "APpref"]
    # q1: a>b a>c b>c, run b a c: 2 of 3 correct; q2: a>b, b unretrieved: 1 of 1
    assert lines[1] == f"ppref@10\t{(2 / 3 + 1) / 2:.4f}"


def test_eval_per_query(files, capsys):
    assert main(["eval", "-q", str(files["qrels"]), str(files["run"]), "ppref@10"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["q1\tppref@10\t0.6667", "q2\tppref@10\t1.0000", "all\tppref@10\t0.8333"]


def test_eval_with_preferences_alone_and_combined(files, capsys):
    assert main(["eval", "-", str(files["run"]), "ppref@10", "--prefs", str(files["prefs"])]) == 0
    assert capsys.readouterr().out == "ppref@10\t0.0000\n"  # c preferred to a and b, but ranked last
    assert main(["eval", str(files["qrels"]), str(files["run"]), "num_pref_total", "--prefs", str(files["prefs"])]) == 0
    # q1: union of a>b a>c b>c and c>a c>b, closure makes every ordered pair strict: 6; q2: 1
    assert capsys.readouterr().out == "num_pref_total\t3.5000\n"


def test_eval_errors(files, capsys):
    assert main(["eval", str(files["qrels"]), str(files["run"]), "pprf@10"]) == 2
    assert "unknown measure: pprf@10" in capsys.readouterr().err
    assert main(["eval", "-", str(files["run"]), "nDCG@10", "--prefs", str(files["prefs"])]) == 2
    assert "nDCG@10 needs graded qrels" in capsys.readouterr().err
    assert main(["eval", "-", str(files["run"]), "ppref@10"]) == 2
    assert "no judgments" in capsys.readouterr().err


def test_eval_with_one_provider_as_ir_measures(files, capsys):
    args = ["eval", str(files["qrels"]), str(files["run"])]
    assert main([*args, "ppref@10", "--provider", "ir_pref_measures"]) == 0
    assert capsys.readouterr().out == f"ppref@10\t{(2 / 3 + 1) / 2:.4f}\n"
    assert main([*args, "nDCG@10", "--provider", "pytrec_eval"]) == 0
    assert capsys.readouterr().out.startswith("nDCG@10\t")
    assert main([*args, "nDCG@10", "--provider", "ir_pref_measures"]) == 2
    assert "unsupported measure nDCG@10" in capsys.readouterr().err


def test_demo_prints_a_table(capsys):
    import ir_measures

    from ir_pref_measures.experiment import example

    assert main(["demo"]) == 0
    blocks = capsys.readouterr().out.split("\n\n")
    means = next(block for block in blocks if block.startswith("  name"))
    header, *rows = [line.split() for line in means.splitlines()]
    assert header == ["name", "nDCG@10", "AP", "ppref@10", "APpref", "PGC(p=0.9)", "rpp", "lexiprecision"]
    assert [row[0] for row in rows] == ["weak", "tuned", "medium", "strong"]
    qrels, _, runs = example()
    for row in rows:  # the graded columns, against ir_measures itself
        expected = ir_measures.calc_aggregate([ir_measures.nDCG @ 10], qrels, runs[row[0]])[ir_measures.nDCG @ 10]
        assert row[1] == f"{expected:.4f}"
    assert rows[0][-2:] == ["0.0000", "0.0000"]  # the baseline's preference over itself
    tests = [block.split() for block in blocks if block.split()[0] in header[1:]]
    assert [block[0] for block in tests] == header[1:]
    assert all(block[1:6] == ["+", "-", "p-value", "reject", "p-value"] for block in tests)
    assert all(block[7:9] == ["weak", "baseline"] for block in tests)  # not "False", which reads as a verdict
    legend, disagreement = blocks[-2:]
    assert "+ and - count the queries on which the run scores above and below the baseline 'weak'" in legend
    assert disagreement.startswith("Where the measures disagree: on ")


def test_the_demo_disagreement_is_the_per_query_values():
    """The queries on which nDCG@10 and APpref order two runs differently, counted from the long table."""
    import pandas as pd

    from ir_pref_measures.experiment.demo import disagreement

    rows = [("a", "q1", "nDCG@10", 0.5), ("b", "q1", "nDCG@10", 0.4), ("a", "q1", "APpref", 0.2)]
    rows += [("b", "q1", "APpref", 0.3), ("a", "q2", "nDCG@10", 0.5), ("b", "q2", "nDCG@10", 0.4)]
    rows += [("a", "q2", "APpref", 0.5), ("b", "q2", "APpref", 0.3)]
    long = pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])
    text = disagreement(long, "a", "b")
    assert text.startswith("Where the measures disagree: on 1 of 2 queries nDCG@10 and APpref order a and b")
    assert "on q1: nDCG@10 a 0.5000 vs b 0.4000 (a better), APpref a 0.2000 vs b 0.3000 (b better)" in text
    agree = long[long["qid"] == "q2"]
    assert disagreement(agree, "a", "b") == "nDCG@10 and APpref order a and b alike on every query."


def test_version(capsys):
    from ir_pref_measures._version import __version__

    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0
    assert capsys.readouterr().out == f"ir-pref-measures {__version__}\n"


def test_version_of_the_installed_command():
    import shutil
    import subprocess

    from ir_pref_measures._version import __version__

    command = shutil.which("ir-pref-measures")
    if command is None:
        pytest.skip("the ir-pref-measures command is not on PATH")
    done = subprocess.run([command, "--version"], capture_output=True, text=True, check=True)
    assert done.stdout == f"ir-pref-measures {__version__}\n"


def test_every_command_module_adds_its_parser_and_runs():
    from ir_pref_measures.commands import COMMANDS, parser

    names = [action for action in parser()._subparsers._group_actions[0].choices]
    assert names == [
        "demo",
        "eval",
        "pairwise-pref-eval",
        "trec-eval",
        "compare",
        "aggregate",
        "leaderboard",
        "compatibility",
        "greedy-pgc",
        "rbo",
        "experiment",
        "meta",
        "judges",
        "ppi",
        "topicsize",
        "judge",
    ]
    assert names == list(COMMANDS)
    for name, (module, _) in COMMANDS.items():
        command = importlib.import_module(f"ir_pref_measures.commands.{module}")
        assert callable(command.add_parser) and callable(command.run)
        assert list(parser(name)._subparsers._group_actions[0].choices) == [name]  # the module adds its subcommand


def _leaves(command_parser, inherited):
    """Each parser of a command line that takes no further subcommand, with the defaults it sets and those of the
    parsers above it (argparse's namespace gets them all, the lower ones winning)."""
    defaults = {**inherited, **command_parser._defaults}
    groups = [action for action in command_parser._actions if isinstance(action, argparse._SubParsersAction)]
    if not groups:
        yield command_parser.prog, defaults
    for group in groups:
        for child in group.choices.values():
            yield from _leaves(child, defaults)


def test_every_command_line_reaches_its_function_through_one_attribute():
    """The dispatch calls ``args.handler``; no command sets a function under another name (``action``...)."""
    from ir_pref_measures.commands import COMMANDS, parser

    leaves = {prog: defaults for name in COMMANDS for prog, defaults in _leaves(parser(name), {}) if name in prog}
    assert "ir-pref-measures judge serve" in leaves and "ir-pref-measures meta pr-curve" in leaves
    for prog, defaults in leaves.items():
        functions = sorted(name for name, value in defaults.items() if callable(value))
        assert functions == ["handler"], prog


def test_only_input_errors_become_exit_status_2(files, capsys, monkeypatch):
    """Bad input: a message and status 2; any other exception (a bug) keeps its traceback."""
    from ir_pref_measures.commands import demo

    def broken(args):
        raise ValueError("a bug")

    monkeypatch.setattr(demo, "run", broken)
    with pytest.raises(ValueError, match="a bug"):
        main(["demo"])  # the parser's handler is the module's run, looked up when the parser is built
    assert main(["eval", str(files["qrels"]), str(files["run"]), "PGC(p=2)"]) == 2
    assert capsys.readouterr().err == (
        "ir-pref-measures eval: invalid measure PGC(p=2): p (RBO or RBP persistence, in (0, 1]) must be a number "
        "in (0, 1], not 2\n"
    )


@pytest.mark.parametrize("measures", [["nDCG@10"], ["ppref@10"], ["nDCG@10", "APpref"]])
def test_eval_refuses_a_run_with_no_judged_query(files, tmp_path, capsys, measures):
    """A wrong year or collection: the run and the judgments share no query. One clear error, as `experiment` gives,
    not a table of zeros."""
    other = tmp_path / "other.run"
    other.write_text(RUN.replace("q1", "q7").replace("q2", "q8"))
    assert main(["eval", str(files["qrels"]), str(other), *measures]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "no query in common with the judgments" in captured.err
    assert "q7" in captured.err and "q1" in captured.err


@pytest.mark.parametrize(("scores", "first"), [((0.30000000000000004, 0.3), "a"), ((2e-300, 1e-300), "a")])
def test_every_measure_of_eval_ranks_the_run_the_same_way(tmp_path, capsys, scores, first):
    """Scores that differ only beyond float32 precision tie for pytrec_eval alone; nDCG@1, P@1 and ppref@1 of one
    output all see the float64 order (score descending, then doc id descending)."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(f"q1 0 {first} 1\nq1 0 {'b' if first == 'a' else 'a'} 0\n")
    run.write_text(f"q1 Q0 a 1 {scores[0]!r} r\nq1 Q0 b 2 {scores[1]!r} r\n")
    assert main(["eval", str(qrels), str(run), "nDCG@1", "P@1", "ppref@1"]) == 0
    assert capsys.readouterr().out == "nDCG@1\t1.0000\nP@1\t1.0000\nppref@1\t1.0000\n"


def test_numrel_of_a_judged_query_the_run_lacks_is_zero_as_in_ir_measures(tmp_path, capsys):
    """docs/differences.md: ir_measures gives a judged query missing from the run every measure's default, NumRel
    included (trec_eval -c would print R, here 1)."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d3 1\n")
    run.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    assert main(["eval", "-q", str(qrels), str(run), "NumRel"]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == ["q1\tNumRel\t1.0000", "q2\tNumRel\t0.0000"]


def test_a_run_line_with_fields_after_the_sixth_is_refused_with_the_way_out(tmp_path, capsys):
    """trec_eval ignores fields after the sixth (its own results.trunc has some); we refuse them, saying how to cut
    them off (docs/differences.md, the trec_eval table)."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 2.0 r extra\n")
    assert main(["eval", str(qrels), str(run), "nDCG@10"]) == 2
    err = capsys.readouterr().err
    assert "run.txt:1: 7 fields instead of 6" in err and "which trec_eval ignores, are refused" in err, err
