"""``ir-pref-measures pairwise-pref-eval``: drop-in for Elsas' ``pairwise_pref_eval.py`` (byte-identical output)."""

from __future__ import annotations

import argparse
import sys


def add_parser(subparsers) -> None:
    ppe = subparsers.add_parser(
        "pairwise-pref-eval",
        description="Reproduces Elsas' pairwise_pref_eval.py: PREFS in the carterette format, RUN a TREC run.",
    )
    ppe.add_argument("-q", action="store_true", help="print per-query results")
    ppe.add_argument("-i", action="store_true", help="no transitive closure of the preferences")
    ppe.add_argument("prefs")
    ppe.add_argument("run")
    ppe.set_defaults(handler=run)


def run(args: argparse.Namespace) -> None:
    from ir_pref_measures.dropins.pairwise_pref_eval import query_values, report

    sys.stdout.write(report(query_values(args.prefs, args.run, transitive=not args.i), per_query=args.q))
