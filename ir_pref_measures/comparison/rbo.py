"""Tie-aware rank-biased overlap between two runs, per query and averaged, and Compatibility with ties
(:mod:`..measures.tied_rbo`).

A run's tie groups are its docs of equal score within a query (the doc id order that breaks ties elsewhere in
the library plays no part). A query one run lacks is an empty ranking there (``min = ext = 0``; ``max = 1``
unless the other run ties).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ir_pref_measures.errors import InputError
from ir_pref_measures.loading.sources import ranking as as_ranking
from ir_pref_measures.measures.compatibility import relevant
from ir_pref_measures.measures.rbo import normalized
from ir_pref_measures.measures.tied_rbo import SCORES, TiedLists, check_params, tied_rbo
from ir_pref_measures.model.ids import arrow, as_numpy, ranges
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.rankings import Ranking

if TYPE_CHECKING:
    import pandas as pd

SUMMARY = "all"
MATCH_BLOCK = 1 << 16  # docs of both runs encoded at a time


def _tied_lists(run: Ranking, query_ids: np.ndarray, depth: int | None) -> tuple[TiedLists, pa.Array]:
    """The tie groups of ``run`` in each of ``query_ids`` (cut at ``depth``: :meth:`TiedLists.cut`), and the
    doc id of each position."""
    at = run.query_index(query_ids)
    present = at >= 0
    sizes = np.zeros(len(query_ids), np.int64)
    sizes[present] = np.diff(run.offsets)[at[present]]
    if present.all() and np.all(at[1:] > at[:-1]) and sizes.sum() == len(run.scores):
        entries = None  # every query of the run, in its order
        lists = TiedLists.from_scores(run.scores, sizes)
    else:
        entries = ranges(run.offsets[at[present]], run.offsets[at[present] + 1])
        lists = TiedLists.from_scores(run.scores[entries], sizes)
    if depth is not None:
        keep = lists.cut(depth)
        if not keep.all():
            sizes = np.bincount(np.repeat(np.arange(len(sizes)), sizes)[keep], minlength=len(sizes))
            lists = TiedLists(sizes, lists.top[keep], lists.bottom[keep])
            entries = np.flatnonzero(keep) if entries is None else entries[keep]
    return lists, run.doc_text if entries is None else run.doc_text.take(arrow(entries))


def shared_positions(offsets_a: np.ndarray, docs_a, offsets_b: np.ndarray, docs_b) -> tuple[np.ndarray, ...]:
    """The docs that lists a and b of the same query share (lists ``offsets[q]:offsets[q+1]`` of each): their
    query and their 0-based positions in a and in b. By blocks of queries whose docs fit in cache, the docs
    are dictionary-encoded (hashing, no sort), then matched query by query through a table of the codes."""
    found: list[tuple[np.ndarray, np.ndarray]] = []
    counts = np.zeros(len(offsets_a) - 1, dtype=np.int64)
    sizes = np.cumsum(np.diff(offsets_a) + np.diff(offsets_b))
    lo = 0
    while lo < len(sizes):
        hi = max(lo + 1, int(np.searchsorted(sizes, (sizes[lo - 1] if lo else 0) + MATCH_BLOCK, "right")))
        a0, b0 = int(offsets_a[lo]), int(offsets_b[lo])
        block_a, block_b = docs_a.slice(a0, int(offsets_a[hi]) - a0), docs_b.slice(b0, int(offsets_b[hi]) - b0)
        encoded = pc.dictionary_encode(_one_type(block_a, block_b)).combine_chunks()
        codes = as_numpy(encoded.indices)
        code_a, code_b = codes[: len(block_a)], codes[len(block_a) :]
        position_b = np.full(len(encoded.dictionary), -1, dtype=np.int64)
        for q in range(lo, hi):  # a query's docs at a time: the table holds one query's docs of b
            in_a = code_a[offsets_a[q] - a0 : offsets_a[q + 1] - a0]
            in_b = code_b[offsets_b[q] - b0 : offsets_b[q + 1] - b0]
            position_b[in_b] = np.arange(len(in_b))
            match = position_b[in_a]
            position_b[in_b] = -1
            hit = np.flatnonzero(match >= 0)
            found.append((hit, match[hit]))
            counts[q] = len(hit)
        lo = hi
    pos_a = np.concatenate([f[0] for f in found]) if found else np.zeros(0, np.int64)
    pos_b = np.concatenate([f[1] for f in found]) if found else np.zeros(0, np.int64)
    return np.repeat(np.arange(len(counts)), counts), pos_a, pos_b


def _one_type(*parts) -> pa.ChunkedArray:
    """Arrow string arrays (chunked or not) as one chunked array (large strings if their types differ)."""
    chunks = [c for part in parts for c in (part.chunks if isinstance(part, pa.ChunkedArray) else [part])]
    if len({c.type for c in chunks}) > 1:
        chunks = [c.cast(pa.large_string()) for c in chunks]
    return pa.chunked_array(chunks, type=chunks[0].type if chunks else pa.string())


def rbo_between(
    run_a: Ranking, run_b: Ranking, query_ids: np.ndarray, p: float = 0.9, ties: str = "a", depth: int | None = None
) -> dict[str, np.ndarray]:
    """Tie-aware RBO of two runs in each of ``query_ids``: ``{"ext", "min", "max", "res"} -> values``."""
    p, ties, depth = check_params(p, ties, depth)
    query_ids = np.asarray(query_ids)
    lists_a, docs_a = _tied_lists(run_a, query_ids, depth)
    lists_b, docs_b = _tied_lists(run_b, query_ids, depth)
    query, pos_a, pos_b = shared_positions(lists_a.offsets, docs_a, lists_b.offsets, docs_b)
    return tied_rbo(lists_a, lists_b, query, pos_a, pos_b, p, ties)


def rbo_runs(
    run_a, run_b, p: float = 0.9, ties: str = "a", depth: int | None = None, *, perquery: bool = True
) -> pd.DataFrame:
    """Tie-aware RBO between two runs (paths, DataFrames, dicts, ScoredDoc iterables or :class:`Ranking`):
    a DataFrame ``query_id, ext, min, max, res``, one row per query of either run (by query id) with
    ``perquery``, then the mean over those queries (``query_id = "all"``).

    Parameters
    ----------
    run_a, run_b
        The two runs.
    p : float
        The persistence, in (0, 1).
    ties : {"w", "a", "b"}
        The variant of RBO with ties.
    depth : int, optional
        Only the docs whose tie group starts above this depth.
    perquery : bool
        Also the rows of each query.

    Returns
    -------
    pandas.DataFrame
        ``query_id, ext, min, max, res``.
    """
    import pandas as pd

    p, ties, depth = check_params(p, ties, depth)
    a, b = as_ranking(run_a), as_ranking(run_b)
    query_ids = np.union1d(a.query_ids.astype(str), b.query_ids.astype(str)).astype(object)
    if not len(query_ids):
        raise InputError("both runs are empty: no query to compare")
    values = rbo_between(a, b, query_ids, p, ties, depth)
    rows = [pd.DataFrame({"query_id": query_ids, **values})] if perquery else []
    rows.append(pd.DataFrame({"query_id": [SUMMARY], **{s: [float(values[s].mean())] for s in SCORES}}))
    return pd.concat(rows, ignore_index=True) if len(rows) > 1 else rows[0]


def tied_compatibility(
    judgments: Judgments,
    run: Ranking,
    queries: np.ndarray,
    p: float = 0.95,
    ties: str = "w",
    normalize: bool = True,
    depth: int | None = 1000,
    score: str = "min",
) -> np.ndarray:
    """Compatibility with ties, for each query index in ``queries`` of graded ``judgments``: the tie-aware RBO
    (``ties``, ``score``) between the run, its docs of equal score tied and cut at ``depth``, and the ideal
    ranking of the docs with a grade > 0 by grade, equal grades tied (every order of the ideal result set at
    once, where Clarke et al. pick the order closest to the run); with ``normalize``, divided by the ideal's
    RBO with itself (0 for an empty ideal)."""
    p, ties, depth = check_params(p, ties, depth)
    queries = np.asarray(queries, dtype=np.int64)
    slot = np.full(len(judgments), -1, dtype=np.int64)
    slot[queries] = np.arange(len(queries))
    docs = judgments.docs_of(queries)
    docs = docs[relevant(judgments)[docs] & judgments.graded[docs]]
    docs = docs[np.lexsort((-judgments.grades[docs], slot[judgments.doc_query[docs]]))]
    ideal = TiedLists.from_scores(
        -judgments.grades[docs], np.bincount(slot[judgments.doc_query[docs]], minlength=len(queries))
    )
    lists, run_docs = _tied_lists(run, judgments.query_ids[queries], depth)
    query, pos_run, pos_ideal = shared_positions(
        lists.offsets, run_docs, ideal.offsets, judgments.doc_text.take(arrow(docs))
    )
    value = tied_rbo(lists, ideal, query, pos_run, pos_ideal, p, ties)[score]
    if not normalize:
        return value
    own = np.repeat(np.arange(len(queries)), ideal.lengths)
    positions = np.arange(len(own)) - ideal.offsets[own]
    return normalized(value, tied_rbo(ideal, ideal, own, positions, positions, p, ties)[score])
