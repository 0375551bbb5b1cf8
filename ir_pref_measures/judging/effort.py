"""A judging effort in one file: :func:`plan` writes the selector's settings into a new store, :func:`run` judges
to a budget (and resumes), :func:`status` counts, :func:`export` writes the judgments. ``ir-pref-measures judge``
is this on the command line.

The settings kept in the store (table ``effort``): ``selector`` (one of :data:`SELECTORS`), ``seed``, ``rule``
(the combination rule), ``reask``, the docs to judge (``qrels``: graded candidates, a file by its absolute path
or an ir_datasets ID as ``irds:ID``; or ``runs`` pooled to ``depth``) and the selector's parameters (``k``,
``f``, ``p`` of ``topk``; ``batch``; ``uniform``, the share of uniform questions of ``rating``). An effort
keeps them: a later call with other settings is refused, so every run of one effort asks the same questions. An
effort of ``rating`` stored without ``uniform`` (made before the share existed) keeps the rule it was made with:
every question targeted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

from ir_pref_measures.choices import SELECTORS
from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import database, runner
from ir_pref_measures.judging.combine import DEFAULT_RULE, RULES
from ir_pref_measures.judging.export import export_lines
from ir_pref_measures.judging.judges import JUDGES
from ir_pref_measures.judging.protocol import Judge
from ir_pref_measures.judging.selectors import (
    UNIFORM,
    AllPairs,
    BinaryInsertion,
    RatingDriven,
    Selector,
    TopK,
    all_pairs_cost,
    depth_pools,
    graded_pools,
    random_pairs,
    read_grades,
)
from ir_pref_measures.judging.store import Store

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
) -> dict[str, int]:
    """Create (or reopen with the same settings) the effort at ``path``; returns the queries, docs and all-pairs
    cost of its pools."""
    if selector not in SELECTORS:
        raise InputError(f"unknown selector {selector!r}", expected=f"one of {', '.join(SELECTORS)}")
    if rule not in RULES:
        raise InputError(f"unknown combination rule {rule!r}", expected=f"one of {', '.join(RULES)}")
    if (qrels is None) == (not runs):
        raise InputError("name the docs to judge: graded qrels (candidates) or runs (pooled to a depth), not both")
    if selector.startswith("topk") and qrels is None:
        raise InputError(f"the {selector} selector starts from graded qrels: give qrels")
    settings = {"selector": selector, "seed": seed, "rule": rule, "reask": reask, "batch": batch}
    settings |= {"qrels": stored_source(qrels)} if qrels else {"runs": json.dumps([os.path.abspath(r) for r in runs])}
    settings |= {"depth": depth} if runs else {}
    settings |= {"k": k, "f": f, "p": p} if selector.startswith("topk") else {}
    with Store(path) as store:
        made = store.settings()
        if selector in RATED and not ("selector" in made and "uniform" not in made):  # an older effort keeps its rule
            settings["uniform"] = uniform
        chosen = selector_of(store.settled(settings))  # a bad source is refused before anything is stored
        store.settle(settings)
    costs = all_pairs_cost(chosen.pools)
    return {"queries": len(costs), "docs": sum(len(d) for d in chosen.pools.values()), "pairs": sum(costs.values())}


def stored_source(qrels: str) -> str:
    """How an effort keeps its graded qrels, so that a run from another folder finds them: a file by its absolute
    path (``FORMAT:`` kept), an ir_datasets ID as ``irds:ID``."""
    from ir_pref_measures.loading.sources import resolve

    location = resolve(qrels)
    if location.dataset is not None:
        return f"irds:{location.dataset}"
    path = os.path.abspath(location.path)
    return f"{location.format}:{path}" if location.format else path


def selector_of(settings: dict[str, str]) -> Selector:
    """The selector an effort's stored ``settings`` describe."""
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
    the next run; ``unusable judged``: given as unusable by the judge, a person's ``?``); for an effort judged by
    an LLM, its ``usage`` as stored (:meth:`Store.usage`: prompts, attempts, retries, tokens in and out, cost,
    answers cached)."""
    database.check_existing(path)  # a reader creates nothing
    with Store(path) as store:
        found: dict[str, object] = dict(store.settings()) | store.counts()
        kinds: dict[str, int] = {}
        for row in store.answers():
            kinds[row.answer.answer] = kinds.get(row.answer.answer, 0) + 1
        failures = {f"unusable {kind or 'judged'}": n for kind, n in sorted(store.failures().items())}
        usage = store.usage()
        paid = {f"usage {name}": value for name, value in usage.items()} if usage["attempts"] or usage["cached"] else {}
        return found | {f"answers {kind}": n for kind, n in sorted(kinds.items())} | failures | paid


def export(path: str | os.PathLike, format: str, consistent: bool = False) -> list[str]:
    """The effort's judgments in ``format`` (:mod:`ir_pref_measures.judging.export`), by its rule; with
    ``consistent``, those that agree with an order fitted to them."""
    database.check_existing(path)  # a reader creates nothing
    with Store(path) as store:
        return export_lines(store, format, store.settings().get("rule", DEFAULT_RULE), consistent)
