"""The ``ir-pref-measures meta`` commands: each analysis of :mod:`ir_pref_measures.meta.evaluation` on files, printing
tables and writing plots.

Judgment sets are named on the command line (``-j graded=2019qrels.txt -j real=prefs.pref -j
combined=2019qrels.txt+prefs.pref``; ``+`` joins sources into one combined set, a source is a file or an
ir_datasets ID) and measures are evaluated on one of them (``-m graded:nDCG@3 -m real:PGC(p=0.8)``; with a
single set the prefix may be left out). Columns are named ``measure [set]``.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from ir_pref_measures.choices import BINOMIAL_METHODS, META_TESTS
from ir_pref_measures.commands.options import positive_int, probability
from ir_pref_measures.commands.output import check_outputs, replacing
from ir_pref_measures.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

PLOT_FILE = "the suffix names the format: .png, .pdf, .svg, ..."
GOLD_EXPECTED = "query<whitespace>winner, winner one of the --gold-labels (an optional header line first)"


def _values(args: argparse.Namespace) -> dict[str, pd.DataFrame]:
    """Per-query values of every ``-m [set:]measure`` on its judgment set, named ``measure [set]``."""
    from ir_pref_measures.loading import sources
    from ir_pref_measures.meta import evaluation as meta
    from ir_pref_measures.progress import progress

    sets = sources.judgment_sets(args.judgments or [], args.prefs_format)
    wanted: dict[str, list[str]] = {name: [] for name in sets}
    order = []
    for spec in [m for text in args.measures for m in text]:
        name, sep, measure = spec.partition(":") if ":" in spec.split("(")[0] else ("", "", spec)
        if not name:
            if len(sets) > 1:
                raise InputError(f"measure {spec!r}: say which judgment set, e.g. {next(iter(sets))}:{spec}")
            name = next(iter(sets))
        if name not in sets:
            raise InputError(f"measure {spec!r}: unknown judgment set {name!r}; known: {', '.join(sets)}")
        wanted[name].append(measure)
        order.append((name, measure))
    rankings = _rankings(args)
    values: dict[tuple[str, str], tuple[str, pd.DataFrame]] = {}
    used = {name: measures for name, measures in wanted.items() if measures}
    with progress(len(used), f"meta {args.analysis}") as bar:
        for name, measures in used.items():
            found = meta.measure_values(rankings, sets[name], measures)
            if len(found) != len(measures):
                raise InputError(f"a measure is given twice on the judgment set {name!r}: {measures}")
            for text, (measure, frame) in zip(measures, found.items(), strict=True):
                values[name, text] = (measure if len(sets) == 1 else f"{measure} [{name}]", frame)
            bar.update()
    return dict(values[key] for key in order)  # in command-line order


def _rankings(args: argparse.Namespace) -> dict:
    """The runs of the command line by name, each cut at ``--topk`` when given."""
    from ir_pref_measures.experiment.runs import named_runs, truncate

    rankings = named_runs(args.runs)
    if args.topk is not None:
        rankings = {name: truncate(ranking, args.topk) for name, ranking in rankings.items()}
    return rankings


def _table(frame: pd.DataFrame) -> str:
    return frame.to_string(float_format=_number)


def _number(value: float) -> str:
    if isinstance(value, float) and not math.isnan(value) and 0 < abs(value) < 1e-3:
        return f"{value:.2e}"
    return f"{value:.4f}"


def _runs_command(args: argparse.Namespace) -> None:
    from ir_pref_measures.meta import evaluation as meta

    values = _values(args)
    parts = []
    if args.analysis in ("runs", "sensitivity"):
        table = meta.sensitivity_table(values, args.test, args.alpha, samples=args.samples, seed=args.seed)
        parts.append(f"sensitivity ({args.test} test, p < {args.alpha:g}):\n{_table(table.set_index('measure'))}")
    if args.analysis in ("runs", "consistency"):
        tau, tau_ap = meta.consistency(values)
        parts.append(f"mean per run:\n{_table(meta.means(values))}")
        parts.append(f"Kendall's tau:\n{_table(tau)}")
        parts.append(f"tau_AP (row: reference ordering, column: estimate):\n{_table(tau_ap)}")
    if args.plot or args.query_plot:
        from ir_pref_measures.meta import plots

        names = list(values)
        pairs = [tuple(p) for p in args.pair] if args.pair else [(names[0], other) for other in names[1:]]
        if args.plot:
            _wrote(plots.measure_scatter(meta.means(values), pairs), args.plot)
        if args.query_plot:
            _wrote(plots.query_scatter(values, pairs), args.query_plot)
    print("\n\n".join(parts))


def _wrote(figure, path: str) -> None:
    """Save a plot (whole or not at all: :func:`replacing`) and say so on stderr (stdout holds only the results)."""
    from ir_pref_measures.meta.plots import save

    with replacing(path) as temporary:
        save(figure, temporary)
    print(f"wrote {path}", file=sys.stderr)


def read_gold(path: str, labels: tuple[str, str, str], names: tuple[str, str]) -> pd.Series:
    """Gold preferences ``query winner`` -> per query A's name, B's name or ``tie``. ``labels``: the values
    meaning A better, tie, B better; a first line whose winner is not one of them is a header."""
    import pandas as pd

    from ir_pref_measures.meta import evaluation as meta
    from ir_pref_measures.parsing.formats import load, text_lines

    mapping = {labels[0]: names[0], labels[1]: meta.TIE, labels[2]: names[1]}
    queries, winners = [], []
    raw = load(path)
    for k, (line_no, line) in enumerate(text_lines(raw)):
        parts = re.split(r"[ \t]+(?=[^ \t]+$)", line.strip(" \t"))  # the last field (ASCII separators only)
        if k == 0 and (len(parts) < 2 or parts[1] not in mapping):
            continue
        if len(parts) != 2 or parts[1] not in mapping:
            raw.fail("not a gold preference", line_no=line_no, expected=GOLD_EXPECTED)
        queries.append(parts[0])
        winners.append(mapping[parts[1]])
    if not queries:
        raise InputError("no gold preferences", path=path, expected=GOLD_EXPECTED)
    gold = pd.Series(winners, index=queries)
    if gold.index.has_duplicates:
        raise InputError(f"query {gold.index[gold.index.duplicated()][0]!r} has two gold preferences", path=path)
    return gold


def _agreement_command(args: argparse.Namespace) -> None:
    import pandas as pd

    from ir_pref_measures.meta import evaluation as meta

    if args.image_pairs:
        from ir_pref_measures.measures.image_grid import ORDERS
        from ir_pref_measures.model.judgments import Judgments
        from ir_pref_measures.parsing.images import read_image_pairs, read_image_positions

        if not args.positions:
            raise InputError("--image-pairs needs --positions (the grid layout, Image_position.json)")
        if not 0 < args.p <= 1:
            raise InputError(f"value of p = {args.p} out of range (0, 1]")
        judgments = Judgments.from_preferences(read_image_pairs(args.image_pairs).drop(columns="line"))
        positions = read_image_positions(args.positions)
        values = {
            f"PGC(p={args.p:g}, order={order})": meta.grid_values(judgments, positions, order, p=args.p)
            for order in args.orders or ORDERS
        }
    else:
        if not args.runs or len(args.runs) != 2:
            raise InputError("agreement compares two systems: give --runs A B (or --image-pairs and --positions)")
        values = _values(args)
    first, second = (str(c) for c in next(iter(values.values())).columns[:2])
    names = (first, second)
    labels = tuple(args.gold_labels) if args.gold_labels else (names[0], meta.TIE, names[1])
    gold = read_gold(args.gold, labels, names)
    rows, parts = [], []
    for name, frame in values.items():
        result = meta.agreement(frame[list(names)], gold, correction=args.yates, binomial=args.binomial)
        parts.append(f"{name}:\n{result.table.to_string()}")
        rows.append(
            {
                "measure": name,
                "agree": result.agree,
                "disagree": result.disagree,
                "chi2": result.chi2,
                "chi2 p": result.chi2_p,
                "majority": result.majority,
                "share": result.majority_share,
                "binomial p": result.binomial_p,
                "tau gold": result.tau,
                "tau scores": meta.kendall_tau(frame[names[0]], frame[names[1]]),
            }
        )
    summary = pd.DataFrame(rows).set_index("measure")
    parts.append(
        f"agreement ({len(gold)} queries; binomial test {args.binomial}, one-tailed; tau gold: Kendall's tau between "
        f"the measure's and the gold preferences per query; tau scores: between {names[0]}'s and {names[1]}'s "
        f"per-query scores, thesis Fig. 5.9):\n{_table(summary)}"
    )
    if args.plot:
        from ir_pref_measures.meta.plots import engine_scatter

        _wrote(engine_scatter({k: v[list(names)] for k, v in values.items()}), args.plot)
    print("\n\n".join(parts))


def _stability_command(args: argparse.Namespace) -> None:
    from ir_pref_measures.meta import evaluation as meta
    from ir_pref_measures.parsing.preferences import read_preferences

    table = meta.stability(
        _rankings(args),
        read_preferences(args.prefs, args.prefs_format),
        [m for text in args.measures for m in text],
        fractions=args.remove,
        repeats=args.repeats,
        seed=args.seed,
        qrels=args.qrels,
    )
    if (table["kept"] % 1 == 0).all():  # a count of judgments: printed as one
        table["kept"] = table["kept"].astype("int64")
    print(_table(table.set_index(["measure", "removed"])))


def _pr_command(args: argparse.Namespace) -> None:
    from ir_pref_measures.loading import sources
    from ir_pref_measures.meta import evaluation as meta

    sets = sources.judgment_sets(args.judgments or [], args.prefs_format)
    if len(sets) != 1:
        raise InputError("precision-recall curves use one judgment set")
    curves = meta.pr_curves(_rankings(args), next(iter(sets.values())), range(1, args.depth + 1))
    shown = curves[curves["cutoff"].isin(args.show)]
    if args.plot:
        from ir_pref_measures.meta.plots import pr_curves

        _wrote(pr_curves(curves), args.plot)
    print(_table(shown.pivot(index="run", columns="cutoff", values=["ppref", "rpref"])))


def _evaluation_arguments(parser: argparse.ArgumentParser, measures: bool = True) -> None:
    from ir_pref_measures.choices import PREFERENCE_FORMATS

    parser.add_argument(
        "-j",
        "--judgments",
        action="append",
        metavar="[NAME=]SOURCE[+SOURCE]",
        help="a named judgment set: a qrels or preference file or an ir_datasets ID; '+' combines (repeatable)",
    )
    if measures:
        parser.add_argument(
            "-m",
            "--measures",
            action="append",
            nargs="+",
            required=True,
            metavar="[SET:]MEASURE",
            help="measures, each on a judgment set (nDCG@3, ppref@10, PGC(p=0.8), ...)",
        )
    parser.add_argument("--prefs-format", choices=PREFERENCE_FORMATS, help="format of preference files")
    parser.add_argument(
        "--topk", type=positive_int, metavar="K", help="cut every run at rank K first (runs of different depths)"
    )


def add_parser(subparsers) -> None:
    """``meta agreement | sensitivity | consistency | runs | stability | pr-curve``."""
    main = subparsers.add_parser(
        "meta",
        description="Judge measures the way the papers do: agreement with side-by-side SERP preferences, "
        "sensitivity (share of run pairs significantly different), consistency (Kendall's tau, tau_AP), "
        "stability under removed judgments, preference precision-recall curves.",
    )
    sub = main.add_subparsers(dest="analysis", required=True)
    _add_runs_parsers(sub)
    _add_agreement_parser(sub)
    _add_stability_parser(sub)
    _add_pr_curve_parser(sub)


def _add_runs_parsers(sub) -> None:
    """``meta sensitivity | consistency | runs``: analyses of the runs' values."""
    descriptions = {
        "sensitivity": "share of run pairs significantly different by a paired test (Luo 2021, Tables 4.1-4.2)",
        "consistency": "Kendall's tau and tau_AP between the run orderings of the measures (Luo 2021, Figs. 4.1-4.3)",
        "runs": "sensitivity and consistency together",
    }
    for name, description in descriptions.items():
        parser = sub.add_parser(name, help=description, description=description)
        parser.add_argument("runs", nargs="+", metavar="RUN")
        _evaluation_arguments(parser)
        parser.add_argument("--test", choices=META_TESTS, default="t", help="paired test (default: t)")
        parser.add_argument("--alpha", type=probability, default=0.05, help="significance level (default: 0.05)")
        parser.add_argument(
            "--samples", type=positive_int, default=10_000, help="resamples of the permutation and bootstrap tests"
        )
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--plot", metavar="FILE", help=f"scatter plot of the run means ({PLOT_FILE})")
        parser.add_argument(
            "--query-plot",
            metavar="FILE",
            help=f"scatter plot of the per-query values, a point per query and run, coloured by run ({PLOT_FILE})",
        )
        parser.add_argument(
            "--pair", nargs=2, action="append", metavar=("X", "Y"), help="a panel (default: first vs each)"
        )
        parser.set_defaults(handler=partial(run, _runs_command))


def _add_agreement_parser(sub) -> None:
    """``meta agreement``: measures against per-query gold preferences."""
    agree = sub.add_parser(
        "agreement",
        help="agreement of measures with per-query gold preferences between two systems (Luo 2021, Fig. 5.8)",
        description="The 3x3 table, agreements, chi-squared test and one-tailed binomial test of each measure's "
        "per-query preference between two systems against GOLD (lines 'query winner'). Systems are two runs "
        "(--runs A B with -j and -m), or the two engines of image grids (--image-pairs, --positions: Xie et al.'s "
        "data, Greedy PGC in each examination order).",
    )
    agree.add_argument("gold", metavar="GOLD")
    agree.add_argument("--gold-labels", nargs=3, metavar=("A", "TIE", "B"), help="GOLD's values (default: names, tie)")
    agree.add_argument("--runs", nargs=2, metavar=("A", "B"))
    _evaluation_arguments(agree, measures=False)
    agree.add_argument("-m", "--measures", action="append", nargs="+", default=[], metavar="[SET:]MEASURE")
    agree.add_argument("--image-pairs", metavar="FILE", help="Xie et al.'s image_pairs_annotation")
    agree.add_argument("--positions", metavar="FILE", help="Xie et al.'s Image_position.json")
    agree.add_argument("--orders", nargs="+", metavar="ORDER", help="examination orders (default: all six)")
    agree.add_argument("-p", type=float, default=0.95, help="RBO persistence of the grid PGC (default 0.95)")
    agree.add_argument("--binomial", choices=BINOMIAL_METHODS, default="exact")
    agree.add_argument("--yates", action="store_true", help="Yates' continuity correction in the chi-squared test")
    agree.add_argument("--plot", metavar="FILE", help=f"per-query score scatter of the two systems ({PLOT_FILE})")
    agree.set_defaults(handler=partial(run, _agreement_command))


def _add_stability_parser(sub) -> None:
    """``meta stability``: measures when judgments are removed."""
    stab = sub.add_parser(
        "stability",
        help="ANOVA F and tau when preference judgments are removed (Carterette and Bennett 2008, Table 2)",
        description="Remove a fraction of the judgments of PREFS at random (per query, seeded, repeated), "
        "re-evaluate the runs and report the ANOVA F and Kendall's tau against the full judgments.",
    )
    stab.add_argument("runs", nargs="+", metavar="RUN")
    stab.add_argument("--prefs", required=True, help="the preference file whose judgments are removed")
    stab.add_argument("--qrels", help="graded judgments combined with them, kept whole")
    _evaluation_arguments(stab)
    stab.set_defaults(judgments=None)
    stab.add_argument("--remove", type=float, nargs="+", default=[0.5, 0.9], metavar="FRACTION")
    stab.add_argument("--repeats", type=positive_int, default=10)
    stab.add_argument("--seed", type=int, default=0)
    stab.set_defaults(handler=partial(run, _stability_command))


def _add_pr_curve_parser(sub) -> None:
    """``meta pr-curve``: preference precision-recall curves."""
    pr = sub.add_parser(
        "pr-curve",
        help="preference precision-recall curves (Carterette and Bennett 2008, Fig. 1)",
        description="Mean ppref@k and rpref@k of each run for k = 1..DEPTH; prints a few cutoffs and plots all.",
    )
    pr.add_argument("runs", nargs="+", metavar="RUN")
    _evaluation_arguments(pr, measures=False)
    pr.add_argument("--depth", type=positive_int, default=100)
    pr.add_argument("--show", type=positive_int, nargs="+", default=[1, 5, 10, 20, 50, 100], metavar="K")
    pr.add_argument("--plot", metavar="FILE", help=PLOT_FILE)
    pr.set_defaults(handler=partial(run, _pr_command))


def run(analysis: Callable[[argparse.Namespace], None], args: argparse.Namespace) -> None:
    """Run ``analysis``, the one named on the command line (each parser's ``handler`` is this function with its
    analysis), once its plot files are known writable and none an input."""
    plots = {"--plot": getattr(args, "plot", None), "--query-plot": getattr(args, "query_plot", None)}
    for path in plots.values():
        if path is not None:
            from ir_pref_measures.meta.plots import check_path

            check_path(path)
    inputs = {"RUN": "runs", "-j": "judgments", "GOLD": "gold", "--image-pairs": "image_pairs"}
    inputs |= {"--positions": "positions", "--prefs": "prefs", "--qrels": "qrels"}
    check_outputs(plots, {label: getattr(args, name, None) for label, name in inputs.items()})
    analysis(args)  # its warnings: once each, one line (ir_pref_measures.commands.main)
