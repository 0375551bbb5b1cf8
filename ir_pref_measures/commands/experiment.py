"""``ir-pref-measures experiment``: a ``pt.Experiment``-style table of runs x measures
(:func:`ir_pref_measures.experiment.Experiment`)."""

from __future__ import annotations

import argparse
import os

from ir_pref_measures import sources
from ir_pref_measures.commands.options import add_dask_option, check_writable, dask_client, probability
from ir_pref_measures.compare import load_runs
from ir_pref_measures.experiment import FORMATS, TESTS, Experiment, render
from ir_pref_measures.formats import PREFERENCE_FORMATS


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "experiment",
        help="a PyTerrier-style table: runs x measures, with a baseline and significance tests",
        description="Evaluate RUN files with graded, preference and pairwise measures on JUDGMENTS (a qrels "
        "file, a preference file, or an ir_datasets ID such as msmarco-passage/trec-dl-2019/judged), optionally "
        "combined with --prefs. Runs are named by their file name without 'input.' and '.gz'. Put the runs "
        "before -m.",
    )
    parser.add_argument("judgments", metavar="JUDGMENTS", help="[NAME=]SOURCE: NAME= makes it a judgment group")
    parser.add_argument("runs", nargs="+", metavar="RUN")
    parser.add_argument(
        "-m",
        "--measures",
        nargs="+",
        action="extend",
        required=True,
        metavar="MEASURE",
        help="ir_measures names (nDCG@10, APpref, 'PGC(p=0.9)', prefs_avgjg) and pairwise ones (rpp, lexiprecision, "
        "...); GROUP:MEASURE on one judgment group",
    )
    parser.add_argument(
        "--prefs",
        action="append",
        default=[],
        metavar="[NAME=]SOURCE",
        help="preferences combined with JUDGMENTS (repeatable: union); NAME= makes them the judgment group NAME "
        "(e.g. one per judge; -m NAME:MEASURE evaluates on that group alone, prefs_avgjg averages over groups)",
    )
    parser.add_argument(
        "--prefs-format",
        choices=PREFERENCE_FORMATS,
        help="format of the preference file (--prefs, or JUDGMENTS if it is one); detected when unambiguous",
    )
    parser.add_argument("--baseline", metavar="NAME", help="the baseline run (its name or its path)")
    parser.add_argument("--test", choices=TESTS, default="t", help="significance test (default t)")
    parser.add_argument("--correction", metavar="METHOD", help="multiple-testing correction, e.g. holm, bonferroni")
    parser.add_argument("--alpha", type=probability, default=0.05, help="alpha of the correction (default 0.05)")
    parser.add_argument("--perquery", action="store_true", help="the long table name, qid, measure, value")
    parser.add_argument("--topics", metavar="ID", help="only the queries of this ir_datasets ID")
    parser.add_argument("--round", type=int, choices=range(0, 17), metavar="N", help="round to N decimals (0-16)")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default table)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    add_dask_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> None:
    check_writable(args.output)
    judgments = sources.grouped([args.judgments, *args.prefs], preference_format=args.prefs_format)
    runs = load_runs(args.runs)
    baseline = args.baseline
    by_path = {os.fspath(path): name for name, path in runs.items()}
    baseline = by_path.get(baseline, baseline)
    with dask_client(args.dask) as client:
        table = Experiment(
            runs,
            judgments,
            args.measures,
            baseline=baseline,
            test=args.test,
            correction=args.correction,
            correction_alpha=args.alpha,
            perquery=args.perquery,
            round=args.round,
            topics=args.topics,
            client=client,
        )
    text = render(table, args.format)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    else:
        print(text, end="")
