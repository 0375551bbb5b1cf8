"""Preference pairs of a large combined query, counted by blocks of interchangeable docs, never listed.

In a query judged by grades plus a few explicit preferences or ties, the docs without explicit judgments
("plain" docs) of one grade (and one bad mark) are twins: the same derived edges in and out. Walks treat
twins alike, so the pair set of the ppref family (one step, or the transitive closure of
the closure rule of the judgments: a walk holding at least one strict edge) is a union of products of *blocks*:
one block per (grade, bad) class of plain docs, one per other doc. The block graph (derived edges between
graded blocks, explicit edges and ties between single docs) is small when grades are few; its
reachability (breadth-first, two layers: "no strict edge seen yet" and "one seen", as the listed closure)
gives, for every doc, the blocks it prefers. The per-rank counts of :mod:`.pair_counts` then come from
sorted ranks per target block and binary search, in O(V log V) per distinct block row:

* a doc ``i`` at rank ``f`` prefers ``j`` correctly when ``t_j > f``: counted per grade of the targets,
  which also gives the gain ``2**degree - 1`` (the degree depends on the two grades only);
* a pair first touched at the preferred doc's rank is a correct one; one first touched at the other
  doc's rank ``t`` has its preferred doc below ``t``: counted from the reverse reachability.

A pair ``(i, i)`` exists only for an explicit self-preference, as in the listed closure.

The counts of ``correct``, ``ordered`` and the totals are integers, so they equal the listed path's to the
last bit; the gains are sums of ``2**degree - 1``, equal too when grade differences are integers (a sum of
non-integers may differ in the last bits, being added in another order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ir_pref_measures.model.judgments import Judgments

BLOCK_LIMIT = 2048  # most blocks per query for the counting path (its reachability is a blocks x blocks matrix)


@dataclass(frozen=True)
class BlockPlan:
    """One query's docs (global ``lo:hi``) in blocks, and the blocks each block prefers (``reach``)."""

    q: int
    lo: int
    hi: int
    block: np.ndarray  # block of each doc (local index)
    reach: np.ndarray  # bool, blocks x blocks
    self_edge: np.ndarray  # per doc: an explicit self-preference
    source: np.ndarray  # per doc: prefers something or is a duplicate, and not bad (the tool's "preferred")
    n_pairs: int


def block_plan(judgments: Judgments, q: int, transitive: bool) -> BlockPlan | None:
    """The blocks of query ``q``, or ``None`` when there are more than ``BLOCK_LIMIT``."""
    lo, hi = int(judgments.doc_offsets[q]), int(judgments.doc_offsets[q + 1])
    n = hi - lo
    e_src, e_dst, bounds = judgments.explicit_good_edges()
    src = (e_src[bounds[q] : bounds[q + 1]] - lo).astype(np.int64)
    dst = (e_dst[bounds[q] : bounds[q + 1]] - lo).astype(np.int64)
    in_q = (judgments.tie_a >= lo) & (judgments.tie_a < hi)
    tie_a = (judgments.tie_a[in_q] - lo).astype(np.int64)
    tie_b = (judgments.tie_b[in_q] - lo).astype(np.int64)
    grades, bad = judgments.grades[lo:hi], judgments.bad[lo:hi]
    graded = ~np.isnan(grades)
    special = np.zeros(n, dtype=bool)
    for part in (src, dst, tie_a, tie_b):
        special[part] = True
    plain = ~special
    # plain docs: one block per (grade, bad) class, ungraded ones together (they have no edges)
    key = np.where(graded, grades, np.inf)
    classes, class_of = np.unique(np.stack([key[plain], bad[plain].astype(np.float64)]), axis=1, return_inverse=True)
    n_classes = classes.shape[1]
    n_blocks = n_classes + int(special.sum())
    if n_blocks > BLOCK_LIMIT:
        return None
    block = np.empty(n, dtype=np.int64)
    block[plain] = class_of.reshape(-1)
    block[special] = n_classes + np.arange(int(special.sum()))
    first = np.full(n_blocks, -1, dtype=np.int64)  # a representative doc per block
    first[block[::-1]] = np.arange(n)[::-1]
    b_grade, b_bad = grades[first], bad[first]
    b_graded = ~np.isnan(b_grade)
    # strict block edges: derived (good graded block -> graded block of lower grade) and explicit
    hi_b, lo_b = np.nonzero(
        (b_graded & ~b_bad)[:, None] & b_graded[None, :] & (b_grade[:, None] > np.where(b_graded, b_grade, np.inf))
    )
    s_rows = np.concatenate([hi_b, block[src]])
    s_cols = np.concatenate([lo_b, block[dst]])
    if transitive:
        reach = _strict_reach(n_blocks, s_rows, s_cols, block[tie_a], block[tie_b], b_bad)
    else:
        reach = np.zeros((n_blocks, n_blocks), dtype=bool)
        reach[s_rows, s_cols] = True
    self_edge = np.zeros(n, dtype=bool)
    self_edge[src[src == dst]] = True
    size = np.bincount(block, minlength=n_blocks)
    per_doc = (reach.astype(np.int64) @ size)[block] - (reach[block, block] & ~self_edge)
    source = np.zeros(n, dtype=bool)
    source[src] = True
    source[tie_a] = True
    source[tie_b] = True
    lowest = grades[graded].min() if graded.any() else np.inf
    source |= graded & (grades > lowest)  # derived edges out (a bad doc's are dropped below)
    source &= ~bad
    return BlockPlan(q, lo, hi, block, reach, self_edge, source, int(per_doc.sum()))


def _strict_reach(n: int, rows, cols, tie_a, tie_b, bad) -> np.ndarray:
    """``reach[a, b]``: a walk from block a to block b holds at least one strict edge (ties out of a bad
    block are ignored), as :func:`ir_pref_measures.model.reach.query_closure` on docs."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    tie_from = np.concatenate([tie_a[~bad[tie_a]], tie_b[~bad[tie_b]]])
    tie_to = np.concatenate([tie_b[~bad[tie_a]], tie_a[~bad[tie_b]]])
    r = np.concatenate([tie_from, tie_from + n, rows, rows + n])
    c = np.concatenate([tie_to, tie_to + n, cols + n, cols + n])
    graph = csr_matrix((np.ones(len(r)), (r, c)), shape=(2 * n, 2 * n))
    dist = shortest_path(graph, method="D", unweighted=True, indices=np.arange(n))
    return np.isfinite(dist[:, n:])


def doc_events(plan: BlockPlan, grades: np.ndarray, rank: np.ndarray):
    """Per doc of the query (local): correct pairs first touched at its rank and their gain, pairs first
    touched at its rank (as preferred or as the other doc), whether it prefers anything, its pair count."""
    block, reach = plan.block, plan.reach
    n = len(block)
    correct = np.zeros(n)
    gain = np.zeros(n)
    below_other = np.zeros(n)
    graded = ~np.isnan(grades)
    grade_key = np.where(graded, grades, np.inf)
    rows, row_of = np.unique(reach, axis=0, return_inverse=True)
    row_of = row_of.reshape(-1)
    for k in range(len(rows)):
        sources = np.flatnonzero(row_of[block] == k)
        targets = np.flatnonzero(rows[k][block])
        if not len(targets) or not len(sources):
            continue
        f = rank[sources]
        for value in np.unique(grade_key[targets]).tolist():
            in_class = targets[grade_key[targets] == value]
            ranks = np.sort(rank[in_class])
            count = (len(ranks) - np.searchsorted(ranks, f, "right")).astype(np.float64)
            difference = grades[sources] - (value if np.isfinite(value) else np.nan)
            degree = np.where(difference > 0, difference, 1.0)
            correct[sources] += count
            gain[sources] += count * (np.exp2(degree) - 1.0)
    cols, col_of = np.unique(reach.T, axis=0, return_inverse=True)
    col_of = col_of.reshape(-1)
    for k in range(len(cols)):
        targets = np.flatnonzero(col_of[block] == k)
        sources = np.flatnonzero(cols[k][block])
        if not len(targets) or not len(sources):
            continue
        ranks = np.sort(rank[sources])
        below_other[targets] = len(ranks) - np.searchsorted(ranks, rank[targets], "right")
    size = np.bincount(block, minlength=len(reach))
    pairs = (reach.astype(np.int64) @ size)[block] - (reach[block, block] & ~plan.self_edge)
    return correct, gain, correct + plan.self_edge + below_other, pairs
