"""Prediction-powered intervals straight from a judging store: the LLM judged every query, people some.

The store of an effort holds every judge's answers (:mod:`~ir_pref_measures.judging.store`): an LLM judge's from
``judge run``, people's from ``judge serve`` (judge ``people``, :data:`~ir_pref_measures.judging.web.desk.JUDGE`).
:func:`judge_frames` combines each judge's answers to each question by the effort's rule into one preference table
per judge; :func:`store_ppi_table` aligns them and gives, per run and per pair of runs, the measure's
prediction-powered interval with its effective sample size (:func:`~ir_pref_measures.agreement.ppi.ppi_table`).

Which queries people judge decides whether the interval is valid. :func:`choose_for_people` draws them from the LLM's
answers (uniformly, or proportional to the LLM's uncertainty, :func:`~ir_pref_measures.agreement.ppi.choose_queries`;
or stratified by the number of pairs the LLM judged, :func:`~ir_pref_measures.agreement.ppi.choose_stratified`) and
keeps the draw in the store's settings (``ppi.sample``: the rule, the chosen queries, every query's probability and
the strata of a stratified draw); :func:`store_ppi_table` then uses the chosen queries (a uniform draw, given its
size, is a simple random sample: PPI++; an uncertainty draw with the inverse-probability weights of the active
estimator; a stratified draw with stratified PPI), and leaves out, with a warning that counts them, people's answers
on other queries. Without a stored draw, the queries people judged are taken as a uniform random sample of those the
LLM judged. The web desk (``judge serve``) offers people only the drawn queries' pairs
(:func:`drawn_queries`)."""

from __future__ import annotations

import json
import os
import warnings
from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.database import check_existing
from ir_pref_measures.judging.rules import DEFAULT_RULE, combine_answers
from ir_pref_measures.judging.simulation import preference_frame
from ir_pref_measures.judging.soft import checked_soft_preferences, soft_values, with_soft_llm
from ir_pref_measures.judging.store import Store

if TYPE_CHECKING:  # pandas and the judges' layer are imported where used: importing the judging package stays light
    import pandas as pd

PEOPLE = "people"  # the judge name of the web desk's answers
SAMPLE = "ppi.sample"  # the setting that keeps the draw of the people's queries


def judge_frames(store: Store) -> dict[str, pd.DataFrame]:
    """Per judge of the store, its verdicts (each question's answers of that judge combined by the effort's rule)
    as a preference table (:func:`~ir_pref_measures.judging.simulation.preference_frame`)."""
    rule = store.settings().get("rule", DEFAULT_RULE)
    answers: dict[str, dict[int, list]] = defaultdict(lambda: defaultdict(list))
    for row in store.answers():
        answers[row.answer.judge][row.request_id].append(row.answer)
    requests = store.requests()
    return {
        judge: preference_frame(
            [combine_answers(r.pair, given[r.id], rule, r.round) for r in requests if r.id in given]
        )
        for judge, given in sorted(answers.items())
    }


def _llm_judge(frames: dict[str, pd.DataFrame], people: str, llm: str | None, path: str) -> str:
    """The LLM's judge name: ``llm``, or the store's one judge besides ``people``."""
    if llm is None:
        others = [name for name in frames if name != people]
        if len(others) != 1:
            found = ", ".join(others) or "none"
            raise InputError(f"name the LLM judge of the store (judges besides {people!r}: {found})", path=path)
        llm = others[0]
    if llm not in frames:
        raise InputError(f"the store holds no answer of the LLM judge {llm!r}", path=path)
    return llm


def drawn_queries(settings: Mapping[str, str]) -> frozenset[str] | None:
    """The queries drawn for people in a store's ``settings`` (kept by :func:`choose_for_people`), or ``None``
    when none were drawn: the web desk offers people only these queries' pairs."""
    kept = settings.get(SAMPLE)
    return None if kept is None else frozenset(json.loads(kept)["queries"])


def choose_for_people(
    path: str | os.PathLike,
    runs,
    measure: str,
    size: float,
    *,
    rule: str = "uniform",
    seed: int = 0,
    llm: str | None = None,
    topk: int | None = None,
) -> tuple[pd.Index, pd.Series]:
    """Draw the queries people are to judge from the LLM's answers in the store at ``path``
    (:func:`~ir_pref_measures.agreement.ppi.choose_queries`: ``size`` expected, by ``rule``, with ``seed``;
    ``rule="stratified"``: exactly ``size``, :func:`~ir_pref_measures.agreement.ppi.choose_stratified` over the
    numbers of pairs the LLM judged) and keep the draw in the store (``ppi.sample``; a store keeps its first draw:
    another is refused). Returns the chosen queries and every query's probability of being drawn."""
    from ir_pref_measures.agreement.panel import align
    from ir_pref_measures.agreement.ppi import choose_queries, choose_stratified, llm_pair_counts, llm_values

    check_existing(path)
    with Store(path) as store:
        frames = judge_frames(store)
        llm = _llm_judge(frames, PEOPLE, llm, store.path)
        aligned = align({llm: frames[llm]})
        values = llm_values(aligned, runs, measure, llm=llm, topk=topk)
        draw: dict = {"rule": rule}
        if rule == "stratified":
            chosen, strata = choose_stratified(llm_pair_counts(aligned, llm, values.index), size, seed=seed)
            counts = strata.map(strata.value_counts())
            drawn = strata.loc[chosen].value_counts()
            probabilities = (strata.map(drawn).fillna(0) / counts).rename("probability")
            draw["strata"] = {str(q): int(k) for q, k in strata.items()}
        else:
            chosen, probabilities = choose_queries(values, size, rule=rule, seed=seed)
        draw |= {"queries": list(chosen), "probabilities": probabilities.to_dict()}
        store.settle({SAMPLE: json.dumps(draw, sort_keys=True)})
    return chosen, probabilities


def store_ppi_table(
    path: str | os.PathLike,
    runs,
    measure: str,
    *,
    people: str = PEOPLE,
    llm: str | None = None,
    lam: float | None = None,
    confidence: float = 0.95,
    pairs: bool = False,
    topk: int | None = None,
    soft: int | None = None,
) -> pd.DataFrame:
    """The prediction-powered table (:func:`~ir_pref_measures.agreement.ppi.ppi_table`: per run and with ``pairs``
    per pair of runs, the interval and its effective sample size) from the answers in the store at ``path``:
    ``people``'s (default the web desk's) and ``llm``'s (default the store's one other judge). A draw kept by
    :func:`choose_for_people` gives the people's queries and their probabilities (module docstring). ``soft``: the
    LLM's prediction is its soft preferences' expected measure, from ``soft`` draws seeded by the effort's seed
    (:mod:`~ir_pref_measures.judging.soft`), instead of the measure under its verdicts."""
    import pandas as pd

    from ir_pref_measures.agreement.panel import align
    from ir_pref_measures.agreement.ppi import ppi_table, ppi_values

    check_existing(path)
    with Store(path) as store:
        frames = judge_frames(store)
        llm = _llm_judge(frames, people, llm, store.path)
        if people not in frames:
            raise InputError(f"the store holds no answer of the people's judge {people!r} yet", path=store.path)
        draw = store.settings().get(SAMPLE)
        preferences = {} if soft is None else checked_soft_preferences(store, llm)
        seed = int(store.settings().get("seed", 0))
    aligned = align({people: frames[people], llm: frames[llm]})
    predicted = None
    if soft is not None:
        predicted = soft_values(aligned, preferences, runs, measure, llm=llm, draws=soft, seed=seed, topk=topk)
    judged = sorted(set(frames[people]["query_id"].astype(str)))
    if draw is None:
        values = with_soft_llm(ppi_values(aligned, runs, measure, people=people, llm=llm, topk=topk), predicted)
        return ppi_table(values, lam=lam, confidence=confidence, pairs=pairs)
    kept = json.loads(draw)
    chosen = [q for q in kept["queries"] if q in judged]
    outside = sorted(set(judged) - set(kept["queries"]))
    if outside:
        warnings.warn(
            f"people's answers on {len(outside)} queries outside the drawn sample are left out of the interval "
            f"(its validity rests on the draw): {', '.join(outside[:5])}{' ...' if len(outside) > 5 else ''}",
            stacklevel=2,
        )
    unjudged = len(kept["queries"]) - len(chosen)
    if unjudged:
        raise InputError(
            f"people have not judged {unjudged} of the {len(kept['queries'])} drawn queries yet",
            expected="people's answers on every drawn query (a drawn query left out would bias the interval)",
        )
    values = ppi_values(aligned, runs, measure, people=people, llm=llm, sample=chosen, topk=topk)
    values = with_soft_llm(values, predicted)
    if kept["rule"] == "uniform":  # given its size, a uniform draw is a simple random sample: PPI++ applies
        return ppi_table(values, lam=lam, confidence=confidence, pairs=pairs)
    if kept["rule"] == "stratified":  # a stratified random sample: stratified PPI
        strata = pd.Series(kept["strata"], dtype=int)
        return ppi_table(values, lam=lam, confidence=confidence, pairs=pairs, strata=strata)
    probabilities = pd.Series(kept["probabilities"], dtype=float)
    return ppi_table(values, lam=lam, confidence=confidence, pairs=pairs, probabilities=probabilities)
