"""``ir-pref-measures aggregate``: drop-in for Diaz' ``pref_aggregate.py`` (the ``pref_eval`` preset,
:mod:`ir_pref_measures.dropins.pref_eval`)."""

from __future__ import annotations

import argparse
import json
import sys


def add_parser(subparsers) -> None:
    aggregate = subparsers.add_parser(
        "aggregate",
        description="Read the per-query lines of a `compare -q` (or pref_eval.py -q) output and print "
        "pref_aggregate.py's JSON lines.",
    )
    aggregate.add_argument("-P", "--prefs", required=True, help="the JSON lines of compare -q")
    aggregate.add_argument("-q", "--query_eval_wanted", action="store_true", help="print per-query orderings")
    aggregate.add_argument("-n", "--nosummary", action="store_true", help="no summary line")
    aggregate.add_argument("-m", "--measure", action="append", help="a measure to aggregate (repeatable)")
    aggregate.add_argument(
        "--method",
        choices=("pref_aggregate", "scores", "bt", "elo"),
        default="pref_aggregate",
        help="pref_aggregate's MC4 / Borda / mean orderings, byte for byte (default; runs with equal scores follow "
        "their names, which stderr says); scores: each run's place and score per measure and method (mc4, borda, "
        "win_rate, mean), tied runs sharing a place (ir_pref_measures.aggregate); or a Bradley-Terry (bt) or online "
        "Elo (elo) leaderboard of the runs per measure (default measure: rpp), each query a battle won by the sign "
        "of the measure; one JSON line per run (see `leaderboard`)",
    )
    aggregate.add_argument("--prior", type=float, default=0.0, help="bt: an L2 prior on the log-strengths (default 0)")
    aggregate.add_argument("--seed", type=int, default=0, help="seed of the bt bootstrap (default 0)")
    aggregate.set_defaults(handler=run)


def run(args: argparse.Namespace) -> None:
    from ir_pref_measures.dropins.pref_eval import aggregate_lines, read_preference_lines

    frame = read_preference_lines(args.prefs)
    if args.method == "scores":
        lines = score_lines(frame, args.measure, args.prefs)
        sys.stdout.writelines(json.dumps(line) + "\n" for line in lines)
        return
    if args.method != "pref_aggregate":
        lines = leaderboard_lines(frame, args.measure or ["rpp"], args.prefs, args.method, args.seed, args.prior)
        sys.stdout.writelines(json.dumps(line) + "\n" for line in lines)
        return
    lines = list(
        aggregate_lines(frame, args.measure, args.prefs, perquery=args.query_eval_wanted, summary=not args.nosummary)
    )
    sys.stdout.writelines(json.dumps(line) + "\n" for line in lines)  # all computed first: no partial output


def pair_table(frame, path: str):
    """The preference lines of ``frame`` (one sample) as a per-query ``compare`` table: ``query_id, run_i,
    run_j`` and the measures."""
    from ir_pref_measures.errors import InputError

    lines = frame[frame["type"] == "preference"] if "type" in frame.columns else frame
    samples = sorted(set(lines["sample"]))
    if len(samples) > 1:
        raise InputError(f"{path}: the lines hold {len(samples)} samples; give the lines of one sample")
    if lines.empty:
        raise InputError(f"{path}: no preference lines (runi, runj)")
    return lines.assign(query_id=lines["qid"].astype(str), run_i=lines["runi"], run_j=lines["runj"])


def measure_values(table, measure: str, path: str):
    """The numbers of ``measure`` in the lines of ``table`` (an :class:`InputError` when they hold none)."""
    from ir_pref_measures.dropins.pref_eval import numbers
    from ir_pref_measures.errors import InputError

    if measure not in table.columns:
        raise InputError(f"{path}: no {measure!r} in the preference lines")
    return numbers(table, measure, path)


def score_lines(frame, measures: list[str] | None, path: str) -> list[dict]:
    """Per measure and method, each run's ``place`` and ``score`` (:func:`ir_pref_measures.comparison.fusion.
    aggregate`: equal scores share a place, listed in name order), best first, and ``tied``: whether it shares
    its place."""
    from ir_pref_measures.comparison.fusion import aggregate
    from ir_pref_measures.dropins.pref_eval import ID_FIELDS

    table = pair_table(frame, path)
    names = measures or [c for c in table.columns if c not in (*ID_FIELDS, "line", "query_id", "run_i", "run_j")]
    table = table.assign(**{m: measure_values(table, m, path) for m in names})
    result = aggregate(table[["query_id", "run_i", "run_j", *names]], names)
    shared = result.groupby(["measure", "method", "place"])["run"].transform("size") > 1
    result = result.assign(tied=shared)
    return [
        {**record, "place": int(record["place"]), "score": float(record["score"]), "tied": bool(record["tied"])}
        for record in result.to_dict(orient="records")
    ]


def leaderboard_lines(frame, measures: list[str], path: str, method: str, seed: int, prior: float = 0.0) -> list[dict]:
    """Per measure, the leaderboard of the runs (:func:`ir_pref_measures.leaderboards.boards.leaderboard`) from the
    preference lines of ``frame`` (one sample), one record per run, best first."""
    from ir_pref_measures.leaderboards.boards import battles_from_compare, leaderboard

    table = pair_table(frame, path)
    out = []
    for measure in measures:
        ranked = table.assign(**{measure: measure_values(table, measure, path)})
        options = {"seed": seed, "prior": prior} if method == "bt" else {}
        ratings = leaderboard(battles_from_compare(ranked, measure), method=method, **options)
        out += [{"measure": measure, **record} for record in ratings.to_dict(orient="records")]
    return out
