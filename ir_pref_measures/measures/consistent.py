"""Preference judgments made consistent: the judgments that agree with an order fitted to them, per query.

Judgments that contradict each other (a > b, b > c, c > a; or a = b with a > b) make the strict transitive closure
prefer every pair of a cycle both ways (:mod:`ir_pref_measures.model.cycles`). This keeps the judgments of a query
that one order of its docs satisfies, in three steps:

1. **majority**: the judgments of one pair, in either order, are counted as votes (a tie names neither doc); the
   doc with more votes wins, equal votes make a tie when the pair has a tie judgment, else the pair is undecided;
2. **tie classes**: docs joined by tied pairs form one class (they are interchangeable under the closure);
3. **a fitted order**: the classes are ordered by Greedy FAS (Eades, Lin and Smyth 1993; the heuristic for a
   minimum feedback arc set that Greedy PGC uses) on the decided pairs between them, each weighted by its
   margin of votes; the decided pairs that point backwards in that order (the feedback arcs) or join two docs of
   one class are left out.

A judgment is kept when it agrees with its pair's majority and that pair is kept; judgments of an undecided pair
are left out. What remains has no cycle: its closure prefers no pair both ways. On judgments without a cycle and
without a split vote nothing is left out (Greedy FAS orders an acyclic graph topologically), so the closure's
pairs are unchanged. A judgment that marks a doc bad, and every judgment of a pair holding a bad doc, is kept as it
is: a bad doc prefers nothing under the closure, so it lies on no cycle.

Ties between classes are broken by the smallest doc id of each class (string order), so the result does not depend
on the order of the input lines.

P. Eades, X. Lin, W. F. Smyth. A fast and effective heuristic for the feedback arc set problem. Information
Processing Letters 47(6), 1993.
"""

from __future__ import annotations

import numpy as np

from ir_pref_measures.measures.greedy_fas import greedy_fas_order


def consistent_rows(query: np.ndarray, a: np.ndarray, b: np.ndarray, outcome: np.ndarray, bad: np.ndarray):
    """Which judgments to keep (a boolean per row; module docstring).

    ``a``, ``b``: doc codes per row, unique across queries and ascending with (query, doc id); ``query``: the query
    code of each row; ``outcome``: ``1`` when ``a`` is preferred, ``-1`` when ``b`` is, ``0`` for a tie; ``bad``:
    per doc code, the doc is judged bad (its rows are kept as they are)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    keep = np.ones(len(a), dtype=bool)
    judged = ~bad[a] & ~bad[b] & (a != b)
    rows = np.flatnonzero(judged)
    if not len(rows):
        return keep
    low, high = np.minimum(a[rows], b[rows]), np.maximum(a[rows], b[rows])
    vote = np.where(a[rows] == low, outcome[rows], -outcome[rows])  # +1: the lower code preferred
    n = int(max(a.max(), b.max())) + 1
    pair, pair_of = np.unique(low.astype(np.int64) * n + high, return_inverse=True)
    pair_of = pair_of.reshape(-1)
    net = np.bincount(pair_of, weights=vote, minlength=len(pair)).astype(np.int64)
    tied = np.bincount(pair_of, weights=vote == 0, minlength=len(pair)) > 0
    first, second = pair // n, pair % n
    tie_pair = (net == 0) & tied
    graph = csr_matrix((np.ones(int(tie_pair.sum())), (first[tie_pair], second[tie_pair])), shape=(n, n))
    _, doc_class = connected_components(graph, directed=False)
    decided = net != 0
    winner = np.where(net > 0, first, second)
    loser = np.where(net > 0, second, first)
    kept_pair = tie_pair.copy()
    between = decided & (doc_class[winner] != doc_class[loser])
    pair_query = query[rows[np.unique(pair_of, return_index=True)[1]]]
    edges = np.flatnonzero(between)
    edges = edges[np.argsort(pair_query[edges], kind="stable")]
    bounds = np.flatnonzero(np.diff(pair_query[edges])) + 1
    for part in np.split(edges, bounds) if len(edges) else []:
        kept_pair[part] = _forward(doc_class[winner[part]], doc_class[loser[part]], np.abs(net[part]))
    kept_vote = np.sign(net)[pair_of]
    keep[rows] = kept_pair[pair_of] & (vote == kept_vote)
    return keep


def _forward(winner_class: np.ndarray, loser_class: np.ndarray, margin: np.ndarray) -> np.ndarray:
    """Per decided pair between classes (of one query): it points forwards in the Greedy FAS order of the classes
    (each pair an edge repeated by its margin; the class of the smaller doc code first among equals)."""
    classes, local = np.unique(np.concatenate([winner_class, loser_class]), return_inverse=True)
    src, dst = local[: len(winner_class)], local[len(winner_class) :]
    order = greedy_fas_order(len(classes), np.repeat(src, margin), np.repeat(dst, margin), np.arange(len(classes)))
    position = np.empty(len(classes), dtype=np.int64)
    position[order] = np.arange(len(classes))
    return position[src] < position[dst]
