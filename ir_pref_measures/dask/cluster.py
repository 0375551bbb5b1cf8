"""Per-query values computed on a cluster: the judged queries cut into ranges, each range's runs and judgments
sent to a worker and evaluated by the local code (:func:`ir_pref_measures.experiment.values.per_query_frames`);
:func:`on_cluster` is that computation for :func:`ir_pref_measures.Experiment`'s ``per_query``.

``client`` is a ``distributed.Client`` (anything with ``submit``, ``gather`` and ``nthreads``): this module imports
no Dask; the Dask DataFrame glue is :mod:`ir_pref_measures.dask.dataframes`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from ir_pref_measures.comparison.pairwise import relevant_docs
from ir_pref_measures.dask.scheduler import connect
from ir_pref_measures.errors import InputError
from ir_pref_measures.experiment.front import PerQuery
from ir_pref_measures.experiment.values import per_query_frames
from ir_pref_measures.loading import sources
from ir_pref_measures.measures.names import PairwiseMeasure
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.rankings import Ranking

ABSENT = ""  # the id of a doc or query absent from every judgment (judged ids are never empty)
RUN_COLUMNS = ["query_id", "doc_id", "score"]


def default_partitions(client=None) -> int:
    """Twice the threads of the workers of ``client`` (default: the current ``distributed`` client; 2 without
    one)."""
    try:
        if client is None:
            from distributed import default_client

            client = default_client()
        return 2 * max(1, sum(client.nthreads().values()))
    except (ImportError, ValueError):
        return 2


def ranking_of(run: pd.DataFrame, judged: np.ndarray, placeholder: str = ABSENT) -> Ranking:
    """The run's rows of one partition as a :class:`Ranking`. A run holding none of the ``judged`` queries gets
    one row of an unjudged doc in query ``placeholder`` (default an unjudged query, ``""``): ir_measures then
    gives every judged query its measure's default, as it does when a judged query is missing from a run; with
    a judged query (``compare``), only the ranks of relevant docs count, so every value is that of a run missing
    these queries (their worst case), as locally."""
    frame = run.reset_index() if run.index.name == "query_id" else run
    if not np.isin(judged, frame["query_id"].unique()).any():
        frame = pd.DataFrame({"query_id": [placeholder], "doc_id": [ABSENT], "score": [0.0]})
    return sources.ranking(frame)


def _split_by_query(frame: pd.DataFrame, bounds: np.ndarray) -> list[pd.DataFrame]:
    """``frame``'s rows per query range: part ``k`` holds the query ids from ``bounds[k]`` up to ``bounds[k+1]``
    (queries before ``bounds[0]`` are unjudged and go to part 0)."""
    part = np.maximum(np.searchsorted(bounds, frame["query_id"].to_numpy(dtype=object), side="right") - 1, 0)
    return [frame[part == k] for k in range(len(bounds))]


def _per_query_part(
    runs: dict[str, pd.DataFrame], judgments: Judgments, query_ids: np.ndarray, measures, baseline, local
) -> dict:
    """``values.per_query_frames`` on the judged ``query_ids`` of one part (``judgments``: this part's): the
    measures of one run on each run's rows of these queries, the pairwise preferences on their relevant docs."""
    ordinary = [(column, m) for column, m in measures if not isinstance(m, PairwiseMeasure)]
    pairwise = [(column, m) for column, m in measures if isinstance(m, PairwiseMeasure)]
    out: dict = {}
    if ordinary:
        rankings = {name: ranking_of(frame, query_ids) for name, frame in runs.items()}
        out |= local(rankings, judgments, ordinary, None)
    if pairwise:
        try:
            relevant = relevant_docs(judgments)
        except InputError:  # no relevant doc in this part
            return out
        rankings = {name: ranking_of(frame, relevant.query_ids, relevant.query_ids[0]) for name, frame in runs.items()}
        out |= local(rankings, judgments, pairwise, baseline)
    return out


def per_query_frames_on_cluster(
    rankings: Mapping[str, Ranking],
    judgments: Judgments,
    measures: list[tuple[str, object]],
    baseline: str | None,
    *,
    client,
    local: Callable,
    npartitions: int | None = None,
) -> dict[str, pd.DataFrame]:
    """:func:`ir_pref_measures.experiment.values.per_query_frames` computed on the cluster of ``client`` (a
    ``distributed.Client``): the runs and qrels are split into ``npartitions`` ranges of judged query ids
    (default: twice the worker threads), each range sent with its own judgments and evaluated by the local
    code, ``local`` (the experiment's per-query function, sent to the workers). Same return value: per measure
    column, one row per query id (sorted), one column per run. ``client``
    may be a scheduler's address instead (``tcp://HOST:PORT``): a client of it (:func:`connect`, within Dask's
    ``distributed.comm.timeouts.connect``) for this call."""
    if isinstance(client, str):
        with connect(client) as connected:
            return per_query_frames_on_cluster(
                rankings, judgments, measures, baseline, client=connected, local=local, npartitions=npartitions
            )
    names = list(rankings)
    npartitions = npartitions or default_partitions(client)
    chunks = [ids for ids in np.array_split(judgments.query_ids, npartitions) if len(ids)]
    bounds = np.asarray([ids[0] for ids in chunks], dtype=object)
    frames = {name: _split_by_query(ranking.frame()[RUN_COLUMNS], bounds) for name, ranking in rankings.items()}
    futures = [
        client.submit(
            _per_query_part,
            {name: frames[name][k] for name in names},
            judgments.restrict(chunks[k]),  # each part its own queries' judgments: work and memory of its size
            chunks[k],
            measures,
            baseline,
            local,
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


def on_cluster(client) -> PerQuery:
    """The per-query computation of an experiment on the cluster of ``client`` (a ``distributed.Client`` or a
    scheduler's address, ``tcp://HOST:PORT``), for :func:`ir_pref_measures.Experiment`'s ``per_query``.

    Parameters
    ----------
    client
        A ``distributed.Client`` (anything with ``submit``, ``gather`` and ``nthreads``) or a scheduler's address.

    Returns
    -------
    PerQuery
        :func:`per_query_frames_on_cluster` on ``client`` with the local code on the workers: the values of the
        local computation. The progress bar (``verbose``) and the result frames of measures defined at run time
        (``frames``) are the local computation's only.
    """

    def compute(rankings, judgments, measures, baseline, *, verbose=False, frames=None):
        return per_query_frames_on_cluster(
            rankings, judgments, measures, baseline, client=client, local=per_query_frames
        )

    return compute
