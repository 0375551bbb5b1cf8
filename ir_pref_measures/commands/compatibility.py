"""``ir-pref-measures compatibility``: drop-in for Clarke's ``compatibility.py`` (byte-identical output;
:func:`ir_pref_measures.dropins.compatibility.compatibility_report`)."""

from __future__ import annotations

import argparse
import sys

from ir_pref_measures.commands.options import add_run_name_options


def add_parser(subparsers) -> None:
    compat = subparsers.add_parser(
        "compatibility",
        description="Compatibility (Clarke et al., TOIS 2021): RBO at depth 1000 between RUN and the closest "
        "ideal ranking of the docs with a value > 0 in QRELS, normalised. Output as compatibility.py.",
    )
    compat.add_argument("-p", type=float, default=0.95, help="persistence, in [0.01, 0.99] (default 0.95)")
    compat.add_argument(
        "--no-normalize", action="store_true", help="the script's NORMALIZE=False (CIKM/ICTIR 2020 numbers)"
    )
    compat.add_argument(
        "--ties",
        choices=("w", "a", "b"),
        help="Compatibility with ties (not in compatibility.py): docs of equal score tied in the run, equal "
        "grades tied in the ideal, tie-aware RBO (Corsi and Urbano, SIGIR 2024) lower bound of this variant",
    )
    compat.add_argument("qrels")
    compat.add_argument("run")
    add_run_name_options(compat, "the run tag of the last RUN line, as compatibility.py")
    compat.set_defaults(handler=run)


def run(args: argparse.Namespace) -> None:
    from ir_pref_measures.dropins.compatibility import compatibility_report
    from ir_pref_measures.parsing.names import renamed_report

    report = compatibility_report(args.qrels, args.run, args.p, normalize=not args.no_normalize, ties=args.ties)
    sys.stdout.write(renamed_report(report, args.name, args.run))
