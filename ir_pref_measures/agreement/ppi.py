"""Prediction-powered evaluation of runs: people's judgments of some queries and an LLM's of all of them.

The unit is the query. People judged a random sample of the queries, an LLM judged every query (the people's
included): :func:`ppi_values` takes the judges :func:`~ir_pref_measures.agreement.panel.align` aligned, evaluates each
run under each judge's labels (one label per pair: the aligned majority) and returns the per-query values that
prediction-powered inference needs: the measure under people's judgments on the sampled queries (``Y``), under the
LLM's on the same queries (``Yhat``) and under the LLM's on the queries people did not judge (``Yhat_unlabelled``).
A query on which a judge's labels give the measure no value (only ties, say) scores 0 for that judge, the value of
a judged query a run does not answer.

:func:`ppi_table` estimates, per run and (with ``pairs=True``) per difference of two runs, the mean of the measure
under people's judgments over all the queries, with PPI++ intervals (:func:`~ir_pref_measures.stats.ppi.ppi_mean`)
next to the people-only interval. The intervals are valid whatever the LLM's bias when the people's queries are a
uniform random sample of the queries. :func:`subsample_experiment` checks this on a collection that people judged
completely: it draws people's samples repeatedly and reports how often the intervals cover the all-people value.

Choosing what people judge: :func:`choose_queries` draws the people's queries with probabilities proportional to the
LLM's uncertainty on each (:func:`llm_uncertainty`), and :func:`ppi_table` given those probabilities estimates with
inverse-probability weights (:func:`~ir_pref_measures.stats.ppi_active.active_ppi_mean`), valid for that design.
The stratified rule instead cuts the queries into strata by the number of pairs the LLM judged on each
(:func:`llm_pair_counts`, :func:`~ir_pref_measures.stats.ppi_variants.score_strata`), gives people a fixed number
in each stratum, proportional to its size, drawn uniformly within it, and estimates with stratified PPI
(:func:`~ir_pref_measures.stats.ppi_variants.stratified_ppi_mean`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from ir_pref_measures.agreement.panel import MISSING, Aligned, runs_at_depth
from ir_pref_measures.agreement.sources import Votes, judgments_of
from ir_pref_measures.errors import InputError
from ir_pref_measures.stats.ppi import CONFIDENCE, classical_mean, ppi_mean
from ir_pref_measures.stats.ppi_active import UNIFORM_SHARE, active_ppi_mean, inclusion_probabilities
from ir_pref_measures.stats.ppi_variants import proportional_allocation, score_strata, stratified_ppi_mean

MIN_PEOPLE = 10  # the intervals are normal approximations: fewer people-judged queries give no reliable interval
RULES = ("uniform", "uncertainty")  # how the people's queries are drawn
STUDIED_RULES = (*RULES, "stratified")  # the rules subsample_experiment compares
STRATA = 2  # strata of the stratified rule


@dataclass(frozen=True)
class PPIValues:
    """Per-query values of ``measure`` (one column per run): ``people`` on the ``sample`` queries, ``llm`` on
    every query the LLM judged (the sample first, then the ``unlabelled`` queries)."""

    measure: str
    people: pd.DataFrame
    llm: pd.DataFrame
    sample: pd.Index
    unlabelled: pd.Index

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``Y`` (people on the sample), ``Yhat`` (the LLM on the sample), ``Yhat_unlabelled``, ``(queries, runs)``."""
        return (
            self.people.loc[self.sample].to_numpy(np.float64),
            self.llm.loc[self.sample].to_numpy(np.float64),
            self.llm.loc[self.unlabelled].to_numpy(np.float64),
        )


def _column(aligned: Aligned, judge: str, role: str) -> int:
    if judge not in aligned.judges:
        raise InputError(f"the {role} judge {judge!r} is not among the aligned judges: {', '.join(aligned.judges)}")
    return aligned.judges.index(judge)


def _judged_queries(aligned: Aligned, column: int) -> np.ndarray:
    return np.unique(aligned.query_ids[aligned.query[aligned.labels[:, column] != MISSING]]).astype(str)


def judged_by_both(aligned: Aligned, people: str, llm: str) -> np.ndarray:
    """The queries (sorted) on which both judges labelled at least one pair."""
    people_column, llm_column = _column(aligned, people, "people"), _column(aligned, llm, "LLM")
    return np.intersect1d(_judged_queries(aligned, people_column), _judged_queries(aligned, llm_column))


def _values(aligned: Aligned, column: int, runs, measure: str, queries: np.ndarray) -> pd.DataFrame:
    """The measure per query (rows: ``queries``) and run under one judge's aligned labels (0 where no value)."""
    from ir_pref_measures.experiment.runs import DepthWarning
    from ir_pref_measures.meta.evaluation import measure_values

    rows = aligned.labels[:, column] != MISSING
    rows &= np.isin(aligned.query_ids[aligned.query].astype(str), queries)
    votes = Votes(
        aligned.query_ids[aligned.query[rows]],
        aligned.docs[aligned.doc_a[rows]],
        aligned.docs[aligned.doc_b[rows]],
        aligned.labels[rows, column].astype(np.int8),
        np.zeros(int(rows.sum()), dtype=bool),
    )
    with warnings.catch_warnings():  # runs_at_depth warned once
        warnings.simplefilter("ignore", DepthWarning)
        (values,) = measure_values(runs, judgments_of(votes), [measure]).values()
    values.index = values.index.astype(str)
    return values.reindex(pd.Index(queries, name="query_id")).fillna(0.0)


def ppi_values(
    aligned: Aligned,
    runs,
    measure: str,
    *,
    people: str,
    llm: str,
    sample: Iterable[str] | None = None,
    topk: int | None = None,
) -> PPIValues:
    """The inputs of prediction-powered inference (module docstring) for ``runs`` (as
    :func:`~ir_pref_measures.meta.evaluation.measure_values` takes them) under ``measure``. ``people``, ``llm``:
    names of aligned judges; ``sample``: the queries whose people's judgments are used (default: every query
    people judged). The sample must be queries the LLM judged too, at least :data:`MIN_PEOPLE` of them, and leave
    at least one query judged by the LLM alone. ``topk``: every run cut at rank ``topk`` first (runs of different
    depths warn once)."""
    people_column, llm_column = _column(aligned, people, "people"), _column(aligned, llm, "LLM")
    chosen, judged_by_llm = _checked_sample(aligned, people_column, llm_column, sample)
    runs = runs_at_depth(runs, topk)
    unlabelled = np.setdiff1d(judged_by_llm, chosen)
    if not len(unlabelled):
        raise InputError(
            "every query the LLM judged was judged by people too: nothing for the LLM's judgments to add",
            expected="queries judged by the LLM alone (or a smaller people's sample: sample=...)",
        )
    people_values = _values(aligned, people_column, runs, measure, chosen)
    llm_values = _values(aligned, llm_column, runs, measure, np.concatenate([chosen, unlabelled]))
    return PPIValues(measure, people_values, llm_values, pd.Index(chosen), pd.Index(unlabelled))


def _checked_sample(aligned: Aligned, people_column: int, llm_column: int, sample) -> tuple[np.ndarray, np.ndarray]:
    """The people's sample (default: every query people judged) checked against the judged queries, and the
    queries the LLM judged."""
    judged_by_people = _judged_queries(aligned, people_column)
    judged_by_llm = _judged_queries(aligned, llm_column)
    chosen = judged_by_people if sample is None else np.unique(np.asarray(list(sample), dtype=str))
    unknown = np.setdiff1d(chosen, judged_by_people)
    if len(unknown):
        raise InputError(f"the sample names queries people did not judge: {_few(unknown)}")
    outside = np.setdiff1d(chosen, judged_by_llm)
    if len(outside):
        raise InputError(
            f"the people's queries are not a subset of the LLM-judged queries: the LLM did not judge {_few(outside)}",
            expected="an LLM judgment of every query people judged (the people's queries a random sample of them)",
        )
    if len(chosen) < MIN_PEOPLE:
        raise InputError(
            f"{'people judged' if sample is None else 'the sample of people-judged queries holds'} {len(chosen)} "
            f"queries: too few for a prediction-powered interval",
            expected=f"at least {MIN_PEOPLE} queries judged by people (the intervals are normal approximations)",
        )
    return chosen, judged_by_llm


def _few(queries: np.ndarray, limit: int = 5) -> str:
    shown = ", ".join(map(repr, queries[:limit].tolist()))
    return shown + (f" and {len(queries) - limit} more" if len(queries) > limit else "")


def llm_values(aligned: Aligned, runs, measure: str, *, llm: str, topk: int | None = None) -> pd.DataFrame:
    """The measure per query (rows: every query the LLM judged) and run under the LLM's labels alone: what
    choosing the people's queries has to go on."""
    column = _column(aligned, llm, "LLM")
    return _values(aligned, column, runs_at_depth(runs, topk), measure, _judged_queries(aligned, column))


def llm_pair_counts(aligned: Aligned, llm: str, queries) -> pd.Series:
    """Per query of ``queries``, the number of pairs the LLM judged on it (known before people judge any)."""
    column = _column(aligned, llm, "LLM")
    judged = aligned.query_ids[aligned.query[aligned.labels[:, column] != MISSING]].astype(str)
    found, counts = np.unique(judged, return_counts=True)
    index = pd.Index(np.asarray(queries, dtype=str), name="query_id")
    return pd.Series(counts, index=found, name="pairs").reindex(index).fillna(0).astype(np.int64)


def llm_uncertainty(values: pd.DataFrame) -> pd.Series:
    """Per query, the LLM's uncertainty about a measure whose values are shares (in [0, 1], as Compatibility and
    ppref): the binomial standard deviation ``sqrt(mean over runs of v (1 - v))`` of its values ``v``, largest
    where the runs' values are near 1/2 (values outside [0, 1] are clipped to it)."""
    v = values.to_numpy(np.float64).clip(0.0, 1.0)
    return pd.Series(np.sqrt((v * (1 - v)).mean(axis=1)), index=values.index, name="uncertainty")


def choose_queries(
    llm: pd.DataFrame,
    size: float,
    *,
    rule: str = "uniform",
    seed: int = 0,
    uniform_share: float = UNIFORM_SHARE,
) -> tuple[pd.Index, pd.Series]:
    """Draw the queries for people from ``llm`` (the LLM's values per query and run, :func:`llm_values`):
    ``rule="uncertainty"`` with probabilities proportional to :func:`llm_uncertainty` (mixed with a
    ``uniform_share``, :func:`~ir_pref_measures.stats.ppi_active.inclusion_probabilities`), ``"uniform"`` with
    ``size / queries`` each; independently (``numpy.random.default_rng(seed)``), ``size`` of them expected.
    Returns the chosen queries and every query's probability (give it to :func:`ppi_table`)."""
    if rule not in RULES:
        raise InputError(f"unknown rule {rule!r}", expected=", ".join(RULES))
    share = 1.0 if rule == "uniform" else uniform_share
    probabilities = pd.Series(
        inclusion_probabilities(llm_uncertainty(llm), size, uniform_share=share), index=llm.index, name="probability"
    )
    drawn = np.random.default_rng(seed).random(len(probabilities)) < probabilities.to_numpy()
    return probabilities.index[drawn], probabilities


def choose_stratified(
    pairs: pd.Series, size: float, *, strata: int = STRATA, seed: int = 0
) -> tuple[pd.Index, pd.Series]:
    """Draw ``size`` queries for people by the stratified rule: the queries of ``pairs`` (the number of pairs the
    LLM judged per query, :func:`llm_pair_counts`) cut into ``strata`` strata by it
    (:func:`~ir_pref_measures.stats.ppi_variants.score_strata`), each stratum's share of ``size``
    (:func:`~ir_pref_measures.stats.ppi_variants.proportional_allocation`) drawn uniformly without replacement
    (``numpy.random.default_rng(seed)``). Returns the chosen queries and every query's stratum (give it to
    :func:`ppi_table`)."""
    if not isinstance(size, int | np.integer):
        raise InputError(f"the stratified rule draws a whole number of queries, not {size!r}")
    stratum = pd.Series(score_strata(pairs.to_numpy(np.float64), strata), index=pairs.index, name="stratum")
    draw = _stratified_draw(stratum.to_numpy(), strata, int(size))
    return stratum.index[draw(np.random.default_rng(seed))], stratum


def _stratified_draw(stratum: np.ndarray, strata: int, size: int):
    """A function of a random generator drawing ``size`` units (a boolean mask) by proportional allocation over the
    units' strata ``0 .. strata - 1``, uniformly without replacement within each."""
    members = [np.flatnonzero(stratum == k) for k in range(strata)]
    allocation = proportional_allocation([len(m) for m in members], size)

    def draw(rng: np.random.Generator) -> np.ndarray:
        chosen = np.zeros(len(stratum), dtype=bool)
        for group, count in zip(members, allocation, strict=True):
            chosen[rng.choice(group, count, replace=False)] = True
        return chosen

    return draw


def _contrasts(names: list[str], pairs: bool) -> tuple[list[str], np.ndarray]:
    """Row labels and the ``(runs, rows)`` matrix that turns per-run values into the rows of the table."""
    labels, columns = list(names), [np.eye(len(names))]
    if pairs:
        for i, j in combinations(range(len(names)), 2):
            labels.append(f"{names[i]} - {names[j]}")
            columns.append((np.eye(len(names))[:, i] - np.eye(len(names))[:, j])[:, None])
    return labels, np.hstack(columns)


def ppi_table(
    values: PPIValues,
    *,
    lam: float | None = None,
    confidence: float = CONFIDENCE,
    pairs: bool = False,
    probabilities: pd.Series | None = None,
    strata: pd.Series | None = None,
) -> pd.DataFrame:
    """One row per run (and with ``pairs``, per difference ``run i - run j``): ``run, queries people judged (n),
    queries the LLM judged alone (N), people mean, people ci low, people ci high`` (the people-only interval), ``llm
    mean`` (over all queries), ``ppi, ci low, ci high`` (prediction-powered), ``effective n`` (the people-judged
    queries whose people-only interval would be as narrow, :func:`~ir_pref_measures.stats.ppi.effective_n`) and
    ``lam`` (the power parameter: PPI++'s when ``lam`` is None). ``probabilities`` (per query: the probability
    with which it was drawn for people, :func:`choose_queries`) estimates with the active estimator instead;
    ``strata`` (per query: its stratum, :func:`choose_stratified`) with stratified PPI."""
    labels, contrast = _contrasts(list(values.people.columns.astype(str)), pairs)
    y, yhat, yhat_unlabelled = (x @ contrast for x in values.arrays())
    if probabilities is not None and strata is not None:
        raise InputError("give the probabilities of an uncertainty draw or the strata of a stratified one, not both")
    if strata is not None:
        missing = values.llm.index.difference(strata.index)
        if len(missing):
            raise InputError(f"no stratum for the queries {_few(np.asarray(missing))}")
        of = strata.reindex(values.llm.index).to_numpy()
        n = len(values.sample)
        estimate = stratified_ppi_mean(y, yhat, yhat_unlabelled, of[:n], of[n:], lam=lam, confidence=confidence)
    elif probabilities is None:
        estimate = ppi_mean(y, yhat, yhat_unlabelled, lam=lam, confidence=confidence)
    else:
        missing = values.llm.index.difference(probabilities.index)
        if len(missing):
            raise InputError(f"no probability of being drawn for the queries {_few(np.asarray(missing))}")
        labelled = np.arange(len(values.llm)) < len(values.sample)
        pi = probabilities.reindex(values.llm.index).to_numpy(np.float64)
        yhat_all = np.concatenate([yhat, yhat_unlabelled])
        estimate = active_ppi_mean(y, yhat_all, labelled, pi, lam=lam, confidence=confidence)
    alone = classical_mean(y, confidence=confidence)
    return pd.DataFrame(
        {
            "run": labels,
            "n": estimate.n,
            "N": estimate.N,
            "people mean": alone.estimate,
            "people ci low": alone.lower,
            "people ci high": alone.upper,
            "llm mean": np.concatenate([yhat, yhat_unlabelled]).mean(axis=0),
            "ppi": estimate.estimate,
            "ci low": estimate.lower,
            "ci high": estimate.upper,
            "effective n": estimate.effective_n,
            "lam": estimate.lam,
        }
    )


def ppi_plan(
    values: PPIValues,
    *,
    cost_people: float,
    cost_llm: float,
    width: float | None = None,
    difference: float | None = None,
    power: float = 0.8,
    budget: float | None = None,
    confidence: float = CONFIDENCE,
    pairs: bool = False,
    n_max: int | None = None,
) -> pd.DataFrame:
    """Plan a study from a pilot: ``values``' people-judged queries (also judged by the LLM). Per run (and with
    ``pairs`` per difference of two runs), the people-only queries a target needs (``width``: of the two-sided
    interval at ``confidence``; ``difference``: detected by a two-sided test at level ``1 - confidence`` with
    ``power``), then the cheapest numbers of queries for people (each also judged by the LLM) and for the LLM
    alone that reach it at ``cost_people`` and ``cost_llm`` per query (:func:`~ir_pref_measures.stats.ppi_power`;
    ``budget``: the most that budget buys instead). Columns: ``run, pilot`` (queries), ``correlation`` (PPI
    correlation of the pilot), ``sd`` (people's, ``ddof=1``), ``target n`` (people-only queries; the effective
    size of the plan with ``budget``), ``people, llm only, cost, effective n`` (the plan) and ``people only cost``
    (``target n`` people's queries)."""
    from ir_pref_measures.stats.ppi_power import labels_for_power, labels_for_width, ppi_correlation, ppi_power

    if (width is None) + (difference is None) + (budget is None) != 2:
        raise InputError("plan for one target: a width, a difference to detect, or a budget")
    labels, contrast = _contrasts(list(values.people.columns.astype(str)), pairs)
    y, yhat, _ = (x @ contrast for x in values.arrays())
    rows = []
    for column, label in enumerate(labels):
        variance = float(np.var(y[:, column], ddof=1))
        corr = ppi_correlation(y[:, column], yhat[:, column])
        if budget is not None:
            plan = ppi_power(corr, cost_people, cost_llm, budget=budget, n_max=n_max)
            target = plan.effective_n
        else:
            if width is not None:
                target = labels_for_width(width, variance, confidence)
            else:
                target = labels_for_power(float(difference or 0.0), variance, power, 1 - confidence)
            plan = ppi_power(corr, cost_people, cost_llm, effective_n=target, n_max=n_max)
        plan_row = (plan.n, plan.N, plan.cost, plan.effective_n, target * cost_people)
        rows.append((label, len(y), corr, np.sqrt(variance), target, *plan_row))
    columns = ["run", "pilot", "correlation", "sd", "target n", "people", "llm only", "cost", "effective n"]
    return pd.DataFrame(rows, columns=[*columns, "people only cost"])


def subsample_experiment(
    aligned: Aligned,
    runs,
    measure: str,
    *,
    people: str,
    llm: str,
    size: int,
    repetitions: int = 200,
    seed: int = 0,
    lam: float | None = None,
    confidence: float = CONFIDENCE,
    topk: int | None = None,
    rule: str = "uniform",
    uniform_share: float = UNIFORM_SHARE,
    strata: int = STRATA,
) -> pd.DataFrame:
    """On the queries both people and the LLM judged: ``repetitions`` times, draw ``size`` of them (without
    replacement, ``numpy.random.default_rng(seed)``) as the people's sample, the rest judged by the LLM alone, and
    compare the intervals with the all-people value (the people's mean over all these queries). Per run: ``all-people
    mean``, ``coverage`` (share of draws whose PPI interval covers it), ``people coverage`` (the people-only
    interval's), ``width`` and ``people width`` (mean widths), ``narrower`` (share of draws with the PPI interval
    narrower). ``topk`` as :func:`ppi_values` takes it.

    ``rule="uncertainty"`` draws the people's queries as :func:`choose_queries` does instead (each with its
    probability, ``size`` of them expected; draws with fewer than two are drawn again) and estimates with the
    active estimator (:func:`ppi_table` with ``probabilities``); the column ``size`` gives the mean size drawn.
    ``rule="stratified"`` cuts the queries into ``strata`` strata of nearly equal size by the number of pairs the LLM
    judged on each (:func:`llm_pair_counts`), draws from each its share of ``size`` (proportional allocation, without
    replacement) and estimates with stratified PPI (the strata's PPI++ estimates weighted by their sizes)."""
    people_column, llm_column = _column(aligned, people, "people"), _column(aligned, llm, "LLM")
    queries = judged_by_both(aligned, people, llm)
    runs = runs_at_depth(runs, topk)
    if not isinstance(size, int | np.integer) or not MIN_PEOPLE <= size < len(queries):
        raise InputError(f"the sample size must be an integer from {MIN_PEOPLE} to {len(queries) - 1}, not {size!r}")
    if rule not in STUDIED_RULES:
        raise InputError(f"unknown rule {rule!r}", expected=", ".join(STUDIED_RULES))
    people_values = _values(aligned, people_column, runs, measure, queries)
    y_all = people_values.to_numpy(np.float64)
    llm_frame = _values(aligned, llm_column, runs, measure, queries)
    yhat_all = llm_frame.to_numpy(np.float64)
    share = 1.0 if rule == "uniform" else uniform_share
    pi = inclusion_probabilities(llm_uncertainty(llm_frame), size, uniform_share=share)
    stratum = np.zeros(len(queries), dtype=np.int64)
    if rule == "stratified":
        stratum = score_strata(llm_pair_counts(aligned, llm, queries).to_numpy(np.float64), strata)
        draw = _stratified_draw(stratum, strata, size)
    truth = y_all.mean(axis=0)
    rng = np.random.default_rng(seed)
    counts = np.zeros((5, y_all.shape[1]))
    drawn = 0
    for _ in range(repetitions):
        chosen = np.zeros(len(y_all), dtype=bool)
        if rule == "uniform":
            chosen[rng.choice(len(y_all), size, replace=False)] = True
            got = ppi_mean(y_all[chosen], yhat_all[chosen], yhat_all[~chosen], lam=lam, confidence=confidence)
        elif rule == "stratified":
            chosen = draw(rng)
            got = stratified_ppi_mean(
                y_all[chosen], yhat_all[chosen], yhat_all[~chosen], stratum[chosen], stratum[~chosen], lam=lam,
                confidence=confidence,
            )  # fmt: skip
        else:
            while chosen.sum() < 2:
                chosen = rng.random(len(y_all)) < pi
            got = active_ppi_mean(y_all[chosen], yhat_all, chosen, pi, lam=lam, confidence=confidence)
        drawn += int(chosen.sum())
        alone = classical_mean(y_all[chosen], confidence=confidence)
        width, people_width = got.upper - got.lower, alone.upper - alone.lower
        counts += [
            (got.lower <= truth) & (truth <= got.upper),
            (alone.lower <= truth) & (truth <= alone.upper),
            width,
            people_width,
            width < people_width,
        ]
    counts /= repetitions
    table = pd.DataFrame(counts.T, columns=["coverage", "people coverage", "width", "people width", "narrower"])
    table.insert(0, "all-people mean", truth)
    table.insert(0, "run", list(people_values.columns.astype(str)))
    if rule == "uncertainty":
        table["size"] = drawn / repetitions
    return table
