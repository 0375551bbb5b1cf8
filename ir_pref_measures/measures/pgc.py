"""Greedy Preference Graph Compatibility (PGC): RBO between a run and the ideal ranking closest to it.

Luo's Greedy PGC (thesis Algorithms 2-4) orders the vertices of each query's preference multigraph by
the Eades-Lin-Smyth greedy feedback-arc-set heuristic, choosing among sinks, sources and max-delta
vertices by the run itself: sinks (RANKSINK) take the largest (rank, doc id), sources and max-delta
vertices (RANKSOURCE) the smallest, unretrieved docs ranked +infinity. The score is the depth-1000 RBO
between that ideal ranking and the run, not normalised (:mod:`.rbo`).

Vertices are the judged docs of a query (a doc graded alone, or judged only as a duplicate, is an
isolated vertex); edges are the strict preferences with multiplicity, explicit and derived from grades
(a -> b for grade(a) > grade(b)). A doc judged bad prefers nothing and is placed last. Judgments made
only of grades take a fast path: the greedy order of a complete layered DAG is grade descending, then
(rank, doc id) ascending, so no edge is built. Combined judgments (grades and explicit preferences) never
list their derived edges either: :func:`.greedy_fas.layered_greedy_fas_order` counts them per grade layer.

C. Luo. Information Retrieval Evaluation Measures Based on Preference Graphs. MMath thesis, University
of Waterloo, 2021. C. L. A. Clarke, C. Luo, M. D. Smucker. Evaluation measures based on preference
graphs. SIGIR 2021.
"""

from __future__ import annotations

import numpy as np

from ir_pref_measures.measures.greedy_fas import layered_greedy_fas_order
from ir_pref_measures.measures.rbo import normalized, rbo_sums, self_rbo
from ir_pref_measures.model.judgments import Judgments


def tie_break_priority(judgments: Judgments, key: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """For each of ``docs`` (the sorted global indices of the docs of whole queries), its 0-based position
    within its query in (``key``, doc id) order; ``key`` = rank (inf = unretrieved) or any examination
    distance, for every judged doc."""
    query = judgments.doc_query[docs]
    order = np.lexsort((docs, key[docs], query))
    priority = np.empty(len(docs), dtype=np.int64)
    priority[order] = np.arange(len(docs)) - np.searchsorted(query, query[order], "left")
    return priority


def ideal_order(judgments: Judgments, key: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Global doc indices of ``queries`` (query by query, in the order given), each query's docs in the
    Greedy PGC ideal order for the actual ranking described by ``key`` (see :func:`tie_break_priority`)."""
    doc_query, offsets = judgments.doc_query, judgments.doc_offsets
    docs = judgments.docs_of(queries)  # sorted: equal keys keep doc id order in a stable sort
    if judgments.only_graded:  # grade descending, then (key, doc id): the tie-break priority, sorted at once
        position = np.empty(len(judgments), dtype=np.int64)
        position[queries] = np.arange(len(queries))
        return docs[np.lexsort((key[docs], -judgments.grades[docs], position[doc_query[docs]]))]
    priority = tie_break_priority(judgments, key, docs)  # only the docs of ``queries``: a block costs its size
    src, dst, bounds = judgments.explicit_good_edges()  # the derived edges are counted from the grades
    parts = []
    for q in np.asarray(queries).tolist():
        lo, hi = int(offsets[q]), int(offsets[q + 1])
        edges = slice(bounds[q], bounds[q + 1])
        first = int(np.searchsorted(docs, lo))  # the query's docs are docs[first:first + hi - lo]
        local = layered_greedy_fas_order(
            hi - lo,
            src[edges] - lo,
            dst[edges] - lo,
            priority[first : first + hi - lo],
            judgments.grades[lo:hi],
            judgments.bad[lo:hi],
        )
        parts.append(local[np.argsort(judgments.bad[lo + local], kind="stable")] + lo)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def positions_in(order: np.ndarray, doc_query: np.ndarray, n_docs: int) -> np.ndarray:
    """For docs listed query by query in ``order``: each doc's 0-based position in its query's list,
    -1 for docs not listed."""
    position = np.full(n_docs, -1, dtype=np.int64)
    position[order] = _list_positions(doc_query[order])
    return position


def _list_positions(query: np.ndarray) -> np.ndarray:
    """0-based position of each entry of lists given query by query (``query``: the query of each entry)."""
    starts = np.flatnonzero(np.r_[True, query[1:] != query[:-1]]) if len(query) else np.zeros(0, np.int64)
    return np.arange(len(query)) - np.repeat(starts, np.diff(np.r_[starts, len(query)]))


def rbo_of_positions(
    judgments: Judgments,
    queries: np.ndarray,
    ideal_position: np.ndarray,
    run_position: np.ndarray,
    p: float,
    depth: int,
    normalize: bool,
) -> np.ndarray:
    """RBO per query of ``queries`` between each ideal list and the run, from positions of judged docs
    (0-based; ideal -1 = not in the ideal, run inf = not retrieved); ``normalize`` divides by the
    ideal's RBO with itself."""
    slot = np.full(len(judgments), -1, dtype=np.int64)
    slot[queries] = np.arange(len(queries))
    docs = np.flatnonzero((ideal_position >= 0) & (slot[judgments.doc_query] >= 0))
    positions = ideal_position[docs], run_position[docs]
    return _rbo_of_lists(judgments, queries, docs, *positions, p=p, depth=depth, normalize=normalize)


def _rbo_of_lists(judgments: Judgments, queries: np.ndarray, docs: np.ndarray, *positions, p, depth, normalize):
    """:func:`rbo_of_positions` from the docs of the ideal lists alone (``docs``, of ``queries`` only) and
    their ideal and run ``positions``: arrays the size of the lists, never of every judged doc."""
    ideal_position, run_position = positions
    slot = np.full(len(judgments), -1, dtype=np.int64)
    slot[queries] = np.arange(len(queries))
    doc_slot = slot[judgments.doc_query[docs]]
    shared = np.isfinite(run_position)
    shared_at = np.maximum(ideal_position[shared], run_position[shared]).astype(np.int64) + 1
    score = rbo_sums(doc_slot[shared], shared_at, len(queries), p, depth)
    if normalize:
        score = normalized(score, self_rbo(np.bincount(doc_slot, minlength=len(queries)), p, depth))
    return score


def rbo_to_ideal(
    judgments: Judgments,
    doc_rank: np.ndarray,
    queries: np.ndarray,
    p: float,
    depth: int,
    normalize: bool,
    keep: np.ndarray | None = None,
) -> np.ndarray:
    """RBO between the run (``doc_rank``: 1-based rank of every judged doc, inf = not retrieved) and the
    ideal ranking closest to it, for each query index in ``queries``; ``keep`` masks docs out of the ideal."""
    order = ideal_order(judgments, doc_rank, queries)
    if keep is not None:
        order = order[keep[order]]
    positions = _list_positions(judgments.doc_query[order]), doc_rank[order] - 1
    return _rbo_of_lists(judgments, queries, order, *positions, p=p, depth=depth, normalize=normalize)


def pgc(
    judgments: Judgments,
    doc_rank: np.ndarray,
    queries: np.ndarray,
    p: float = 0.95,
    depth: int = 1000,
    normalize: bool = False,
) -> np.ndarray:
    """Greedy PGC of one run for each query index in ``queries``: RBO with the Greedy FAS ideal."""
    return rbo_to_ideal(judgments, doc_rank, queries, p, depth, normalize)
