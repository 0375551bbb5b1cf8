"""``ir-pref-measures compare``: drop-in for Diaz' ``pref_eval.py`` (the ``pref_eval`` preset,
:mod:`ir_pref_measures.dropins.pref_eval`)."""

from __future__ import annotations

import argparse
import sys
from functools import partial

from ir_pref_measures.commands.options import add_dask_option, dask_client, positive_int
from ir_pref_measures.errors import InputError


def add_parser(subparsers) -> None:
    compare = subparsers.add_parser(
        "compare",
        description="Compare runs pairwise (RPP, lexicographic precision/recall, metric differences) and print "
        "pref_eval.py's JSON lines. Values are run i vs run j (i before j on the command line), positive when "
        "run i is better. QRELS is a TREC qrels file or an ir_datasets ID. Runs are named as pref_eval.py names "
        "them, by the file name with 'input.' and '.gz' removed (run1.txt), so that its lines are the tool's; "
        "--names names them as experiment and the other commands do (run1), or as given.",
    )
    compare.add_argument("-R", "--qrels", required=True)
    compare.add_argument("-m", "--measure", action="append", help="a measure (repeatable; overrides -M)")
    compare.add_argument("-M", "--measure_set", help="all or none (default): the 15 defaults; preferences: the six")
    compare.add_argument("-b", "--binary_relevance", type=float, metavar="G", help="grade := 1 if >= G else 0")
    compare.add_argument("-f", "--relevance_floor", type=float, metavar="F", help="grade := 0 if < F (after -b)")
    compare.add_argument("-q", "--query_eval_wanted", action="store_true", help="print per-query lines")
    compare.add_argument("-n", "--nosummary", action="store_true", help="no summary (qid 'all') lines")
    compare.add_argument("--topk", type=positive_int, metavar="K", help="cut every ranking at K")
    compare.add_argument(
        "--graded-rpp", action="store_true", help="graded RPP (the paper's formula) instead of binary RPP"
    )
    compare.add_argument("runs", nargs="+", metavar="RUN")
    compare.add_argument(
        "--names",
        nargs="*",
        metavar="NAME",
        help="the runs' names, in the order of the runs; without a NAME, each file's name without folder, 'input.', "
        "'.gz' and extension, as experiment names runs",
    )
    add_dask_option(compare)
    compare.set_defaults(handler=run)


GRADED_RPP = {"rpp", "invrpp", "dcgrpp"}  # the measures --graded-rpp changes


def run(args: argparse.Namespace) -> None:
    from ir_pref_measures.parsing.memory import reuse_freed_memory

    reuse_freed_memory()
    from ir_pref_measures.comparison.pairwise import comparison, load_runs, relevant_in_file_order
    from ir_pref_measures.dropins.pref_eval import json_lines, tool_measures
    from ir_pref_measures.measures.names import pairwise_measures

    if len(args.runs) < 2:
        raise InputError(f"need at least two runs, got {len(args.runs)}")
    if args.nosummary and not args.query_eval_wanted:
        raise InputError("-n (no summary lines) without -q (per-query lines) leaves nothing to print")
    if args.measure and args.measure_set is not None:
        raise InputError("-m names the measures, -M a set of them: give one of the two")
    measures = pairwise_measures(tool_measures(args.measure, args.measure_set))
    if args.graded_rpp and not {m.name for m in measures} & GRADED_RPP:
        raise InputError(f"--graded-rpp changes {', '.join(sorted(GRADED_RPP))}: none of them is measured here")
    if args.graded_rpp and args.binary_relevance is not None:
        raise InputError("--graded-rpp with -b: on binary grades graded RPP is binary RPP")
    if args.dask:
        result = _on_cluster(args, [m.name for m in measures])
    else:
        relevant = partial(relevant_in_file_order, args.qrels, binary=args.binary_relevance, floor=args.relevance_floor)
        result = comparison(
            load_runs(args.runs, _namer(args)), relevant, measures, topk=args.topk, graded_rpp=args.graded_rpp
        )
    sys.stdout.writelines(
        line + "\n" for line in json_lines(result, perquery=args.query_eval_wanted, summary=not args.nosummary)
    )


def _on_cluster(args: argparse.Namespace, measures: list[str]):
    """The comparison, with the runs read and compared on the Dask cluster of ``--dask``."""
    from ir_pref_measures.comparison.pairwise import load_runs
    from ir_pref_measures.dask.dataframes import comparison

    with dask_client(args.dask, args.dask_timeout):
        return comparison(
            load_runs(args.runs, _namer(args)),
            args.qrels,
            measures,
            binary=args.binary_relevance,
            floor=args.relevance_floor,
            topk=args.topk,
            graded_rpp=args.graded_rpp,
        )


def _namer(args: argparse.Namespace):
    """The name of each run file: pref_eval.py's run id, or with ``--names`` the names given or experiment's rule."""
    from ir_pref_measures.parsing.names import named_paths, pref_eval_id

    if args.names is None:
        return pref_eval_id
    names = {path: name for name, path in named_paths(args.runs, args.names or None).items()}
    return names.__getitem__
