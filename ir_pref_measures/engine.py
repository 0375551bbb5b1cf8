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
import warnings
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
from ir_pref_measures.measures.trec_groups import find_cycles, find_inconsistency
from ir_pref_measures.measures.trec_prefs import trec_prefs_values
from ir_pref_measures.model.judgments import JudgmentLines, Judgments
from ir_pref_measures.model.rankings import Ranking


class _RunInputs:
    """One run against one judgment set: the rank of every judged doc, and a cache for what every block of
    queries shares (guarded by a lock: blocks run on threads)."""

    def __init__(self, judgments: Judgments, ranking: Ranking, queries: np.ndarray):
        self.queries = queries  # every evaluated query of the run
        run_query = ranking.query_index(judgments.query_ids)  # per judged query, its index in the run
        self.doc_rank = ranking.rank_in(run_query[judgments.doc_query], judgments.doc_text)
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


def check_groups(judgments: Judgments) -> None:
    """:class:`InputError` naming the judgment group, the query and the docs where trec_eval would reject the
    judgments for a reason other than a cycle (a doc at two levels of a one-sub-group group, or at level 0 and
    above); checked once per judgment set. A cycle (a judge who prefers a to b, b to c and c to a) is no error
    here: the prefs_* measures evaluate that (query, group) on its condensation (:func:`_all_trec_prefs`)."""
    if "trec_check" in judgments._cache:
        return
    lines = judgments.lines
    columns = (judgments.doc_query[lines.doc], lines.group, lines.subgroup, lines.doc, lines.level)
    found = find_inconsistency(*columns, cycles=False)
    if found is not None:
        first, second = found.rows
        doc = judgments.doc_ids
        raise InputError(
            f"judgment group {judgments.group_names[lines.group[first]]!r}, query "
            f"{judgments.query_ids[judgments.doc_query[lines.doc[first]]]!r}: {found.message} "
            f"(docs {doc[lines.doc[first]]!r} and {doc[lines.doc[second]]!r}); trec_eval's prefs_* measures need "
            "each doc at one level per sub-group, and never at level 0 and above in one group",
            expected="consistent levels for the prefs_* measures (ppref@k, PGC and the others take any "
            "preferences; Judgments.group(name) evaluates one group)",
        )
    judgments._cache["trec_check"] = True


def trec_positions(ranking: Ranking, query_ids: np.ndarray, doc_rank: np.ndarray) -> np.ndarray:
    """Per judged doc (its query id, its rank under the library's tie rule), its 0-based position in the run
    under trec_eval's tie rule for preferences: score descending, then docno *ascending* (``inf``: not
    retrieved). Equal scores of a query form a block, whose order is reversed."""
    entry_query = np.repeat(np.arange(len(ranking.query_ids)), np.diff(ranking.offsets))
    scores = ranking.scores
    new_block = np.r_[True, (entry_query[1:] != entry_query[:-1]) | (scores[1:] != scores[:-1])]
    starts = np.flatnonzero(new_block)
    ends = np.r_[starts[1:], len(scores)]
    block = np.cumsum(new_block) - 1
    index = np.arange(len(scores))
    position = starts[block] + ends[block] - 1 - index - ranking.offsets[entry_query]
    out = np.full(len(doc_rank), np.inf)
    found = np.isfinite(doc_rank)
    run_query = ranking.query_index(query_ids[found])
    out[found] = position[ranking.offsets[run_query] + doc_rank[found].astype(np.int64) - 1]
    return out


def _trec_prefs_values(measure, ev: _Evaluation) -> np.ndarray:
    return ev.cached("trec_prefs", lambda: _all_trec_prefs(ev))[measure.NAME]


def _trec_rows(judgments: Judgments, queries: np.ndarray) -> tuple[JudgmentLines, np.ndarray]:
    """The judgment lines of ``queries`` and each line's position among them."""
    lines = judgments.lines
    position = np.full(len(judgments), -1, np.int64)
    position[queries] = np.arange(len(queries))
    rows = lines.take(np.flatnonzero(position[judgments.doc_query[lines.doc]] >= 0))
    return rows, position[judgments.doc_query[rows.doc]]


def _warn_cycles(judgments: Judgments, queries: np.ndarray) -> None:
    """One warning naming the (query, group) of ``queries`` whose preferences hold cycles: the prefs_* measures
    evaluate them on their condensation (:mod:`ir_pref_measures.measures.trec_groups`), where trec_eval aborts."""
    rows, query = _trec_rows(judgments, queries)
    cycles = find_cycles(query, rows.group, rows.subgroup, rows.doc, rows.level)
    if len(cycles.blocks):
        first = cycles.first[0]
        docs = judgments.doc_ids[rows.doc[cycles.first]]
        more = f" and {len(docs) - 3} more" if len(docs) > 3 else ""
        warnings.warn(
            f"prefs_*: {len(cycles.blocks)} (query, judgment group) hold preference cycles, which trec_eval rejects; "
            "each is evaluated on its condensation (the docs of a cycle tied within their group). The first: group "
            f"{judgments.group_names[rows.group[first]]!r}, query {judgments.query_ids[queries[query[first]]]!r}, "
            f"docs {', '.join(map(repr, docs[:3]))}{more}",
            stacklevel=2,
        )


def _all_trec_prefs(ev: _Evaluation) -> dict[str, np.ndarray]:
    """The 14 prefs_* measures of the block's queries (groups with cycles on their condensation; one warning
    per run says which, :func:`_warn_cycles`)."""
    judgments = ev.judgments
    check_groups(judgments)
    ev.shared("trec_cycles", lambda: _warn_cycles(judgments, ev.run.queries))
    rows, query = _trec_rows(judgments, ev.queries)
    doc_query_ids = judgments.query_ids[judgments.doc_query]
    rank = ev.shared("trec_rank", lambda: trec_positions(ev.ranking, doc_query_ids, ev.doc_rank))
    return trec_prefs_values(query, rows.group, rows.subgroup, rows.doc, rows.level, rank[rows.doc], len(ev.queries))


def _ranked(ev: _Evaluation) -> Ranked:
    """The judged docs of the block's queries with their rank and grade, and each query's number of retrieved docs."""
    judgments, queries = ev.judgments, ev.queries
    docs = judgments.docs_of(queries)
    query = np.searchsorted(queries, judgments.doc_query[docs])
    retrieved = np.diff(ev.ranking.offsets)[ev.ranking.query_index(judgments.query_ids[queries])]
    return Ranked.of(query, ev.doc_rank[docs], judgments.grades[docs], retrieved)


def _graded_values(measure, ev: _Evaluation) -> np.ndarray:
    """ir_measures' ``measure`` on the block's :func:`_ranked` docs, with its ``gains`` and ``judged_only``."""
    params = measure.params
    gains, judged_only = params.get("gains"), bool(params.get("judged_only"))

    def view() -> Ranked:
        ranked = ev.cached(("ranked", None, False), lambda: _ranked(ev))
        ranked = ranked.regraded(gains) if gains else ranked
        return ranked.judged_only() if judged_only else ranked

    ranked = ev.cached(("ranked", tuple(sorted(gains.items())) if gains else None, judged_only), view)
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


def query_blocks(judgments: Judgments, queries: np.ndarray) -> list[np.ndarray]:
    """``queries`` cut into consecutive blocks of about ``BLOCK_DOCS`` judged docs (a query is never split)."""
    ends = np.cumsum(np.diff(judgments.doc_offsets)[queries])
    cuts = np.searchsorted(ends, np.arange(BLOCK_DOCS, ends[-1] if len(ends) else 0, BLOCK_DOCS), "left") + 1
    return [block for block in np.split(queries, np.unique(cuts)) if len(block)]


def evaluate_blocks(measures, judgments: Judgments, ranking: Ranking, queries: np.ndarray) -> list[np.ndarray]:
    """Per measure, its value for each of ``queries``: computed block by block (:func:`query_blocks`), the first
    block alone (it fills the caches the blocks share), the rest on :func:`n_jobs` threads (numpy and Arrow
    release the GIL)."""
    run = _RunInputs(judgments, ranking, queries)

    def block_values(block: np.ndarray) -> list[np.ndarray]:
        evaluation = _Evaluation(judgments, ranking, block, run)
        return [np.asarray(_FAMILY[measure.NAME](measure, evaluation), dtype=np.float64) for measure in measures]

    blocks = query_blocks(judgments, queries)
    if not blocks:
        return [np.zeros(0) for _ in measures]
    parts = [block_values(blocks[0])]
    if len(blocks) > 1:
        with ThreadPoolExecutor(max_workers=min(n_jobs(), len(blocks) - 1)) as pool:
            parts += pool.map(block_values, blocks[1:])
    return [np.concatenate([part[m] for part in parts]) for m in range(len(measures))]


def run_query_values(measures, judgments: Judgments, ranking: Ranking) -> tuple[np.ndarray, list[np.ndarray]]:
    """The judged queries the run holds (their indices in ``judgments.query_ids``) and, per measure of the
    catalog, its value for each of them."""
    queries = np.flatnonzero(ranking.query_index(judgments.query_ids) >= 0)
    return queries, evaluate_blocks(measures, judgments, ranking, queries)


def check_overlap(ranking: Ranking, judgments: Judgments, name: str = "the run") -> None:
    """:class:`InputError` when ``ranking`` has no query in common with ``judgments`` (a wrong year or collection),
    naming a few ids of each."""
    if not len(judgments.query_ids) or (ranking.query_index(judgments.query_ids) < 0).all():
        run, judged = ranking.query_ids.astype(str), judgments.query_ids.astype(str)
        raise InputError(
            f"{name} has no query in common with the judgments (run: {len(run)} queries, e.g. {examples(run)}; "
            f"judged: {len(judged)}, e.g. {examples(judged)})"
        )


def examples(ids, n: int = 3) -> str:
    """The first ``n`` of ``ids`` in string order, for a message."""
    return ", ".join(sorted(set(map(str, ids)))[:n]) or "none"


def evaluate(measures, run, *, qrels=None, judgments: Judgments | None = None) -> list:
    """Per-query metrics (ir_measures ``Metric``) of ``measures``, ours and ir_measures', sorted by query id, then
    in the order of ``measures``: the same list whatever the order of the input.

    ``run``: a :class:`Ranking`, or any run source :func:`~ir_pref_measures.loading.sources.ranking` reads. Ours
    are computed here on ``judgments`` (default: derived from ``qrels``) for every judged query (one the run lacks
    gets the measure's default, as in ir_measures).
    ir_measures' measures need ``qrels`` with integer grades within :data:`GRADE_LIMIT` (as pytrec_eval; else an
    :class:`InputError` naming those measures, before anything is computed). Those of trec_eval
    (:func:`~ir_pref_measures.measures.catalog.graded_spec`) are computed here, on the judgments of ``qrels``, as
    ir_measures would (the same queries, the same defaults); the others by ir_measures. Both see the run's ranks
    rather than its scores: every measure sees the one order (score descending as float64, then doc id descending),
    where pytrec_eval alone would compare scores as 32-bit floats."""
    from ir_pref_measures.loading import sources

    theirs = [m for m in measures if not is_catalog_measure(m)]
    if any(not is_package_measure(m) for m in measures):
        qrels = integer_qrels([m for m in measures if not is_package_measure(m)], qrels)
    ranking = sources.ranking(run)
    metrics = []
    for group, judged in catalog_sets(measures, judgments, qrels):
        metrics += _catalog_metrics(group, judged, ranking)
    if theirs:
        import ir_measures

        metrics += ir_measures.iter_calc(theirs, qrels, ranked_frame(ranking))
    position = {measure: i for i, measure in enumerate(measures)}
    metrics.sort(key=lambda metric: (metric.query_id, position[metric.measure]))
    return metrics


def is_catalog_measure(measure) -> bool:
    """A measure the engine computes itself (ours, or one of trec_eval's that the kernels take)."""
    return is_package_measure(measure) or graded_spec(measure) is not None


def catalog_values(measures, judgments: Judgments, ranking: Ranking) -> tuple[np.ndarray, list[np.ndarray]]:
    """The values of ``measures`` (of the catalog: :func:`is_catalog_measure`) for every judged query
    (``judgments.query_ids``), one array per measure; a query the run lacks gets the measure's default, as in
    ir_measures. trec_eval's measures read ``judgments``' grades (:func:`catalog_sets`)."""
    queries, values = run_query_values(measures, judgments, ranking)
    every = []
    for measure, column in zip(measures, values, strict=True):
        full = np.full(len(judgments.query_ids), float(measure.DEFAULT))
        full[queries] = column
        every.append(full)
    return judgments.query_ids, every


def catalog_sets(measures, judgments: Judgments | None, qrels) -> list[tuple[list, Judgments]]:
    """The measures of the catalog among ``measures`` (the others are left to ir_measures), with the judgments
    each reads: ours on ``judgments`` (default: those of ``qrels``), trec_eval's on the judgments of graded
    ``qrels`` (integer grades: :func:`integer_qrels`, its error naming every measure of ir_measures). One set
    for both when they are the same judgments (preferences derived from these qrels alone), so that a run's docs
    are looked up once."""
    from ir_pref_measures.loading import sources

    ours = [m for m in measures if is_package_measure(m)]
    graded = [m for m in measures if not is_package_measure(m) and graded_spec(m) is not None]
    if not graded:
        return [(ours, sources.judgments(qrels) if judgments is None else judgments)] if ours else []
    graded_set = sources.judgments(integer_qrels([m for m in measures if not is_package_measure(m)], qrels))
    if not ours:
        return [(graded, graded_set)]
    if judgments is None or judgments.same_as(graded_set):
        return [(ours + graded, graded_set if judgments is None else judgments)]
    return [(ours, judgments), (graded, graded_set)]


def _catalog_metrics(measures, judgments: Judgments, ranking: Ranking) -> list:
    """:func:`catalog_values` as ir_measures ``Metric`` s."""
    from ir_measures import Metric

    query_ids, values = catalog_values(measures, judgments, ranking)
    return [
        metric
        for measure, column in zip(measures, values, strict=True)
        for metric in map(Metric, query_ids.tolist(), itertools.repeat(measure), column.tolist())
    ]


def ranked_frame(ranking: Ranking):
    """``query_id, doc_id, score`` with ``score = -rank``: the run's order under the library's tie rule, exact in
    pytrec_eval's 32-bit floats (ranks up to 2^24)."""
    frame = ranking.frame()
    return frame.assign(score=-frame["rank"].to_numpy(np.float64))[["query_id", "doc_id", "score"]]


# the largest |grade| for pytrec_eval: it allocates per grade level (8 bytes each) up to the largest
GRADE_LIMIT = 1_000_000


def integer_qrels(measures, qrels):
    """``qrels`` with integer grades within +-:data:`GRADE_LIMIT`, as pytrec_eval (ir_measures' provider of the usual
    measures) computes them exactly."""
    from ir_pref_measures.parsing import tables

    names = ", ".join(str(m) for m in measures)
    if qrels is None:
        raise InputError(f"{names} need graded qrels, but only preference judgments were given")
    qrels = tables.qrels(qrels)
    grades = qrels["relevance"].to_numpy()
    if grades.dtype.kind in "fiu" and len(grades):
        bad = np.flatnonzero((grades != np.round(grades)) | (np.abs(grades) > GRADE_LIMIT))
        if len(bad):
            row = qrels.iloc[bad[0]]
            raise InputError(
                f"{names} need integer grades between -{GRADE_LIMIT:,} and {GRADE_LIMIT:,} (ir_measures computes them "
                f"with pytrec_eval), but doc {row['doc_id']!r} of query {row['query_id']!r} has grade "
                f"{grades[bad[0]].item()!r}",
                expected="such grades, or only preference measures (ppref@k, APpref, PGC, ...), which take any",
            )
        qrels = qrels.assign(relevance=grades.astype(np.int64))
    return qrels
