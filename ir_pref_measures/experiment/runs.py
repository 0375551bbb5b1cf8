"""The runs of an experiment, by name, as :class:`~ir_pref_measures.model.rankings.Ranking` s: names (one rule,
:mod:`~ir_pref_measures.parsing.names`), PyTerrier Transformers run on topics, and depth (``topk`` and the warning
when the
runs' depths differ)."""

from __future__ import annotations

import contextlib
import os
import threading
import time
import types
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa

from ir_pref_measures.engine import n_jobs
from ir_pref_measures.errors import InputError, user_stacklevel
from ir_pref_measures.experiment.pipelines import is_transformer
from ir_pref_measures.loading import sources
from ir_pref_measures.model.coverage import DepthWarning, depths, warn_depths  # noqa: F401  (the API's names)
from ir_pref_measures.model.ids import arrow
from ir_pref_measures.model.rankings import Ranking
from ir_pref_measures.parsing.names import named_paths

T = TypeVar("T")  # what stream_runs' work makes of a run (without work: the Ranking)


def named_runs(runs, names: Sequence[str] | None = None, **options) -> dict[str, Ranking]:
    """Runs by name as :class:`Ranking` s: :func:`run_sources`, then :func:`read_runs` with ``options``."""
    return read_runs(run_sources(runs, names), **options)


def run_sources(runs, names: Sequence[str] | None = None, *, keys_name: bool = False) -> dict[str, object]:
    """Runs by name, not yet read: from a mapping, from ``names`` and a sequence of runs, or from a sequence of
    runs named by :func:`default_names`. ``keys_name``: a mapping's keys name its runs even when ``names`` are
    given (PyTerrier ignores ``names=`` when the systems are a dict)."""
    if isinstance(runs, str | os.PathLike) or is_transformer(runs) or isinstance(runs, pd.DataFrame):
        runs = [runs]
    elif sources.is_records(runs):  # one run as a dict {query_id: {doc_id: score}} or ScoredDoc namedtuples
        runs = [runs]
    if isinstance(runs, Mapping) and (names is None or keys_name):
        named = {str(name): run for name, run in runs.items()}
    else:
        runs = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
        names = default_names(runs) if names is None else names
        if isinstance(names, str) or len(names) != len(runs):
            raise InputError(f"{1 if isinstance(names, str) else len(names)} names for {len(runs)} runs")
        named = named_paths(runs, names)
    if not named:
        raise InputError("no runs to evaluate")
    return named


def read_runs(named: Mapping[str, object], **options) -> dict[str, Ranking]:
    """The runs of :func:`run_sources` as :class:`Ranking` s, all held (:func:`stream_runs` with ``options``)."""
    return dict(stream_runs(named, **options))


def stream_runs(
    named: Mapping[str, object],
    work: Callable[[str, Ranking], T] | None = None,
    *,
    topk: int | None = None,
    topics=None,
    judged: set[str] | None = None,
    batch_size: int | None = None,
    verbose: bool = False,
    save_dir: str | os.PathLike | None = None,
    save_mode: str = "warn",
    save_format="trec",
    times: dict[str, float] | None = None,
    frames: dict[str, pd.DataFrame] | None = None,
    need_documents: bool = True,
) -> Iterator[tuple[str, T]]:
    """The runs of :func:`run_sources`, in order, each as ``(name, work(name, ranking))`` (``work`` default: the
    :class:`Ranking` itself; cut at rank ``topk`` when given, :func:`truncate`), each read once and held only while its
    turn comes: the files are read and ``work`` done on :func:`~ir_pref_measures.engine.n_jobs` threads, at most one run
    more than the threads in flight, so the memory of the runs does not grow with their number. With ``work``, one run
    is read at a time while the others are worked on: reading is when a run takes the most memory, and two runs read at
    once peaked higher, the more so the more runs there were (runs of a million lines: 10 MB higher at 30 runs, 25 MB
    at 100), for no gain in time (the work takes as long as the reading). PyTerrier Transformers
    are run (on the caller's thread) on ``topics`` (only the ``judged`` ones, when given) by :func:`results`, their
    results saved in ``save_dir`` as ``save_format`` says (:func:`save_file`); ``times`` (if given) receives each run's
    milliseconds per topic spent in its Transformer (0 for a run read from a file or a frame), PyTerrier's ``mrt``.
    ``frames`` (if given) receives each result frame as given (a DataFrame run, a Transformer's results), all its
    columns in ir_measures' names, for the measures defined at run time; unless ``need_documents``, such a frame without
    ``docno`` or ``score`` is a ranking of its queries without documents (when only those measures read it). The first
    bad run (in order) is the one reported."""
    options = {"batch_size": batch_size, "verbose": verbose, "save_mode": save_mode, "save_format": save_format}

    reading = threading.Lock() if work is not None else contextlib.nullcontext()

    def job(name: str, run) -> T:
        with reading:
            ranking = run if isinstance(run, Ranking) else sources.ranking(run)
        ranking = ranking if topk is None else truncate(ranking, topk)
        return ranking if work is None else work(name, ranking)  # type: ignore[return-value]  # without work, T is Ranking

    threads = max(1, min(n_jobs(), len(named)))
    pending: deque = deque()
    with ThreadPoolExecutor(threads) as pool:
        try:
            for name, run in named.items():
                spent, run = _given(name, run, _topics_for(topics, judged, name) if is_transformer(run) else None,
                                    save_dir, options)  # fmt: skip
                if times is not None:
                    times[name] = spent
                run = _frame_of(name, run, frames, need_documents)
                pending.append((name, pool.submit(job, name, run)))
                while len(pending) > threads:
                    name, future = pending.popleft()
                    yield name, future.result()
            while pending:
                name, future = pending.popleft()
                yield name, future.result()
        finally:
            for _, future in pending:
                future.cancel()


def _given(name: str, run, asked: pd.DataFrame | None, save_dir, options: dict) -> tuple[float, object]:
    """A run as given, a Transformer's results on ``asked`` (and its milliseconds per topic; else 0)."""
    if is_transformer(run):
        assert asked is not None, "a Transformer's topics are asked for (_topics_for)"
        start = time.perf_counter()
        save = None if save_dir is None else save_file(save_dir, name, options["save_format"])
        run = results(run, asked, save_file=save, **options)
        if len(run) == 0:
            raise InputError(f"{len(asked)} topics, but no results received from {name}")
        return 1000 * (time.perf_counter() - start) / max(len(asked), 1), run
    if isinstance(run, pd.DataFrame) and len(run) == 0:
        raise InputError(f"run {name!r} is an empty DataFrame: no results")
    return 0.0, run


def _frame_of(name: str, run, frames: dict[str, pd.DataFrame] | None, need_documents: bool):
    """A frame run kept as given in ``frames`` (ir_measures' column names); the run, or the ranking of its queries
    when it has no documents and none are needed."""
    if frames is None or not isinstance(run, pd.DataFrame):
        return run
    frames[name] = run.rename(columns={"qid": "query_id", "docno": "doc_id"})
    columns = set(frames[name].columns)
    if not need_documents and not {"doc_id", "score"} <= columns and "query_id" in columns:
        return queries_only(frames[name]["query_id"])
    return run


def queries_only(query_ids) -> Ranking:
    """A ranking of ``query_ids`` (sorted, distinct) without documents."""
    queries = np.unique(np.asarray(query_ids, dtype=str)).astype(object)
    return Ranking(
        query_ids=queries,
        offsets=np.zeros(len(queries) + 1, dtype=np.int64),
        doc_text=pa.array([], pa.string()),
        scores=np.zeros(0),
    )


def save_file(save_dir: str | os.PathLike, name: str, save_format="trec") -> str:
    """Where ``pt.Experiment`` saves a run's results in ``save_dir``: ``NAME.res.gz`` (a TREC run, ``"trec"``),
    ``NAME.mod`` (a module with ``dump`` / ``load``, e.g. ``pickle``) or ``NAME.custom`` (a ``(read, write)``
    pair of functions)."""
    if not os.path.isdir(save_dir):
        raise InputError(f"save_dir {os.fspath(save_dir)} does not exist or is not a directory")
    if save_format == "trec":
        ext = "res.gz"
    elif isinstance(save_format, types.ModuleType):
        ext = "mod"
    elif isinstance(save_format, tuple) and len(save_format) == 2:
        ext = "custom"
    else:
        raise InputError(f"unknown save_format {save_format!r}", expected="'trec', a module (pickle) or (read, write)")
    return os.path.join(os.fspath(save_dir), f"{name}.{ext}")


def save_tables(save_dir: str | os.PathLike, table: pd.DataFrame, long: pd.DataFrame) -> None:
    """``aggregated.csv`` (the table) and ``perquery.csv`` (the long table) in ``save_dir``, as ``pt.Experiment``
    writes them: rows of runs not in this experiment, already in the files, are kept (a warning when the
    columns differ)."""
    for file, frame in (("aggregated.csv", table), ("perquery.csv", long)):
        path = os.path.join(os.fspath(save_dir), file)
        if os.path.exists(path):
            old = pd.read_csv(path)
            if file == "aggregated.csv" and set(old.columns) != set(frame.columns):
                warnings.warn(
                    f"Evaluation measures differ between the existing '{path}' (columns: "
                    f"{', '.join(sorted(map(str, old.columns)))}) and the current run (columns: "
                    f"{', '.join(sorted(map(str, frame.columns)))}). Missing values will be filled with NaN.",
                    stacklevel=user_stacklevel(),
                )
            old = old[~old["name"].isin(set(frame["name"]))]
            if not old.empty:
                frame = pd.concat([frame, old], ignore_index=True)
        frame.to_csv(path, index=False)


def default_names(runs: Sequence) -> list[str]:
    """Each run's default name: a file's :func:`~ir_pref_measures.parsing.names.run_name`, a Transformer's ``str()``
    (PyTerrier's rule; a second Transformer with the same ``str()`` is ``NAME (2)``, as the table's rows need
    distinct names), ``run<i>`` (1-based position) otherwise."""
    from ir_pref_measures.parsing.names import run_name

    names = [
        run_name(run) if isinstance(run, str | os.PathLike) else str(run) if is_transformer(run) else f"run{i}"
        for i, run in enumerate(runs, 1)
    ]
    seen: dict[str, int] = {}
    for i, (run, name) in enumerate(zip(runs, names, strict=True)):
        if is_transformer(run):  # PyTerrier allows two Transformers with one str(): the second is "NAME (2)"
            seen[name] = seen.get(name, 0) + 1
            names[i] = name if seen[name] == 1 else f"{name} ({seen[name]})"
    return names


def _topics_for(topics, judged: set[str] | None, name: str) -> pd.DataFrame:
    if not isinstance(topics, pd.DataFrame):
        raise InputError(f"run {name!r} is a Transformer: give the topics as a DataFrame (qid, query)")
    if judged is None:
        return topics
    kept = topics[topics["qid"].astype(str).isin(judged)]
    if kept.empty:
        raise InputError("the topics and the judgments have no query in common (filter_by_qrels=True)")
    return kept


def truncate(ranking: Ranking, k: int) -> Ranking:
    """``ranking`` cut at rank ``k`` (the first ``k`` documents of each query)."""
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise InputError(f"topk must be a positive integer, not {k!r}")
    keep = ranking.ranks <= k
    lengths = np.minimum(np.diff(ranking.offsets), k)
    return Ranking(
        query_ids=ranking.query_ids,
        offsets=np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
        doc_text=ranking.doc_text.filter(arrow(keep)),
        scores=ranking.scores[keep],
    )


SAVE_MODES = ("reuse", "overwrite", "warn", "error")


def results(
    system,
    topics: pd.DataFrame,
    *,
    batch_size: int | None = None,
    verbose: bool = False,
    save_file: str | os.PathLike | None = None,
    save_mode: str = "warn",
    save_format="trec",
) -> pd.DataFrame:
    """The result frame of a PyTerrier Transformer on ``topics`` (``batch_size`` topics per call, all at once by
    default). With ``save_file`` (a TREC run, ``pt.io.write_results``), as ``pt.Experiment``'s ``save_dir``: an
    existing file is read instead (``save_mode="reuse"``), replaced (``"overwrite"``; ``"warn"`` says so), or an
    error (``"error"``)."""
    from tqdm.auto import tqdm

    if save_mode not in SAVE_MODES:
        raise InputError(f"unknown save_mode {save_mode!r}", expected=", ".join(SAVE_MODES))
    if batch_size is not None and (isinstance(batch_size, bool) or int(batch_size) != batch_size or batch_size < 1):
        raise InputError(f"batch_size must be a positive integer, not {batch_size!r}")
    if save_file is not None and os.path.exists(save_file):
        if save_mode == "reuse":
            return _read_saved(os.fspath(save_file), save_format)
        if save_mode == "error":
            raise InputError(
                f"{os.fspath(save_file)}: exists (save_mode='error'; 'reuse' reads it, 'overwrite' replaces it)"
            )
        if save_mode == "warn":
            warnings.warn(
                f"{os.fspath(save_file)} exists and is replaced (save_mode='reuse' would read it)",
                stacklevel=user_stacklevel(),
            )
    size = len(topics) if batch_size is None else int(batch_size)
    batches = [topics.iloc[start : start + size] for start in range(0, len(topics), max(size, 1))]
    found = [system.transform(batch) for batch in tqdm(batches, desc=str(system), disable=not verbose)]
    frame = pd.concat(found, ignore_index=True) if found else pd.DataFrame(columns=["qid", "docno", "score"])
    if save_file is not None:
        _write_saved(frame, os.fspath(save_file), save_format)
    return frame


def _read_saved(path: str, save_format) -> pd.DataFrame:
    import pyterrier as pt

    if save_format == "trec":
        return pt.io.read_results(path)
    with pt.io.autoopen(path, "rb") as f:
        return save_format.load(f) if isinstance(save_format, types.ModuleType) else save_format[0](f)


def _write_saved(frame: pd.DataFrame, path: str, save_format) -> None:
    import pyterrier as pt

    if save_format == "trec":
        missing = [c for c in ("qid", "docno", "score") if c not in frame.columns]
        if missing:  # PyTerrier's TypeError
            raise TypeError(
                f"save_dir was set, but results dont look like R (missing {missing}); set save_format, "
                f"e.g. save_format=pickle"
            )
        pt.io.write_results(frame if "rank" in frame.columns else pt.model.add_ranks(frame), path)
        return
    with pt.io.autoopen(path, "wb") as f:
        save_format.dump(frame, f) if isinstance(save_format, types.ModuleType) else save_format[1](frame, f)
