"""An LLM's soft preferences as its prediction in prediction-powered inference.

Prediction-powered inference (:mod:`ir_pref_measures.stats.ppi`) takes, per query, the measure under people's
judgments (``Y``, on the queries people judged) and a *prediction* of it from the LLM (``Yhat``, on every query).
The interval is valid for any prediction that is a fixed function of the LLM's output (it may be biased: the
rectifier removes the bias); a better prediction, one that follows people's values more closely, only narrows it.

The hard prediction is the measure under the LLM's verdicts (each question's answers combined by the effort's rule).
The **soft prediction** takes the LLM's confidence instead: each pair asked both ways with p(first) in both orders
has ``P(a > b) = (p_ab + 1 - p_ba) / 2`` (:mod:`ir_pref_measures.judging.judges.confidence`), read as a random
verdict, ``a`` preferred with probability ``P`` and ``b`` with ``1 - P`` (never a tie), independently for each pair;
a pair without p(first) in both orders keeps its verdict. The soft prediction of a run on a query is the **expected
value of the measure** under these random verdicts, well defined for every measure of preference judgments.

Computed as the mean over ``draws`` draws of the verdicts (each query's draws from ``numpy.random.default_rng``
seeded by ``seed`` and the query id, so a query's values depend on nothing else): an unbiased estimate of that
expectation, and a fixed function of the LLM's answers, so the interval stays valid whatever ``draws`` is; more
draws follow the expectation more closely (the draws' error adds to the LLM's, which the rectifier corrects). For a
measure that is a mean over judged pairs of the run's agreement with the verdict, the expectation is the mean over
those pairs of the probability that the judge agrees with the run (``P`` or ``1 - P``); the draws estimate it.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.judges.confidence import orders_p_first, soft_preference
from ir_pref_measures.judging.selectors.base import stable_hash
from ir_pref_measures.judging.store import Store

if TYPE_CHECKING:  # the agreement layer and pandas are imported where used: importing the judging package stays light
    import pandas as pd

    from ir_pref_measures.agreement.panel import Aligned
    from ir_pref_measures.agreement.ppi import PPIValues

DRAWS = 100  # default number of draws of the verdicts


def soft_preferences(store: Store, judge: str) -> dict[tuple[str, str, str], float]:
    """``{(query_id, a, b): P(a > b)}`` of every question of ``judge`` in ``store`` with p(first) in both orders
    (``a b`` as the question was requested)."""
    answers = defaultdict(list)
    for row in store.answers():
        if row.answer.judge == judge:
            answers[row.request_id].append(row.answer)
    found = {}
    for request in store.requests():
        orders = orders_p_first(request.pair, answers.get(request.id, []))
        if orders is not None:
            pair = request.pair
            found[(pair.query_id, pair.first, pair.second)] = soft_preference(*orders)
    return found


def checked_soft_preferences(store: Store, judge: str) -> dict[tuple[str, str, str], float]:
    """:func:`soft_preferences`, an :class:`~ir_pref_measures.errors.InputError` when there is none."""
    found = soft_preferences(store, judge)
    if not found:
        raise InputError(
            f"the LLM judge {judge!r} has no question with p(first) in both orders: no soft preference",
            expected="an effort judged with log-probabilities (the LLM judge's option logprobs=K)",
            path=store.path,
        )
    return found


def _row_probabilities(aligned: Aligned, preferences: dict[tuple[str, str, str], float]) -> np.ndarray:
    """Per aligned pair, the probability that its ``doc_a`` is preferred (NaN without a soft preference)."""
    queries = aligned.query_ids[aligned.query].astype(str)
    a, b = aligned.docs[aligned.doc_a].astype(str), aligned.docs[aligned.doc_b].astype(str)
    p = np.full(len(queries), np.nan)
    for row, key in enumerate(zip(queries, a, b, strict=True)):
        if key in preferences:
            p[row] = preferences[key]
        elif (key[0], key[2], key[1]) in preferences:
            p[row] = 1.0 - preferences[(key[0], key[2], key[1])]
    return p


def _uniforms(aligned: Aligned, soft: np.ndarray, draws: int, seed: int) -> np.ndarray:
    """``(draws, pairs)`` uniforms for the pairs with a ``soft`` preference (NaN for the others), each query's from
    its own generator (``seed`` and the query id), its pairs in the order of their doc ids: a query's draws depend
    on its own soft preferences only."""
    queries = aligned.query_ids[aligned.query].astype(str)
    a, b = aligned.docs[aligned.doc_a].astype(str), aligned.docs[aligned.doc_b].astype(str)
    u = np.full((draws, len(queries)), np.nan)
    for query in np.unique(queries[soft]):
        rows = np.flatnonzero((queries == query) & soft)
        rows = rows[np.lexsort((b[rows], a[rows]))]
        u[:, rows] = np.random.default_rng([int(seed), stable_hash(str(query))]).random((draws, len(rows)))
    return u


def soft_values(
    aligned: Aligned,
    preferences: dict[tuple[str, str, str], float],
    runs,
    measure: str,
    *,
    llm: str,
    draws: int = DRAWS,
    seed: int = 0,
    topk: int | None = None,
) -> pd.DataFrame:
    """The soft prediction (module docstring) of ``measure`` per query (rows: every query ``llm`` judged) and run:
    the mean over ``draws`` draws of the verdicts, ``llm``'s aligned labels replaced by draws from ``preferences``
    (:func:`soft_preferences`) where it has one. ``runs``, ``topk`` as
    :func:`~ir_pref_measures.agreement.ppi.llm_values` takes them."""
    from ir_pref_measures.agreement.panel import runs_at_depth
    from ir_pref_measures.agreement.ppi import llm_values
    from ir_pref_measures.model.coverage import DepthWarning

    if draws < 1:
        raise InputError(f"the number of draws of the soft preferences must be positive, not {draws}")
    column = aligned.judges.index(llm)
    p = _row_probabilities(aligned, preferences)
    soft = ~np.isnan(p)
    u = _uniforms(aligned, soft, draws, seed)
    rankings = runs_at_depth(runs, topk)
    found = []
    for draw in range(draws):
        labels = aligned.labels.copy()
        labels[soft, column] = np.where(u[draw, soft] < p[soft], 1, -1)
        with warnings.catch_warnings():  # runs_at_depth warned once
            warnings.simplefilter("ignore", DepthWarning)
            found.append(llm_values(dataclasses.replace(aligned, labels=labels), rankings, measure, llm=llm))
    return sum(found[1:], found[0]) / draws


def with_soft_llm(values: PPIValues, soft: pd.DataFrame | None) -> PPIValues:
    """``values`` with the LLM's values replaced by the soft prediction ``soft`` (:func:`soft_values`; ``None``:
    ``values`` as they are)."""
    if soft is None:
        return values
    return dataclasses.replace(values, llm=soft.reindex(index=values.llm.index, columns=values.llm.columns))
