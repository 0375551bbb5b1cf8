"""Evaluation and comparison on a Dask cluster (the optional extra ``dask``): partition by query, run the
local code on every partition, combine the per-query values.

Every input (a run, judgments, qrels) becomes a ``dask.dataframe`` read on the workers: a TREC file, a glob
of many files, a list of files, Parquet, an ir_datasets ID, or a dask or pandas DataFrame. All of them are
then indexed by ``query_id`` with the *same* divisions (ranges of equally many judged query ids), so that
partition ``k`` of every input holds the same query ids, a query never straddles two partitions, and
partitions come in query id order. Each partition is evaluated by the local code path:
:func:`ir_pref_measures.engine.evaluate` (the catalog's kernels; ir_measures for the measures they do not
cover) and :func:`ir_pref_measures.comparison.pairwise.comparison`. As queries are independent, per-query values
are bit for bit those of the local path whatever the number of partitions; means are taken on one worker in
query id order, with the measure's own ir_measures aggregator (``evaluate``) or numpy's mean over the
query-ordered values (``compare``), as the local path takes them.

Dask: M. Rocklin. Dask: parallel computation with blocked algorithms and task scheduling. SciPy 2015.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from ir_pref_measures import engine
from ir_pref_measures.comparison.pairwise import (
    DEFAULT_MEASURES,
    SUMMARY,
    Comparison,
    load_runs,
    relevant_docs,
    relevant_in_file_order,
    to_frame,
)
from ir_pref_measures.comparison.pairwise import (
    comparison as compare_runs,
)
from ir_pref_measures.dask.cluster import default_partitions, ranking_of
from ir_pref_measures.errors import InputError
from ir_pref_measures.loading import sources
from ir_pref_measures.measures import names as measure_names
from ir_pref_measures.model import tables
from ir_pref_measures.model.judgments import Judgments, combine
from ir_pref_measures.model.rankings import Ranking
from ir_pref_measures.parsing import formats, preferences
from ir_pref_measures.parsing.files import FileLines, load

QRELS = "qrels"
PREFERENCES = "preferences"
PARQUET_SUFFIXES = (".parquet", ".pq")
COLUMNS = {
    "run": {"query_id": "str", "doc_id": "str", "score": "float64"},
    QRELS: {"query_id": "str", "doc_id": "str", "relevance": "float64", "line": "int64"},
    PREFERENCES: {"query_id": "str", "doc_id_a": "str", "doc_id_b": "str", "preference": "int8"},
}
RESULT = {"query_id": "str", "measure": "str", "value": "float64"}


def _empty(columns: Mapping[str, str]) -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in columns.items()})


# -- reading, on the workers -------------------------------------------------------------------------------


def _read_run(path: str) -> pd.DataFrame:
    """A run file read and checked as the local path reads it: a doc listed twice in a query is found here,
    where its line is known."""
    frame = formats.read_run(path)
    Ranking.from_frame(frame, path=FileLines(path))
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
    raw = load(path)
    format = format or preferences.detect_format(raw, preference_format)
    return preferences.read_preferences(raw, format)[list(COLUMNS[PREFERENCES])]


def _kind(format: str) -> str:
    """``qrels`` or ``preferences``: the kind of a judgment format."""
    return QRELS if format == QRELS else PREFERENCES


def _detected_kind(path: str, preference_format: str | None) -> str:
    """The kind of a file whose format is not named, detected from its lines as the local path detects it (on a
    worker: the client reads no judgment file)."""
    return _kind(preferences.detect_format(load(path), preference_format))


# -- inputs as dask DataFrames ----------------------------------------------------------------------------


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
    """Files (resolved by :func:`~ir_pref_measures.loading.sources.paths`) read on the workers, or a table used as
    it is, with ir_measures' column names."""
    if not isinstance(source, dd.DataFrame | pd.DataFrame):
        paths = sources.paths(source)
        if paths is None and isinstance(source, str):
            raise InputError("no such file", path=source)
        if paths is None:
            raise InputError(
                f"a {kind} is a file, a glob, a list of files or a DataFrame here, not {type(source).__name__}"
            )
        if _is_parquet(paths):
            return tables.standard_columns(dd.read_parquet(paths))
        return _from_tasks([read(path) for path in paths], COLUMNS[kind])
    frame = tables.standard_columns(source)
    if "query_id" not in frame.columns:
        raise InputError(f"the {kind} table has no query_id (or qid) column (found {list(source.columns)})")
    return frame if isinstance(frame, dd.DataFrame) else dd.from_pandas(frame, npartitions=1, sort=False)


def judgment_frames(
    source, *, format: str | None = None, preference_format: str | None = None, repeated: str = "error"
) -> list[tuple[str, dd.DataFrame]]:
    """Judgments as ``(kind, dask DataFrame)`` pairs, kind ``qrels`` (``query_id, doc_id, relevance, line``) or
    ``preferences`` (``query_id, doc_id_a, doc_id_b, preference``). ``source``: a file (``FORMAT:PATH``
    names its format), a glob of files, Parquet, an ir_datasets ID, a dask or pandas DataFrame, or a list of
    these (their union). ``format``: the format of the files, else detected on a worker as the local path
    detects it (``preference_format``: the format of a preference file where several fit)."""
    if isinstance(source, list | tuple):
        return [
            part
            for s in source
            for part in judgment_frames(s, format=format, preference_format=preference_format, repeated=repeated)
        ]
    if isinstance(source, dd.DataFrame | pd.DataFrame):
        kind = PREFERENCES if "doc_id_a" in source.columns else QRELS
        return [(kind, _table(source, kind, None))]
    located = sources.locations(source, format)
    if all(location.path is not None for location in located) and _is_parquet([at.file for at in located]):
        frame = tables.standard_columns(dd.read_parquet([at.file for at in located]))
        return [(PREFERENCES if "doc_id_a" in frame.columns else QRELS, frame)]
    return located_frames(located, preference_format=preference_format, repeated=repeated)


def located_frames(
    located: Sequence[sources.Location], *, preference_format: str | None = None, repeated: str = "error"
) -> list[tuple[str, dd.DataFrame]]:
    """Judgments resolved by the input layer (:func:`ir_pref_measures.loading.sources.locations`: ir_datasets IDs,
    files with or without their format) as :func:`judgment_frames` gives them, read on the workers; the formats not
    named are detected on the workers from the files' lines, in one round trip."""
    unnamed = [at.path for at in located if at.dataset is None and not at.format]
    detected = iter(dask.compute(*[dask.delayed(_detected_kind)(path, preference_format) for path in unnamed]))
    parts = []
    for location in located:
        if location.dataset is not None:
            kind = QRELS
        else:
            kind = _kind(location.format) if location.format else next(detected)
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
    npartitions = npartitions or max(*(frame.npartitions for frame in frames), default_partitions())
    found = dask.compute(*[frame["query_id"].drop_duplicates() for frame in judged])  # the judged ids, once each
    ids = np.unique(np.concatenate([part.to_numpy(dtype=object) for part in found]).astype(str))
    if not len(ids):
        raise InputError("the judgments are empty")
    at = np.unique(np.linspace(0, len(ids) - 1, min(npartitions, len(ids)) + 1).round().astype(np.int64))
    divisions = tuple(ids[at].tolist()) if len(at) > 1 else (ids[0], ids[0])
    return [frame.set_index("query_id", divisions=divisions) for frame in frames]


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


def _metrics(measures: list, ranking: Ranking, judgments: Judgments) -> list:
    """The local path (:func:`ir_pref_measures.engine.evaluate`) on one partition."""
    return engine.evaluate(measures, ranking, judgments=judgments)


def _evaluate_partition(run: pd.DataFrame, *parts: pd.DataFrame, kinds: list[str], measures: list[str]) -> pd.DataFrame:
    """``query_id`` (the index), ``measure``, ``value`` of one partition, by the local path."""
    judgments = _judgments(parts, kinds)
    if judgments is None:
        return _empty(RESULT).set_index("query_id")
    metrics = _metrics(
        [measure_names.parse_measure(name) for name in measures], ranking_of(run, judgments.query_ids), judgments
    )
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
        parsed = measure_names.parse_measure(measure) if isinstance(measure, str) else measure
        measure_names.validate(parsed)
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
    (:func:`ir_pref_measures.engine.evaluate`, the ``eval`` command).

    ``judgments``: graded qrels and/or preferences (:func:`judgment_frames`; a list is their union), ``run``:
    :func:`run_frame`. ``format``: the format of judgment files (``preference_format``: of the preference
    files, where detection finds several). ``npartitions``: partitions by query (results
    do not depend on it). ``aggregate=True``: one row per measure, ``measure, value``, its mean over queries (a
    sum for trec_eval's counts), summed in query id order as the local path sums.
    """
    names = _measure_names(measures)
    found = judgment_frames(judgments, format=format, preference_format=preference_format)
    return evaluate_frames(found, run_frame(run), names, npartitions=npartitions, aggregate=aggregate)


def evaluate_frames(
    judgments: Sequence[tuple[str, dd.DataFrame]],
    run: dd.DataFrame,
    names: list[str],
    *,
    npartitions: int | None = None,
    aggregate: bool = False,
) -> dd.DataFrame:
    """:func:`evaluate` on inputs read already: ``judgments`` as :func:`judgment_frames` (or :func:`located_frames`)
    gives them, ``run`` as :func:`run_frame` gives it, the measures by their validated names, each once."""
    kinds, frames = zip(*judgments, strict=True)
    *parts, run_part = by_query(frames, [run], npartitions)
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
    """The local ``compare.comparison`` on one partition; ``None`` when no query of it has a relevant doc."""
    if not len(qrels):
        return None
    table = sources.qrels_table(qrels.reset_index(), repeated="keep")
    judgments = Judgments.from_qrels(table, checked=True, repeated="max")
    try:
        relevant = relevant_docs(judgments, binary=options["binary"], floor=options["floor"])
    except InputError:  # no relevant doc in this partition (the whole input is checked by its other partitions)
        return None
    rankings = {
        name: ranking_of(run, relevant.query_ids, relevant.query_ids[0]) for name, run in zip(names, runs, strict=True)
    }
    measures = measure_names.pairwise_measures(options["measures"])
    return compare_runs(
        rankings,
        relevant,
        measures,
        baseline=options["baseline"],
        topk=options["topk"],
        graded_rpp=options["graded_rpp"],
        warn=False,  # a partition holds some queries only: the rule for runs of another collection is the whole input's
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
    """:func:`ir_pref_measures.comparison.pairwise.compare` on the cluster: the per-query rows ``query_id, run_i, run_j,
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
    """The keywords of the local ``compare.comparison`` each partition calls (measures by name)."""
    names = [m.name for m in measure_names.pairwise_measures(measures)]
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
    """The :class:`~ir_pref_measures.comparison.pairwise.Comparison` of ``compare``'s comparison (the command's),
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
