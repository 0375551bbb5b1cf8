"""``ir-pref-measures judge``: produce preference judgments (:mod:`ir_pref_measures.judging`).

``plan`` makes a judging store (one SQLite file, or a PostgreSQL database by URL) with its selector and docs;
``run`` judges to a budget with a judge of the registry (``simulated``, ``replay``, ``files``, and those other
modules register) and resumes where a run stopped; ``status`` counts; ``export`` writes the judgments in a format
the package reads; ``simulate`` compares selectors at several budgets (or judgments per topic, with the knee of the
curve) by how well the judgments they collect order systems.

Judge options: ``--qrels`` (simulated), ``--judgments`` (replay), ``--requests``/``--answers``/``--assessor``
(files); any judge takes ``--option KEY=VALUE``. A module that registers a judge adds its own options through
:data:`JUDGE_OPTIONS` (``name -> (add_arguments(parser), options_of(args))``).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from functools import partial

from ir_pref_measures.choices import LISTED, PLAN_SELECTORS, SELECTORS
from ir_pref_measures.commands.options import (
    key_values,
    non_negative,
    non_negative_int,
    positive,
    positive_int,
    share,
    share_below_one,
)
from ir_pref_measures.commands.output import check_outputs, write_text
from ir_pref_measures.errors import InputError, Stopped

EXPORTS = ("carterette", "winner", "pairs", "log", "shown", "soft")
GOLD_SHARE = 0.1  # the share of gold assignments when gold pairs are given without --gold-share
STORE_HELP = "the SQLite file of the effort, or a PostgreSQL URL (postgresql://user@host:port/database)"


def _simulated_options(args) -> dict:
    if not args.qrels:
        raise InputError("the simulated judge needs --qrels (the graded qrels it knows)")
    rates = {"noise": args.noise, "tie_rate": args.tie_rate, "position_bias": args.position_bias}
    return {"qrels": args.qrels, "seed": args.judge_seed, "bad_marks": args.bad_marks, **rates}


def _replay_options(args) -> dict:
    if not args.judgments:
        raise InputError("the replay judge needs --judgments (the recorded judgments it replays)")
    return {"judgments": args.judgments, "seed": args.judge_seed, "format": args.prefs_format, **_fallback(args)}


def _fallback(args) -> dict:
    """The replay judge's ``qrels`` option under ``--fallback qrels`` (which needs ``--qrels``)."""
    if args.fallback == "coin":
        return {}
    if not args.qrels:
        raise InputError("--fallback qrels needs --qrels (the graded qrels that answer pairs never recorded)")
    return {"qrels": args.qrels}


def _files_options(args) -> dict:
    if not (args.requests and args.answers):
        raise InputError("the files judge needs --requests (written) and --answers (read)")
    return {"requests": args.requests, "judgments": args.answers, "assessor": args.assessor or ""}


FALLBACK_HELP = "replay: a pair never recorded gets a fair coin (sim.py, the default) or the --qrels grade order"

JUDGE_OPTIONS: dict[str, tuple[Callable | None, Callable]] = {
    "simulated": (None, _simulated_options),
    "replay": (None, _replay_options),
    "files": (None, _files_options),
}


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "judge",
        description="Judging efforts in a SQLite or PostgreSQL store: pair selection (all pairs, random, prefj.py's "
        "top-k process, binary insertion, rating-driven), simulated / replayed / human / LLM judges, exports to the "
        "judgment formats the package reads, and a simulator of selectors x budgets.",
    )
    actions = parser.add_subparsers(dest="action_name", required=True)
    plan = actions.add_parser("plan", help="make a judging store: the selector and the docs to judge")
    plan.add_argument("store", help=STORE_HELP)
    plan.add_argument("--selector", choices=PLAN_SELECTORS, default="topk", help="(default: topk)")
    _add_docs(plan)
    plan.add_argument(
        "--llm", metavar="STORE", help="adjudication: the store of an LLM effort, whose unsure pairs people judge"
    )
    plan.add_argument(
        "--pairs", metavar="FILE",
        help="list: the questions to ask, in this order (topic a b: judge.py's or prefj.py's requests; a judging "
        "log; an export in the winner or carterette format)",
    )  # fmt: skip
    plan.add_argument("--seed", type=non_negative_int, default=0, help="the effort's seed (default: 0)")
    plan.add_argument("--rule", default="majority", help="combination rule of a question's answers (majority)")
    plan.add_argument("--reask", action="store_true", help="ask a pair again in a later round (default: reuse)")
    plan.add_argument("--batch", type=positive_int, help="questions a round (random: 1; rating: a tenth of the pool)")
    plan.add_argument("--k", type=positive_int, default=5, help="topk: depth of the top (default: 5)")
    plan.add_argument("--f", type=positive_int, default=9, help="topk: stage-1 pool threshold (default: 9)")
    plan.add_argument("--p", type=positive_int, default=7, help="topk: stage-1 pairings (default: 7)")
    plan.add_argument(
        "--uniform", type=share, default=0.5,
        help="rating, topk+rating: the share of questions drawn uniformly (default: 0.5; 0: all targeted)",
    )  # fmt: skip
    plan.set_defaults(handler=partial(run, _plan))

    run_action = actions.add_parser("run", help="judge to a budget; resumes where a run stopped")
    run_action.add_argument("store", help=STORE_HELP)
    run_action.add_argument("--judge", default="simulated", help="a judge of the registry (default: simulated)")
    run_action.add_argument(
        "--budget", type=_budget, help="questions in all (an integer) or a share of each query's pairs"
    )
    _add_judge_options(run_action)
    run_action.add_argument("--verbose", action="store_true", help="show the progress bar even off a terminal")
    run_action.set_defaults(handler=partial(run, _run))

    status = actions.add_parser("status", help="the effort's settings and counts")
    status.add_argument("store", help=STORE_HELP)
    status.set_defaults(handler=partial(run, _status))

    export = actions.add_parser("export", help="write the judgments in a format the package reads")
    export.add_argument("store", help=STORE_HELP)
    export.add_argument("--format", choices=EXPORTS, default="log", help="(default: log, Clarke's judging log)")
    export.add_argument("-o", "--output", help="the file to write (default: standard output)")
    export.add_argument(
        "--documents", metavar="SOURCE",
        help="log: the document texts (an ir_datasets ID, a TSV or JSONL file), to write ties shorter text first "
        "and unusable questions present text first, as judge.py does",
    )  # fmt: skip
    export.add_argument(
        "--tie-band", type=share, metavar="BAND",
        help="a question whose answers carry p(first) in both orders is a tie when |P(a > b) - 1/2| <= BAND / 2, "
        "else the doc P prefers (default: the effort's rule for every question)",
    )  # fmt: skip
    export.add_argument(
        "--consistent",
        action="store_true",
        help="only the verdicts that agree with an order fitted to them (majority per pair, Greedy FAS order): "
        "judgments that contradict each other then no longer tie every doc under the measures' closure",
    )
    export.add_argument(
        "--exclude-flagged",
        action="store_true",
        help="leave out the answers of the assessors flagged on gold pairs (judge serve --gold)",
    )
    export.add_argument(
        "--with-llm",
        action="store_true",
        help="an adjudication effort: the LLM effort's judgments with the pairs people judged replaced by theirs",
    )
    export.set_defaults(handler=partial(run, _export))

    simulate = actions.add_parser("simulate", help="selectors x budgets x seeds: judgments and tau of the runs")
    simulate.add_argument("--runs", nargs="+", required=True, metavar="RUN", help="the systems to order")
    simulate.add_argument("--topk", type=positive_int, metavar="K", help="cut every run at rank K first")
    simulate.add_argument("--qrels", required=True, help="graded qrels: their top-k candidates are judged")
    simulate.add_argument("--truth", help="all judgments (default: every pair judged by the judge)")
    simulate.add_argument(
        "--depth", type=positive_int, help="judge the runs' pools to this depth (default: the top-k candidates)"
    )
    simulate.add_argument("--judge", choices=("simulated", "replay"), default="simulated")
    simulate.add_argument("--judgments", help="replay: the recorded judgments")
    simulate.add_argument("--prefs-format", help="format of --judgments and --truth when detection cannot tell")
    simulate.add_argument("--fallback", choices=("coin", "qrels"), default="coin", help=FALLBACK_HELP)
    simulate.add_argument(
        "--selectors",
        nargs="+",
        choices=[s for s in SELECTORS if s != LISTED],
        default=["random", "topk", "insertion", "rating"],
    )
    simulate.add_argument(
        "--budgets",
        nargs="+",
        type=_share_of_pairs,
        help="shares of each query's pairs in (0, 1] (default: 0.1 0.25 0.5)",
    )
    simulate.add_argument(
        "--per-topic", nargs="+", type=positive_int, metavar="N",
        help="judgments per topic instead of --budgets (3 or more): the curve of tau and its knee",
    )  # fmt: skip
    simulate.add_argument("--seeds", type=positive_int, default=3, help="seeds 0 .. N-1 (default: 3)")
    simulate.add_argument("--measure", default="ppref@10", help="the measure ordering the runs (default: ppref@10)")
    simulate.add_argument("--noise", type=share, default=0.0, help="share of flipped answers, 0 to 1 (default: 0)")
    simulate.add_argument("--plot", metavar="FILE", help="tau against judgments (.png, .pdf; needs matplotlib)")
    simulate.add_argument("-o", "--output", help="write the table of every seed (CSV) to this file")
    simulate.set_defaults(handler=partial(run, _simulate))
    _add_serve(actions)
    grade = actions.add_parser(
        "grade",
        help="graded LLM labels (UMBRELA) of the query-doc pairs of qrels, written as TREC qrels",
        description="Ask an OpenAI-compatible endpoint for the grade of each query-doc pair of --qrels (its grades "
        "are not read) with a graded preset (umbrela: UMBRELA's zero-shot prompt and answer reading), and write "
        "the labels as TREC qrels.",
    )
    grade.add_argument("--qrels", required=True, help="the pairs to label: qrels, a file or an ir_datasets ID")
    grade.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="the LLM judge's options (model, base_url, queries, documents, concurrency, ...) and preset (umbrela)",
    )  # fmt: skip
    grade.add_argument("-o", "--output", help="the qrels file to write (default: standard output)")
    grade.add_argument(
        "--cache",
        help="an answer cache (a SQLite file, or a PostgreSQL URL): each reply is kept there, and a pair whose reply "
        "is kept is not asked again (a stopped grading, run again, asks only the pairs it lacks)",
    )
    grade.set_defaults(handler=partial(run, _grade))


def run(action: Callable[[argparse.Namespace], None], args: argparse.Namespace) -> None:
    """Run ``action``, the one named on the command line (plan, run, status, export, simulate, serve; each
    parser's ``handler`` is this function with its action), its options and paths checked first
    (:mod:`ir_pref_measures.commands.judge_checks`)."""
    from ir_pref_measures.commands.judge_checks import check

    check(args)
    action(args)


def _add_docs(parser) -> None:
    parser.add_argument(
        "--qrels", help="graded qrels, a file or an ir_datasets ID: the docs graded above 0 (topk: its candidates)"
    )
    parser.add_argument("--runs", nargs="+", default=[], metavar="RUN", help="runs pooled to --depth")
    parser.add_argument("--depth", type=positive_int, default=10, help="pool depth of --runs (default: 10)")


def _add_judge_options(parser) -> None:
    parser.add_argument("--qrels", help="simulated: the graded qrels it knows")
    parser.add_argument("--noise", type=share, default=0.0, help="simulated: share of flipped answers (0 to 1)")
    parser.add_argument("--tie-rate", type=share, default=0.0, help="simulated: share of ties (0 to 1)")
    parser.add_argument("--position-bias", type=share, default=0.0, help="simulated: share of 'first' (0 to 1)")
    parser.add_argument("--bad-marks", action="store_true", help="simulated: mark docs graded 0 bad")
    parser.add_argument("--judgments", help="replay: the recorded judgments")
    parser.add_argument("--prefs-format", help="replay: the format of --judgments when detection cannot tell")
    parser.add_argument("--fallback", choices=("coin", "qrels"), default="coin", help=FALLBACK_HELP)
    parser.add_argument(
        "--judge-seed", type=non_negative_int, default=0, help="simulated, replay: the judge's seed (default: 0)"
    )
    parser.add_argument("--requests", help="files: where the questions for people are written")
    parser.add_argument("--answers", help="files: the people's judgments")
    parser.add_argument("--assessor", help="files: the assessor's name, stored with each answer")
    parser.add_argument("--cache", help="llm: an answer cache shared by efforts (a SQLite file, or a PostgreSQL URL)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="any judge's option")
    for add, _ in JUDGE_OPTIONS.values():
        if add is not None:
            add(parser)


def _budget(text: str) -> int | float:
    number = float(non_negative(text))
    if number.is_integer() and "." not in text:
        return int(number)
    if not 0 < number <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be a number of questions or a share in (0, 1]")
    return number


def _share_of_pairs(text: str) -> float:
    """A budget of the simulator: a share of each query's pairs in (0, 1]."""
    number = float(non_negative(text))
    if not 0 < number <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be a share of the pairs in (0, 1]")
    return number


def _port(text: str) -> int:
    """A TCP port: 1 to 65535."""
    number = positive_int(text)
    if number > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: ports run from 1 to 65535")
    return number


def _plan(args) -> None:
    from ir_pref_measures.judging import effort
    from ir_pref_measures.judging.database import shown

    planned = effort.plan(
        args.store, args.selector, qrels=args.qrels, runs=args.runs, depth=args.depth, seed=args.seed,
        rule=args.rule, reask=args.reask, batch=args.batch, k=args.k, f=args.f, p=args.p, uniform=args.uniform,
        llm=args.llm,
        pairs=args.pairs,
    )  # fmt: skip
    sys.stdout.write(
        f"{shown(args.store)}: {planned['queries']} queries, {planned['docs']} docs, {planned['pairs']} pairs\n"
    )


def _judge_of(args):
    from ir_pref_measures.judging import effort

    extra = key_values(args.option)
    if getattr(args, "cache", None):
        extra["cache"] = args.cache
    options_of = JUDGE_OPTIONS.get(args.judge, (None, lambda a: {}))[1]
    return effort.make_judge(args.judge, **(options_of(args) | extra))


def _run(args) -> None:
    from ir_pref_measures.judging import effort

    judge = _judge_of(args)
    try:
        report = effort.run(args.store, judge, args.budget, args.verbose)
    except KeyboardInterrupt as stop:  # Ctrl-C: every answer received is stored
        raise Stopped(effort.interrupted(args.store, getattr(stop, "report", None)), status=130) from None
    lines = [f"asked {report.asked}, answered {report.answered}, already stored {report.stored}"]
    lines.append(f"reused {report.reused}; queries done {len(report.done)}, at the budget {len(report.budget)}")
    if report.waiting:
        lines.append(f"waiting for answers: {len(report.waiting)} queries ({', '.join(report.waiting[:5])}...)")
    if hasattr(judge, "usage"):
        lines.append(_usage_line(judge.usage))
    if report.unanswered:
        warnings.warn(
            f"{report.unanswered} prompt(s) got no reply (transport failures, kept as such): run the same command "
            "again to ask them",
            stacklevel=1,
        )
    sys.stdout.write("\n".join(lines) + "\n")


def _usage_line(usage) -> str:
    """What an LLM judge spent in this run: prompts, attempts, retries, failures by kind, tokens and cost."""
    failures = ", ".join(f"{kind} {n}" for kind, n in sorted(usage.failures.items())) or "none"
    return (
        f"usage: {usage.prompts} prompts ({usage.failed} without an answer, {usage.cached} from the cache), "
        f"{usage.attempts} attempts, "
        f"{usage.retries} retries, failed attempts: {failures}; tokens {usage.tokens_in} in, {usage.tokens_out} "
        f"out; cost {usage.cost:.6g}"
    )


def _status(args) -> None:
    from ir_pref_measures.judging import effort

    found = effort.status(args.store)
    sys.stdout.write("".join(f"{key}\t{value}\n" for key, value in found.items()))


def _export(args) -> None:
    from ir_pref_measures.judging import effort
    from ir_pref_measures.judging.texts import Texts, document_texts

    check_outputs({"--output": args.output}, {"store": args.store})
    texts = Texts({}, document_texts(args.documents)) if args.documents else None
    lines = effort.export(
        args.store,
        args.format,
        args.consistent,
        texts,
        args.tie_band,
        exclude_flagged=args.exclude_flagged,
        with_llm=args.with_llm,
    )
    write_text(args.output or "-", "".join(lines))


def _simulate(args) -> None:
    check_outputs({"--output": args.output, "--plot": args.plot}, {"--runs": args.runs, "--qrels": args.qrels})
    from ir_pref_measures.judging.simulated_effort import simulate_effort

    found = simulate_effort(
        args.qrels, args.runs, args.selectors, judge=args.judge, noise=args.noise, judgments=args.judgments,
        prefs_format=args.prefs_format, fallback=args.fallback, depth=args.depth, measure=args.measure,
        truth=args.truth, topk=args.topk, budgets=args.budgets, per_topic=args.per_topic, seeds=args.seeds,
    )  # fmt: skip
    sys.stdout.write(found.text)
    if args.output:
        write_text(args.output, found.table.to_csv(index=False))
    if args.plot:
        found.plot(args.plot)


def _grade(args) -> None:
    from ir_pref_measures.judging import LLMGrader, qrels_lines
    from ir_pref_measures.loading.sources import qrels_table

    table = qrels_table(args.qrels)
    pairs = [(str(q), str(d)) for q, d in zip(table["query_id"], table["doc_id"], strict=True)]
    options = key_values(args.option)
    if args.cache:
        options["cache"] = args.cache
    grader = LLMGrader.from_options(options)
    try:
        labels = grader.grade(pairs)
    except KeyboardInterrupt:
        kept = " (the replies received are kept in the answer cache: run the same command again)" if args.cache else ""
        raise Stopped(f"interrupted: nothing written{kept}", status=130) from None
    write_text(args.output or "-", "".join(qrels_lines(labels)))
    invalid = sum(1 for label in labels if label is not None and not label.valid)
    usage = grader.usage
    sys.stderr.write(
        f"labelled {len(labels) - labels.count(None)} of {len(labels)} pairs ({invalid} answers without a grade, "
        f"written as 0); tokens {usage.tokens_in} in, {usage.tokens_out} out; cost {usage.cost:.4f}\n"
    )


def _add_serve(actions) -> None:
    serve = actions.add_parser(
        "serve",
        help="a web interface for people judging the effort's pairs (pip install 'ir-pref-measures[web]')",
        description="Serve the effort of STORE (made by 'judge plan') to assessors: each gets a secret link, pairs "
        "come live from the effort's selector, the admin page shows progress, agreement and position bias and "
        "exports the judgments. The links are printed at start and stay valid across restarts.",
    )
    serve.add_argument("store", help=f"{STORE_HELP} (made by 'judge plan')")
    serve.add_argument("--assessors", nargs="+", default=[], metavar="NAME", help="the assessors' names")
    serve.add_argument("--queries", required=True, help="query texts: an ir_datasets ID, a TSV or JSONL file")
    serve.add_argument("--docs", required=True, help="document texts: an ir_datasets ID, a TSV or JSONL file")
    serve.add_argument("--overlap", type=share, default=0.1, help="share of pairs judged by two, 0 to 1 (0.1)")
    serve.add_argument(
        "--max-assessors", type=positive_int, default=2, metavar="K",
        help="a pair two assessors disagree on goes to one more, up to K assessors (default: 2, none more)",
    )  # fmt: skip
    gold = serve.add_argument_group("gold pairs (pairs with a known answer, to measure each assessor)")
    gold.add_argument("--gold", metavar="FILE", help="gold pairs: a preference file (carterette, winner, pairs)")
    gold.add_argument("--gold-format", choices=("carterette", "winner", "pairs"), help="--gold's format, if needed")
    gold.add_argument(
        "--gold-qrels", metavar="QRELS", help="gold pairs: the pairs of the pools whose grades differ by --gold-gap"
    )
    gold.add_argument("--gold-gap", type=positive, help="the grade gap of --gold-qrels pairs (default: 2)")
    gold.add_argument(
        "--gold-share", type=share_below_one, help="share of each assessor's pairs that are gold, 0 to <1 (0.1)"
    )
    crowd = serve.add_argument_group("crowd platforms (an open study link: participants join as assessors)")
    crowd.add_argument("--study", action="store_true", help="enable the open study link (printed as 'study')")
    crowd.add_argument(
        "--participant-param", metavar="NAME", help="the link's parameter naming the participant (PROLIFIC_PID)"
    )
    crowd.add_argument("--completion-url", metavar="URL", help="where a participant is sent after their judgments")
    crowd.add_argument("--completion-after", type=positive_int, metavar="N", help="judgments before the completion URL")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="1 to 65535 (default: 8000)")
    serve.set_defaults(handler=partial(run, _serve))


def _study_options(args) -> dict:
    """The desk's open study link from ``--study`` and its options."""
    if not args.study:
        return {}
    options = {"study": True, "completion_url": args.completion_url, "judgments": args.completion_after}
    return options | ({"parameter": args.participant_param} if args.participant_param else {})


def _gold_options(args, selector) -> dict:
    """The desk's ``gold`` and ``gold_share`` from ``--gold``/``--gold-qrels`` and ``--gold-share``."""
    from ir_pref_measures.judging import gold

    pairs = []
    if args.gold:
        pairs += gold.gold_from_file(args.gold, args.gold_format)
    if args.gold_qrels:
        from ir_pref_measures.judging import read_grades

        gap = gold.GAP if args.gold_gap is None else args.gold_gap
        pairs += gold.gold_from_qrels(read_grades(args.gold_qrels), selector.pools, gap)
    if not pairs:
        return {}
    return {"gold": pairs, "gold_share": GOLD_SHARE if args.gold_share is None else args.gold_share}


def _serve(args) -> None:
    import importlib.util

    from ir_pref_measures.judging.effort import open_planned
    from ir_pref_measures.judging.texts import load_texts

    missing = [m for m in ("starlette", "uvicorn", "jinja2", "multipart") if importlib.util.find_spec(m) is None]
    if missing:
        raise InputError(f"judge serve needs the web extra ({', '.join(missing)}): pip install 'ir-pref-measures[web]'")
    from ir_pref_measures.judging import web

    store, settings, selector = open_planned(args.store)
    desk = web.open_desk(
        store, selector, args.assessors, load_texts(args.queries, args.docs),
        seed=int(settings["seed"]), overlap=args.overlap, rule=settings.get("rule", "majority"),
        max_assessors=args.max_assessors, **_gold_options(args, selector), **_study_options(args),
    )  # fmt: skip
    for who, link in web.links(desk, f"http://{args.host}:{args.port}").items():  # on stderr: the server runs on
        sys.stderr.write(f"{who}\t{link}\n")
    if desk.drawn is not None:
        sys.stderr.write(
            f"people are offered the pairs of the {len(desk.drawn)} queries drawn for them (ppi --choose)\n"
        )
    sys.stderr.flush()
    web.serve(desk, args.host, args.port)
