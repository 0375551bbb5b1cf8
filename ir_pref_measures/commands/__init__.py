"""The ``ir-pref-measures`` command: one module per subcommand, each with ``add_parser(subparsers)`` (which sets
``handler``, the one attribute the dispatch calls) and ``run``, imported only when its subcommand is asked for. The
only place with argparse and exit codes."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
import warnings
from collections.abc import Iterator

from ir_pref_measures._version import __version__
from ir_pref_measures.errors import InputError, Stopped

COMMANDS = {  # subcommand -> (its module, its line in ``ir-pref-measures --help``), in the order --help lists them
    "demo": ("demo", "evaluate the built-in example and print a table"),
    "eval": ("eval", "the ir_measures command line, with the preference measures"),
    "pairwise-pref-eval": ("pairwise_pref_eval", "drop-in for pairwise_pref_eval.py (byte-identical output)"),
    "trec-eval": (
        "trec_eval",
        "drop-in for trec_eval's preference measures (-R prefs / qrels_prefs; byte-identical output)",
    ),
    "compare": ("compare", "drop-in for pref_eval.py: pairwise preferences between runs (JSON lines)"),
    "aggregate": (
        "aggregate",
        "drop-in for pref_aggregate.py: order runs by MC4 / Borda (preferences) or mean (metrics)",
    ),
    "leaderboard": (
        "leaderboard",
        "rate systems from pairwise battles: Bradley-Terry (or Elo) ratings with bootstrap intervals",
    ),
    "compatibility": ("compatibility", "drop-in for Clarke's compatibility.py (byte-identical output)"),
    "greedy-pgc": ("greedy_pgc", "drop-in for Luo's greedy_pgc.py (deterministic tie-break)"),
    "rbo": ("rbo", "tie-aware rank-biased overlap between two runs (extrapolated value, bounds, residual)"),
    "experiment": ("experiment", "a PyTerrier-style table: runs x measures, with a baseline and significance tests"),
    "meta": ("meta", "meta-evaluation: agreement with users, sensitivity, consistency, stability, PR curves"),
    "judges": ("judges", "agreement and reliability of preference judges (people, LLMs, graded qrels)"),
    "ppi": (
        "ppi",
        "prediction-powered inference: people's judgments of a sample plus an LLM's of all, valid intervals",
    ),
    "topicsize": (
        "topicsize",
        "topic set size design: topics needed for a t-test, an ANOVA or a CI width (Sakai), and the reverse",
    ),
    "judge": ("judge", "produce preference judgments: plan, run (resumable), status, export, simulate"),
}


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command's parser; with ``only`` (a subcommand), with the parser of that subcommand alone (its module
    imported), else with the list of subcommands and their lines of :data:`COMMANDS` (no command module imported),
    all that ``--help``, ``--version`` or a mistyped command need."""
    main = argparse.ArgumentParser(prog="ir-pref-measures", description="Preference-based IR evaluation.")
    main.add_argument("--version", action="version", version=f"ir-pref-measures {__version__}")
    subparsers = main.add_subparsers(dest="command", required=True)
    for name, (module, summary) in COMMANDS.items():
        if only is None:
            subparsers.add_parser(name, help=summary)
        elif name == only:
            importlib.import_module(f"ir_pref_measures.commands.{module}").add_parser(subparsers)
    return main


@contextlib.contextmanager
def one_line_warnings(command: str) -> Iterator[None]:
    """Warnings printed on stderr as one line of words, ``ir-pref-measures COMMAND: warning: MESSAGE`` (not
    Python's ``file:line: Category`` form with a source line), each message once, when it is raised."""
    shown: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        text = " ".join(str(message).split())
        if text not in shown:
            shown.add(text)
            with contextlib.suppress(AttributeError, OSError, ValueError):  # no stderr, a full or closed one
                sys.stderr.write(f"ir-pref-measures {command}: warning: {text}\n")

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        yield


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the command. Bad input (:class:`InputError`) is reported on stderr with exit
    status 2; a command stopped by a service or an interrupt (:class:`Stopped`) in one line with its status; any
    other exception propagates with its traceback; a closed pipe gives 1, quietly. Standard output
    is written once the command is done (:func:`~ir_pref_measures.commands.output.main_output`)."""
    from ir_pref_measures.commands.output import flushed, is_stdout, main_output, silence

    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = parser(argv[0] if argv and argv[0] in COMMANDS else None).parse_args(argv)
    except SystemExit as stop:  # --help, --version, a usage error: a closed pipe is status 1, no second error at exit
        if not flushed(sys.stdout) and not stop.code:
            raise SystemExit(1) from None
        raise
    to_file = getattr(args, "output", None) is not None and not is_stdout(args.output)  # experiment -o FILE
    try:
        with main_output(needed=not to_file), one_line_warnings(args.command):
            args.handler(args)
    except InputError as error:
        with contextlib.suppress(AttributeError, OSError):  # no stderr, or a full one: the status still says it
            sys.stderr.write(f"ir-pref-measures {args.command}: {error}\n")
        return 2
    except Stopped as error:
        with contextlib.suppress(AttributeError, OSError):
            sys.stderr.write(f"ir-pref-measures {args.command}: {error}\n")
        return error.status
    except BrokenPipeError:
        silence(sys.stdout)
        return 1
    return 0
