"""The ``ir-pref-measures`` command: one module per subcommand, each with ``add_parser(subparsers)`` (which sets
``handler=run``) and ``run(args)``. The only place with argparse and exit codes."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys

from ir_pref_measures._version import __version__
from ir_pref_measures.errors import InputError

COMMANDS = {  # subcommand -> its module, in the order ``--help`` lists them
    "demo": "demo",
    "eval": "eval",
    "pairwise-pref-eval": "pairwise_pref_eval",
    "trec-eval": "trec_eval",
    "compare": "compare",
    "aggregate": "aggregate",
    "leaderboard": "leaderboard",
    "compatibility": "compatibility",
    "greedy-pgc": "greedy_pgc",
    "rbo": "rbo",
    "experiment": "experiment",
    "meta": "meta",
    "judges": "judges",
    "ppi": "ppi",
    "topicsize": "topicsize",
    "judge": "judge",
}


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command's parser; with ``only`` (a subcommand), the parser of that subcommand alone, so that a run
    imports only the modules it needs."""
    main = argparse.ArgumentParser(prog="ir-pref-measures", description="Preference-based IR evaluation.")
    main.add_argument("--version", action="version", version=f"ir-pref-measures {__version__}")
    subparsers = main.add_subparsers(dest="command", required=True)
    for name, module in COMMANDS.items():
        if only is None or name == only:
            importlib.import_module(f"ir_pref_measures.commands.{module}").add_parser(subparsers)
    return main


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the command. Bad input (:class:`InputError`) is reported on stderr with exit
    status 2; any other exception propagates with its traceback; a closed pipe gives 1, quietly. Standard output
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
        with main_output(needed=not to_file):
            args.handler(args)
    except InputError as error:
        with contextlib.suppress(AttributeError, OSError):  # no stderr, or a full one: the status still says it
            sys.stderr.write(f"ir-pref-measures {args.command}: {error}\n")
        return 2
    except BrokenPipeError:
        silence(sys.stdout)
        return 1
    return 0
