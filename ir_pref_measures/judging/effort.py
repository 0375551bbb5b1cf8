"""A judging effort in one file: :func:`plan` writes the selector's settings into a new store, :func:`run` judges
to a budget (and resumes), :func:`status` counts, :func:`export` writes the judgments. ``ir-pref-measures judge``
is this on the command line.

The settings kept in the store (table ``effort``): ``selector`` (one of :data:`SELECTORS`), ``seed``, ``rule``
(the combination rule), ``reask``, the docs to judge (``qrels``: graded candidates, a file by its absolute path
or an ir_datasets ID as ``irds:ID``; ``runs`` pooled to ``depth``; or, for the ``list`` selector, ``pairs``: the
list of questions, a file by its absolute path) and the selector's parameters (``k``,
``f``, ``p`` of ``topk``; ``batch``; ``uniform``, the share of uniform questions of ``rating``). An effort
keeps them: a later call with other settings is refused, so every run of one effort asks the same questions. An
effort of ``rating`` stored without ``uniform`` (made before the share existed) keeps the rule it was made with:
every question targeted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

from ir_pref_measures.agreement.position import instances, position_consistency, preference_fairness
from ir_pref_measures.choices import LISTED, PLAN_SELECTORS, SELECTORS
from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import database, runner
from ir_pref_measures.judging.exports import export_lines, verdict_lines
from ir_pref_measures.judging.gold import flagged_assessors
from ir_pref_measures.judging.judges import JUDGES
from ir_pref_measures.judging.protocol import Answer, Judge
from ir_pref_measures.judging.rules import DEFAULT_RULE, RULES
from ir_pref_measures.judging.selectors import (
    UNIFORM,
    AllPairs,
    BinaryInsertion,
    ListedPairs,
    RatingDriven,
    Selector,
    TopK,
    all_pairs_cost,
    depth_pools,
    graded_pools,
    random_pairs,
    read_pairs,
)
from ir_pref_measures.judging.store import Store
from ir_pref_measures.judging.texts import Texts
from ir_pref_measures.loading.sources import read_grades

NOT_JUDGED = ("text", "request")  # failures of a prompt that never reached the judge

RATED = ("rating", "topk+rating")  # the selectors with a share of uniform questions


def plan(
    path: str | os.PathLike,
    selector: str = "topk",
    *,
    qrels: str | None = None,
    runs: Sequence[str] = (),
    depth: int = 10,
    seed: int = 0,
    rule: str = DEFAULT_RULE,
    reask: bool = False,
    batch: int | None = None,
    k: int = 5,
    f: int = 9,
    p: int = 7,
    uniform: float = UNIFORM,
    llm: str | os.PathLike | None = None,
    pairs: str | os.PathLike | None = None,
) -> dict[str, int]:
    """Create (or reopen with the same settings) the effort at ``path``; returns the queries, docs and all-pairs
    cost of its pools. The ``adjudication`` selector takes an LLM effort, ``llm`` (its store, or its ``shown``
    export), in place of qrels or runs: its pairs are the LLM's unsure ones
    (:mod:`~ir_pref_measures.judging.adjudication`). The ``list`` selector asks the questions of the file ``pairs``
    (no qrels, no runs)."""
    if selector not in PLAN_SELECTORS:
        raise InputError(f"unknown selector {selector!r}", expected=f"one of {', '.join(PLAN_SELECTORS)}")
    if rule not in RULES:
        raise InputError(f"unknown combination rule {rule!r}", expected=f"one of {', '.join(RULES)}")
    if (selector == "adjudication") != (llm is not None):
        raise InputError("the adjudication selector, and it alone, takes the store of an LLM effort (--llm)")
    if (selector == LISTED) != (pairs is not None):
        raise InputError("the list selector, and only it, asks the questions of a list of pairs: give both or neither")
    if llm is not None:
        if qrels is not None or runs:
            raise InputError("the adjudication selector judges the LLM effort's unsure pairs: no qrels or runs")
        return _plan_adjudication(path, llm, seed, rule)
    if pairs is not None:  # the list selector
        if qrels is not None or runs:
            raise InputError("the list selector asks the listed questions: give no qrels and no runs")
        read_pairs(pairs)  # a bad list is refused before the store is made
        settings = {"selector": selector, "seed": seed, "rule": rule, "reask": reask, "pairs": os.path.abspath(pairs)}
        return _settle(path, settings)
    if (qrels is None) == (not runs):
        raise InputError("name the docs to judge: graded qrels (candidates) or runs (pooled to a depth), not both")
    if selector.startswith("topk") and qrels is None:
        raise InputError(f"the {selector} selector starts from graded qrels: give qrels")
    settings = {"selector": selector, "seed": seed, "rule": rule, "reask": reask, "batch": batch}
    settings |= {"qrels": stored_source(qrels)} if qrels else {"runs": json.dumps([os.path.abspath(r) for r in runs])}
    settings |= {"depth": depth} if runs else {}
    settings |= {"k": k, "f": f, "p": p} if selector.startswith("topk") else {}
    if selector in RATED:
        settings["uniform"] = uniform
    return _settle(path, settings)


def _settle(path: str | os.PathLike, settings: dict) -> dict[str, int]:
    """Store ``settings`` in the effort at ``path`` (refused when it has others); its queries, docs and pairs
    (all-pairs cost; the listed questions of ``list``)."""
    with Store(path) as store:
        made = store.settings()
        if "selector" in made and "uniform" not in made:  # an older effort of rating keeps its rule
            settings.pop("uniform", None)
        chosen = selector_of(store.settled(settings))  # a bad source is refused before anything is stored
        store.settle(settings)
    costs = all_pairs_cost(chosen.pools)
    asked = len(chosen.pairs) if isinstance(chosen, ListedPairs) else sum(costs.values())
    return {"queries": len(costs), "docs": sum(len(d) for d in chosen.pools.values()), "pairs": asked}


def _plan_adjudication(path: str | os.PathLike, llm: str | os.PathLike, seed: int, rule: str) -> dict[str, int]:
    if database.probe(llm) != "foreign":  # not a text file (a shown export): a store
        database.check_existing(llm)
    from ir_pref_measures.judging.adjudication import adjudication_selector

    settings: dict[str, object] = {"selector": "adjudication", "seed": seed, "rule": rule, "reask": False}
    settings |= {"batch": None, "llm": llm if database.is_url(llm) else os.path.abspath(llm)}
    with Store(path) as store:
        chosen = adjudication_selector(store.settled(settings)["llm"])  # an unreadable store refused before
        store.settle(settings)
    costs = {q: len(pairs) for q, pairs in chosen.unsure.items()}
    return {"queries": len(costs), "docs": sum(len(d) for d in chosen.pools.values()), "pairs": sum(costs.values())}


def stored_source(qrels: str) -> str:
    """How an effort keeps its graded qrels, so that a run from another folder finds them: a file by its absolute
    path (``FORMAT:`` kept), an ir_datasets ID as ``irds:ID``."""
    from ir_pref_measures.loading.sources import resolve

    location = resolve(qrels)
    if location.dataset is not None:
        return f"irds:{location.dataset}"
    path = os.path.abspath(location.file)
    return f"{location.format}:{path}" if location.format else path


def selector_of(settings: dict[str, str]) -> Selector:
    """The selector an effort's stored ``settings`` describe."""
    if settings["selector"] == "adjudication":
        from ir_pref_measures.judging.adjudication import adjudication_selector

        return adjudication_selector(settings["llm"])
    if settings["selector"] == LISTED:
        return ListedPairs(read_pairs(settings["pairs"]))
    batch = None if settings.get("batch", "None") == "None" else int(settings["batch"])
    grades = read_grades(settings["qrels"]) if "qrels" in settings else None
    pools = graded_pools(grades) if grades is not None else depth_pools(_runs(settings), int(settings["depth"]))
    topk = {key: int(settings[key]) for key in ("k", "f", "p") if key in settings}
    uniform = float(settings.get("uniform", 0.0))  # stored without: made with every question targeted
    return build_selector(settings["selector"], int(settings["seed"]), pools, grades, batch, **topk, uniform=uniform)


def build_selector(
    name: str,
    seed: int,
    pools,
    grades=None,
    batch: int | None = None,
    k: int = 5,
    f: int = 9,
    p: int = 7,
    runs=None,
    depth: int = 10,
    uniform: float = UNIFORM,
) -> Selector:
    """The selector ``name`` (:data:`SELECTORS`) over ``pools``; ``topk`` takes its candidates from ``grades``;
    ``rating`` with ``runs`` asks where the runs disagree within ``depth``, a share ``uniform`` of its questions
    uniform; ``topk+rating`` is ``topk`` with that ``rating`` over ``pools`` beyond its process."""
    if name not in SELECTORS:
        raise InputError(f"unknown selector {name!r}", expected=f"one of {', '.join(SELECTORS)}")
    if name.startswith("topk"):
        rest = RatingDriven(pools, seed, batch, runs=runs, depth=depth, uniform=uniform) if name != "topk" else None
        return TopK(grades, seed, k, f, p, rest=rest)
    if name == "all":
        return AllPairs(pools, seed, batch)
    if name == "random":
        return random_pairs(pools, seed, batch or 1)
    if name == "insertion":
        return BinaryInsertion(pools, seed)
    return RatingDriven(pools, seed, batch, runs=runs, depth=depth, uniform=uniform)


def _runs(settings: dict[str, str]) -> dict[str, str]:
    return {path: path for path in json.loads(settings["runs"])}


def make_judge(name: str, **options) -> Judge:
    """The judge ``name`` of the registry (:data:`~ir_pref_measures.judging.judges.JUDGES`) with ``options``."""
    if name not in JUDGES:
        raise InputError(f"unknown judge {name!r}", expected=f"one of {', '.join(sorted(JUDGES))}")
    return JUDGES[name](**options)


def _settings(store: Store) -> dict[str, str]:
    settings = store.settings()
    if "selector" not in settings:
        raise InputError("the store has no plan: make one first (ir-pref-measures judge plan)", path=store.path)
    return settings


def stored_settings(path: str | os.PathLike) -> dict[str, str]:
    """The settings the effort at ``path`` stores (its plan's, once planned)."""
    with Store(path) as store:
        return store.settings()


def open_planned(path: str | os.PathLike) -> tuple[Store, dict[str, str], Selector]:
    """The store of the effort at ``path`` (open: the caller closes it), its plan's settings and the selector they
    describe; an error if the store has no plan."""
    store = Store(path)
    settings = _settings(store)
    return store, settings, selector_of(settings)


def interrupted(path: str, report: runner.RunReport | None = None) -> str:
    """The line of a run stopped by Ctrl-C: what the store keeps (with what the run's ``report`` received), and
    how to resume."""
    this_run = f" ({report.received} received by this run)" if report is not None else ""
    try:
        if not database.exists(path):
            return "interrupted before anything was stored"
        with Store(path) as opened:
            counts = opened.counts()
    except (InputError, OSError):
        return f"interrupted{this_run}: every answer received is stored; run the same command again to resume"
    answered = counts["requests"] - counts["unanswered"]
    return (
        f"interrupted: {database.shown(path)} keeps {counts['answers']} answers to {answered} of {counts['requests']} "
        f"questions{this_run}; run the same command again to resume"
    )


def run(
    path: str | os.PathLike, judge: Judge, budget: int | float | None = None, verbose: bool = False
) -> runner.RunReport:
    """Judge the effort at ``path`` with ``judge`` to ``budget`` (:func:`ir_pref_measures.judging.runner.run`)."""
    database.check_existing(path)
    with Store(path) as store:
        settings = _settings(store)
        return runner.run(
            store,
            selector_of(settings),
            judge,
            budget=budget,
            rule=settings["rule"],
            reask=settings["reask"] == "True",
            verbose=verbose,
        )


def status(path: str | os.PathLike) -> dict[str, object]:
    """The effort's settings and counts: requests, answers, unanswered requests, answers by kind, and unusable
    answers by kind of failure (``unusable transport``: prompts without a reply and no answer since, asked again by
    the next run; ``unusable judged``: given as unusable by the judge, a person's ``?``); where pairs were asked in
    both orders, each judge's ``position consistency`` and ``preference fairness`` (:func:`_position_bias`); for
    an effort judged by an LLM, its ``usage`` as stored (:meth:`Store.usage`: prompts, attempts, retries, tokens
    in and out, cost, answers cached)."""
    database.check_existing(path)  # a reader creates nothing
    with Store(path) as store:
        found: dict[str, object] = {**dict(store.settings()), **store.counts()}
        kinds: dict[str, int] = {}
        answers = store.answers()
        for row in answers:
            kinds[row.answer.answer] = kinds.get(row.answer.answer, 0) + 1
        failures = {f"unusable {kind or 'judged'}": n for kind, n in sorted(store.failures().items())}
        bias = _position_bias([row.answer for row in answers])
        usage = store.usage()
        paid = {f"usage {name}": value for name, value in usage.items()} if usage["attempts"] or usage["cached"] else {}
        return found | {f"answers {kind}": n for kind, n in sorted(kinds.items())} | failures | bias | paid


def _position_bias(answers: list[Answer]) -> dict[str, float]:
    """Each judge's position consistency and preference fairness (:mod:`ir_pref_measures.agreement.position`,
    four decimals) over its answers to pairs asked in both orders; an answer whose prompt never reached the judge
    (a text missing, the request refused) is none of its answers. Keys name the judge when the store has several."""
    shown: dict[str, list[tuple[str, str, str, str]]] = {}
    for a in answers:
        if a.failure not in NOT_JUDGED:
            shown.setdefault(a.judge, []).append((a.pair.query_id, a.pair.first, a.pair.second, a.answer))
    bias = {}
    for judge, rows in sorted(shown.items()):
        if instances(rows):
            suffix = f" ({judge})" if len(shown) > 1 else ""
            bias[f"position consistency{suffix}"] = round(position_consistency(rows), 4)
            bias[f"preference fairness{suffix}"] = round(preference_fairness(rows), 4)
    return bias


def export(
    path: str | os.PathLike,
    format: str,
    consistent: bool = False,
    texts: Texts | None = None,
    band: float | None = None,
    *,
    exclude_flagged: bool = False,
    with_llm: bool = False,
) -> list[str]:
    """The effort's judgments in ``format`` (:mod:`ir_pref_measures.judging.exports`), by its rule; with
    ``consistent``, those that agree with an order fitted to them; an effort of the ``list`` selector in the order
    of its list; a ``log`` with the documents' ``texts`` writes ties and unusable questions as ``judge.py`` does;
    with a tie ``band``, questions with p(first) in both orders have the verdict of their soft preference; with
    ``exclude_flagged``, without the answers of the assessors flagged on gold pairs
    (:func:`ir_pref_measures.judging.gold.flagged_assessors`); with ``with_llm`` (an ``adjudication`` effort), the
    LLM effort's verdicts with the pairs people judged replaced by theirs
    (:func:`ir_pref_measures.judging.adjudication.adjudicated_verdicts`)."""
    database.check_existing(path)  # a reader creates nothing
    with Store(path) as store:
        excluded = flagged_assessors(store.database) if exclude_flagged else frozenset()
        settings = store.settings()
        rule = settings.get("rule", DEFAULT_RULE)
        if not with_llm:
            listed = selector_of(settings) if settings.get("selector") == LISTED else None
            order = listed.position if isinstance(listed, ListedPairs) else None
            return export_lines(store, format, rule, consistent, excluded, order=order, texts=texts, band=band)
        if settings.get("selector") != "adjudication":
            raise InputError("--with-llm exports an adjudication effort (judge plan --selector adjudication --llm)")
        from ir_pref_measures.judging.adjudication import adjudicated_verdicts

        if not database.exists(settings["llm"]):
            raise InputError("the LLM effort of this adjudication effort is gone", path=settings["llm"])
        return verdict_lines(adjudicated_verdicts(settings["llm"], store, rule, excluded), format, consistent)
