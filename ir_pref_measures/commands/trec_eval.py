"""``ir-pref-measures trec-eval``: drop-in for ``trec_eval -R prefs|qrels_prefs`` and its 14 preference measures
(the ``trec_eval`` preset, :mod:`ir_pref_measures.dropins.trec_eval`)."""

from __future__ import annotations

import argparse
import sys

from ir_pref_measures.choices import TREC_EVAL_FORMATS
from ir_pref_measures.commands.options import positive_int


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "trec-eval",
        description="Reproduces `trec_eval -m all_prefs -R prefs JUDGMENTS RUN` and its options -q, -c, -M, -n.",
    )
    parser.add_argument("-q", action="store_true", help="print the measures of each query")
    parser.add_argument("-c", action="store_true", help="average over every judged query (missing ones: empty)")
    parser.add_argument("-n", action="store_true", help="no summary")
    parser.add_argument("-M", type=positive_int, default=None, metavar="N", help="at most N docs per query")
    parser.add_argument("-m", action="append", metavar="MEASURE", help="all_prefs (default), prefs, or a name")
    parser.add_argument("-R", required=True, choices=sorted(TREC_EVAL_FORMATS), help="judgment format")
    parser.add_argument("judgments")
    parser.add_argument("run")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> None:
    """Read, check, evaluate, then print (nothing is printed on an error)."""
    from ir_pref_measures.dropins.trec_eval import prefs_values, read_trec_run, report, selected
    from ir_pref_measures.loading.groups import read_judgments

    names = selected(args.m)
    judged = read_judgments(args.judgments, args.R, allow_cycles=False)  # trec_eval aborts on a cycle
    run_table, run_id, raw = read_trec_run(args.run)
    query_ids, values = prefs_values(judged, run_table, complete=args.c, depth=args.M, raw=raw)
    sys.stdout.write(report(query_ids, values, names, run_id, per_query=args.q, summary=not args.n))
