"""``ir-pref-measures aggregate``: drop-in for Diaz' ``pref_aggregate.py`` (the ``pref_eval`` preset,
:mod:`ir_pref_measures.dropins.pref_eval`)."""

from __future__ import annotations

import argparse
import json
import sys

from ir_pref_measures.dropins.pref_eval import aggregate_lines, numbers, read_preference_lines


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
    aggregate.add_argument(
        "--method",
        choices=("pref_aggregate", "bt", "elo"),
        default="pref_aggregate",
        help="pref_aggregate's MC4 / Borda / mean (default), or a Bradley-Terry (bt) or online Elo (elo) "
        "leaderboard of the runs per measure (default measure: rpp), each query a battle won by the sign of "
        "the measure, one JSON line per run (see `leaderboard`)",
    )
    aggregate.add_argument("--prior", type=float, default=0.0, help="bt: an L2 prior on the log-strengths (default 0)")
    aggregate.add_argument("--seed", type=int, default=0, help="seed of the bt bootstrap (default 0)")
    aggregate.set_defaults(handler=run)


def run(args: argparse.Namespace) -> None:
    frame = read_preference_lines(args.prefs)
    if args.method != "pref_aggregate":
        lines = leaderboard_lines(frame, args.measure or ["rpp"], args.prefs, args.method, args.seed, args.prior)
        sys.stdout.writelines(json.dumps(line) + "\n" for line in lines)
        return
    lines = list(
        aggregate_lines(frame, args.measure, args.prefs, perquery=args.query_eval_wanted, summary=not args.nosummary)
    )
    sys.stdout.writelines(json.dumps(line) + "\n" for line in lines)  # all computed first: no partial output


def leaderboard_lines(frame, measures: list[str], path: str, method: str, seed: int, prior: float = 0.0) -> list[dict]:
    """Per measure, the leaderboard of the runs (:func:`ir_pref_measures.leaderboards.boards.leaderboard`) from the
    preference lines of ``frame`` (one sample), one record per run, best first."""
    from ir_pref_measures.errors import InputError
    from ir_pref_measures.leaderboards.boards import battles_from_compare, leaderboard

    lines = frame[frame["type"] == "preference"] if "type" in frame.columns else frame
    samples = sorted(set(lines["sample"]))
    if len(samples) > 1:
        raise InputError(f"{path}: the lines hold {len(samples)} samples; a leaderboard rates one sample")
    out = []
    for measure in measures:
        values = numbers(lines, measure, path) if measure in lines.columns else None
        if values is None:
            raise InputError(f"{path}: no {measure!r} in the preference lines")
        table = lines.assign(query_id=lines["qid"], run_i=lines["runi"], run_j=lines["runj"], **{measure: values})
        options = {"seed": seed, "prior": prior} if method == "bt" else {}
        ratings = leaderboard(battles_from_compare(table, measure), method=method, **options)
        out += [{"measure": measure, **record} for record in ratings.to_dict(orient="records")]
    return out
