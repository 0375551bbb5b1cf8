"""Per-query values of runs x measures on one judgment set: the measures of the catalog and ir_measures' through
the engine (:func:`ir_pref_measures.engine.evaluate`), the pairwise preferences between runs through
:func:`ir_pref_measures.comparison.pairwise.comparison_of_ranks`, added one run at a time (:class:`SetValues`: a run
is released once evaluated; what is kept per run is its per-query values and the ranks of the relevant docs). The
tables of
:func:`~ir_pref_measures.experiment.front.Experiment`, :mod:`~ir_pref_measures.meta.evaluation` and the cluster
path (:mod:`~ir_pref_measures.dask.cluster`) start here."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ir_pref_measures import engine
from ir_pref_measures.comparison.pairwise import (
    RelevantDocs,
    comparison_of_ranks,
    relevant_docs,
    relevant_ranks,
    run_pairs,
)
from ir_pref_measures.errors import InputError
from ir_pref_measures.experiment.columns import Plan
from ir_pref_measures.experiment.pipelines import is_runtime_measure
from ir_pref_measures.experiment.runs import stream_runs
from ir_pref_measures.experiment.spool import Spool, Spooled
from ir_pref_measures.measures.names import PairwiseMeasure
from ir_pref_measures.model.checks import check_coverage, check_integer_grades, check_overlap
from ir_pref_measures.model.coverage import depths, judged_ranks, warn_depths, warn_unjudged
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.rankings import Ranking
from ir_pref_measures.parsing.memory import release_freed_memory
from ir_pref_measures.progress import progress

Column = tuple[pd.Index, Spooled]
"""A run's per-query values of one measure: the query ids (one index object shared by the runs with the same
queries, :meth:`SetValues._index_of`) and where the values (float64) wait in the :class:`Spool`."""


PerQuery = Callable[..., dict[str, pd.DataFrame]]
"""The per-query computation of an experiment, called as :func:`per_query_frames` is (``rankings, judgments,
measures, baseline, *, verbose, frames``): per measure column, a frame of per-query values (one row per query id,
sorted; one column per run). :func:`ir_pref_measures.dask.on_cluster` computes it on a Dask cluster."""


def experiment_values(
    systems: Mapping[str, object],
    plan: Plan,
    baseline: str | None,
    *,
    per_query: PerQuery | None = None,
    topk: int | None = None,
    restrict: set[str] | None = None,
    check_runs: bool = True,
    verbose: bool = False,
    frames: dict[str, pd.DataFrame] | None = None,
    **reading,
) -> dict[str, pd.DataFrame]:
    """The core of :func:`~ir_pref_measures.experiment.front.Experiment`: per column of ``plan``, the per-query values
    (queries x runs) of the runs ``systems`` (by name, not yet read), on the queries in ``restrict`` (all judged queries
    by default). Each run is read and cut at ``topk`` (:func:`~ir_pref_measures.experiment.runs.stream_runs` with
    ``reading``), checked (``check_runs``: a run with no judged query is an :class:`InputError`; else it scores the
    defaults, as ``pt.Experiment`` does for a Transformer run on topics without judgments), evaluated on every judgment
    set of ``plan`` (:class:`SetValues`; pairwise preferences relative to ``baseline``) and released. A ``per_query``
    computation (a Dask cluster's) is given every run at once, so they are all held (:class:`HeldValues`). ``frames``:
    the result frames as given, for the measures defined at run time."""
    found = {
        key: SetValues.of(plan.judgments(key), items, baseline)
        if per_query is None
        else HeldValues(per_query, plan.judgments(key), items, baseline, verbose, frames)
        for key, items in plan.items.items()
    }
    main = next(iter(plan.sets.values()))
    main = main if restrict is None else main.restrict(restrict)

    def work(name: str, ranking: Ranking) -> tuple[Ranking, list, np.ndarray | None]:
        for judged in plan.sets.values() if check_runs else ():
            check_overlap(ranking, judged, f"run {name!r}")
        parts = [values.evaluate(name, ranking) for values in found.values()]
        if not len(ranking.doc_text):  # a run of query ids alone (timings): nothing to warn about
            return ranking, parts, None
        return ranking, parts, _judged_ranks(ranking, main, parts, list(found.values()))

    deepest: dict[str, int] = {}
    with progress(len(systems), "experiment", verbose) as bar:
        for name, (ranking, parts, ranks) in stream_runs(
            systems, work, topk=topk, verbose=verbose, frames=frames, **reading
        ):
            deepest |= depths({name: ranking})
            if len(ranking.doc_text) and check_runs:  # not a run of query ids alone (timings)
                check_coverage(ranking, main, name, ranks, f"run {name!r}")
            elif len(ranking.doc_text):
                warn_unjudged(name, ranking, main, ranks)
            for part, values in zip(parts, found.values(), strict=True):
                values.add(name, part, ranking, (frames or {}).get(name))
            del ranking, parts, ranks  # the run is released
            release_freed_memory()
            bar.update()
    warn_depths(deepest)
    columns = {column: frame for values in found.values() for column, frame in values.frames().items()}
    if restrict is not None:
        columns = {column: frame[frame.index.isin(restrict)] for column, frame in columns.items()}
    return {column: columns[column] for column in plan.order}


def _judged_ranks(ranking: Ranking, judgments: Judgments, parts: list, found: list) -> np.ndarray:
    """The rank in ``ranking`` of every doc of ``judgments`` (:func:`~ir_pref_measures.model.coverage.judged_ranks`):
    those a judgment set's :meth:`SetValues.evaluate` looked up (``parts``, of ``found``) when it is ``judgments``,
    else looked up here."""
    for part, values in zip(parts, found, strict=True):
        if part is not None and part[2] is not None and values.judgments is judgments:
            return part[2]
    return judged_ranks(ranking, judgments)


@dataclass
class HeldValues:
    """:class:`SetValues`' calls for a ``per_query`` computation that takes every run at once: the runs are held."""

    compute: PerQuery
    judgments: Judgments
    measures: list[tuple[str, object]]
    baseline: str | None
    verbose: bool = False
    given: Mapping[str, pd.DataFrame] | None = None
    rankings: dict[str, Ranking] = field(default_factory=dict)

    def evaluate(self, name: str, ranking: Ranking) -> None:
        return None

    def add(self, name: str, part: None, ranking: Ranking, frame=None) -> None:
        self.rankings[name] = ranking

    def frames(self) -> dict[str, pd.DataFrame]:
        return self.compute(self.rankings, self.judgments, self.measures, self.baseline, verbose=self.verbose,
                            frames=self.given)  # fmt: skip


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
    :func:`~ir_pref_measures.model.checks.check_integer_grades`), the pairwise preferences on its relevant docs.
    ``frames``: a run's results as given (all their columns), which the measures defined at run time
    (``ir_measures.define_byquery``) read instead of the ranking, as in ``pt.Experiment``. The runs are evaluated
    on :func:`~ir_pref_measures.engine.n_jobs` threads (:class:`SetValues`)."""
    found = SetValues.of(judgments, measures, baseline)
    names = list(rankings)
    frames = frames or {}
    with progress(len(names), "experiment", verbose) as bar:
        with ThreadPoolExecutor(max(1, min(engine.n_jobs(), len(names)))) as pool:
            parts = pool.map(lambda name: found.evaluate(name, rankings[name]), names)
            for name, part in zip(names, parts, strict=True):
                found.add(name, part, rankings[name], frames.get(name))
                bar.update()
    return found.frames()


@dataclass
class SetValues:
    """The per-query values of runs on one judgment set, added one run at a time: :meth:`evaluate` (thread-safe:
    the catalog's measures and the ranks of the relevant docs), then :meth:`add` on the caller's thread (in the
    runs' order: ir_measures' own measures, whose warnings name the caller's line), then :meth:`frames`. Kept per
    run: its per-query values (in a temporary file until :meth:`frames`: :class:`Spool`); the ranks of the judgments'
    relevant docs (the pairwise preferences) until the run is compared with the baseline (without a baseline, every
    pair is compared: every run's ranks are kept to the end). The RBO measures, which would need whole rankings, are
    not among the experiment's."""

    judgments: Judgments
    measures: list[tuple[str, object]]
    baseline: str | None
    relevant: RelevantDocs | None = None
    names: list[str] = field(default_factory=list)
    found: dict[object, dict[str, Column]] = field(default_factory=dict)  # measure -> run -> per-query values
    ranks: dict[str, np.ndarray] = field(default_factory=dict)  # of the runs not yet compared with the baseline
    indexes: dict[tuple, pd.Index] = field(default_factory=dict)  # of _index_of
    preferred: dict[str, dict[str, Spooled]] = field(default_factory=dict)  # measure -> run -> over the baseline
    spool: Spool = field(default_factory=Spool)  # the values of found and preferred

    @classmethod
    def of(cls, judgments: Judgments, measures: list[tuple[str, object]], baseline: str | None) -> SetValues:
        """Checked: ir_measures' measures that read grades need integer grades."""
        found = cls(judgments, measures, baseline)
        check_integer_grades([m for m in found.ordinary if engine.reads_grades_only(m)], judgments)
        found.found = {m: {} for m in found.ordinary}
        found.relevant = relevant_docs(judgments) if found.preferences else None
        return found

    @property
    def ordinary(self) -> list:
        return [m for _, m in self.measures if not isinstance(m, PairwiseMeasure)]

    @property
    def preferences(self) -> list[PairwiseMeasure]:
        return [m for _, m in self.measures if isinstance(m, PairwiseMeasure)]

    def evaluate(self, name: str, ranking: Ranking) -> tuple[dict, np.ndarray | None, np.ndarray | None]:
        """The catalog's per-query values of ``ranking`` (:func:`~ir_pref_measures.engine.catalog_values`), the
        ranks of the relevant docs in it (if pairwise preferences are measured) and the ranks of every judged doc
        (:func:`~ir_pref_measures.model.coverage.judged_ranks`, looked up once for both; ``None`` when neither is
        asked for)."""
        catalog = [m for m in self.ordinary if engine.is_catalog_measure(m)]
        judged = judged_ranks(ranking, self.judgments) if catalog or self.preferences else None
        found = (
            engine.catalog_values(catalog, self.judgments, ranking, judged) if catalog and judged is not None else []
        )
        values = {
            measure: (self._index_of(query_ids), column)
            for measure, (query_ids, column) in zip(catalog, found, strict=True)
        }
        ranks = relevant_ranks(ranking, self.relevant, None, name, judged) if self.relevant is not None else None
        return values, ranks, judged

    def _index_of(self, query_ids) -> pd.Index:
        """``query_ids`` as an index of text, one object for all the runs and measures with these queries in this
        order (the values of 100 runs hold one index, not 100)."""
        text = np.asarray(query_ids).astype(str)
        return self.indexes.setdefault((text.dtype.str, text.tobytes()), pd.Index(text))

    def add(self, name: str, part: tuple, ranking: Ranking, frame=None) -> None:
        """Keep the values of :meth:`evaluate` and compute ir_measures' own (``frame``: the run as given)."""
        values, ranks, _ = part
        self.names.append(name)
        others = [m for m in self.ordinary if not engine.is_catalog_measure(m)]
        by_query: dict[object, dict[str, float]] = {m: {} for m in others}
        for metric in _metrics(others, ranking, frame, self.judgments) if others else ():
            by_query[metric.measure][str(metric.query_id)] = metric.value
        values |= {
            measure: (self._index_of(list(found)), np.fromiter(found.values(), np.float64, len(found)))
            for measure, found in by_query.items()
        }
        for measure, (index, column) in values.items():
            self.found[measure][name] = index, self.spool.put(column)
        if ranks is not None:
            self.ranks[name] = ranks
            self._compare()

    def frames(self) -> dict[str, pd.DataFrame]:
        """Per measure column, the frame of per-query values (queries x runs, in the order of :meth:`add`)."""
        names = self.names
        columns = {m: _frame(self.found[m], names, self.spool) for m in self.ordinary}
        if self.preferences:
            columns |= self._pairwise(names)
        return {column: columns[m] for column, m in self.measures}

    def _pairwise(self, names: list[str]) -> dict:
        """Per pairwise measure: per query, each run's preference over the baseline (0 for the baseline), or
        without one, the mean of its preferences over each other run."""
        if self.baseline is None and len(names) < 2:
            raise InputError("pairwise preferences need at least two runs")
        run_pairs(names, self.baseline)  # the checks: two runs at least, the baseline one of them
        index = pd.Index(self._relevant_docs().query_ids.astype(str), name=None)
        if self.baseline is not None:
            zero = np.zeros(len(index))
            return {
                m: pd.DataFrame({n: self._preferred(m, n, zero) for n in names}, index=index).sort_index()
                for m in self.preferences
            }
        result = self._comparison(names)
        out = {}
        for measure in self.preferences:  # pair (i, j) is i vs j; j vs i its negation (antisymmetric preferences)
            values = result.pair_values[measure.name].astype(np.float64)
            total = np.zeros((len(names), len(index)))
            np.add.at(total, result.run_i, values)
            np.subtract.at(total, result.run_j, values)
            out[measure] = pd.DataFrame(total.T / (len(names) - 1), index=index, columns=names).sort_index()
        return out

    def _compare(self) -> None:
        """With a baseline whose ranks are held: the preferences over it of each other run held, one run at a time
        (a run's preference over the baseline depends on those two runs alone, and the kernels' memory grows with the
        runs compared at once: eight at a time raised the peak by about 20 MB on runs of a million lines, for no gain
        in time); their ranks are then released."""
        if self.baseline is None or self.baseline not in self.ranks:
            return
        for name in [name for name in self.ranks if name != self.baseline]:
            result = self._comparison([self.baseline, name])
            for measure in self.preferences:  # row 0: the run over the baseline
                found = result.pair_values[measure.name][0]
                self.preferred.setdefault(measure.name, {})[name] = self.spool.put(found)
            del self.ranks[name]

    def _preferred(self, measure: PairwiseMeasure, name: str, baseline: np.ndarray) -> np.ndarray:
        """The per-query preference of run ``name`` over the baseline (``baseline``, zeros, for the baseline)."""
        spooled = self.preferred[measure.name].get(name)
        return baseline if spooled is None else self.spool.get(spooled)

    def _comparison(self, names: list[str]):
        """:func:`~ir_pref_measures.comparison.pairwise.comparison_of_ranks` of the runs ``names`` (ranks held)."""
        ranks = np.vstack([self.ranks[name] for name in names])
        pairs = run_pairs(names, self.baseline)
        return comparison_of_ranks(names, ranks, self._relevant_docs(), self.preferences, pairs, [None] * len(names))

    def _relevant_docs(self) -> RelevantDocs:
        """The relevant docs of the judgments, found (:meth:`of`) when pairwise preferences are measured."""
        assert self.relevant is not None, "asked only when pairwise preferences are measured"
        return self.relevant


def _frame(found: Mapping[str, Column], names: list[str], spool: Spool) -> pd.DataFrame:
    """The per-query values of the runs ``names`` (``found``: run -> :data:`Column`, in ``spool``) as one frame,
    queries x runs, sorted by query id: the columns read into one array when every run has the same queries (the
    measures of the catalog), else aligned on the union of the query ids (a query a run lacks is NaN)."""
    indexes = {id(index): index for index, _ in found.values()}
    if len(indexes) == 1:
        (index,) = indexes.values()
        stacked = np.empty((len(names), len(index)))  # a run's values per row: the frame's columns, without a copy
        for row, name in zip(stacked, names, strict=True):
            spool.get(found[name][1], row)
        return pd.DataFrame(stacked.T, index=index, columns=names, copy=False).sort_index()
    series = {name: pd.Series(spool.get(values), index=index, copy=False) for name, (index, values) in found.items()}
    return pd.DataFrame(series).reindex(columns=names).sort_index()


def _metrics(measures: list, ranking: Ranking, frame: pd.DataFrame | None, judgments: Judgments):
    """The per-query metrics of ``measures`` that ir_measures computes, for one run: the measures defined at run
    time on ``frame`` when given (the results as given), the others on ``ranking``
    (:func:`ir_pref_measures.engine.evaluate`)."""
    import ir_measures

    runtime = [m for m in measures if frame is not None and is_runtime_measure(m)]
    others = [m for m in measures if m not in runtime]
    yield from engine.evaluate(others, ranking, judgments=judgments) if others else ()
    yield from ir_measures.iter_calc(runtime, judgments.qrels(), frame) if runtime else ()
