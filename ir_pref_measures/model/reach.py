"""The strict transitive closure of preference graphs (the rule of Carterette et al.'s pairwise_pref_eval.py,
made deterministic): the pairs ``(i, j)``, ``i != j``, joined by a walk that holds at least one strict edge,
walking through ties (a tie never leads out of a bad doc),
plus ``(i, i)`` for an explicit self-preference. Sorted by ``(i, j)``.

Two kernels give the same pairs. :func:`query_closure` takes one query of any size: breadth-first search on a
two-layer graph (layer 0: no strict edge seen yet, layer 1: one seen), a chunk of sources at a time.
:func:`batch_closure` takes many small queries at once, with one set of bits per doc: the reachability of
every doc in the condensation (strongly connected components) of the graph, propagated from its sinks up,
one topological level at a time, for all queries together; then a doc prefers what a strict edge out of
its tie component reaches. :func:`closure_estimate` bounds the size of a query's closure before it is listed.
"""

from __future__ import annotations

import numpy as np

from ir_pref_measures.model.ids import ranges, unique_sorted

CLOSURE_CHUNK = 512  # sources per breadth-first batch of query_closure (bounds memory)
EDGE_CHUNK = 1 << 18  # words (of 64 bits) gathered per step of the bit-set propagation (2 MB temporary arrays)


def _tie_edges(tie_a: np.ndarray, tie_b: np.ndarray, bad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The directed edges of the ties: both ways, except out of a bad doc."""
    tie_from = np.concatenate([tie_a[~bad[tie_a]], tie_b[~bad[tie_b]]])
    tie_to = np.concatenate([tie_b[~bad[tie_a]], tie_a[~bad[tie_b]]])
    return tie_from, tie_to


def query_closure(src, dst, tie_a, tie_b, bad) -> tuple[np.ndarray, np.ndarray]:
    """The strict closure of one query (doc indices ``0..len(bad)-1``), sorted by (i, j).

    Breadth-first search on a two-layer graph: layer 0 = no strict edge seen yet, layer 1 = one seen;
    ties connect within a layer, strict edges lead into layer 1.
    """
    from scipy.sparse import csr_matrix  # imported here: only the closure needs scipy (0.1 s to import)
    from scipy.sparse.csgraph import shortest_path

    n = len(bad)
    tie_from, tie_to = _tie_edges(tie_a, tie_b, bad)
    rows = np.concatenate([tie_from, tie_from + n, src, src + n])
    cols = np.concatenate([tie_to, tie_to + n, dst + n, dst + n])
    graph = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(2 * n, 2 * n))
    self_edge = np.zeros(n, dtype=bool)
    self_edge[src[src == dst]] = True
    out_i, out_j = [], []
    for lo in range(0, n, CLOSURE_CHUNK):
        starts = np.arange(lo, min(n, lo + CLOSURE_CHUNK))
        dist = shortest_path(graph, method="D", unweighted=True, indices=starts)
        i, j = np.nonzero(np.isfinite(dist[:, n:]))
        i = starts[i]
        keep = (i != j) | self_edge[j]
        out_i.append(i[keep])
        out_j.append(j[keep])
    return np.concatenate(out_i), np.concatenate(out_j)


def batch_closure(
    doc_query: np.ndarray, local: np.ndarray, src, dst, tie_a, tie_b, bad, grades=None, ids=None
) -> tuple[np.ndarray, np.ndarray]:
    """The strict closure of several queries at once, as :func:`query_closure` gives it query by query.

    Docs are ``0..n-1``, in blocks of queries: ``doc_query`` (the query of each doc, ascending) and ``local``
    (its index within the query); the edges and ties join docs of one query. ``grades`` (NaN: none) add the
    derived strict edges ``a -> b``, grade(a) > grade(b), ``a`` not bad, without listing them
    (:func:`grade_levels`). The pairs name docs by ``ids`` (default: ``0..n-1``), which must ascend, by one
    within a query (``local`` = the id minus the id of the query's first doc), so that the pairs come sorted.
    Memory: a few sets of bits as wide as the largest query, per doc (callers batch queries to bound them).
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n = len(bad)
    words = max(1, -(-(int(local.max()) + 1) // 64)) if n else 1
    tie_from, tie_to = _tie_edges(tie_a, tie_b, bad)
    none = np.zeros(0, dtype=np.int64)
    levels = ((none, none), (none, none)) if grades is None else grade_levels(doc_query, grades, bad)
    (level_src, level_dst), (walk_src, walk_dst) = levels
    src, dst = np.concatenate([src, level_src]), np.concatenate([dst, level_dst])  # every strict edge
    rows, cols = np.concatenate([src, tie_from, walk_src]), np.concatenate([dst, tie_to, walk_dst])
    nodes = n + (int(walk_src.max()) + 1 - n if len(walk_src) else 0)
    graph = csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(nodes, nodes))
    k, component = connected_components(graph, directed=True, connection="strong")
    reach = np.zeros((k, words), dtype=np.uint64)  # first the docs of each component, then all it reaches
    np.bitwise_or.at(reach, (component[:n], local >> 6), np.uint64(1) << (local & 63).astype(np.uint64))
    above, below = component[rows], component[cols]
    keys = unique_sorted(above[above != below].astype(np.int64) * k + below[above != below])
    above, below = keys // k, keys % k
    for level in reversed(_topological_levels(above, below, k)):  # sinks first: what a level reaches is final
        _or_rows(reach, above[level], reach, below[level])
    preferred = np.zeros((n, words), dtype=np.uint64)  # per doc: what its strict edges reach
    _or_rows(preferred, src, reach, component[dst])
    # a doc prefers what the strict edges out of its tie component reach (ties between good docs go both ways;
    # a good doc also walks into a tied bad doc)
    good = ~bad[tie_a] & ~bad[tie_b]
    pairs = csr_matrix((np.ones(int(good.sum()), dtype=np.int8), (tie_a[good], tie_b[good])), shape=(n, n))
    n_tied, tied = connected_components(pairs, directed=False)
    by_component = np.zeros((n_tied, words), dtype=np.uint64)
    _or_rows(by_component, tied, preferred, np.arange(n))
    _or_rows(by_component, tied[tie_from], preferred, tie_to)
    self_edge = np.zeros(n, dtype=bool)
    self_edge[src[src == dst]] = True
    ids = np.arange(n) if ids is None else ids
    return _pairs_of_bits(by_component, tied, doc_query, local, self_edge, ids)


def grade_levels(doc_query: np.ndarray, grades: np.ndarray, bad: np.ndarray):
    """The derived edges through one node per (query, grade) (nodes ``n, n+1, ...`` after the ``n`` docs):
    strict edges from each good graded doc to the node of the next lower grade of its query, and walks from
    each grade's node to its docs and to the next lower grade's node. A doc reaches through them exactly the
    docs of lower grades, as its derived edges, with O(docs) edges instead of O(docs^2)."""
    n = len(grades)
    graded = np.flatnonzero(~np.isnan(grades))
    order = graded[np.lexsort((-grades[graded], doc_query[graded]))]  # by query, grade descending
    if not len(order):
        return (order, order), (order, order)
    query, grade = doc_query[order], grades[order]
    starts = np.r_[True, (query[1:] != query[:-1]) | (grade[1:] != grade[:-1])]
    level = np.cumsum(starts) - 1
    level_query = query[starts]
    lower = np.flatnonzero(level_query[1:] == level_query[:-1])  # level -> the next level down, same query
    below = level + 1
    has_below = below < len(level_query)
    has_below[has_below] = level_query[below[has_below]] == query[has_below]
    strict = has_below & ~bad[order]
    walks = (np.r_[n + level, n + lower], np.r_[order, n + lower + 1])
    return (order[strict], n + below[strict]), walks


def _topological_levels(above: np.ndarray, below: np.ndarray, k: int) -> list[np.ndarray]:
    """The positions of the DAG's edges ``above -> below`` (sorted by ``above``) by the topological level of
    ``above`` (Kahn's algorithm, one level of nodes at a time): every edge out of a level's nodes leads to a
    later level."""
    starts = np.searchsorted(above, np.arange(k + 1))
    remaining = np.bincount(below, minlength=k)
    frontier = np.flatnonzero(remaining == 0)
    levels = []
    while len(frontier):
        edges = ranges(starts[frontier], starts[frontier + 1])
        levels.append(edges)
        targets = below[edges]
        np.subtract.at(remaining, targets, 1)
        frontier = unique_sorted(targets[remaining[targets] == 0])
    return levels


def _or_rows(out: np.ndarray, rows: np.ndarray, bits: np.ndarray, from_rows: np.ndarray) -> None:
    """``out[rows[e]] |= bits[from_rows[e]]`` for every e, in chunks of ``EDGE_CHUNK`` words."""
    step = max(1, EDGE_CHUNK // bits.shape[1])
    for lo in range(0, len(rows), step):
        np.bitwise_or.at(out, rows[lo : lo + step], bits[from_rows[lo : lo + step]])


def _pairs_of_bits(by_component, component, doc_query, local, self_edge, ids) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(ids[i], ids[j])`` for the bits set in ``by_component[component[i]]`` (bit ``local[j]`` for j
    in i's query), sorted, without ``(i, i)`` unless ``self_edge[i]``."""
    n, words = len(component), by_component.shape[1]
    query_start = ids[np.searchsorted(doc_query, doc_query, "left")]  # the id of the first doc of i's query
    out_i, out_j = [], []
    step = max(1, (1 << 22) // (64 * words))  # docs unpacked at a time: 4 MB of booleans
    for lo in range(0, n, step):
        words_le = by_component[component[lo : lo + step]].astype("<u8", copy=False)  # bit b of word w: byte 8w+b//8
        bits = np.unpackbits(words_le.view(np.uint8), axis=1, bitorder="little")
        bits[np.arange(len(bits)), local[lo : lo + step]] = self_edge[lo : lo + step]  # (i, i): a self-edge only
        counts = np.count_nonzero(bits, axis=1)
        j = np.nonzero(bits)[1].astype(ids.dtype)
        j += np.repeat(query_start[lo : lo + step], counts)  # ids of one query are consecutive
        out_i.append(np.repeat(ids[lo : lo + step], counts))
        out_j.append(j)
    if len(out_i) == 1:
        return out_i[0], out_j[0]
    return np.concatenate(out_i or [ids[:0]]), np.concatenate(out_j or [ids[:0]])


def closure_estimate(src, dst, tie_a, tie_b, bad) -> int:
    """An upper bound on the pairs of :func:`query_closure`, from the condensation (strongly connected
    components) of the graph: the pairs within each cyclic component, and for each component the sizes of
    the components below it summed along the DAG (capped at the number of docs; exact on trees and chains)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n = len(bad)
    tie_from, tie_to = _tie_edges(tie_a, tie_b, bad)
    rows, cols = np.concatenate([src, tie_from]), np.concatenate([dst, tie_to])
    graph = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    k, label = connected_components(graph, directed=True, connection="strong")
    size = np.bincount(label, minlength=k)
    a, b = label[rows], label[cols]
    cyclic = np.zeros(k, dtype=bool)
    cyclic[a[a == b]] = True
    keys = unique_sorted(a[a != b].astype(np.int64) * k + b[a != b])
    ca, cb = (keys // k).tolist(), (keys % k).tolist()
    children: list[list[int]] = [[] for _ in range(k)]
    indegree = [0] * k
    for x, y in zip(ca, cb, strict=True):
        children[x].append(y)
        indegree[y] += 1
    order = [c for c in range(k) if indegree[c] == 0]
    for c in order:  # Kahn: the list grows while it is read
        for y in children[c]:
            indegree[y] -= 1
            if indegree[y] == 0:
                order.append(y)
    sizes = size.tolist()
    bound = [0] * k
    for c in reversed(order):
        total = sizes[c] if cyclic[c] else 0
        for y in children[c]:
            total += sizes[y] + bound[y]
        bound[c] = min(n, total)
    return int(sum(s * b for s, b in zip(sizes, bound, strict=True)))
