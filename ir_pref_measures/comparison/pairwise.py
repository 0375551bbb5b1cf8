"""The compare API: pairwise preferences between runs (RPP, lexicographic precision and recall) and
metric differences, per query and averaged, as a pandas DataFrame.

Conventions (those of ``pref_eval``, Diaz): a query counts when it has a
relevant doc (grade > 0 after ``binary`` / ``floor``); a query missing from a run is that run's worst case
(no relevant doc retrieved); queries only in runs are ignored; every value is "run i vs run j", positive
when run i is better; the ``all`` rows hold the mean over queries of the per-query values.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ir_pref_measures.errors import InputError
from ir_pref_measures.loading import sources
from ir_pref_measures.loading.sources import ranking as as_ranking
from ir_pref_measures.measures import pairwise as kernels
from ir_pref_measures.measures.catalog import DEFAULT_PAIRWISE as DEFAULT_MEASURES
from ir_pref_measures.measures.names import PairwiseMeasure, pairwise_measures
from ir_pref_measures.model.checks import check_coverage
from ir_pref_measures.model.coverage import depths, judged_ranks, warn_depths
from ir_pref_measures.model.ids import arrow, as_text, ranges, unique_sorted
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.rankings import Ranking
from ir_pref_measures.parsing.formats import QRELS, read_columns
from ir_pref_measures.parsing.names import run_name

if TYPE_CHECKING:  # pandas makes the returned table only
    import pandas as pd

SUMMARY = "all"
PAIR_CHUNK = 1 << 18  # run pairs x relevant docs per chunk of the preference kernels
READERS = 2  # runs read and ranked at once (memory: one run each)


@dataclass(frozen=True)
class RelevantDocs:
    """The relevant docs of the evaluated queries, a view of the graded judgments for the pairwise kernels:
    query ``query_ids[q]`` owns columns ``starts[q]:starts[q+1]``, grades sorted descending (ties by doc id)
    within a query; ``judgments``: those they come from (every judged doc, for :func:`warn_unjudged`), and ``rows``
    the judged doc (index into ``judgments.doc_text``) of each column."""

    query_ids: np.ndarray
    starts: np.ndarray
    doc_ids: pa.Array
    grades: np.ndarray
    judgments: Judgments | None = None
    rows: np.ndarray | None = None


def compare_grades(grades: np.ndarray, binary: float | None = None, floor: float | None = None) -> np.ndarray:
    """Grades as ``compare`` reads them: ``binary=G`` makes a grade 1 if it is >= G, else 0; then ``floor=F``
    makes it 0 if it is < F. A doc is relevant when its grade is > 0 (NaN, no grade, never is)."""
    grades = np.asarray(grades, dtype=np.float64)
    if binary is not None:
        grades = np.where(grades >= binary, 1.0, 0.0)
    if floor is not None:
        grades = np.where(grades < floor, 0.0, grades)
    return grades


def relevant_docs(
    judgments: Judgments,
    *,
    binary: float | None = None,
    floor: float | None = None,
    query_order: Sequence[str] | None = None,
) -> RelevantDocs:
    """The relevant docs of the graded ``judgments`` (grades read by :func:`compare_grades`); queries without a
    relevant doc are dropped. Queries come in query id order, or in ``query_order`` (``pref_eval``'s order of
    first relevant line in the qrels file)."""
    if len(judgments.graded) and not judgments.graded.any():
        raise InputError(
            "the pairwise measures (rpp, lexiprecision, lexirecall, metric differences) need graded judgments "
            "(qrels), and these judgments hold only preferences",
            expected="graded qrels, alone or with the preferences (load_combined(qrels, prefs); -R QRELS); to "
            "compare runs on preferences alone, a per-run preference measure (ppref@k, APpref, PGC) in Experiment, "
            "whose paired tests compare each run with a baseline",
        )
    grades = compare_grades(judgments.grades, binary, floor)
    kept = np.flatnonzero(grades > 0)
    if not len(kept):
        raise InputError("no query has a relevant document (grade > 0)", expected="qrels with positive grades")
    query = judgments.doc_query[kept]
    present = unique_sorted(query)
    if query_order is not None:
        rank = {str(query_id): i for i, query_id in enumerate(query_order)}
        present = present[np.argsort([rank[str(q)] for q in judgments.query_ids[present].tolist()], kind="stable")]
    position = np.empty(len(judgments), dtype=np.int64)
    position[present] = np.arange(len(present))
    order = np.lexsort((-grades[kept], position[query]))  # stable: equal grades keep doc id order
    return RelevantDocs(
        query_ids=judgments.query_ids[present],
        starts=np.searchsorted(position[query][order], np.arange(len(present))),
        doc_ids=judgments.doc_text.take(arrow(kept[order])),
        grades=grades[kept][order],
        judgments=judgments,
        rows=kept[order],
    )


def relevant_in_file_order(qrels, *, binary: float | None = None, floor: float | None = None) -> RelevantDocs:
    """``pref_eval``'s reading of QRELS (the drop-in's and the Dask comparison's): a doc's grade is the largest
    over its lines, queries in the order of their first relevant line (grades read by :func:`compare_grades`);
    the union ``A+B`` of judgment sources (their grades), queries in id order."""
    if sources.is_union(qrels):
        return relevant_docs(sources.judgments(qrels, repeated="max"), binary=binary, floor=floor)
    location = sources.resolve(qrels, "qrels") if isinstance(qrels, str | os.PathLike) else None
    if location is not None and location.dataset is None and location.format in (None, "qrels"):
        columns = read_columns(location.file, QRELS)  # a file: its columns, no table
        judgments = Judgments.from_qrels(columns, repeated="max")
        query, grade = columns.fields["query_id"], columns.fields["relevance"]
    else:
        table = sources.qrels_table(qrels, repeated="keep")
        judgments = Judgments.from_qrels(table, checked=True, repeated="max")
        query, grade = as_text(table["query_id"]), table["relevance"].to_numpy()
    relevant = arrow(compare_grades(grade, binary, floor) > 0)
    order = pc.unique(query.filter(relevant)).to_pylist()  # in the order of first appearance
    return relevant_docs(judgments, binary=binary, floor=floor, query_order=order)


def relevant_ranks(
    ranking: Ranking,
    relevant: RelevantDocs,
    topk: int | None = None,
    name: str = "",
    judged: np.ndarray | None = None,
) -> np.ndarray:
    """Rank of every relevant doc in ``ranking`` (``inf`` = not retrieved, or below ``topk``); ``judged``: the ranks
    of every doc of ``relevant.judgments`` (:func:`~ir_pref_measures.model.coverage.judged_ranks`), when the caller
    has them: the relevant docs' are picked from them (``relevant.rows``)."""
    index = ranking.query_index(relevant.query_ids)
    if not (index >= 0).any():
        raise InputError(f"run {name!r} has no query in common with the judged queries")
    if judged is not None and relevant.rows is not None:
        ranks = judged[relevant.rows]
    else:
        ranks = ranking.rank_in(index[kernels.segment_ids(relevant.starts, len(relevant.doc_ids))], relevant.doc_ids)
    if topk is not None:
        ranks[ranks > topk] = np.inf
    return ranks


def rpp_levels(relevant: RelevantDocs, graded: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Columns, level starts and each query's first level for RPP.

    Binary RPP has one level per query: all its relevant docs. Graded RPP has one level per distinct grade
    g of a query: the docs with grade >= g (a prefix of the query's columns, as grades are sorted).
    """
    width = len(relevant.doc_ids)
    if not graded:
        return np.arange(width), relevant.starts, np.arange(len(relevant.starts))
    query = kernels.segment_ids(relevant.starts, width)
    last_of_grade = np.append((relevant.grades[1:] != relevant.grades[:-1]) | (query[1:] != query[:-1]), True)
    ends = np.flatnonzero(last_of_grade) + 1  # level size = end - query start
    level_query = query[ends - 1]
    sizes = ends - relevant.starts[level_query]
    level_starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return (
        ranges(relevant.starts[level_query], ends),
        level_starts,
        np.searchsorted(level_query, np.arange(len(relevant.starts))),
    )


@dataclass(frozen=True)
class Comparison:
    """Per-query values: ``pair_values[name][p, q]`` for pair ``(run_i[p], run_j[p])`` (indices into
    ``runs``) and ``run_values[name][r, q]`` for the metrics of run r."""

    runs: list[str]
    query_ids: np.ndarray
    run_i: np.ndarray
    run_j: np.ndarray
    measures: list[PairwiseMeasure]
    pair_values: dict[str, np.ndarray]
    run_values: dict[str, np.ndarray]


def _preferences(
    measures: list[PairwiseMeasure],
    ranks: np.ndarray,
    positions: np.ndarray,
    relevant: RelevantDocs,
    pairs,
    graded_rpp: bool,
) -> dict[str, np.ndarray]:
    """Pairwise preference values, computed over chunks of run pairs (memory: chunk x relevant docs)."""
    out = {}
    run_i, run_j = pairs
    rpp = [m for m in measures if m.family in kernels.RPP_WEIGHTS]
    if rpp:
        columns, level_starts, query_levels = rpp_levels(relevant, graded_rpp)
        # binary RPP: one level per query, all its relevant docs, in the order of the positions
        levels = kernels.sort_segments(ranks[:, columns], level_starts) if graded_rpp else positions
        sizes = kernels.segment_sizes(level_starts, len(columns)).astype(np.float64)
        omega = {m.family: kernels.rpp_weights(m.family, level_starts, len(columns)) for m in rpp}
        # sum_g m_g RPP_g / sum_g m_g with RPP_g = U_g / Z_g: factor m_g / Z_g is exactly 1 for rpp
        factor = {f: sizes / np.add.reduceat(w, level_starts) for f, w in omega.items()}
        total = np.add.reduceat(sizes, query_levels)
    n_queries = len(relevant.query_ids)
    for m in measures:
        if m.kind == "preference":
            dtype = np.int8 if m.family in ("lexirecall", "lexiprecision") else np.float64
            out[m.name] = np.empty((len(run_i), n_queries), dtype=dtype)
    chunk = max(1, PAIR_CHUNK // max(1, ranks.shape[1]))
    for lo in range(0, len(run_i), chunk):
        i, j = run_i[lo : lo + chunk], run_j[lo : lo + chunk]
        a, b = positions[i], positions[j]
        if rpp:
            la, lb = levels[i], levels[j]
            ahead, behind = la < lb, la > lb  # shared by the three weightings
        for m in measures:
            if m.kind != "preference":
                continue
            if m.family in kernels.RPP_WEIGHTS:
                sums = kernels.rpp_sums(ahead, behind, level_starts, omega[m.family]) * factor[m.family]
                value = np.add.reduceat(sums, query_levels, axis=1) / total
            elif m.family == "lexiprecision":
                value = kernels.lexiprecision(a, b, relevant.starts)
            elif m.family == "rrlexiprecision":
                value = kernels.rrlexiprecision(a, b, relevant.starts)
            else:
                value = kernels.lexirecall(a, b, relevant.starts)
            out[m.name][lo : lo + chunk] = value
    return out


def comparison(
    rankings: Mapping[str, object],
    relevant: RelevantDocs | Callable[[], RelevantDocs],
    measures: list[PairwiseMeasure],
    *,
    baseline: str | None = None,
    topk: int | None = None,
    graded_rpp: bool = True,
    warn: bool = True,
) -> Comparison:
    """Per-query pairwise values of ``measures`` for all pairs i < j of ``rankings`` (in their order),
    or every run against ``baseline`` (run i = the run, run j = the baseline). Runs in any form
    :func:`as_ranking` takes are read ``READERS`` at a time: only the ranks of the relevant docs are kept.
    ``relevant`` may be a function that reads them: it then runs while the first runs are read (an error
    of its own is raised first, as when read before). ``warn``: the warnings of
    :mod:`~ir_pref_measures.model.coverage` (a run none of whose retrieved docs is judged; without ``topk``, runs of
    different depths), which a caller that gave them already turns off."""
    names = list(rankings)
    pairs = run_pairs(names, baseline)
    judged: Future[RelevantDocs] = Future()
    keep = any(m.kind == "similarity" for m in measures)  # RBO compares whole runs: they are kept
    kept: dict[str, Ranking] = {}
    depth: dict[str, int] = {}

    def read(name: str) -> np.ndarray:
        run = as_ranking(rankings[name])
        depth[name] = depths({name: run})[name]
        relevant = judged.result()
        every = None  # the ranks of every judged doc, which the warning needs and the relevant docs' come from
        if warn and relevant.judgments is not None:
            every = judged_ranks(run, relevant.judgments)
            check_coverage(run, relevant.judgments, name, every, f"run {name!r}")
        if keep:
            kept[name] = run
        return relevant_ranks(run, relevant, topk, name, every)

    with ThreadPoolExecutor(max_workers=READERS) as pool:  # Arrow's reader and sorts release the GIL
        ranked = pool.map(read, names)
        try:
            judged.set_result(relevant() if callable(relevant) else relevant)
        except BaseException as error:
            judged.set_exception(error)
            pool.shutdown(cancel_futures=True)  # the runs not yet read are not read
            raise
        ranks = np.vstack(list(ranked))
    if warn and topk is None:
        warn_depths(depth)
    runs = [kept.get(n) for n in names]
    return comparison_of_ranks(names, ranks, judged.result(), measures, pairs, runs, topk=topk, graded_rpp=graded_rpp)


def run_pairs(names: list[str], baseline: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of runs compared (indices into ``names``): all pairs i < j, or each run i against ``baseline``
    (j)."""
    if len(names) < 2:
        raise InputError(f"need at least two runs to compare, got {len(names)}")
    if baseline is None:
        return np.triu_indices(len(names), k=1)
    if baseline not in names:
        raise InputError(f"baseline {baseline!r} is not one of the runs {names}")
    at = names.index(baseline)
    run_i = np.array([r for r in range(len(names)) if r != at], dtype=np.int64)
    return run_i, np.full(len(run_i), at, dtype=np.int64)


def comparison_of_ranks(
    names: list[str],
    ranks: np.ndarray,
    relevant: RelevantDocs,
    measures: list[PairwiseMeasure],
    pairs: tuple[np.ndarray, np.ndarray],
    runs: list,
    *,
    topk: int | None = None,
    graded_rpp: bool = True,
) -> Comparison:
    """:func:`comparison` once the runs are read: ``ranks`` (runs x relevant docs, :func:`relevant_ranks` of each
    run of ``names``) and, for the RBO measures, the ``runs`` themselves (``None`` where not needed)."""
    run_i, run_j = pairs
    order = kernels.segment_order(ranks, relevant.starts)
    positions = np.take_along_axis(ranks, order, axis=1)
    grades = relevant.grades[order]  # the grade of the doc at each position
    run_values = {m.name: _kernel(m)(positions, grades, relevant.starts, m) for m in measures if m.is_metric}
    pair_values = _preferences(measures, ranks, positions, relevant, pairs, graded_rpp)
    pair_values |= {name: values[run_i] - values[run_j] for name, values in run_values.items()}
    pair_values |= _rbo_values(measures, runs, relevant.query_ids, pairs, topk)
    return Comparison(
        runs=names,
        query_ids=relevant.query_ids,
        run_i=run_i,
        run_j=run_j,
        measures=measures,
        pair_values={m.name: pair_values[m.name] for m in measures},
        run_values=run_values,
    )


def _kernel(measure: PairwiseMeasure) -> Callable[..., np.ndarray]:
    """The kernel of a metric's per-run values (the other kinds of measure have none)."""
    assert measure.spec.kernel is not None, f"{measure.name} is a metric, computed by its kernel"
    return measure.spec.kernel


def _rbo_values(
    measures: list[PairwiseMeasure], runs: list, query_ids: np.ndarray, pairs, topk
) -> dict[str, np.ndarray]:
    """Tie-aware RBO (:func:`.rbo.rbo_between`) of each pair of runs on each query; one kernel call per pair
    and (ties, p, depth), whose four scores serve every measure that differs only in its score."""
    out: dict[str, np.ndarray] = {}
    wanted = [m for m in measures if m.kind == "similarity"]
    if not wanted:
        return out
    from ir_pref_measures.comparison.rbo import rbo_between  # its kernels are imported when an RBO is asked for

    for options in dict.fromkeys((m.ties, m.persistence, m.depth) for m in wanted):
        ties, p, depth = options
        assert ties is not None and p is not None, "an RBO measure has its ties and persistence"
        cut = min(depth, topk or np.inf)
        values = [
            rbo_between(runs[i], runs[j], query_ids, p, ties, None if np.isinf(cut) else int(cut))
            for i, j in zip(*pairs, strict=True)
        ]
        for m in wanted:
            if (m.ties, m.persistence, m.depth) == options:
                assert m.score is not None, "an RBO measure has its score"
                out[m.name] = np.array([v[m.score] for v in values]).reshape(len(values), len(query_ids))
    return out


def load_runs(runs, name: Callable[[str | os.PathLike], str] = run_name) -> Mapping[str, object]:
    """Runs by name from a mapping name -> run (any form :func:`as_ranking` takes) or a sequence of paths, each
    named by ``name``: the one rule of the library (:func:`~ir_pref_measures.parsing.names.run_name`: the file name
    without folder, ``input.``, ``.gz`` and extension), or pref_eval's (:func:`~ir_pref_measures.parsing.names.
    pref_eval_id`, the extension kept), which the ``compare`` drop-in prints. Two paths with one name are an
    error."""
    if isinstance(runs, Mapping):
        return {str(key): run for key, run in runs.items()}
    if isinstance(runs, str | os.PathLike):
        raise InputError("runs must be a mapping name -> run or a list of paths, not a single path")
    named: dict[str, str | os.PathLike] = {}
    for path in runs:
        key = name(path)
        if key in named:
            raise InputError(
                f"runs {os.fspath(named[key])!r} and {os.fspath(path)!r} both get the run id {key!r}",
                expected="distinct file names (after removing 'input.', '.gz' and the extension)",
            )
        named[key] = path
    return named


def to_frame(result: Comparison, *, perquery: bool = False, summary: bool = True) -> pd.DataFrame:
    """One row per (query, run i, run j) (with ``perquery``), then per pair the mean over queries
    (``query_id = "all"``, with ``summary``); one column per measure."""
    import pandas as pd

    names = np.asarray(result.runs, dtype=object)
    n_pairs, n_queries = len(result.run_i), len(result.query_ids)
    parts = []
    if perquery:
        columns = {
            "query_id": np.repeat(result.query_ids, n_pairs),
            "run_i": np.tile(names[result.run_i], n_queries),
            "run_j": np.tile(names[result.run_j], n_queries),
        }
        columns |= {name: values.T.ravel() for name, values in result.pair_values.items()}
        parts.append(pd.DataFrame(columns))
    if summary:
        columns = {"query_id": np.full(n_pairs, SUMMARY, dtype=object), "run_i": names[result.run_i]}
        columns |= {"run_j": names[result.run_j]}
        columns |= {name: values.mean(axis=1) for name, values in result.pair_values.items()}
        parts.append(pd.DataFrame(columns))
    if not parts:
        raise InputError("nothing to return: perquery=False and summary=False")
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]


def compare(
    runs,
    qrels,
    measures: Sequence[str] = DEFAULT_MEASURES,
    baseline: str | None = None,
    perquery: bool = False,
    binary: float | None = None,
    floor: float | None = None,
    topk: int | None = None,
    *,
    graded_rpp: bool = True,
) -> pd.DataFrame:
    """Compare runs pairwise on ``qrels``: a DataFrame ``query_id, run_i, run_j, <measure>...``.

    ``runs``: a mapping name -> run (a path, a DataFrame, a dict of dicts, ir_measures' ScoredDoc
    iterable, a :class:`Ranking`) or a list of run file paths (named by the library's one rule, :func:`load_runs`).
    ``qrels``: a path, an ir_datasets ID, or any form ir_measures accepts. ``measures``: names among
    ``rpp invrpp dcgrpp lexirecall lexiprecision rrlexiprecision`` (pairwise preferences) and ``ap ap@k
    rbp rbp@g rbp@g,k rr rr@k ndcg ndcg@k rp p@k r@k`` (differences M(run i) - M(run j)), and
    ``rbo[_w|_a|_b][_ext|_min|_max|_res][@p[,depth]]``: the tie-aware RBO of the two runs on each query (a
    symmetric similarity, not a preference; :mod:`ir_pref_measures.comparison.rbo`).
    Every value is run i vs run j, positive when run i is better; pairs are i < j in the order of
    ``runs``, or every run against ``baseline``. Rows ``query_id="all"`` hold the mean over queries;
    per-query rows come first with ``perquery=True``. ``binary=G``: grade := 1 if >= G else 0;
    ``floor=F``: grade := 0 if < F; ``topk=K``: rankings cut at K. ``graded_rpp`` (default): RPP averaged
    over the grade thresholds of each query, weighted by the number of docs at or above each (Diaz and
    Ferraro 2022); ``False``: RPP on binary relevance (grade > 0), as ``pref_eval`` computes it today.
    """

    def relevant() -> RelevantDocs:  # read while the first runs are (comparison)
        return relevant_docs(sources.judgments(qrels, format="qrels", repeated="max"), binary=binary, floor=floor)

    result = comparison(
        load_runs(runs), relevant, pairwise_measures(measures), baseline=baseline, topk=topk, graded_rpp=graded_rpp
    )
    return to_frame(result, perquery=perquery)
