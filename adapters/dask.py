"""Evaluation and comparison on a Dask cluster (the optional extra ``dask``): partition by query, run the
local code on every partition, combine the per-query values.

Every input (a run, judgments, qrels) becomes a ``dask.dataframe`` read on the workers: a TREC file, a glob
of many files, a list of files, Parquet, an ir_datasets ID, or a dask or pandas DataFrame. All of them are
then indexed by ``query_id`` with the *same* divisions (ranges of equally many judged query ids), so that
partition ``k`` of every input holds the same query ids, a query never straddles two partitions, and
partitions come in query id order. Each partition is evaluated by the local code path:
:func:`ir_pref_measures.adapters.ir_measures.evaluate` (ir_measures' ``iter_calc`` with our provider and
pytrec_eval) and :func:`ir_pref_measures.compare.evaluate`. As queries are independent, per-query values
are bit for bit those of the local path whatever the number of partitions; means are taken on one worker in
query id order, with the measure's own ir_measures aggregator (``evaluate``) or numpy's mean over the
query-ordered values (``compare``), as the local path takes them.

Dask: M. Rocklin. Dask: parallel computation with blocked algorithms and task scheduling. SciPy 2015.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import glob
import os
import socket
import threading
import time
import warnings
from collections.abc import Mapping, Sequence

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
from ir_pref_measures.adapters import ir_measures as provider

from ir_pref_measures import formats, sources, tables
from ir_pref_measures.compare import (
    DEFAULT_MEASURES,
    SUMMARY,
    Comparison,
    load_runs,
    parse_measures,
    relevant_docs,
    to_frame,
)
from ir_pref_measures.compare import (
    evaluate as compare_runs,
)
from ir_pref_measures.errors import InputError
from ir_pref_measures.judgments import Judgments, combine
from ir_pref_measures.pref_eval import relevant_in_file_order
from ir_pref_measures.rankings import Ranking

QRELS = "qrels"
PREFERENCES = "preferences"
PARQUET_SUFFIXES = (".parquet", ".pq")
GLOB_CHARACTERS = frozenset("*?[")
COLUMNS = {
    "run": {"query_id": "str", "doc_id": "str", "score": "float64"},
    QRELS: {"query_id": "str", "doc_id": "str", "relevance": "float64", "line": "int64"},
    PREFERENCES: {"query_id": "str", "doc_id_a": "str", "doc_id_b": "str", "preference": "int8"},
}
ABSENT = ""  # the id of a doc or query absent from every judgment (judged ids are never empty)
RESULT = {"query_id": "str", "measure": "str", "value": "float64"}


def _empty(columns: Mapping[str, str]) -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in columns.items()})


# -- reading, on the workers -------------------------------------------------------------------------------


def _read_run(path: str) -> pd.DataFrame:
    """A run file read and checked as the local path reads it: a doc listed twice in a query is found here,
    where its line is known."""
    frame = formats.read_run(path)
    Ranking.from_frame(frame, path=path)
    return frame[list(COLUMNS["run"])]


def _read_qrels(source, repeated: str) -> pd.DataFrame:
    """Graded qrels of a file or an ir_datasets ID; ``line``: the line (or row) number, for the file order."""
    table = sources.qrels_table(source, repeated=repeated)
    line = table["line"].to_numpy() if "line" in table.columns else np.arange(1, len(table) + 1)
    return pd.DataFrame(
        {
            "query_id": table["query_id"],
            "doc_id": table["doc_id"],
            "relevance": table["relevance"].to_numpy(np.float64),
            "line": line.astype(np.int64),
        }
    )


def _read_preferences(path: str, format: str | None, preference_format: str | None) -> pd.DataFrame:
    raw = formats.load(path)
    format = format or formats.detect_format(raw, preference_format)
    return formats.read_preferences(raw, format)[list(COLUMNS[PREFERENCES])]


def _judgment_kind(path: str, format: str | None, preference_format: str | None = None) -> str:
    """``qrels`` or ``preferences``: the format named, or detected as the local path detects it."""
    if format is None:
        format = formats.detect_format(formats.load(path), preference_format)
    return QRELS if format == QRELS else PREFERENCES


# -- inputs as dask DataFrames ----------------------------------------------------------------------------


def _files(text: str) -> list[str] | None:
    """The files a glob names (sorted), or ``None`` when ``text`` is no glob."""
    if not GLOB_CHARACTERS & set(text) or os.path.lexists(text):
        return None
    files = sorted(glob.glob(text))
    if not files:
        raise InputError(f"{text}: no file matches this pattern")
    return files


def _paths(source) -> list[str] | None:
    """The files of a path, a glob or a list of paths; ``None`` for anything else (an ID, a table)."""
    if isinstance(source, os.PathLike):
        return [os.fspath(source)]
    if isinstance(source, str):
        named_format = source.partition(":")[0] in sources.JUDGMENT_FORMATS
        return _files(source) or ([source] if os.path.lexists(source) or named_format else None)
    if isinstance(source, Sequence) and source and all(isinstance(s, str | os.PathLike) for s in source):
        return [os.fspath(s) for s in source]
    return None


def _from_tasks(tasks: list, columns: Mapping[str, str]) -> dd.DataFrame:
    return dd.from_delayed(tasks, meta=_empty(columns), verify_meta=False)


def _is_parquet(paths: list[str]) -> bool:
    """Parquet files, or folders of them (any other folder is read as a file, which names it in its error)."""
    return all(
        p.endswith(PARQUET_SUFFIXES) or os.path.isdir(p) and any(f.endswith(PARQUET_SUFFIXES) for f in os.listdir(p))
        for p in paths
    )


def run_frame(source) -> dd.DataFrame:
    """A run as a dask DataFrame ``query_id, doc_id, score``: files (TREC, gzip, a glob, a list; Parquet) are
    read on the workers, one task per file; a dask or pandas DataFrame (PyTerrier's columns too) is used as
    it is (checked per partition, as the local path checks a table)."""
    return _table(source, "run", lambda path: dask.delayed(_read_run)(path))


def _table(source, kind: str, read) -> dd.DataFrame:
    if isinstance(source, dd.DataFrame | pd.DataFrame):
        frame = tables.standard_columns(source)
        if "query_id" not in frame.columns:
            raise InputError(f"the {kind} table has no query_id (or qid) column (found {list(source.columns)})")
        return frame if isinstance(frame, dd.DataFrame) else dd.from_pandas(frame, npartitions=1, sort=False)
    paths = _paths(source)
    if paths is None and isinstance(source, str):
        raise InputError("no such file", path=source)
    if paths is None:
        raise InputError(
            f"a {kind} is a file, a glob, a list of files or a DataFrame here, not {type(source).__name__}"
        )
    if _is_parquet(paths):
        return tables.standard_columns(dd.read_parquet(paths))
    return _from_tasks([read(path) for path in paths], COLUMNS[kind])


def judgment_frames(
    source, *, format: str | None = None, preference_format: str | None = None, repeated: str = "error"
) -> list[tuple[str, dd.DataFrame]]:
    """Judgments as ``(kind, dask DataFrame)`` pairs, kind ``qrels`` (``query_id, doc_id, relevance, line``) or
    ``preferences`` (``query_id, doc_id_a, doc_id_b, preference``). ``source``: a file (``FORMAT:PATH``
    names its format), a glob of files, Parquet, an ir_datasets ID, a dask or pandas DataFrame, or a list of
    these (their union). ``format``: the format of the files, else detected on a worker as the local path
    detects it (``preference_format``: the format of a preference file where several fit)."""
    if isinstance(source, list | tuple):
        named = {"format": format, "preference_format": preference_format, "repeated": repeated}
        return [part for s in source for part in judgment_frames(s, **named)]
    if isinstance(source, dd.DataFrame | pd.DataFrame):
        kind = PREFERENCES if "doc_id_a" in source.columns else QRELS
        return [(kind, _table(source, kind, None))]
    paths = _paths(source)
    if paths is None:  # an ir_datasets ID (an unknown one names the closest known IDs)
        location = sources.resolve(os.fspath(source))
        return [(QRELS, _from_tasks([dask.delayed(_read_qrels)(location, repeated)], COLUMNS[QRELS]))]
    named = [sources.resolve(p, format) for p in paths]
    if _is_parquet(paths):
        frame = tables.standard_columns(dd.read_parquet(paths))
        return [(PREFERENCES if "doc_id_a" in frame.columns else QRELS, frame)]
    detected = iter(  # formats not named: detected on the workers from the files' lines, in one round trip
        dask.compute(*[dask.delayed(_judgment_kind)(n.path, None, preference_format) for n in named if not n.format])
    )
    parts = []
    for location in named:
        kind = _judgment_kind(location.path, location.format) if location.format else next(detected)
        task = (
            dask.delayed(_read_qrels)(location, repeated)
            if kind == QRELS
            else dask.delayed(_read_preferences)(location.path, location.format, preference_format)
        )
        parts.append((kind, _from_tasks([task], COLUMNS[kind])))
    return parts


# -- co-partitioning by query -------------------------------------------------------------------------------


def by_query(
    judged: Sequence[dd.DataFrame], others: Sequence[dd.DataFrame] = (), npartitions: int | None = None
) -> list[dd.DataFrame]:
    """``judged`` and ``others`` indexed by ``query_id`` with the same divisions: ``npartitions`` ranges holding
    equally many judged query ids (default: the most partitions among the inputs, at least twice the threads of
    the cluster). Partition ``k`` of every frame holds the same queries (rows of unjudged queries outside the
    divisions go to the last partition, where nothing evaluates them)."""
    frames = [*judged, *others]
    npartitions = npartitions or max(*(frame.npartitions for frame in frames), _default_partitions())
    found = dask.compute(*[frame["query_id"].drop_duplicates() for frame in judged])  # the judged ids, once each
    ids = np.unique(np.concatenate([part.to_numpy(dtype=object) for part in found]).astype(str))
    if not len(ids):
        raise InputError("the judgments are empty")
    at = np.unique(np.linspace(0, len(ids) - 1, min(npartitions, len(ids)) + 1).round().astype(np.int64))
    divisions = tuple(ids[at].tolist()) if len(at) > 1 else (ids[0], ids[0])
    return [frame.set_index("query_id", divisions=divisions) for frame in frames]


def _default_partitions(client=None) -> int:
    """Twice the threads of the workers of ``client`` (default: the current ``distributed`` client; 2 without
    one)."""
    try:
        if client is None:
            from distributed import default_client

            client = default_client()
        return 2 * max(1, sum(client.nthreads().values()))
    except (ImportError, ValueError):
        return 2


def _judgments(parts: Sequence[pd.DataFrame], kinds: Sequence[str]) -> Judgments | None:
    """The judgments of one partition, built as the local path builds them from tables; ``None`` if empty."""
    found = []
    for kind, frame in zip(kinds, parts, strict=True):
        if len(frame):
            frame = frame.reset_index()
            found.append(Judgments.from_qrels(frame) if kind == QRELS else Judgments.from_preferences(frame))
    if not found:
        return None
    return found[0] if len(found) == 1 else combine(*found)


# -- evaluate ----------------------------------------------------------------------------------------------


def _ranking_of(run: pd.DataFrame, judged: np.ndarray, placeholder: str = ABSENT) -> Ranking:
    """The run's rows of one partition as a :class:`Ranking`. A run holding none of the ``judged`` queries gets
    one row of an unjudged doc in query ``placeholder`` (default an unjudged query, ``""``): ir_measures then
    gives every judged query its measure's default, as it does when a judged query is missing from a run; with
    a judged query (``compare``), only the ranks of relevant docs count, so every value is that of a run missing
    these queries (their worst case), as locally."""
    frame = run.reset_index() if run.index.name == "query_id" else run
    if not np.isin(judged, frame["query_id"].unique()).any():
        frame = pd.DataFrame({"query_id": [placeholder], "doc_id": [ABSENT], "score": [0.0]})
    return sources.ranking(frame)


def _metrics(measures: list, ranking: Ranking, judgments: Judgments) -> list:
    """The local path (:func:`ir_pref_measures.adapters.ir_measures.evaluate`), without its warning for a run
    that holds no judged query of this partition (that is no mistake here)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "the run has no query in common with the judgments")
        return provider.evaluate(measures, ranking, qrels=judgments.qrels(), judgments=judgments)


def _evaluate_partition(run: pd.DataFrame, *parts: pd.DataFrame, kinds: list[str], measures: list[str]) -> pd.DataFrame:
    """``query_id`` (the index), ``measure``, ``value`` of one partition, by the local path."""
    judgments = _judgments(parts, kinds)
    if judgments is None:
        return _empty(RESULT).set_index("query_id")
    metrics = _metrics([provider.parse(name) for name in measures], _ranking_of(run, judgments.query_ids), judgments)
    frame = pd.DataFrame(
        {
            "query_id": [m.query_id for m in metrics],
            "measure": [str(m.measure) for m in metrics],
            "value": np.array([m.value for m in metrics], dtype=np.float64),
        }
    )
    return frame.astype({"query_id": "str", "measure": "str"}).set_index("query_id")


def _measure_names(measures) -> list[str]:
    """Validated measure names (ours and ir_measures'), each once, in order."""
    if isinstance(measures, str):
        measures = [measures]
    names = []
    for measure in measures:
        parsed = provider.parse(measure) if isinstance(measure, str) else measure
        provider.validate(parsed)
        if str(parsed) not in names:
            names.append(str(parsed))
    if not names:
        raise InputError("no measures given")
    return names


def evaluate(
    judgments,
    run,
    measures,
    *,
    format: str | None = None,
    preference_format: str | None = None,
    npartitions: int | None = None,
    aggregate: bool = False,
) -> dd.DataFrame:
    """Per-query values of ``measures`` (ours and ir_measures', any mix) of ``run`` on ``judgments``, computed
    on the cluster: a lazy dask DataFrame ``query_id, measure, value`` (``.compute()`` gives pandas), rows in
    query id order, then in the order of ``measures``: the rows and values of the local path
    (:func:`ir_pref_measures.adapters.ir_measures.evaluate`, the ``eval`` command).

    ``judgments``: graded qrels and/or preferences (:func:`judgment_frames`; a list is their union), ``run``:
    :func:`run_frame`. ``format``: the format of judgment files (``preference_format``: of the preference
    files, where detection finds several). ``npartitions``: partitions by query (results
    do not depend on it). ``aggregate=True``: one row per measure, ``measure, value``, its mean over queries (a
    sum for trec_eval's counts), summed in query id order as the local path sums.
    """
    names = _measure_names(measures)
    found = judgment_frames(judgments, format=format, preference_format=preference_format)
    kinds, frames = zip(*found, strict=True)
    *parts, run_part = by_query(frames, [run_frame(run)], npartitions)
    values = dd.map_partitions(
        _evaluate_partition,
        run_part,
        *parts,
        kinds=list(kinds),
        measures=names,
        meta=_empty(RESULT).set_index("query_id"),
        align_dataframes=False,
    ).reset_index()
    if not aggregate:
        return values
    task = dask.delayed(_means)(values.to_delayed(), names)
    return dd.from_delayed([task], meta=_empty({"measure": "str", "value": "float64"}), verify_meta=False)


def _means(parts: list[pd.DataFrame], names: list[str]) -> pd.DataFrame:
    """Each measure's aggregate over the per-query values, added in query id order (as the local path adds)."""
    import ir_measures

    values = pd.concat(parts, ignore_index=True)
    values["position"] = values["measure"].map({name: i for i, name in enumerate(names)})
    values = values.sort_values(["query_id", "position"], kind="stable")
    aggregators = {name: ir_measures.parse_measure(name).aggregator() for name in names}
    for name, value in zip(values["measure"].tolist(), values["value"].tolist(), strict=True):
        aggregators[name].add(value)
    return pd.DataFrame({"measure": names, "value": [aggregators[name].result() for name in names]}).astype(
        {"measure": "str"}
    )


# -- compare -----------------------------------------------------------------------------------------------


def _partition_comparison(qrels: pd.DataFrame, *runs: pd.DataFrame, names, options) -> Comparison | None:
    """The local ``compare.evaluate`` on one partition; ``None`` when no query of it has a relevant doc."""
    if not len(qrels):
        return None
    table = sources.qrels_table(qrels.reset_index(), repeated="keep")
    judgments = Judgments.from_qrels(table, checked=True, repeated="max")
    try:
        relevant = relevant_docs(judgments, binary=options["binary"], floor=options["floor"])
    except InputError:  # no relevant doc in this partition (the whole input is checked by its other partitions)
        return None
    rankings = {
        name: _ranking_of(run, relevant.query_ids, relevant.query_ids[0]) for name, run in zip(names, runs, strict=True)
    }
    measures = parse_measures(options["measures"])
    return compare_runs(
        rankings,
        relevant,
        measures,
        baseline=options["baseline"],
        topk=options["topk"],
        graded_rpp=options["graded_rpp"],
    )


def _comparison_rows(qrels: pd.DataFrame, *runs: pd.DataFrame, names, options, empty) -> pd.DataFrame:
    result = _partition_comparison(qrels, *runs, names=names, options=options)
    if result is None:
        return empty
    rows = to_frame(result, perquery=True, summary=False).set_index("query_id")
    return rows.astype({m.name: np.float64 for m in result.measures})  # as compare() returns them


def _compare_inputs(runs, qrels, npartitions):
    named = load_runs(runs)
    if len(named) < 2:
        raise InputError(f"need at least two runs to compare, got {len(named)}")
    (kind, judged), *more = judgment_frames(qrels, format=QRELS, repeated="keep")
    if more or kind != QRELS:
        raise InputError("compare needs graded qrels (one source)")
    qrels_part, *run_parts = by_query([judged], [run_frame(run) for run in named.values()], npartitions)
    return list(named), qrels_part, run_parts


def _compare_meta(names: list[str], options: dict) -> pd.DataFrame:
    """The columns and dtypes of the per-query rows: the local code on a one-query input."""
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [1.0]}).set_index("query_id")
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [0.0]}).set_index("query_id")
    one = dict(options, binary=None, floor=None, topk=None)
    rows = _comparison_rows(qrels, *[run] * len(names), names=names, options=one, empty=None)
    return rows.iloc[:0]


def compare(
    runs,
    qrels,
    measures: Sequence[str] = DEFAULT_MEASURES,
    baseline: str | None = None,
    binary: float | None = None,
    floor: float | None = None,
    topk: int | None = None,
    *,
    graded_rpp: bool = True,
    npartitions: int | None = None,
    aggregate: bool = False,
) -> dd.DataFrame:
    """:func:`ir_pref_measures.compare.compare` on the cluster: the per-query rows ``query_id, run_i, run_j,
    <measure>...`` as a lazy dask DataFrame, in query id order, same columns and values as ``compare(...,
    perquery=True)`` (its rows other than ``all``). ``runs``: a mapping name -> run or a list of run files
    (named as ``compare`` names them); each run and ``qrels`` in any form :func:`run_frame` and
    :func:`judgment_frames` take. ``aggregate=True``: the ``all`` rows, the mean over queries per pair.
    Other arguments as ``compare``."""
    options = _compare_options(measures, baseline, binary, floor, topk, graded_rpp)
    names, qrels_part, run_parts = _compare_inputs(runs, qrels, npartitions)
    if baseline is not None and baseline not in names:
        raise InputError(f"baseline {baseline!r} is not one of the runs {names}")
    meta = _compare_meta(names, options)
    rows = dd.map_partitions(
        _comparison_rows,
        qrels_part,
        *run_parts,
        names=names,
        options=options,
        empty=meta,
        meta=meta,
        align_dataframes=False,
    ).reset_index()
    if not aggregate:
        return rows
    summary = meta.reset_index()
    task = dask.delayed(_pair_means)(rows.to_delayed(), options["measures"], summary)
    return dd.from_delayed([task], meta=summary, verify_meta=False)


def _compare_options(measures, baseline, binary, floor, topk, graded_rpp) -> dict:
    """The keywords of the local ``compare.evaluate`` each partition calls (measures by name)."""
    names = [m.name for m in parse_measures(measures)]
    return {
        "measures": names,
        "baseline": baseline,
        "binary": binary,
        "floor": floor,
        "topk": topk,
        "graded_rpp": graded_rpp,
    }


def _pair_means(parts: list[pd.DataFrame], measures: list[str], summary: pd.DataFrame) -> pd.DataFrame:
    """The ``all`` rows: per pair, numpy's mean of the per-query values in query id order (as ``compare``)."""
    rows = pd.concat(parts, ignore_index=True).sort_values("query_id", kind="stable")
    if rows.empty:
        raise InputError("no query has a relevant document (grade > 0)", expected="qrels with positive grades")
    means = rows.groupby(["run_i", "run_j"], sort=False)[measures].agg(lambda v: v.to_numpy().mean())
    means = means.reset_index()
    means.insert(0, "query_id", SUMMARY)
    return means.astype(summary.dtypes.to_dict())


def comparison(
    runs,
    qrels,
    measures: Sequence[str] = DEFAULT_MEASURES,
    binary: float | None = None,
    floor: float | None = None,
    topk: int | None = None,
    *,
    graded_rpp: bool = True,
    npartitions: int | None = None,
) -> Comparison:
    """The :class:`~ir_pref_measures.compare.Comparison` of ``compare.evaluate`` (the ``compare`` command's),
    computed on the cluster and gathered: queries in the order of their first relevant line in ``qrels``
    (``pref_eval``'s order; the qrels are read on the client for it, the runs only on the workers)."""
    options = _compare_options(measures, None, binary, floor, topk, graded_rpp)
    order = relevant_in_file_order(qrels, binary=binary, floor=floor)
    names, qrels_part, run_parts = _compare_inputs(runs, qrels, npartitions)
    pieces = zip(qrels_part.to_delayed(), *[part.to_delayed() for part in run_parts], strict=True)
    tasks = [dask.delayed(_partition_comparison)(*piece, names=names, options=options) for piece in pieces]
    found = [part for part in dask.compute(*tasks) if part is not None]
    query_ids = np.concatenate([part.query_ids for part in found])
    take = pd.Index(query_ids).get_indexer(order.query_ids)  # each relevant query is in one partition
    if len(query_ids) != len(order.query_ids) or (take < 0).any():
        raise ValueError("the partitions do not hold each relevant query once")

    def joined(values: str, name: str) -> np.ndarray:
        return np.concatenate([getattr(part, values)[name] for part in found], axis=1)[:, take]

    first = found[0]
    return Comparison(
        runs=names,
        query_ids=order.query_ids,
        run_i=first.run_i,
        run_j=first.run_j,
        measures=first.measures,
        pair_values={name: joined("pair_values", name) for name in first.pair_values},
        run_values={name: joined("run_values", name) for name in first.run_values},
    )


# -- the experiment table ----------------------------------------------------------------------------------


def _split_by_query(frame: pd.DataFrame, bounds: np.ndarray) -> list[pd.DataFrame]:
    """``frame``'s rows per query range: part ``k`` holds the query ids from ``bounds[k]`` up to ``bounds[k+1]``
    (queries before ``bounds[0]`` are unjudged and go to part 0)."""
    part = np.maximum(np.searchsorted(bounds, frame["query_id"].to_numpy(dtype=object), side="right") - 1, 0)
    return [frame[part == k] for k in range(len(bounds))]


def _per_query_part(
    runs: dict[str, pd.DataFrame], judgments: Judgments, qrels, query_ids: np.ndarray, measures, baseline
) -> dict:
    """``experiment.per_query`` on the judged ``query_ids`` of one part: the measures of ir_measures on each
    run's rows of these queries, the pairwise preferences on ``qrels`` (this part's)."""
    from ir_pref_measures.compare import Measure as PairwiseMeasure
    from ir_pref_measures.experiment import per_query as local_per_query

    ordinary = [(column, m) for column, m in measures if not isinstance(m, PairwiseMeasure)]
    pairwise = [(column, m) for column, m in measures if isinstance(m, PairwiseMeasure)]
    out = {}
    if ordinary:
        rankings = {name: _ranking_of(frame, query_ids) for name, frame in runs.items()}
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "the run has no query in common with the judgments")
            out |= local_per_query(rankings, judgments, qrels, ordinary, None)
    if pairwise and qrels is not None and len(qrels):
        graded = Judgments.from_qrels(qrels, checked=True)  # this part's queries only
        try:
            relevant = relevant_docs(graded)
        except InputError:  # no relevant doc in this part
            return out
        rankings = {name: _ranking_of(frame, relevant.query_ids, relevant.query_ids[0]) for name, frame in runs.items()}
        out |= local_per_query(rankings, graded, qrels, pairwise, baseline)
    return out


def per_query(
    rankings: Mapping[str, Ranking],
    judgments: Judgments,
    qrels: pd.DataFrame | None,
    measures: list[tuple[str, object]],
    baseline: str | None,
    *,
    client,
    npartitions: int | None = None,
) -> dict[str, pd.DataFrame]:
    """:func:`ir_pref_measures.experiment.per_query` computed on the cluster of ``client`` (a
    ``distributed.Client``): the runs and qrels are split into ``npartitions`` ranges of judged query ids
    (default: twice the worker threads), each range sent with its own judgments and evaluated by the local
    code. Same return value: per measure column, one row per query id (sorted), one column per run. ``client``
    may be a scheduler's address instead (``tcp://HOST:PORT``): a client of it (:func:`connect`, within Dask's
    ``distributed.comm.timeouts.connect``) for this call."""
    if isinstance(client, str):
        with connect(client) as connected:
            return per_query(rankings, judgments, qrels, measures, baseline, client=connected, npartitions=npartitions)
    names = list(rankings)
    npartitions = npartitions or _default_partitions(client)
    chunks = [ids for ids in np.array_split(judgments.query_ids, npartitions) if len(ids)]
    bounds = np.asarray([ids[0] for ids in chunks], dtype=object)
    frames = {
        name: _split_by_query(ranking.frame()[list(COLUMNS["run"])], bounds) for name, ranking in rankings.items()
    }
    qrels_parts = [None] * len(bounds) if qrels is None else _split_by_query(qrels, bounds)
    futures = [
        client.submit(
            _per_query_part,
            {name: frames[name][k] for name in names},
            judgments.restrict(chunks[k]),  # each part its own queries' judgments: work and memory of its size
            qrels_parts[k],
            chunks[k],
            measures,
            baseline,
        )
        for k in range(len(bounds))
    ]
    parts = client.gather(futures)
    columns = {}
    for column, _ in measures:
        found = [part[column] for part in parts if column in part]
        frame = pd.concat(found) if found else pd.DataFrame(columns=names, dtype=np.float64)
        columns[column] = frame.reindex(columns=names).sort_index()
    return columns


# -- connecting to a scheduler -----------------------------------------------------------------------------

TIMEOUT_SETTING = "distributed.comm.timeouts.connect"  # Dask's setting (default 30 s): the default bound
TCP_SCHEMES = ("tcp", "tls", "ws", "wss")  # addresses HOST:PORT reached over TCP: refused and DNS errors come at once
HANDSHAKE_LIMIT = 1 << 20  # bytes: Dask's handshake is a few hundred; a larger length prefix is not Dask's protocol
SILENCE = 1.0  # seconds: a TCP server silent this long (at most a quarter of the bound) is not sending a handshake
HTTP_REQUEST = b"GET / HTTP/1.0\r\n\r\n"  # sent to a silent server: an HTTP server answers, and is no scheduler


def connect_timeout(timeout=None) -> float:
    """The bound in seconds: ``timeout`` (seconds, or a Dask time such as ``"30s"``), else Dask's
    ``distributed.comm.timeouts.connect`` (30 s unless configured, e.g. by
    ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=10s``)."""
    import distributed  # noqa: F401  (distributed's defaults enter dask.config when it is imported)
    from dask.utils import parse_timedelta

    value = dask.config.get(TIMEOUT_SETTING) if timeout is None else timeout
    try:
        seconds = None if isinstance(value, bool) else parse_timedelta(value, "s")
    except (TypeError, ValueError, KeyError):
        seconds = None
    if seconds is None or not 0 < seconds < float("inf"):
        where = "the Dask timeout" if timeout is not None else f"Dask's {TIMEOUT_SETTING}"
        raise InputError(f"{where} {value!r} is not a positive number of seconds")
    return float(seconds)


def connect(address: str, timeout=None):
    """A ``distributed.Client`` of the scheduler at ``address`` (``tcp://HOST:PORT``; ``tls://``, ``ws://``,
    ``wss://`` as well), within ``timeout`` seconds (default :func:`connect_timeout`'s: Dask's
    ``distributed.comm.timeouts.connect``, 30 s). ``distributed.Client`` bounds the TCP connection but not the
    handshake after it, and reads a length prefix of any size; so the address is first checked by a bounded
    handshake of its own (in a thread with its own event loop, closed before this returns), then the client
    connects. Anything but a scheduler answering in time is an :class:`InputError` naming the address: a
    malformed address, a host name that does not resolve, a refused connection, a server that does not
    answer, answers something other than Dask's protocol (an HTTP server, random bytes), closes the
    connection, or is a Dask worker."""
    seconds = connect_timeout(timeout)
    deadline = time.monotonic() + seconds
    if not isinstance(address, str):
        raise InputError(f"a Dask scheduler address is a string (tcp://HOST:PORT), not {type(address).__name__}")
    _check_scheduler(address, seconds)
    client_type = _bounded_client()
    client = client_type.__new__(client_type)  # kept, so that a failed start can be closed (its loop thread stopped)
    try:
        client.__init__(address, timeout=max(deadline - time.monotonic(), 0.01))
    except Exception as error:
        _close_failed(client)
        if isinstance(error, InputError):
            raise
        raise InputError(f"Dask scheduler {address}: {_why(error, seconds)}") from None
    return client


@functools.cache
def _bounded_client() -> type:
    """``distributed.Client`` with its connection to the scheduler, handshake included, bounded by its timeout
    (a scheduler that answered the check, then hangs, cannot hold the client)."""
    from distributed import Client

    class BoundedClient(Client):
        async def _ensure_connected(self, timeout=None):
            connecting = super()._ensure_connected(timeout=timeout)
            return await (connecting if timeout is None else asyncio.wait_for(connecting, timeout))

    return BoundedClient


def _close_failed(client) -> None:
    """Stop what a client that failed to start left running (``close`` skips a client already marked closed)."""
    with contextlib.suppress(Exception):
        client.close(timeout=1)
    runner = getattr(client, "_loop_runner", None)
    if runner is not None:
        with contextlib.suppress(Exception):
            runner.stop()


def _why(error: BaseException, seconds: float) -> str:
    """Why a connection failed, in words (one line)."""
    from distributed.comm import CommClosedError

    if isinstance(error, TimeoutError | asyncio.TimeoutError) or "Timed out" in str(error):
        return (
            f"no answer within {seconds:g} s (is it a Dask scheduler? the bound: --dask-timeout SECONDS, "
            f"or Dask's {TIMEOUT_SETTING})"
        )
    if isinstance(error, ConnectionRefusedError):
        return "connection refused (no scheduler listens there)"
    if isinstance(error, socket.gaierror):
        return f"the host name does not resolve ({error.strerror or error})"
    if isinstance(error, CommClosedError | ConnectionResetError | EOFError | asyncio.IncompleteReadError):
        return "the server closed the connection before a Dask scheduler's answer"
    if isinstance(error, OSError):
        return f"cannot connect ({' '.join(str(error).split())})"
    detail = " ".join(str(error).split())[:120]
    return f"the server does not answer in Dask's protocol ({type(error).__name__}{': ' if detail else ''}{detail})"


def _host_port(address: str) -> tuple[str, str, int | None]:
    """``(scheme, host, port)`` of an address (host and port only for the TCP schemes); an :class:`InputError`
    for a malformed one."""
    from distributed.comm import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    def malformed(what: str) -> InputError:
        return InputError(f"{address!r} is not a Dask scheduler address ({what}; expected tcp://HOST:PORT)")

    scheme, location = parse_address(address)
    try:
        get_backend(scheme)
    except ValueError:
        raise malformed(f"unknown scheme {scheme!r}") from None
    if scheme not in TCP_SCHEMES:
        return scheme, location, None
    try:
        host, port = parse_host_port(location)
    except ValueError:
        after_host = location.rpartition("]")[2]  # an IPv6 host is in brackets
        port_text = after_host.rpartition(":")[2] if ":" in after_host else ""
        raise malformed(f"the port {port_text!r} is not a number" if port_text else "no port") from None
    if not host:
        raise malformed("no host")
    if not 0 < port < 65536:
        raise malformed(f"the port {port} is out of range")
    return scheme, host, port


def _check_scheduler(address: str, seconds: float) -> None:
    """An :class:`InputError` unless a Dask scheduler at ``address`` completes a handshake and says it is one,
    within ``seconds``. Runs in a thread of its own (the caller may be inside an event loop, as in Jupyter)."""
    scheme, host, port = _host_port(address)
    outcome: list = []

    def check() -> None:
        try:
            outcome.append(asyncio.run(asyncio.wait_for(_handshake(address, scheme, host, port, seconds), seconds)))
        except BaseException as error:  # reported in the caller's thread below
            outcome.append(error)

    thread = threading.Thread(target=check, name="ir-pref-measures: Dask scheduler check", daemon=True)
    thread.start()
    thread.join(seconds + 1)  # the event loop is closed once wait_for has given up (plus a name lookup in flight)
    found = outcome[0] if outcome else TimeoutError()
    if isinstance(found, str):
        raise InputError(f"Dask scheduler {address}: {found}")
    if isinstance(found, BaseException):
        raise InputError(f"Dask scheduler {address}: {_why(found, seconds)}")


async def _handshake(address: str, scheme: str, host: str, port: int | None, seconds: float) -> str | None:
    """``None`` for a Dask scheduler, else what is there instead (raises what the connection raises)."""
    from distributed.comm import connect as open_comm
    from distributed.security import Security

    if port is not None:  # a plain TCP connection first: a refused port or an unknown host fails at once
        reader, writer = await asyncio.open_connection(host, port)
        try:
            if scheme == "tcp":  # a Dask server sends its handshake first, a length prefix to begin
                try:
                    first = await asyncio.wait_for(reader.readexactly(8), min(SILENCE, seconds / 4))
                except asyncio.TimeoutError:  # silent so far: an HTTP server waits for a request, and answers it
                    writer.write(HTTP_REQUEST)
                    first = await reader.readexactly(8)
                size = int.from_bytes(first, "little")
                if not 0 < size <= HANDSHAKE_LIMIT:
                    return f"the server does not answer in Dask's protocol (it announces a message of {size} bytes)"
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
    comm = await open_comm(address, timeout=seconds, **Security().get_connection_args("client"))
    try:
        await comm.write({"op": "identity", "reply": True})
        identity = await comm.read()
    finally:
        comm.abort()
    kind = identity.get("type") if isinstance(identity, dict) else None
    if isinstance(kind, str) and "scheduler" in kind.lower():
        return None
    if isinstance(kind, str):
        return f"this is a Dask {kind.lower()}, not a scheduler (give the scheduler's address)"
    return "the server does not answer in Dask's protocol (no identity)"
