"""The ``ir-pref-measures`` command: one module per subcommand, each with ``add_parser(subparsers)`` (which sets
``handler=run``) and ``run(args)``. The only place with argparse and exit codes."""

from __future__ import annotations

import argparse
import sys

from ir_pref_measures._version import __version__
from ir_pref_measures.commands import (
    aggregate,
    compare,
    compatibility,
    demo,
    eval,
    experiment,
    greedy_pgc,
    meta,
    pairwise_pref_eval,
    trec_eval,
)
from ir_pref_measures.errors import InputError

COMMANDS = (demo, eval, pairwise_pref_eval, trec_eval, compare, aggregate, compatibility, greedy_pgc, experiment, meta)
"""The command modules, in the order ``--help`` lists them."""


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="ir-pref-measures", description="Preference-based IR evaluation.")
    main.add_argument("--version", action="version", version=f"ir-pref-measures {__version__}")
    subparsers = main.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(subparsers)
    return main


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the command. Bad input (:class:`InputError`) is reported on stderr with exit
    status 2; any other exception propagates with its traceback; a closed pipe gives 1."""
    args = parser().parse_args(argv)
    try:
        args.handler(args)
    except InputError as error:
        sys.stderr.write(f"ir-pref-measures {args.command}: {error}\n")
        return 2
    except BrokenPipeError:
        return 1
    return 0
