"""``ir-pref-measures greedy-pgc``: drop-in for Luo's ``greedy_pgc.py`` (deterministic tie-break;
:func:`ir_pref_measures.dropins.greedy_pgc.greedy_pgc_report`)."""

from __future__ import annotations

import argparse
import sys

from ir_pref_measures.commands.options import add_run_name_options
from ir_pref_measures.errors import InputError


def add_parser(subparsers) -> None:
    greedy = subparsers.add_parser(
        "greedy-pgc",
        description="Greedy PGC (Clarke et al., SIGIR 2021): PREFS is 'qid winner loser', RUN a TREC run whose rank "
        "column gives the actual ranking. Output as greedy_pgc.py; ties broken by (rank, doc id).",
    )
    greedy.add_argument("-p", type=float, default=0.8, help="RBO persistence (default 0.8, as the script)")
    greedy.add_argument("prefs")
    greedy.add_argument("run")
    add_run_name_options(greedy, "the RUN path, as greedy_pgc.py")
    greedy.set_defaults(handler=run)


def run(args: argparse.Namespace) -> None:
    from ir_pref_measures.dropins.greedy_pgc import greedy_pgc_report
    from ir_pref_measures.parsing.names import renamed_report

    if not 0 < args.p <= 1:
        raise InputError(f"value of p = {args.p} out of range (0, 1]")
    sys.stdout.write(renamed_report(greedy_pgc_report(args.prefs, args.run, args.p), args.name, args.run))
