"""``ir-pref-measures ppi``: prediction-powered evaluation with people's and an LLM's judgments
(:mod:`ir_pref_measures.judges.ppi`, :mod:`ir_pref_measures.leaderboards.ppi`).

Runs: ``ppi PEOPLE=SOURCE LLM=SOURCE --runs RUN... -m MEASURE``: per run (and with ``--pairs`` per difference of
two runs) the mean of the measure under people's judgments, with the PPI++ interval next to the people-only one.
``--sample FILE`` (query ids, one per line) or ``--sample-size K`` chooses the people's queries among those both
judged; ``--experiment R`` repeats random samples of ``--sample-size`` queries R times and reports coverage.
Leaderboards: ``ppi --battles PEOPLE LLM LLM_ONLY``: prediction-powered Bradley-Terry ratings.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from ir_pref_measures.choices import FORMATS
from ir_pref_measures.commands.options import non_negative_int, positive_int, probability, share
from ir_pref_measures.errors import InputError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "ppi",
        description="Combine people's judgments of a random sample of the queries with an LLM's judgments of all "
        "queries into estimates of the measure under people's judgments whose intervals stay valid however biased "
        "the LLM is (PPI++: Angelopoulos, Duchi, Zrnic 2023); or, with --battles, prediction-powered Bradley-Terry "
        "ratings from people's battles and an LLM's.",
    )
    parser.add_argument("judges", nargs="*", metavar="NAME=SOURCE", help="the people's judge first, then the LLM's")
    parser.add_argument("--runs", nargs="+", metavar="RUN", help="the runs evaluated")
    parser.add_argument("--topk", type=positive_int, metavar="K", help="cut every run (--runs) at rank K first")
    parser.add_argument("-m", "--measure", default="Compatibility", help="the measure (default Compatibility)")
    parser.add_argument("--prefs-format", help="the preference files' format where detection cannot tell")
    parser.add_argument("--sample", metavar="FILE", help="the people's queries: a file of query ids, one per line")
    parser.add_argument("--sample-size", type=positive_int, metavar="K", help="draw K queries as the people's sample")
    parser.add_argument("--seed", type=int, default=0, help="seed of the drawn samples (default 0)")
    parser.add_argument("--experiment", type=positive_int, metavar="R", help="repeat R random samples: coverage")
    parser.add_argument("--pairs", action="store_true", help="also the differences between every two runs")
    parser.add_argument("--battles", nargs=3, metavar=("PEOPLE", "LLM", "LLM_ONLY"), help="battle files: ratings")
    parser.add_argument(
        "--lam",
        type=share,
        help="a fixed power parameter in [0, 1]: 0 people only, 1 plain PPI (default: PPI++'s tuned)",
    )
    parser.add_argument("--confidence", type=probability, default=0.95, help="interval level (default 0.95)")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default table)")
    parser.add_argument("--digits", type=non_negative_int, help="decimal places shown")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> None:
    from ir_pref_measures.experiment.render import render

    if args.battles:
        if args.judges or args.runs or args.topk:
            raise InputError("--battles takes three battle files, without judges, --runs or --topk")
        from ir_pref_measures.leaderboards.ppi import ppi_rate

        table = ppi_rate(*args.battles, lam=args.lam, confidence=args.confidence).table()
    else:
        table = _runs_table(args)
    sys.stdout.write(render(table, args.format, args.digits))


def _runs_table(args: argparse.Namespace):
    import numpy as np

    from ir_pref_measures.commands.judges import _named
    from ir_pref_measures.judges import ppi
    from ir_pref_measures.judges.panel import align

    named = _named(args.judges)
    if len(named) != 2 or not args.runs:
        raise InputError(
            f"got {len(named)} judges{'' if args.runs else ' and no --runs'}",
            expected="ppi PEOPLE=SOURCE LLM=SOURCE --runs RUN... (or ppi --battles PEOPLE LLM LLM_ONLY)",
        )
    if args.sample and args.sample_size:
        raise InputError("give the people's sample as --sample FILE or draw it with --sample-size, not both")
    people, llm = named
    aligned = align(named, format=args.prefs_format)
    for name, votes in aligned.votes.items():  # judges (the command) shows them in its coverage table
        if votes.unusable:
            lines = len(votes.key) + votes.unusable
            message = f"judge {name!r}: {votes.unusable} of {lines} lines have no usable answer (?): not judgments"
            warnings.warn(message, stacklevel=2)
    options = {"people": people, "llm": llm, "topk": args.topk}
    if args.experiment:
        if not args.sample_size:
            raise InputError("--experiment needs --sample-size K: the size of each people's sample")
        return ppi.subsample_experiment(
            aligned,
            args.runs,
            args.measure,
            **options,
            size=args.sample_size,
            repetitions=args.experiment,
            seed=args.seed,
            lam=args.lam,
            confidence=args.confidence,
        )
    sample = None
    if args.sample:
        from ir_pref_measures.parsing.formats import load

        sample = [
            line.strip() for line in load(args.sample).data.decode("utf-8", "replace").splitlines() if line.strip()
        ]
    elif args.sample_size:
        both = ppi.judged_by_both(aligned, people, llm)
        if args.sample_size > len(both):
            raise InputError(f"--sample-size {args.sample_size}: only {len(both)} queries were judged by both")
        sample = np.random.default_rng(args.seed).choice(both, args.sample_size, replace=False)
    values = ppi.ppi_values(aligned, args.runs, args.measure, **options, sample=sample)
    return ppi.ppi_table(values, lam=args.lam, confidence=args.confidence, pairs=args.pairs)
