"""``ir-pref-measures ppi``: prediction-powered evaluation with people's and an LLM's judgments
(:mod:`ir_pref_measures.agreement.ppi`, :mod:`ir_pref_measures.leaderboards.ppi`).

Runs: ``ppi PEOPLE=SOURCE LLM=SOURCE --runs RUN... -m MEASURE``: per run (and with ``--pairs`` per difference of
two runs) the mean of the measure under people's judgments, with the PPI++ interval next to the people-only one.
``--sample FILE`` (query ids, one per line) or ``--sample-size K`` chooses the people's queries among those both
judged; ``--experiment R`` repeats random samples of ``--sample-size`` queries R times and reports coverage.
Planning: with ``--width W``, ``--difference D`` (and ``--power``) or ``--budget B``, and ``--costs PEOPLE LLM``,
the people's queries are a pilot, and each row plans the cheapest numbers of queries for people and for the LLM
alone (:func:`ir_pref_measures.agreement.ppi_plan`).
A judging store: ``ppi --store STORE --runs RUN...`` reads the LLM's and people's answers of an effort
(:func:`ir_pref_measures.judging.store_ppi_table`); ``--choose K`` draws the queries for people first
(``--rule uniform``, ``uncertainty`` or ``stratified``) and keeps the draw in the store
(:func:`ir_pref_measures.judging.choose_for_people`); ``--soft DRAWS`` takes the LLM's prediction from its soft
preferences (:mod:`ir_pref_measures.judging.soft`).
Leaderboards: ``ppi --battles PEOPLE LLM LLM_ONLY``: prediction-powered Bradley-Terry ratings.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from ir_pref_measures.choices import FORMATS
from ir_pref_measures.commands.options import non_negative, non_negative_int, positive_int, probability, share
from ir_pref_measures.errors import InputError

# options of the NAME=SOURCE form that a judging store (--store) does not take
JUDGES_ONLY = ("sample", "sample_size", "experiment", "prefs_format", "width", "difference", "budget", "costs")


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
    store = parser.add_argument_group("from a judging store (instead of NAME=SOURCE judges)")
    store.add_argument("--store", help="a judging effort's store: the LLM's answers and people's (judge serve)")
    store.add_argument("--people-judge", default="people", help="the people's judge name (default: people)")
    store.add_argument("--llm-judge", help="the LLM's judge name (default: the store's one other judge)")
    store.add_argument("--choose", type=positive_int, metavar="K", help="draw about K queries for people; keep it")
    store.add_argument(
        "--soft",
        type=positive_int,
        metavar="DRAWS",
        help="the LLM's prediction from its soft preferences (log-probabilities): the mean of DRAWS draws",
    )
    store.add_argument(
        "--rule",
        choices=("uniform", "uncertainty", "stratified"),
        default="uniform",
        help="how --choose and --experiment draw the people's queries (default: uniform; stratified: exactly K, "
        "in two strata by the pairs the LLM judged per query)",
    )
    parser.add_argument("--battles", nargs=3, metavar=("PEOPLE", "LLM", "LLM_ONLY"), help="battle files: ratings")
    parser.add_argument(
        "--lam",
        type=share,
        help="a fixed power parameter in [0, 1]: 0 people only, 1 plain PPI (default: PPI++'s tuned)",
    )
    parser.add_argument("--confidence", type=probability, default=0.95, help="interval level (default 0.95)")
    plan = parser.add_argument_group("planning, the people's queries as a pilot (one target and --costs)")
    plan.add_argument("--width", type=non_negative, metavar="W", help="target width of the intervals")
    plan.add_argument("--difference", type=non_negative, metavar="D", help="target: detect a difference D")
    plan.add_argument("--power", type=probability, default=0.8, help="power of detecting --difference (0.8)")
    plan.add_argument("--budget", type=non_negative, metavar="B", help="target: the most a budget B buys")
    plan.add_argument(
        "--costs", nargs=2, type=non_negative, metavar=("PEOPLE", "LLM"), help="price of a query judged by each"
    )
    plan.add_argument("--max-queries", type=positive_int, metavar="N", help="at most N queries in all")
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
    elif args.store:
        table = _store_table(args)
    else:
        table = _runs_table(args)
    sys.stdout.write(render(table, args.format, args.digits))


def _store_table(args: argparse.Namespace):
    """The table of a judging store's answers, or with ``--choose`` the queries drawn for people (with the
    probability each was drawn with)."""
    from ir_pref_measures import judging

    if args.judges or not args.runs:
        raise InputError("--store takes --runs and no NAME=SOURCE judges", expected="ppi --store STORE --runs RUN...")
    given = [f"--{name.replace('_', '-')}" for name in JUDGES_ONLY if getattr(args, name) not in (None, False)]
    if given:
        raise InputError(f"{', '.join(given)}: options of NAME=SOURCE judges, not of --store")
    common = {"llm": args.llm_judge, "topk": args.topk}
    if args.choose and args.soft:
        raise InputError("--soft gives the interval's prediction, not the draw of --choose: give one of them")
    if args.choose:
        chosen, probabilities = judging.choose_for_people(
            args.store, args.runs, args.measure, args.choose, rule=args.rule, seed=args.seed, **common
        )
        return probabilities.loc[chosen].rename_axis("query_id").reset_index()
    return judging.store_ppi_table(
        args.store,
        args.runs,
        args.measure,
        people=args.people_judge,
        lam=args.lam,
        confidence=args.confidence,
        pairs=args.pairs,
        soft=args.soft,
        **common,
    )


def _runs_table(args: argparse.Namespace):
    import numpy as np

    from ir_pref_measures.agreement import ppi
    from ir_pref_measures.agreement.panel import align
    from ir_pref_measures.commands.judges import _named

    if args.choose or args.llm_judge or args.people_judge != "people":
        raise InputError("--choose, --llm-judge and --people-judge read a judging store: give --store STORE")
    if args.soft:
        raise InputError("--soft reads the log-probabilities of a judging store: give --store STORE")
    planning = _planning(args)
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
            rule=args.rule,
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
    if planning:
        return ppi.ppi_plan(
            values,
            cost_people=args.costs[0],
            cost_llm=args.costs[1],
            width=args.width,
            difference=args.difference,
            power=args.power,
            budget=args.budget,
            confidence=args.confidence,
            pairs=args.pairs,
            n_max=args.max_queries,
        )
    return ppi.ppi_table(values, lam=args.lam, confidence=args.confidence, pairs=args.pairs)


def _planning(args: argparse.Namespace) -> bool:
    """Whether to plan (a target given); checks that one target and the costs are."""
    targets = [f"--{name}" for name in ("width", "difference", "budget") if getattr(args, name) is not None]
    if not targets:
        if args.costs or args.max_queries:
            raise InputError("--costs and --max-queries plan a study: give a target (--width, --difference, --budget)")
        return False
    if len(targets) > 1:
        raise InputError(f"plan for one target, not {' and '.join(targets)}")
    if not args.costs:
        raise InputError(f"planning for {targets[0]} needs the prices: --costs PEOPLE LLM")
    if args.experiment:
        raise InputError("plan from a pilot (the people's queries), or run --experiment, not both")
    return True
