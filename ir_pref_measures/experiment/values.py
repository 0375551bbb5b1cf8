"""Per-query values of runs x measures on one judgment set: the measures of the catalog and ir_measures' through
the engine (:func:`ir_pref_measures.engine.evaluate`), the pairwise preferences between runs through
:func:`ir_pref_measures.comparison.pairwise.comparison`. The tables of
:func:`~ir_pref_measures.experiment.front.Experiment`, :mod:`~ir_pref_measures.meta.evaluation` and the cluster
path (:mod:`~ir_pref_measures.dask.cluster`) start here."""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd

from ir_pref_measures import engine
from ir_pref_measures.comparison.pairwise import comparison, relevant_docs
from ir_pref_measures.errors import InputError
from ir_pref_measures.experiment.pipelines import is_runtime_measure
from ir_pref_measures.loading.checks import check_integer_grades
from ir_pref_measures.measures.names import PairwiseMeasure
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.rankings import Ranking
from ir_pref_measures.progress import progress


def per_query_frames(
    rankings: Mapping[str, Ranking],
    judgments: Judgments,
    measures: list[tuple[str, object]],
    baseline: str | None,
    *,
    verbose: bool = False,
    frames: Mapping[str, pd.DataFrame] | None = None,
) -> dict[str, pd.DataFrame]:
    """Per measure column: a frame of per-query values, one row per query id (sorted), one column per run: the
    measures of one run on ``judgments`` (ir_measures' own on its graded docs, which must have integer grades:
    :func:`~ir_pref_measures.loading.checks.check_integer_grades`), the pairwise preferences on its relevant docs.
    ``frames``: a run's results as given (all their columns), which the measures defined at run time
    (``ir_measures.define_byquery``) read instead of the ranking, as in ``pt.Experiment``."""
    ordinary = [m for _, m in measures if not isinstance(m, PairwiseMeasure)]
    preferences = [m for _, m in measures if isinstance(m, PairwiseMeasure)]
    frames = frames or {}
    names = list(rankings)
    found: dict[object, dict[str, pd.Series]] = {m: {} for m in ordinary}  # measure -> run -> per-query values
    check_integer_grades([m for m in ordinary if engine.reads_grades_only(m)], judgments)
    catalog = [m for m in ordinary if engine.is_catalog_measure(m)]
    others = [m for m in ordinary if not engine.is_catalog_measure(m)]
    steps = (len(names) if ordinary else 0) + (1 if preferences else 0)
    with progress(steps, "experiment", verbose) as bar:
        for name, run_values in zip(
            names, _catalog_values(catalog, judgments, rankings, names if ordinary else []), strict=False
        ):
            for measure, values in run_values.items():
                found[measure][name] = values
            by_query: dict[object, dict[str, float]] = {m: {} for m in others}
            for metric in _metrics(others, rankings[name], frames.get(name), judgments) if others else ():
                by_query[metric.measure][str(metric.query_id)] = metric.value
            for measure, values in by_query.items():
                found[measure][name] = pd.Series(values, dtype=np.float64)
            bar.update()
        columns = {m: pd.DataFrame(found[m]).reindex(columns=names).sort_index() for m in ordinary}
        if preferences:
            columns |= _pairwise_values(rankings, judgments, preferences, baseline)
            bar.update()
    return {column: columns[m] for column, m in measures}


def _catalog_values(measures: list, judgments: Judgments, rankings: Mapping[str, Ranking], names: list[str]):
    """Per run of ``names``, in order: the per-query values (a Series) of the catalog's ``measures``
    (:func:`~ir_pref_measures.engine.catalog_values`), on :func:`~ir_pref_measures.engine.n_jobs` threads."""

    def one(name: str) -> dict:
        if not measures:
            return {}
        found = engine.catalog_values(measures, judgments, rankings[name])
        return {
            measure: pd.Series(column, index=pd.Index(query_ids.astype(str)))
            for measure, (query_ids, column) in zip(measures, found, strict=True)
        }

    with ThreadPoolExecutor(max(1, min(engine.n_jobs(), len(names)))) as pool:
        yield from pool.map(one, names)


def _metrics(measures: list, ranking: Ranking, frame: pd.DataFrame | None, judgments: Judgments):
    """The per-query metrics of ``measures`` that ir_measures computes, for one run: the measures defined at run
    time on ``frame`` when given (the results as given), the others on ``ranking``
    (:func:`ir_pref_measures.engine.evaluate`)."""
    import ir_measures

    runtime = [m for m in measures if frame is not None and is_runtime_measure(m)]
    others = [m for m in measures if m not in runtime]
    yield from engine.evaluate(others, ranking, judgments=judgments) if others else ()
    yield from ir_measures.iter_calc(runtime, judgments.qrels(), frame) if runtime else ()


def _pairwise_values(rankings, judgments: Judgments, measures: list, baseline: str | None) -> dict:
    """Per pairwise measure: per query, each run's preference over the baseline (0 for the baseline), or
    without one, the mean of its preferences over each other run."""
    names = list(rankings)
    if baseline is None and len(names) < 2:
        raise InputError("pairwise preferences need at least two runs")
    result = comparison(rankings, relevant_docs(judgments), measures, baseline=baseline, warn=False)
    out = {}
    for measure in measures:
        values = result.pair_values[measure.name].astype(np.float64)
        total = np.zeros((len(names), len(result.query_ids)))
        np.add.at(total, result.run_i, values)
        if baseline is None:  # pair (i, j) is i vs j; j vs i is its negation (the preferences are antisymmetric)
            np.subtract.at(total, result.run_j, values)
            total /= len(names) - 1
        index = pd.Index(result.query_ids.astype(str), name=None)
        out[measure] = pd.DataFrame(total.T, index=index, columns=names).sort_index()
    return out
