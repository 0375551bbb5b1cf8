"""``ir-pref-measures aggregate``: drop-in for Diaz' ``pref_aggregate.py`` (the ``pref_eval`` preset,
:mod:`ir_pref_measures.dropins.pref_eval`)."""

from __future__ import annotations

import argparse
import json
import sys

from ir_pref_measures.dropins.pref_eval import aggregate_lines, read_preference_lines


def add_parser(subparsers) -> None:
    aggregate = subparsers.add_parser(
        "aggregate",
        help="drop-in for pref_aggregate.py: order runs by MC4 / Borda (preferences) or mean (metrics)",
        description="Read the per-query lines of a `compare -q` (or pref_eval.py -q) output and print "
        "pref_aggregate.py's JSON lines.",
    )
    aggregate.add_argument("-P", "--prefs", required=True, help="the JSON lines of compare -q")
    aggregate.add_argument("-q", "--query_eval_wanted", action="store_true", help="print per-query orderings")
    aggregate.add_argument("-n", "--nosummary", action="store_true", help="no summary line")
    aggregate.add_argument("-m", "--measure", action="append", help="a measure to aggregate (repeatable)")
    aggregate.set_defaults(handler=run)


def run(args: argparse.Namespace) -> None:
    frame = read_preference_lines(args.prefs)
    lines = list(
        aggregate_lines(frame, args.measure, args.prefs, perquery=args.query_eval_wanted, summary=not args.nosummary)
    )
    sys.stdout.writelines(json.dumps(line) + "\n" for line in lines)  # all computed first: no partial output
