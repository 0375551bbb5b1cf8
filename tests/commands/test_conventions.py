"""One convention for every subcommand, checked on the same small inputs (made here, so a fresh clone runs it):

* judgments: one source syntax, ``FORMAT:PATH``, ``A+B``, format detection, Clarke's judging log (``log:PATH`` or
  detected), wherever a command takes judgments;
* runs: one naming rule (file name without folder, ``input.``, ``.gz`` and extension) wherever a command names runs;
* depth: every command that takes several runs warns once when their depths differ, advises ``--topk K``, and takes
  ``--topk``;
* warnings: one line of words (``ir-pref-measures COMMAND: warning: ...``, not Python's ``file:line: Warning``),
  each once.

The drop-ins reproduce their reference tool's arguments and output: they are listed with that reason, and a test
checks that every subcommand is classified, so a new command cannot escape the conventions unnoticed.
"""

from __future__ import annotations

import gzip
import re

import pytest
from conftest import fixture_path, run_cli

from ir_pref_measures.commands import COMMANDS, main

QUERIES = tuple(f"q{k}" for k in range(1, 13))  # ppi: at least ten queries judged by people, one more by the LLM
DOCS = [f"d{k}" for k in range(8)]
DEPTHS = {"sysA": 6, "sysB": 6, "sysC": 8}  # sysC retrieves deeper: the depth warning
DROP_INS = {  # subcommand -> why it keeps its reference tool's arguments and run ids
    "pairwise-pref-eval": "Elsas' pairwise_pref_eval.py",
    "trec-eval": "trec_eval -R prefs / qrels_prefs",
    "compatibility": "Clarke's compatibility.py",
    "greedy-pgc": "Luo's greedy_pgc.py",
    "aggregate": "Diaz' pref_aggregate.py (its --method scores is ours)",
    "rbo": "the RBO reference: two runs, its own --depth",
    "demo": "no input",
    "judge": "makes judgments in a store (tests/commands/test_judge.py); simulate is walked below",
}
BOOTSTRAP = ["--rounds", "20", "--prior", "1"]  # few rounds; a prior keeps each finite on four queries
PPI = ["--topk", "6", "--seed", "1"]  # the people's sample: ten of the twelve queries
DEPTH_WARNING = "the runs retrieve different numbers of documents per query"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Graded qrels, the same judgments as ``pairs`` preferences and as a judging log, three runs (gzipped, TREC
    names ``input.NAME.txt.gz``) of different depths."""
    folder = tmp_path_factory.mktemp("conventions")
    grades = {(q, d): (k + int(q[1])) % 3 for q in QUERIES for k, d in enumerate(DOCS)}
    (folder / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in grades.items()))
    pairs = [(q, a, b) for q in QUERIES for a in DOCS for b in DOCS if grades[q, a] > grades[q, b]]
    (folder / "prefs.txt").write_text("".join(f"{q} {a} {b}\n" for q, a, b in pairs))
    log = [f"@ {q} {a} {b} !\n" for q, a, b in pairs[::2]] + ["@ q1 d0 d3 =\n", "@ q2 d1 d2 ?\n"]
    (folder / "judging.log").write_text("".join(log))
    runs = []
    for n, (name, depth) in enumerate(DEPTHS.items()):
        path = folder / f"input.{name}.txt.gz"
        lines = [
            f"{q} Q0 {DOCS[(k + n + i) % len(DOCS)]} {k + 1} {10.0 - k} {name}\n"
            for i, q in enumerate(QUERIES)
            for k in range(depth)
        ]
        path.write_bytes(gzip.compress("".join(lines).encode()))
        runs.append(str(path))
    return {
        "qrels": str(folder / "qrels.txt"),
        "prefs": str(folder / "prefs.txt"),
        "log": str(folder / "judging.log"),
        "runs": runs,
    }


def run_command(argv: list[str], capsys) -> tuple[str, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 0, err
    check_warnings(argv[0], err)
    return out, err


def check_warnings(command: str, err: str) -> None:
    """Every warning is one line of words in the command's form, none twice, none in Python's format."""
    lines = err.splitlines()
    assert not re.search(r"\.py:\d+|Warning:|warnings\.warn", err), err
    for line in lines:
        if "warning" in line.lower():
            assert line.startswith(f"ir-pref-measures {command}: warning: "), line
    assert len(lines) == len(set(lines)), err


# -- one judgment-source syntax -------------------------------------------------------------------------------------

GRADED_FORMS = {  # forms holding grades: every command that takes judgments reads them
    "detected": "{qrels}",
    "named": "qrels:{qrels}",
    "union": "{qrels}+pairs:{prefs}",
}
PREFERENCE_FORMS = {  # preferences alone: every command whose measures read preferences
    "named pairs": "pairs:{prefs}",
    "detected pairs": "{prefs}",
    "named log": "log:{log}",
    "detected log": "{log}",
    "union of two": "pairs:{prefs}+log:{log}",
}
JUDGING = {  # subcommand -> its arguments, SOURCE standing for the judgment source; preferences too?
    "eval": (["eval", "SOURCE", "RUN", "APpref", "ppref@5"], True),
    "experiment": (["experiment", "SOURCE", "RUNS", "-m", "APpref", "ppref@5", "--topk", "6"], True),
    "judges": (["judges", "a=SOURCE", "b=pairs:PREFS"], True),  # a judge of grades and preferences: two judges
    "ppi": (["ppi", "a=SOURCE", "b=pairs:PREFS", "--runs", "RUNS", "-m", "APpref", "--sample-size", "10", *PPI], True),
    "meta": (["meta", "consistency", "RUNS", "-j", "s=SOURCE", "-m", "s:APpref", "s:ppref@5", "--topk", "6"], True),
    "compare": (["compare", "-R", "SOURCE", "--topk", "6", "RUNS"], False),  # pairwise measures need grades
    "leaderboard": (
        ["leaderboard", "--qrels", "SOURCE", "--topk", "6", *BOOTSTRAP, "RUNS"],
        False,
    ),
}


def _argv(template: list[str], inputs: dict, source: str) -> list[str]:
    argv = []
    for item in template:
        if item == "RUNS":
            argv += inputs["runs"]
        else:
            item = item.replace("SOURCE", source).replace("RUN", inputs["runs"][0])
            argv.append(item.replace("QRELS", inputs["qrels"]).replace("PREFS", inputs["prefs"]))
    return argv


def test_every_subcommand_is_classified():
    assert set(COMMANDS) == set(JUDGING) | set(DROP_INS) | set(RUN_NAMES) | set(DEPTH), set(COMMANDS)


PANELS = {"judges", "ppi"}  # commands taking NAME=SOURCE judges, aligned into one table


def _applicable(command: str, form: str) -> bool:
    """Preferences alone where the command's measures read them; one judge holds grades or preferences, not both
    (give them as two judges)."""
    return (form in GRADED_FORMS or JUDGING[command][1]) and not (command in PANELS and form == "union")


@pytest.mark.parametrize(
    "command, form", [(c, f) for c in JUDGING for f in [*GRADED_FORMS, *PREFERENCE_FORMS] if _applicable(c, f)]
)
def test_every_command_reads_one_judgment_source_syntax(command, form, inputs, capsys):
    template = JUDGING[command][0]
    source = {**GRADED_FORMS, **PREFERENCE_FORMS}[form].format(**inputs)
    out, err = run_command(_argv(template, inputs, source), capsys)
    assert out.strip()
    if "log" in form and command != "judges":  # the log's '?' line is no judgment, and says so (judges: in a table)
        assert err.count("1 of ") == 1 and "no usable answer" in err, err


def test_a_judgment_source_reads_the_same_in_the_api(inputs):
    import ir_pref_measures as ipm

    with pytest.warns(UserWarning, match="1 of .* lines have no usable answer"):
        log = ipm.load_judgments(inputs["log"])
    with pytest.warns(UserWarning, match="no usable answer"):
        named_log = ipm.load_judgments("log:" + inputs["log"])
    assert (named_log.edge_src.tolist(), named_log.edge_dst.tolist()) == (log.edge_src.tolist(), log.edge_dst.tolist())
    named = ipm.load_judgments("pairs:" + inputs["prefs"])
    assert len(named.edge_src) == len(ipm.load_judgments(inputs["prefs"]).edge_src) > 0
    assert len(log.edge_src) == (len(named.edge_src) + 1) // 2 and len(log.tie_a) == 1


SIMULATE = ["judge", "simulate", "--runs", "RUNS", "--qrels", "QRELS", "--seeds", "1", "--budgets", "0.5"]


@pytest.mark.parametrize("form", [f for f in PREFERENCE_FORMS if "+" not in PREFERENCE_FORMS[f]])
def test_the_replayed_judgments_read_the_same_syntax(form, inputs, capsys):
    """``judge simulate --judge replay --judgments SOURCE`` (one file: the replay keeps its repeated judgments)."""
    source = PREFERENCE_FORMS[form].format(**inputs)
    out, err = run_command([*_argv(SIMULATE, inputs, ""), "--judge", "replay", "--judgments", source], capsys)
    assert "topk" in out, out
    if "log" in form:
        assert err.count("1 of ") == 1 and "no usable answer" in err, err


@pytest.mark.parametrize("form", ["detected", "named"])
def test_the_simulated_judge_reads_qrels_the_same_way(form, inputs, capsys):
    argv = _argv(SIMULATE, inputs, "").copy()
    argv[argv.index("--qrels") + 1] = GRADED_FORMS[form].format(**inputs)
    out, _ = run_command(argv, capsys)
    assert "topk" in out, out


# -- one measure-name parser ----------------------------------------------------------------------------------------

MEASURED = {  # subcommand -> arguments with the misspelt measure APprf
    "eval": ["eval", "QRELS", "RUN", "APprf"],
    "experiment": ["experiment", "QRELS", "RUNS", "-m", "APprf", "--topk", "6"],
    "meta": ["meta", "consistency", "RUNS", "-j", "g=QRELS", "-m", "g:APprf", "--topk", "6"],
    "judges": ["judges", "a=QRELS", "b=pairs:PREFS", "--runs", "RUNS", "--measure", "APprf", "--topk", "6"],
    "ppi": ["ppi", "a=QRELS", "b=pairs:PREFS", "--runs", "RUNS", "-m", "APprf", "--sample-size", "10", *PPI],
    "judge": [*SIMULATE, "--measure", "APprf"],
}


@pytest.mark.parametrize("command", MEASURED)
def test_every_command_names_the_measure_it_does_not_know_and_the_closest(command, inputs, capsys):
    assert main(_argv(MEASURED[command], inputs, "")) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ir-pref-measures {command}: ") and "Traceback" not in err, err
    (named,) = [line for line in err.splitlines() if "APprf" in line]  # eval: ir_measures' "error parsing measures"
    assert re.search(r"unknown measure:? '?APprf'?;? \(?did you mean '?APpref'? or", named), err
    assert err.splitlines()[-1].startswith("  expected: an ir_measures name"), err


# -- one run-naming rule --------------------------------------------------------------------------------------------

RUN_NAMES = {  # subcommand -> arguments whose output names the runs
    "experiment": ["experiment", "QRELS", "RUNS", "-m", "nDCG@5", "--topk", "6"],
    "leaderboard": ["leaderboard", "--qrels", "QRELS", "--topk", "6", *BOOTSTRAP, "RUNS"],
    "meta": ["meta", "consistency", "RUNS", "-j", "g=QRELS", "-m", "g:nDCG@5", "g:APpref", "--topk", "6"],
    "judges": ["judges", "a=QRELS", "b=pairs:PREFS", "--runs", "RUNS", "--measure", "APpref", "--topk", "6"],
    "ppi": ["ppi", "a=QRELS", "b=pairs:PREFS", "--runs", "RUNS", "-m", "APpref", "--sample-size", "10", *PPI],
    "compare": ["compare", "-R", "QRELS", "RUNS", "--names", "--topk", "6"],  # without --names: pref_eval.py's ids
    "eval": None,  # one run, ir_measures' output: no run name
}


@pytest.mark.parametrize("command", [c for c, argv in RUN_NAMES.items() if argv])
def test_every_command_names_runs_by_one_rule(command, inputs, capsys):
    argv = _argv(RUN_NAMES[command], inputs, "")
    out, _ = run_command(argv, capsys)
    for name in DEPTHS:
        assert name in out, out
    assert ".txt" not in out and "input." not in out, out


def test_compare_names_runs_as_pref_eval_or_as_given(inputs, capsys):
    """The drop-in's default is pref_eval.py's run id (the extension kept, so that its lines are the tool's);
    ``--names NAME...`` names the runs in order."""
    out, _ = run_command(_argv(["compare", "-R", "QRELS", "RUNS", "--topk", "6"], inputs, ""), capsys)
    assert all(f'"{name}.txt"' in out for name in DEPTHS), out
    names = [f"r{k}" for k in range(len(DEPTHS))]
    out, _ = run_command(
        _argv(["compare", "-R", "QRELS", "RUNS", "--topk", "6", "--names", *names], inputs, ""), capsys
    )
    assert all(f'"{name}"' in out for name in names), out


def test_the_api_names_runs_by_the_same_rule(inputs):
    import ir_pref_measures as ipm

    table = ipm.compare(inputs["runs"], inputs["qrels"], ["rpp"], topk=6)
    assert set(table["run_i"]) | set(table["run_j"]) == set(DEPTHS)
    assert list(ipm.Experiment(inputs["runs"], inputs["qrels"], ["nDCG@5"], topk=6)["name"]) == list(DEPTHS)


# -- one --topk / depth rule ----------------------------------------------------------------------------------------

DEPTH = {  # subcommand -> arguments over the three runs of different depths (without --topk)
    "experiment": ["experiment", "QRELS", "RUNS", "-m", "nDCG@5", "APpref"],
    "leaderboard": ["leaderboard", "--qrels", "QRELS", *BOOTSTRAP, "RUNS"],
    "meta": ["meta", "consistency", "RUNS", "-j", "g=QRELS", "-m", "g:nDCG@5", "g:APpref"],
    "judges": ["judges", "a=QRELS", "b=pairs:PREFS", "--runs", "RUNS", "--measure", "APpref"],
    "compare": ["compare", "-R", "QRELS", "RUNS"],
    "ppi": ["ppi", "a=QRELS", "b=pairs:PREFS", "--runs", "RUNS", "-m", "APpref", "--sample-size", "10"],
    "judge": [*SIMULATE, "--measure", "APpref"],
    "topicsize": ["topicsize", "--runs", "RUNS", "--qrels", "QRELS", "-m", "nDCG@5", "--difference", "0.1"],
}


@pytest.mark.parametrize("command", DEPTH)
def test_every_command_with_several_runs_warns_about_depths_once_and_takes_topk(command, inputs, capsys):
    argv = _argv(DEPTH[command], inputs, "")
    _, err = run_command(argv, capsys)
    assert err.count(DEPTH_WARNING) == 1, err
    assert re.search(r"sysC(\.txt)? 8", err) and "(--topk 6)" in err, err  # compare: pref_eval's run ids
    _, err = run_command([*argv, "--topk", "6"], capsys)
    assert DEPTH_WARNING not in err, err


# -- warnings: one line each, once ----------------------------------------------------------------------------------


def test_the_drop_ins_print_warnings_as_one_line_too(inputs, tmp_path, capsys):
    """A swapped-columns warning raised while a drop-in reads its run is one line of words."""
    swapped = tmp_path / "swapped.txt"
    swapped.write_text("".join(f"{q} Q0 d{k} 0.{9 - k} {k + 1} x\n" for q in QUERIES for k in range(5)))
    _, err = run_command(["rbo", str(swapped), str(swapped)], capsys)
    assert err.count("columns swapped") == 1, err


# -- judgments and run swapped -----------------------------------------------------------------------------------------

SWAPPED = {  # command -> argv with the judgments and the run swapped: {q} the qrels, {r} a run
    "eval": ["eval", "{r}", "{q}", "nDCG@10"],
    "experiment": ["experiment", "{r}", "{q}", "-m", "nDCG@10"],
    "compare": ["compare", "-R", "{r}", "{q}", "{r}"],
}


@pytest.mark.parametrize("command", SWAPPED)
def test_swapped_judgments_and_run_get_a_hint(command):
    inputs = fixture_path("inputs")
    argv = [arg.format(q=inputs / "qrels", r=inputs / "run1") for arg in SWAPPED[command]]
    _, err, status = run_cli(argv)
    assert status == 2
    assert "are the judgments and the run swapped? (the judgments come first)" in err, err
