"""Start-up pays only for what a command uses: what each ``ir-pref-measures`` command imports, in a fresh interpreter
(the installed package, run from ``/``). The heavy packages are those a command may need but must not import
before it does: ir_measures, numpy, pyarrow, pandas, scipy, ..."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import pytest
from conftest import fixture_path

from ir_pref_measures.commands import COMMANDS, main, parser

HEAVY = ("ir_measures", "numpy", "pyarrow", "pandas", "scipy", "statsmodels", "matplotlib", "dask", "distributed")


def help_commands() -> list[list[str]]:
    """Every subcommand, and every subcommand of one (``judge run``, ``meta runs``, ...), as an argv prefix."""
    import argparse

    found = []
    for name in COMMANDS:
        found.append([name])
        command = parser(name)._subparsers._group_actions[0].choices[name]
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                found.extend([name, sub] for sub in action.choices)
    return found


def imported(argv: list[str]) -> list[str]:
    """The heavy packages a fresh interpreter has imported once ``ir-pref-measures ARGV`` is done."""
    code = (
        "import contextlib, io, sys\n"
        "from ir_pref_measures.commands import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        f"    status = main({argv!r})\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))\n"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", check=False)
    assert found.returncode == 0, found.stderr
    return ast.literal_eval(found.stdout)


@pytest.mark.parametrize("command", help_commands(), ids=" ".join)
def test_a_command_parser_imports_nothing_heavy(command):
    """``ir-pref-measures COMMAND [SUBCOMMAND] --help`` imports no heavy package (no numpy, pandas, scipy, ...): the
    choices of the options are in :mod:`ir_pref_measures.choices`, the work's imports are inside ``run``."""
    assert imported([*command, "--help"]) == []


def test_the_choices_are_those_of_the_modules_that_implement_them():
    """:mod:`ir_pref_measures.choices` holds the names the parsers offer; the modules that implement them agree."""
    from ir_pref_measures import choices
    from ir_pref_measures.judging import effort
    from ir_pref_measures.loading.groups import READERS

    assert choices.SELECTORS == effort.SELECTORS
    assert sorted(choices.TREC_EVAL_FORMATS) == sorted(READERS)


def test_the_list_of_commands_imports_nothing_heavy(capsys):
    """``ir-pref-measures --help`` lists every subcommand with its line, from :data:`COMMANDS` alone."""
    assert imported(["--help"]) == []
    with pytest.raises(SystemExit):
        main(["--help"])
    listing = capsys.readouterr().out
    for name, (_, summary) in COMMANDS.items():
        assert re.search(rf"^    {re.escape(name)} +{re.escape(summary[:20])}", listing, re.M), name


def test_compare_imports_neither_ir_measures_nor_pandas():
    """``compare`` reads with pyarrow and computes with numpy; it needs no ir_measures, pandas or scipy."""
    inputs = fixture_path("inputs")
    argv = ["compare", "-R", str(inputs / "qrels"), *(str(inputs / f"run{k}") for k in (1, 2, 3))]
    assert imported(argv) == ["numpy", "pyarrow"]


def test_eval_imports_ir_measures():
    """``eval`` parses its measures and prints its output with ir_measures, which registers our measures."""
    inputs = fixture_path("inputs")
    assert "ir_measures" in imported(["eval", str(inputs / "qrels"), str(inputs / "run1"), "ppref@10"])


def test_the_concept_packages_import_scipy_stats_when_used():
    """``scipy.stats`` takes most of a second to import: the statistics, experiment, leaderboard, comparison, judge
    and meta-evaluation packages import it inside the functions that use it (a test, an interval), not with their
    modules, so that ``leaderboard``, ``experiment`` and ``tukey_hsd`` do not pay for it before they need it."""
    packages = ("stats", "experiment", "leaderboards", "comparison", "agreement", "meta")
    code = f"import sys\nfor name in {packages!r}:\n    __import__('ir_pref_measures.' + name)\n"
    code += "print('scipy.stats' in sys.modules)"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", check=False)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == "False"
