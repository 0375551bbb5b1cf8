"""``ir-pref-measures leaderboard``: systems rated from battles (Bradley-Terry or online Elo), with bootstrap
intervals (:mod:`ir_pref_measures.leaderboards.boards`)."""

from __future__ import annotations

import argparse
import sys
import warnings

from ir_pref_measures.choices import FORMATS
from ir_pref_measures.commands.options import non_negative, non_negative_int, positive_int, probability
from ir_pref_measures.commands.output import check_outputs, replacing
from ir_pref_measures.errors import InputError

PLOT_FILE = "FILE: a matplotlib format by its suffix (.png, .pdf, .svg, ...)"


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "leaderboard",
        description="Rate the systems of a battle file (lines 'qid system_a system_b winner [weight]', winner a "
        "system's name, a, b or tie), or of RUN files compared per query on --qrels by a pairwise measure (each "
        "query is a battle between two runs, won by the sign of the measure; runs named by their file name without "
        "folder, 'input.', '.gz' and extension). Bradley-Terry ratings are on the Elo "
        "scale (mean 1000), with percentile intervals and rank intervals from bootstrap rounds.",
    )
    parser.add_argument("inputs", nargs="+", metavar="BATTLES|RUN", help="a battle file, or with --qrels the runs")
    parser.add_argument("--qrels", metavar="QRELS", help="compare the RUN files on these judgments (file or ID)")
    parser.add_argument("-m", "--measure", help="with --qrels: the compare measure deciding each battle (default rpp)")
    parser.add_argument("--topk", type=positive_int, metavar="K", help="with --qrels: cut every run at rank K first")
    parser.add_argument("--method", choices=("bt", "elo"), default="bt", help="Bradley-Terry (default) or online Elo")
    parser.add_argument(
        "--prior",
        type=non_negative,
        metavar="L",
        help="L2 penalty L/2 * sum(beta^2) on the log-strengths (default 0: the battles must identify the ratings)",
    )
    parser.add_argument("--anchor", metavar="SYSTEM[=RATING]", help="fix SYSTEM's rating at RATING (default 1000)")
    parser.add_argument("--rounds", type=non_negative_int, help="bootstrap rounds (default 1000; 0: no intervals)")
    parser.add_argument(
        "--resample", choices=("battles", "queries"), help="what a bootstrap round draws (default battles)"
    )
    parser.add_argument("--level", type=probability, help="interval level (default 0.95)")
    parser.add_argument("--seed", type=int, help="seed of the bootstrap (default 0)")
    parser.add_argument("--k", type=float, help="with --method elo: the K-factor (default 4)")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default table)")
    parser.add_argument("--digits", type=non_negative_int, help="decimal places shown")
    parser.add_argument("--win-rates", action="store_true", help="print the win-rate matrix after the table")
    parser.add_argument("--plot", metavar="FILE", help=f"forest plot of the ratings and intervals ({PLOT_FILE})")
    parser.add_argument("--heatmap", metavar="FILE", help=f"heatmap of the win rates ({PLOT_FILE})")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> None:
    from ir_pref_measures.leaderboards import boards as leaderboard

    drawn = {"--plot": args.plot, "--heatmap": args.heatmap}
    if any(drawn.values()):
        from ir_pref_measures.meta.plots import check_path

        for path in filter(None, drawn.values()):
            check_path(path)
    check_outputs(drawn, {"BATTLES|RUN": args.inputs, "--qrels": args.qrels})
    anchor, anchor_rating = _anchor(args.anchor)
    options = {"method": args.method, "prior": args.prior, "anchor": anchor, "anchor_rating": anchor_rating}
    options |= {"rounds": args.rounds, "resample": args.resample, "level": args.level, "seed": args.seed, "k": args.k}
    leaderboard.rating_options(**options)  # before the input is read
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        result = leaderboard.rate(_battles(args), **options)
    for warning in caught:  # ours in one line of words; any other as Python shows it
        if warning.category is UserWarning:
            print(f"warning: {warning.message}", file=sys.stderr)
        else:
            warnings.showwarning(warning.message, warning.category, warning.filename, warning.lineno)
    table = result.table()
    order = list(table["system"])
    win_rates = result.win_rates().loc[order, order]  # best first, as the table
    text = leaderboard.report(table, args.format, args.digits)
    if args.win_rates:
        matrix = win_rates.reset_index().rename(columns={"system": "name"})
        text += "\n" + leaderboard.render(matrix, "csv" if args.format == "csv" else "markdown", args.digits)
    if args.plot or args.heatmap:
        from ir_pref_measures.meta import plots

        if args.plot:
            method = "Bradley-Terry" if args.method == "bt" else "Elo"
            battles = f"{args.measure} per query" if args.qrels else "battles"
            level = leaderboard.LEVEL if args.level is None else args.level
            interval = f", {level:.0%} intervals" if args.method == "bt" and args.rounds else ""
            _wrote(plots.rating_forest(table, title=f"{method} ratings ({battles}{interval})"), args.plot)
        if args.heatmap:
            _wrote(plots.win_rate_heatmap(win_rates), args.heatmap)
    sys.stdout.write(text)


def _anchor(spec: str | None) -> tuple[str | None, float | None]:
    """``SYSTEM[=RATING]`` as (system, rating or None); a text after the last ``=`` that is not a number is part
    of the system's name."""
    if spec is None:
        return None, None
    name, equals, rating = spec.rpartition("=")
    if not equals:
        return spec, None
    try:
        return name, float(rating)
    except ValueError:
        return spec, None  # a system whose name holds '='


def _battles(args: argparse.Namespace):
    from ir_pref_measures.leaderboards.boards import battles_from_runs

    if args.qrels is None:
        if args.topk is not None:
            raise InputError("--topk cuts runs: it goes with --qrels and RUN files, not a battle file")
        if len(args.inputs) != 1:
            raise InputError(
                f"one battle file, or runs with --qrels; got {len(args.inputs)} files without --qrels",
                expected="leaderboard BATTLES, or leaderboard --qrels QRELS RUN RUN...",
            )
        if args.measure is not None:
            raise InputError("--measure decides the battles between runs: it goes with --qrels and RUN files")
        return args.inputs[0]
    return battles_from_runs(args.inputs, args.qrels, args.measure or "rpp", topk=args.topk)


def _wrote(figure, path: str) -> None:
    from ir_pref_measures.meta.plots import save

    with replacing(path) as temporary:
        save(figure, temporary)
    print(f"wrote {path}", file=sys.stderr)
