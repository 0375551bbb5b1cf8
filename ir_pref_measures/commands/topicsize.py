"""``ir-pref-measures topicsize``: topic set size design (:mod:`ir_pref_measures.stats.topic_set_size`).

The variance comes from ``--variance`` or from runs evaluated on judgments (``--runs RUN... --qrels QRELS -m
MEASURE``: the residual mean square of the two-way ANOVA of runs x topics). With ``--difference`` the table gives
the topics needed by a paired t-test (minimum detectable difference), a one-way ANOVA over ``--systems`` systems
(minimum detectable range) and an interval of the difference no wider than the difference; with ``--topics`` it gives
what that many topics detect (and the expected interval width).
"""

from __future__ import annotations

import argparse
import sys

from ir_pref_measures.choices import FORMATS
from ir_pref_measures.commands.options import non_negative_int, positive_int, probability
from ir_pref_measures.errors import InputError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "topicsize",
        description="Sakai's topic set size design from a variance estimate (the two-way ANOVA residual variance of "
        "a measure's per-topic scores over runs): the number of topics for a paired t-test, a one-way ANOVA over m "
        "systems and a confidence interval width at given alpha, beta and minimum detectable difference; or, with "
        "--topics, the detectable difference for that many topics.",
    )
    parser.add_argument("--variance", type=float, help="the variance estimate of the per-topic scores")
    parser.add_argument("--runs", nargs="+", metavar="RUN", help="runs whose per-topic scores give the variance")
    parser.add_argument("--qrels", metavar="QRELS", help="the judgments the runs are evaluated on (file or ID)")
    parser.add_argument("-m", "--measure", default="nDCG@10", help="the measure of the runs (default nDCG@10)")
    parser.add_argument("--topk", type=positive_int, metavar="K", help="cut every run (--runs) at rank K first")
    parser.add_argument("--difference", type=float, help="minimum detectable difference (range; CI width)")
    parser.add_argument("--topics", type=positive_int, help="the reverse: what this many topics detect")
    parser.add_argument("--systems", type=positive_int, default=2, help="systems of the one-way ANOVA (default 2)")
    parser.add_argument("--alpha", type=probability, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--beta", type=probability, default=0.20, help="type II error rate (default 0.20)")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default table)")
    parser.add_argument("--digits", type=non_negative_int, help="decimal places shown")
    parser.set_defaults(handler=run)


def variance_of(args: argparse.Namespace) -> float:
    """``--variance``, or the residual variance of the runs' per-topic values on ``--qrels``."""
    from ir_pref_measures.stats import topic_set_size as tss

    if (args.variance is None) == (args.runs is None):
        raise InputError("give the variance (--variance V) or the runs it comes from (--runs ... --qrels ...)")
    if args.variance is not None:
        return args.variance
    if args.qrels is None:
        raise InputError("--runs needs --qrels: the judgments they are evaluated on")
    from ir_pref_measures.meta.evaluation import measure_values

    runs = args.runs
    if args.topk is not None:  # runs of different depths: the one --topk rule of the commands
        from ir_pref_measures.experiment.runs import named_runs, truncate

        runs = {name: truncate(ranking, args.topk) for name, ranking in named_runs(args.runs).items()}
    (values,) = measure_values(runs, args.qrels, [args.measure]).values()
    variance = tss.residual_variance(values.to_numpy())
    if tss.no_variance(variance, values.to_numpy()):
        raise InputError(
            f"the runs' {args.measure} differ by the same amount on every topic (residual variance {variance:.3g}, "
            "zero up to rounding: identical runs?): there is no topic-to-topic variation to size a topic set with; "
            "give runs that differ, or --variance"
        )
    return variance


def run(args: argparse.Namespace) -> None:
    import pandas as pd

    from ir_pref_measures.experiment.render import render
    from ir_pref_measures.stats import topic_set_size as tss

    if (args.difference is None) == (args.topics is None):
        raise InputError("give --difference (topics needed) or --topics (what they detect), one of them")
    variance = variance_of(args)
    common = {"alpha": args.alpha}
    if args.difference is not None:
        d = args.difference
        rows = [
            ("paired t-test", d, tss.t_test_topics(d, variance, beta=args.beta, **common)),
            (
                f"one-way ANOVA, {args.systems} systems",
                d,
                tss.anova_topics(args.systems, d, variance, beta=args.beta, **common),
            ),
            ("CI width", d, tss.ci_topics(d, variance, **common)),
        ]
    else:
        n = args.topics
        rows = [
            ("paired t-test", tss.t_test_detectable(n, variance, beta=args.beta, **common), n),
            (
                f"one-way ANOVA, {args.systems} systems",
                tss.anova_detectable(n, args.systems, variance, beta=args.beta, **common),
                n,
            ),
            ("CI width", tss.expected_ci_width(n, variance, **common), n),
        ]
    table = pd.DataFrame(rows, columns=["design", "difference", "topics"])
    table.insert(1, "variance", variance)
    table.insert(2, "alpha", args.alpha)
    table.insert(3, "beta", [args.beta, args.beta, float("nan")])
    sys.stdout.write(render(table, args.format, args.digits))
