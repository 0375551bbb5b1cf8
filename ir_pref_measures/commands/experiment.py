"""``ir-pref-measures experiment``: a ``pt.Experiment``-style table of runs x measures
(:func:`ir_pref_measures.Experiment`)."""

from __future__ import annotations

import argparse
import sys

from ir_pref_measures.choices import FORMATS, PREFERENCE_FORMATS, SAMPLES, TESTS
from ir_pref_measures.commands.options import add_dask_option, dask_client, positive_int, probability
from ir_pref_measures.commands.output import check_outputs, write_text
from ir_pref_measures.errors import InputError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "experiment",
        description="Evaluate RUN files with graded, preference and pairwise measures on JUDGMENTS (a qrels "
        "file, a preference file, or an ir_datasets ID such as msmarco-passage/trec-dl-2019/judged), optionally "
        "combined with --prefs, and on other judgment sets (-j NAME=SOURCE, then -m NAME:MEASURE). Runs are named "
        "by their file name without folder, 'input.', '.gz' and extension, or by --names. Put the runs before -m.",
    )
    parser.add_argument(
        "judged",
        metavar="JUDGMENTS",
        help="[NAME=]SOURCE (NAME= makes it a judgment group); the measures without SET: use it",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="the runs")
    parser.add_argument(
        "-j",
        "--judgments",
        action="append",
        default=[],
        metavar="NAME=SOURCE",
        help="another judgment set, named (repeatable): a file, an ir_datasets ID, or SOURCE+SOURCE (their "
        "union); -m NAME:MEASURE evaluates on it, column 'MEASURE [NAME]'",
    )
    parser.add_argument(
        "-m",
        "--measures",
        nargs="+",
        action="extend",
        required=True,
        metavar="MEASURE",
        help="ir_measures names (nDCG@10, APpref, 'PGC(p=0.9)', prefs_avgjg) and pairwise ones (rpp, lexiprecision, "
        "...); SET:MEASURE on a judgment set (-j), GROUP:MEASURE on a judgment group",
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
        help="format of the preference files (--prefs, -j, or JUDGMENTS if it is one); detected when unambiguous",
    )
    parser.add_argument("--names", nargs="+", metavar="NAME", help="the runs' names, in the order of the runs")
    parser.add_argument("--topk", type=positive_int, metavar="K", help="cut every run at rank K first")
    parser.add_argument(
        "--baseline", action="append", metavar="NAME", help="a baseline run (its name or path; repeatable)"
    )
    parser.add_argument(
        "--test",
        choices=TESTS,
        default="t",
        help="significance test (default t); tukey and randomised-tukey test all pairs of runs at once",
    )
    parser.add_argument(
        "--samples",
        type=positive_int,
        help=f"resamples of the permutation and bootstrap tests and intervals (default {SAMPLES})",
    )
    parser.add_argument("--seed", type=int, help="seed of the resampling (default 0)")
    parser.add_argument("--ci", type=probability, metavar="LEVEL", help="bootstrap confidence intervals, e.g. 0.95")
    parser.add_argument("--effect-size", action="store_true", help="the standardised mean difference to the baseline")
    parser.add_argument("--correction", metavar="METHOD", help="multiple-testing correction, e.g. holm, bonferroni")
    parser.add_argument(
        "--alpha",
        type=probability,
        help="significance level of the correction and of the markers of --format latex/html (default 0.05)",
    )
    parser.add_argument(
        "--all-pairs",
        action="store_true",
        help="instead of the runs, every pair of runs per measure: difference, p-value, interval, effect size",
    )
    parser.add_argument(
        "--anova", action="store_true", help="instead of the runs, the two-way ANOVA (runs + topics) of each measure"
    )
    parser.add_argument("--perquery", action="store_true", help="the long table name, qid, measure, value")
    parser.add_argument("--topics", metavar="ID", help="only the queries of this ir_datasets ID")
    parser.add_argument("--round", type=int, choices=range(0, 17), metavar="N", help="round to N decimals (0-16)")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default table)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output (or -)")
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="draw each run's per-query differences to the baseline (--baseline), one panel per run and measure "
        "(.png, .pdf, .svg, ...; needs pip install 'ir-pref-measures[plot]')",
    )
    add_dask_option(parser)
    parser.set_defaults(handler=run)


ALPHA = 0.05
RESAMPLING_TESTS = ("permutation", "bootstrap", "randomised-tukey")


def _check_combinations(args: argparse.Namespace) -> None:
    """The options only the command line can tell were given: ``--samples`` and ``--seed`` need a resampling
    (``--ci``, or a permutation, bootstrap or randomised Tukey test of a baseline or of all pairs), ``--alpha`` a
    correction or the markers of ``--format latex/html``. The other combinations are checked by
    :func:`~ir_pref_measures.experiment.front.Experiment`."""
    compared = args.baseline or args.all_pairs
    resampling = args.ci is not None or compared and args.test in RESAMPLING_TESTS
    unused = [option for option, value in (("--samples", args.samples), ("--seed", args.seed)) if value is not None]
    if unused and not resampling:
        raise InputError(
            f"{' and '.join(unused)} set(s) the resampling of --ci or of a permutation, bootstrap or randomised-tukey "
            "test (with --baseline or --all-pairs): there is none here"
        )
    if args.names and args.anova:
        raise InputError("--names: the ANOVA table (--anova) names no run")
    if args.alpha is not None and args.correction is None and args.format not in ("latex", "html"):
        raise InputError("--alpha is the level of --correction and of the markers of --format latex/html: neither here")


def run(args: argparse.Namespace) -> None:
    from ir_pref_measures.dask.experiment import Experiment
    from ir_pref_measures.engine import n_jobs
    from ir_pref_measures.experiment.front import DEFAULT_SET
    from ir_pref_measures.experiment.render import render
    from ir_pref_measures.loading import sources
    from ir_pref_measures.parsing.memory import limit_arenas, map_large_blocks
    from ir_pref_measures.parsing.names import named_paths

    inputs = {"JUDGMENTS": [args.judged], "RUN": args.runs, "--prefs": args.prefs, "-j": args.judgments}
    check_outputs({"-o": args.output, "--plot": args.plot}, inputs)  # before the work: no input overwritten
    if args.plot is not None:
        from ir_pref_measures.meta.plots import check_path

        check_path(args.plot)
        if not args.baseline or len(args.baseline) > 1 or args.all_pairs or args.anova:
            raise InputError("--plot draws the per-query differences to one baseline: give one --baseline")
    if args.perquery and args.format in ("latex", "html"):
        raise InputError(f"--perquery gives the long table name, qid, measure, value: not a {args.format} table")
    if (args.all_pairs or args.anova) and args.format in ("latex", "html"):
        option = "--all-pairs" if args.all_pairs else "--anova"
        raise InputError(f"{option} gives a table of its own: not a {args.format} table of runs")
    _check_combinations(args)
    limit_arenas(max(2, n_jobs()))  # one per thread that reads or evaluates: a lower, steadier peak (measured)
    map_large_blocks()  # a run's columns given back as soon as freed: the peak does not grow with the runs
    judgments = {DEFAULT_SET: sources.grouped([args.judged, *args.prefs], preference_format=args.prefs_format)}
    for name, judged in sources.judgment_sets(args.judgments, args.prefs_format).items() if args.judgments else ():
        if name in judgments:
            raise InputError(f"-j {name}=...: the judgment set {name!r} is named twice (or needs a name)")
        judgments[name] = judged
    paths = args.runs
    runs = named_paths(paths, args.names)
    by_path = {str(path): name for name, path in runs.items()}  # the paths of the command line: strings
    baseline = [by_path.get(b, b) for b in args.baseline or []]
    with dask_client(args.dask, args.dask_timeout) as client:
        table = Experiment(
            runs,
            judgments,
            args.measures,
            baseline=baseline or None,
            test=args.test,
            samples=SAMPLES if args.samples is None else args.samples,
            seed=0 if args.seed is None else args.seed,
            ci=args.ci,
            effect_size=args.effect_size,
            all_pairs=args.all_pairs,
            anova=args.anova,
            correction=args.correction,
            correction_alpha=ALPHA if args.alpha is None else args.alpha,
            perquery="both" if args.plot and not args.perquery else args.perquery,
            round=args.round,
            topics=args.topics,
            topk=args.topk,
            client=client,
        )
    if args.plot is not None:
        table = _plotted(table, args.plot, baseline[0], long_only=args.perquery)
    text = render(table, args.format, args.round, alpha=ALPHA if args.alpha is None else args.alpha)
    if args.output:
        write_text(args.output, text)  # whole or not at all
    else:
        print(text, end="")


def _plotted(result, path: str, baseline: str, *, long_only: bool):
    """Draw the per-query differences of ``result`` (Experiment's ``perquery="both"`` pair, or its long table with
    ``long_only``) to ``baseline`` into ``path``; the table to print."""
    from ir_pref_measures.commands.output import replacing
    from ir_pref_measures.meta.plots import query_differences, save

    table, long = (result, result) if long_only else result
    with replacing(path) as temporary:
        save(query_differences(long, baseline), temporary)
    print(f"wrote {path}", file=sys.stderr)
    return table
