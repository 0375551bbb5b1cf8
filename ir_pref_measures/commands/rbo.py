"""``ir-pref-measures rbo``: tie-aware rank-biased overlap between two runs, per query and averaged
(:func:`ir_pref_measures.comparison.rbo.rbo_runs`)."""

from __future__ import annotations

import argparse
import sys

from ir_pref_measures.commands.options import positive_int, probability


def add_parser(subparsers) -> None:
    rbo = subparsers.add_parser(
        "rbo",
        description="Rank-biased overlap (Webber et al., TOIS 2010) between RUN_A and RUN_B with ties treated as "
        "in Corsi and Urbano (SIGIR 2024): docs of equal score in a query are tied. Prints a tab-separated "
        "table query_id, ext, min, max, res: the mean over the queries of either run (query_id 'all'), and with "
        "-q each query first.",
    )
    rbo.add_argument("-p", type=probability, default=0.9, help="persistence, 0 < p < 1 (default 0.9)")
    rbo.add_argument(
        "--ties",
        choices=("w", "a", "b"),
        default="a",
        help="w: ties are equal ranks; a (default): the mean over the orders of the tied docs; b: a, corrected "
        "for the information ties hide",
    )
    rbo.add_argument("--depth", type=positive_int, metavar="K", help="cut each ranking at K (whole tie groups)")
    rbo.add_argument("-q", "--query_eval_wanted", action="store_true", help="print a line per query")
    rbo.add_argument("run_a", metavar="RUN_A")
    rbo.add_argument("run_b", metavar="RUN_B")
    rbo.set_defaults(handler=run)


def run(args: argparse.Namespace) -> None:
    from ir_pref_measures.comparison.rbo import rbo_runs

    table = rbo_runs(args.run_a, args.run_b, args.p, args.ties, args.depth, perquery=args.query_eval_wanted)
    sys.stdout.write(table.to_csv(sep="\t", index=False, float_format="%.6f", lineterminator="\n"))
