"""The evaluation engine: a run's per-query values of the catalog's measures on encoded judgments.

A run (:class:`~ir_pref_measures.model.rankings.Ranking`) and a judgment set
(:class:`~ir_pref_measures.model.judgments.Judgments`) meet here: every judged doc gets its rank once, the queries
are cut into blocks of about :data:`BLOCK_DOCS` judged docs, computed on threads, and each measure goes to the
kernel of its family (:data:`~ir_pref_measures.measures.catalog.FAMILIES`) through caches that the measures of
one block, and the blocks of one run, share. :func:`evaluate` is the entry of ``eval``, ``Experiment``, ``meta``,
the Dask partitions and the ir_measures provider. ir_measures' own measures that trec_eval defines (nDCG, AP, P,
...; :data:`~ir_pref_measures.measures.catalog.TREC_EVAL`) are computed here too, by the kernels of
:mod:`~ir_pref_measures.measures.graded` on the graded qrels; any other (or one with a parameter those kernels do
not take) by ir_measures, on the same ranking, under the same tie rule.
"""

from __future__ import annotations

import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.measures.catalog import SPECS, TREC_EVAL, graded_kernel, graded_spec, ppref_kernel
from ir_pref_measures.measures.compatibility import compatibility
from ir_pref_measures.measures.graded import Ranked
from ir_pref_measures.measures.ideal import ideal_doc_rank
from ir_pref_measures.measures.image_grid import Grid, grid_pgc
from ir_pref_measures.measures.names import is_package_measure
from ir_pref_measures.measures.pair_counts import pair_counts
from ir_pref_measures.measures.pgc import pgc
from ir_pref_measures.measures.trec_prefs import (
    check_groups,
    judgment_rows,
    trec_positions,
    trec_prefs_values,
    warn_cycles,
)
from ir_pref_measures.model.coverage import judged_ranks
from ir_pref_measures.model.cycles import warn_collapsed
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.rankings import Ranking


class _RunInputs:
    """One run against one judgment set: the rank of every judged doc, and a cache for what every block of
    queries shares (guarded by a lock: blocks run on threads)."""

    def __init__(self, queries: np.ndarray, doc_rank: np.ndarray):
        self.queries = queries  # every evaluated query of the run
        self.doc_rank = doc_rank
        self.cache: dict = {}
        self.lock = threading.RLock()  # a shared computation may itself ask for another

    def cached(self, key, compute):
        with self.lock:
            if key not in self.cache:
                self.cache[key] = compute()
            return self.cache[key]


class _Evaluation:
    """One block of queries of one run against one judgment set: the inputs of every measure, a cache for
    them (``cached``) and one for what the run's blocks share (``shared``)."""

    def __init__(self, judgments: Judgments, ranking: Ranking, queries: np.ndarray, run: _RunInputs):
        self.judgments, self.ranking, self.queries, self.run = judgments, ranking, queries, run
        self.doc_rank = run.doc_rank
        self.cache: dict = {}

    def cached(self, key, compute):
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]

    def shared(self, key, compute):
        return self.run.cached(key, compute)


def _ppref_values(measure, ev: _Evaluation) -> np.ndarray:
    transitive = bool(measure["transitive"])
    counts = ev.cached(("counts", transitive), lambda: pair_counts(ev.judgments, ev.doc_rank, ev.queries, transitive))
    extra = {"beta": float(measure["beta"])} if "beta" in measure.SUPPORTED_PARAMS else {}
    if "ideal" in SPECS[measure.NAME].args:
        ideal_rank = ev.shared(("ideal", transitive), lambda: ideal_doc_rank(ev.judgments, transitive))
        extra["ideal"] = ev.cached(
            ("ideal", transitive), lambda: pair_counts(ev.judgments, ideal_rank, ev.queries, transitive)
        )
    return ppref_kernel(measure.NAME, counts, measure.params.get("cutoff"), **extra)


def _rbo_args(measure) -> dict:
    return {"p": float(measure["p"]), "depth": int(measure["depth"]), "normalize": bool(measure["normalize"])}


def _pgc_values(measure, ev: _Evaluation) -> np.ndarray:
    cols = measure.params.get("cols")
    if cols is None:
        return pgc(ev.judgments, ev.doc_rank, ev.queries, **_rbo_args(measure))
    grid = ev.shared(("grid", cols), lambda: Grid.from_ranking(ev.ranking, cols))
    return grid_pgc(ev.judgments, grid, ev.queries, measure["order"], **_rbo_args(measure))


def _compatibility_values(measure, ev: _Evaluation) -> np.ndarray:
    return compatibility(ev.judgments, ev.doc_rank, ev.queries, **_rbo_args(measure))


def _trec_prefs_values(measure, ev: _Evaluation) -> np.ndarray:
    return ev.cached("trec_prefs", lambda: _all_trec_prefs(ev))[measure.NAME]


def _all_trec_prefs(ev: _Evaluation) -> dict[str, np.ndarray]:
    """The 14 prefs_* measures of the block's queries (groups with cycles on their condensation; one warning
    per run says which, :func:`~ir_pref_measures.measures.trec_prefs.warn_cycles`)."""
    judgments = ev.judgments
    check_groups(judgments)
    ev.shared("trec_cycles", lambda: warn_cycles(judgments, ev.run.queries))
    rows, query = judgment_rows(judgments, ev.queries)
    doc_query_ids = judgments.query_ids[judgments.doc_query]
    rank = ev.shared("trec_rank", lambda: trec_positions(ev.ranking, doc_query_ids, ev.doc_rank))
    return trec_prefs_values(query, rows.group, rows.subgroup, rows.doc, rows.level, rank[rows.doc], len(ev.queries))


def _ranked(ev: _Evaluation, graded_only: bool) -> Ranked:
    """The judged docs of the block's queries (``graded_only``: those with a grade, ir_measures' qrels) with their
    rank and grade, and each query's number of retrieved docs."""
    judgments, queries = ev.judgments, ev.queries
    docs = judgments.docs_of(queries)
    if graded_only and not judgments.graded.all():
        docs = docs[judgments.graded[docs]]
    query = np.searchsorted(queries, judgments.doc_query[docs])
    retrieved = np.diff(ev.ranking.offsets)[ev.ranking.query_index(judgments.query_ids[queries])]
    return Ranked.of(query, ev.doc_rank[docs], judgments.grades[docs], retrieved)


def _graded_values(measure, ev: _Evaluation) -> np.ndarray:
    """``measure`` on the block's :func:`_ranked` docs (ir_measures' own on the graded docs alone), with its
    ``gains`` and ``judged_only``."""
    params = measure.params
    gains, judged_only = params.get("gains"), bool(params.get("judged_only"))
    graded_only = reads_grades_only(measure)

    def view() -> Ranked:
        ranked = ev.cached(("ranked", graded_only, None, False), lambda: _ranked(ev, graded_only))
        ranked = ranked.regraded(gains) if gains else ranked
        return ranked.judged_only() if judged_only else ranked

    ranked = ev.cached(("ranked", graded_only, tuple(sorted(gains.items())) if gains else None, judged_only), view)
    return graded_kernel(TREC_EVAL.get(measure.NAME) or SPECS[measure.NAME], ranked, params)


_FAMILIES = {
    "ppref": _ppref_values,
    "pgc": _pgc_values,
    "compatibility": _compatibility_values,
    "trec_prefs": _trec_prefs_values,
    "trec_eval": _graded_values,
}
_FAMILY = {name: _FAMILIES[spec.family] for name, spec in (*SPECS.items(), *TREC_EVAL.items())}


BLOCK_DOCS = 1 << 16  # judged docs per block of queries: blocks are computed independently, on threads
_n_jobs: int | None = None


def set_n_jobs(n_jobs: int | None) -> None:
    """The number of threads that compute blocks of queries (``None``: every core). Each block's values are the
    same whatever the number of threads: blocks are cut by judged docs, not by threads."""
    global _n_jobs
    if n_jobs is not None and (not isinstance(n_jobs, int) or n_jobs < 1):
        raise InputError(f"n_jobs must be a positive integer or None (every core), not {n_jobs!r}")
    _n_jobs = n_jobs


def n_jobs() -> int:
    """The number of threads :func:`set_n_jobs` asked for, or every core the process may use."""
    if _n_jobs is not None:
        return _n_jobs
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _closes(measure) -> bool:
    """The measure counts the pairs of the judgments' transitive closure (the ppref family's default)."""
    return _FAMILY[measure.NAME] is _ppref_values and bool(measure["transitive"])


def query_blocks(judgments: Judgments, queries: np.ndarray) -> list[np.ndarray]:
    """``queries`` cut into consecutive blocks of about ``BLOCK_DOCS`` judged docs (a query is never split)."""
    ends = np.cumsum(np.diff(judgments.doc_offsets)[queries])
    cuts = np.searchsorted(ends, np.arange(BLOCK_DOCS, ends[-1] if len(ends) else 0, BLOCK_DOCS), "left") + 1
    return [block for block in np.split(queries, np.unique(cuts)) if len(block)]


def evaluate_blocks(
    measures, judgments: Judgments, ranking: Ranking, queries: np.ndarray, doc_rank: np.ndarray
) -> list[np.ndarray]:
    """Per measure, its value for each of ``queries``: computed block by block (:func:`query_blocks`), the first
    block alone (it fills the caches the blocks share), the rest on :func:`n_jobs` threads (numpy and Arrow
    release the GIL). ``doc_rank``: the rank of every judged doc in the run
    (:func:`~ir_pref_measures.model.coverage.judged_ranks`), which the caller looked up with its checks."""
    run = _RunInputs(queries, doc_rank)

    def block_values(block: np.ndarray) -> list[np.ndarray]:
        evaluation = _Evaluation(judgments, ranking, block, run)
        return [np.asarray(_FAMILY[measure.NAME](measure, evaluation), dtype=np.float64) for measure in measures]

    blocks = query_blocks(judgments, queries)
    if not blocks:
        return [np.zeros(0) for _ in measures]
    if any(_closes(measure) for measure in measures):
        warn_collapsed(judgments)
    parts = [block_values(blocks[0])]
    if len(blocks) > 1:
        with ThreadPoolExecutor(max_workers=min(n_jobs(), len(blocks) - 1)) as pool:
            parts += pool.map(block_values, blocks[1:])
    return [np.concatenate([part[m] for part in parts]) for m in range(len(measures))]


def run_query_values(
    measures, judgments: Judgments, ranking: Ranking, doc_rank: np.ndarray
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The judged queries the run holds (their indices in ``judgments.query_ids``) and, per measure of the
    catalog, its value for each of them (``doc_rank``: as :func:`evaluate_blocks` takes it)."""
    queries = np.flatnonzero(ranking.query_index(judgments.query_ids) >= 0)
    return queries, evaluate_blocks(measures, judgments, ranking, queries, doc_rank)


def evaluate(measures, run, *, judgments=None, qrels=None) -> list:
    """Per-query metrics (ir_measures ``Metric``) of ``measures``, ours and ir_measures', sorted by query id, then
    in the order of ``measures``: the same list whatever the order of the input.

    ``run``: a :class:`Ranking`, or any run source :func:`~ir_pref_measures.loading.sources.ranking` reads.
    ``judgments``: a :class:`Judgments`, or any judgment source (default: ``qrels``). Ours are computed here for
    every judged query (one the run lacks gets the measure's default, as in ir_measures). ir_measures' measures
    need graded docs with integer grades within :data:`~ir_pref_measures.model.checks.GRADE_LIMIT` (as
    pytrec_eval; else an :class:`InputError` naming those measures, before anything is computed), and are
    evaluated on the queries with a graded doc. Those of trec_eval
    (:func:`~ir_pref_measures.measures.catalog.graded_spec`) are computed here, on the graded docs, as ir_measures
    would (the same queries, the same defaults); the others by ir_measures, on a qrels table of the graded docs
    (``qrels`` itself when both are given). Both see the run's ranks rather than its scores: every measure sees the
    one order (score descending as float64, then doc id descending), where pytrec_eval alone would compare scores
    as 32-bit floats."""
    from ir_pref_measures.loading import sources

    given = judgments if judgments is not None else qrels
    judgments = given if isinstance(given, Judgments) else sources.judgments(given)
    table = _graded_table(measures, judgments, None if given is qrels else qrels)
    ranking = sources.ranking(run)
    return _metrics(measures, ranking, judgments, table, judged_ranks(ranking, judgments))


def run_metrics(measures, ranking: Ranking, judgments: Judgments) -> list:
    """:func:`evaluate` on a run and judgments read already: the same checks, the same list."""
    table = _graded_table(measures, judgments, None)
    return _metrics(measures, ranking, judgments, table, judged_ranks(ranking, judgments))


def checked_metrics(measures, ranking: Ranking, judgments: Judgments, doc_rank: np.ndarray) -> list:
    """:func:`run_metrics` on a run and judgments checked already
    (:func:`~ir_pref_measures.model.checks.check_run`, the ``eval`` command's), with ``doc_rank``, the rank of
    every judged doc (:func:`~ir_pref_measures.model.coverage.judged_ranks`) that the checks looked up."""
    return _metrics(measures, ranking, judgments, None, doc_rank)


def _graded_table(measures, judgments: Judgments, qrels):
    """The check of integer grades for ir_measures' measures, before anything is computed; the table of ``qrels``
    (given beside ``judgments``) that ir_measures then reads, else ``None``."""
    from ir_pref_measures.model import checks

    graded = [m for m in measures if not is_package_measure(m)]
    if qrels is not None and not all(map(is_catalog_measure, measures)):
        return checks.integer_qrels(graded, qrels)
    checks.check_integer_grades(graded, judgments)
    return None


def _metrics(measures, ranking: Ranking, judgments: Judgments, table, doc_rank: np.ndarray) -> list:
    """Ours by the kernels, ir_measures' others by ir_measures (on ``table``, else the graded judgments), sorted
    by query id, then in the order of ``measures`` (``doc_rank``: as :func:`catalog_values` takes it)."""
    catalog = [m for m in measures if is_catalog_measure(m)]
    metrics = _catalog_metrics(catalog, judgments, ranking, doc_rank) if catalog else []
    theirs = [m for m in measures if not is_catalog_measure(m)]
    if theirs:
        import ir_measures

        table = judgments.qrels() if table is None else table
        metrics += ir_measures.iter_calc(theirs, table, ranked_frame(ranking))
    position = {measure: i for i, measure in enumerate(measures)}
    metrics.sort(key=lambda metric: (metric.query_id, position[metric.measure]))
    return metrics


def is_catalog_measure(measure) -> bool:
    """A measure the engine computes itself (ours, or one of trec_eval's that the kernels take)."""
    return is_package_measure(measure) or graded_spec(measure) is not None


def reads_grades_only(measure) -> bool:
    """True for a measure of ir_measures (trec_eval's, computed by the kernels of
    :mod:`~ir_pref_measures.measures.graded`): it reads the graded docs alone, on the queries that have one."""
    return not is_package_measure(measure)


def catalog_values(
    measures, judgments: Judgments, ranking: Ranking, doc_rank: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per measure of ``measures`` (of the catalog: :func:`is_catalog_measure`), its judged query ids and its value
    for each: every judged query for ours, the queries with a graded doc for trec_eval's (:func:`reads_grades_only`),
    as ir_measures evaluates them; a query the run lacks gets the measure's default, as in ir_measures.
    ``doc_rank``: the rank of every judged doc in the run
    (:func:`~ir_pref_measures.model.coverage.judged_ranks`)."""
    queries, values = run_query_values(measures, judgments, ranking, doc_rank)
    graded = judgments.graded_queries
    every = []
    for measure, column in zip(measures, values, strict=True):
        full = np.full(len(judgments.query_ids), float(measure.DEFAULT))
        full[queries] = column
        if reads_grades_only(measure):
            every.append((judgments.query_ids[graded], full[graded]))
        else:
            every.append((judgments.query_ids, full))
    return every


def _catalog_metrics(measures, judgments: Judgments, ranking: Ranking, doc_rank: np.ndarray) -> list:
    """:func:`catalog_values` as ir_measures ``Metric`` s."""
    from ir_measures import Metric

    values = catalog_values(measures, judgments, ranking, doc_rank)
    return [
        metric
        for measure, (query_ids, column) in zip(measures, values, strict=True)
        for metric in map(Metric, query_ids.tolist(), itertools.repeat(measure), column.tolist())
    ]


def ranked_frame(ranking: Ranking):
    """``query_id, doc_id, score`` with ``score = -rank``: the run's order under the library's tie rule, exact in
    pytrec_eval's 32-bit floats (ranks up to 2^24)."""
    frame = ranking.frame()
    return frame.assign(score=-frame["rank"].to_numpy(np.float64))[["query_id", "doc_id", "score"]]
