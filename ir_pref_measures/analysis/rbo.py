"""Tie-aware rank-biased overlap between two runs, per query and averaged (:mod:`..measures.tied_rbo`).

A run's tie groups are its docs of equal score within a query (the doc id order that breaks ties elsewhere in
the library plays no part). A query one run lacks is an empty ranking there (``min = ext = 0``; ``max = 1`` unless the other run ties).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.ids import ranges
from ir_pref_measures.inputs.sources import ranking as as_ranking
from ir_pref_measures.measures.tied_rbo import SCORES, TIES, TiedLists, tied_rbo
from ir_pref_measures.model.rankings import Ranking

if TYPE_CHECKING:
    import pandas as pd

SUMMARY = "all"


def check_options(p: float, ties: str, depth: int | None) -> None:
    """Raise :class:`InputError` unless ``0 < p < 1``, ``ties`` is w, a or b and ``depth`` is None or >= 1."""
    if not 0 < p < 1:
        raise InputError(f"RBO persistence p={p} is out of range", expected="0 < p < 1")
    if ties not in TIES:
        raise InputError(f"RBO ties={ties!r} is unknown", expected=f"one of {', '.join(TIES)}")
    if depth is not None and (int(depth) != depth or depth < 1):
        raise InputError(f"RBO depth={depth} is not a positive integer", expected="a depth >= 1, or none")


def _tied_lists(run: Ranking, query_ids: np.ndarray, depth: int | None) -> tuple[TiedLists, np.ndarray]:
    """The tie groups of ``run`` in each of ``query_ids`` (cut at ``depth``: :meth:`TiedLists.cut`), and the
    run's entry index of each position."""
    at = run.query_index(query_ids)
    present = at >= 0
    sizes = np.zeros(len(query_ids), np.int64)
    sizes[present] = np.diff(run.offsets)[at[present]]
    entries = ranges(run.offsets[at[present]], run.offsets[at[present] + 1])
    lists = TiedLists.from_scores(run.scores[entries], sizes)
    if depth is not None:
        keep = lists.cut(depth)
        sizes = np.bincount(np.repeat(np.arange(len(sizes)), sizes)[keep], minlength=len(sizes))
        lists, entries = TiedLists(sizes, lists.top[keep], lists.bottom[keep]), entries[keep]
    return lists, entries


def rbo_between(
    run_a: Ranking, run_b: Ranking, query_ids: np.ndarray, p: float = 0.9, ties: str = "a", depth: int | None = None
) -> dict[str, np.ndarray]:
    """Tie-aware RBO of two runs in each of ``query_ids``: ``{"ext", "min", "max", "res"} -> values``."""
    check_options(p, ties, depth)
    query_ids = np.asarray(query_ids)
    lists_a, entries_a = _tied_lists(run_a, query_ids, depth)
    lists_b, _ = _tied_lists(run_b, query_ids, depth)
    query = np.repeat(np.arange(len(query_ids)), lists_a.lengths)
    rank_b = run_b.rank_in(run_b.query_index(query_ids)[query], run_a.doc_text.take(entries_a))
    pos_b = rank_b - 1  # the kept part of b is a prefix of each query's list
    shared = np.flatnonzero(pos_b < lists_b.lengths[query])
    pos_a = np.arange(len(query)) - lists_a.offsets[query]
    return tied_rbo(lists_a, lists_b, query[shared], pos_a[shared], pos_b[shared].astype(np.int64), p, ties)


def rbo_runs(
    run_a, run_b, p: float = 0.9, ties: str = "a", depth: int | None = None, *, perquery: bool = True
) -> pd.DataFrame:
    """Tie-aware RBO between two runs (paths, DataFrames, dicts, ScoredDoc iterables or :class:`Ranking`):
    a DataFrame ``query_id, ext, min, max, res``, one row per query of either run (by query id) with
    ``perquery``, then the mean over those queries (``query_id = "all"``)."""
    import pandas as pd

    check_options(p, ties, depth)
    a, b = as_ranking(run_a), as_ranking(run_b)
    query_ids = np.union1d(a.query_ids.astype(str), b.query_ids.astype(str)).astype(object)
    if not len(query_ids):
        raise InputError("both runs are empty: no query to compare")
    values = rbo_between(a, b, query_ids, p, ties, depth)
    rows = [pd.DataFrame({"query_id": query_ids, **values})] if perquery else []
    rows.append(pd.DataFrame({"query_id": [SUMMARY], **{s: [float(values[s].mean())] for s in SCORES}}))
    return pd.concat(rows, ignore_index=True) if len(rows) > 1 else rows[0]
