"""trec_eval's judgment groups (``-R prefs`` / ``-R qrels_prefs``): the preferences of a group, its closure, and
the checks trec_eval makes before evaluating it.

Definitions from trec_eval 9.0+ (C. Buckley 2008; ``form_prefs_counts.c`` of usnistgov/trec_eval). The input is
one row per judgment line: query, judgment group (jg), sub-group (jsg), doc, level. Within a jsg every doc of a
higher level is preferred to every doc of a lower one.

* A jg with one jsg is a weak order (:mod:`.trec_counts` counts its preferences without listing them). trec_eval
  rejects a doc listed at two levels.
* A jg with several jsgs is a partial order: the set union of its jsgs' preferences and their transitive
  closure, computed sparsely per group (each jsg is chained through one virtual node per level, so its edges
  are linear in its lines). trec_eval rejects a doc whose level goes from 0 to non-zero or back, and aborts on a
  cycle ("Pref inconsistency"); here a group with cycles is evaluated on its *condensation*: the docs of one
  strongly connected component of the group's preference graph are tied (no preference among them), the
  preferences between components are kept with their transitive closure. On a consistent group this is
  trec_eval's closure, unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# -- row ids -----------------------------------------------------------------------------------------------------------


def dense_ids(*columns: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense ids of the row tuples of ``columns`` (most significant first), numbered in sorted order."""
    n = len(columns[0])
    if n == 0:
        return np.zeros(0, np.int64), 0
    order = np.lexsort(columns[::-1])
    new = np.zeros(n, bool)
    new[0] = True
    for column in columns:
        ordered = column[order]
        new[1:] |= ordered[1:] != ordered[:-1]
    ids = np.empty(n, np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids, int(new.sum())


def first_rows(ids: np.ndarray, n: int) -> np.ndarray:
    """For each id in ``0..n-1``, the first row holding it."""
    first = np.full(n, len(ids), np.int64)
    np.minimum.at(first, ids, np.arange(len(ids)))
    return first


def expand(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All ``(i, p)`` with ``lo[i] <= p < hi[i]``: the owners ``i`` and the positions ``p``."""
    sizes = np.maximum(hi - lo, 0)
    owner = np.repeat(np.arange(len(lo)), sizes)
    starts = np.cumsum(sizes) - sizes
    return owner, np.arange(int(sizes.sum())) - np.repeat(starts - lo, sizes)


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """``np.unique(keys)`` by sorting (numpy 2.4's hash-based ``np.unique`` is ~50x slower on millions of keys)."""
    keys = np.sort(keys)
    return keys[np.r_[True, keys[1:] != keys[:-1]]] if len(keys) else keys


def subgroup_counts(gid: np.ndarray, subgroup: np.ndarray) -> np.ndarray:
    """Per group id ``0..gid.max()``, its number of distinct sub-groups (jsgs)."""
    ids, n = dense_ids(gid, subgroup)
    return np.bincount(gid[first_rows(ids, n)], minlength=int(gid.max()) + 1 if len(gid) else 0)


# -- partial orders (several jsgs) -------------------------------------------------------------------------------------


@dataclass
class PartialOrders:
    """Nodes (group, doc) of the several-jsg groups and the closure pairs between them."""

    node: np.ndarray  # per input row of these groups
    node_group: np.ndarray
    node_rank: np.ndarray
    node_level: np.ndarray  # trec_eval's rel_array: the level of the doc's last line in (jsg, level desc) order
    preferred: np.ndarray  # closure pairs, node ids, preferred -> other (no self pairs)
    other: np.ndarray


def _closure(src: np.ndarray, dst: np.ndarray, n_sources: int, n_nodes: int) -> np.ndarray:
    """Keys ``a * n_nodes + b`` of every path a -> ... -> b out of a node ``a < n_sources``.

    Semi-naive evaluation: each round extends only the pairs found in the previous one by one edge.
    """
    order = np.argsort(src, kind="stable")
    src, dst = src[order], dst[order]
    out = np.searchsorted(src, np.arange(n_nodes + 1))
    known = _sorted_unique(src[src < n_sources] * n_nodes + dst[src < n_sources])
    delta = known
    while len(delta):
        a, x = np.divmod(delta, n_nodes)
        owner, position = expand(out[x], out[x + 1])
        candidates = _sorted_unique(a[owner] * n_nodes + dst[position])
        at = np.searchsorted(known, candidates)
        seen = (at < len(known)) & (known[np.minimum(at, len(known) - 1)] == candidates)
        delta = candidates[~seen]
        known = np.sort(np.concatenate([known, delta]), kind="stable")
    return known


@dataclass
class _PreferenceGraph:
    """The preferences of several-jsg groups as one sparse graph over all groups (of all queries).

    Node ``i < n_real`` is a (group, doc); the others are one virtual node per (group, jsg, level): the rows at
    a level point to the virtual node of their level, which points to the rows of the next level down in their
    jsg. A path between two docs is then a preference of the closure, and the edges are linear in the rows.
    Where a level or the one below holds one row, its virtual node is replaced by the direct edges (as many);
    the lowest level's has nothing to point to and gets no edge. ``component``: the strongly connected
    component of each node (``scipy.sparse.csgraph``), components holding a doc numbered first.
    """

    node: np.ndarray  # per input row
    n_real: int
    src: np.ndarray
    dst: np.ndarray
    component: np.ndarray
    n_doc_components: int


def _preference_graph(group, subgroup, doc, level) -> _PreferenceGraph:
    from scipy.sparse import csr_matrix  # imported here: only several-jsg groups need scipy (0.1 s to import)
    from scipy.sparse.csgraph import connected_components

    node, n_real = dense_ids(group, doc)
    step, n_steps = dense_ids(group, subgroup, level)  # (group, jsg, level), levels ascending within a jsg
    step_first = first_rows(step, n_steps)
    has_below = np.r_[False, (group[step_first][1:] == group[step_first][:-1])]
    has_below[1:] &= subgroup[step_first][1:] == subgroup[step_first][:-1]
    by_step = np.argsort(step, kind="stable")
    bounds = np.searchsorted(step[by_step], np.arange(n_steps + 1))
    size = np.diff(bounds)
    direct = has_below & ((size == 1) | (np.r_[0, size[:-1]] == 1))
    virtual = has_below & ~direct
    into = np.flatnonzero(virtual[step])  # rows -> their level's virtual node
    below = np.flatnonzero(np.r_[virtual[1:], False][step])  # the virtual node of the level above -> rows
    rows = np.flatnonzero(direct[step])  # rows -> each row of the level below
    owner, position = expand(bounds[step[rows] - 1], bounds[step[rows]])
    src = np.concatenate([node[into], n_real + step[below] + 1, node[rows[owner]]])
    dst = np.concatenate([n_real + step[into], node[below], node[by_step[position]]])
    n_nodes = n_real + n_steps
    graph = csr_matrix((np.ones(len(src), np.int32), (src, dst)), shape=(n_nodes, n_nodes))
    n_labels, label = connected_components(graph, directed=True, connection="strong")
    holds_doc = np.zeros(n_labels, bool)
    holds_doc[label[:n_real]] = True
    renumber = np.argsort(~holds_doc, kind="stable").argsort()  # label -> component, docs' components first
    return _PreferenceGraph(node, n_real, src, dst, renumber[label], int(holds_doc.sum()))


def _cyclic_components(graph: _PreferenceGraph) -> np.ndarray:
    """Per component holding a doc: True if it holds two docs or more (each preferred to the other)."""
    return np.bincount(graph.component[: graph.n_real], minlength=graph.n_doc_components) > 1


def _condensed_pairs(graph: _PreferenceGraph) -> tuple[np.ndarray, np.ndarray]:
    """The doc pairs (preferred, other) of the closure of the condensation: component A over component B
    when a path leads from A to B, then every doc of A over every doc of B (none within a component)."""
    comp, n_docs = graph.component, graph.n_doc_components
    n_components = int(comp.max()) + 1 if len(comp) else 0
    a, b = comp[graph.src], comp[graph.dst]
    between = a != b
    keys = _closure(a[between], b[between], n_docs, n_components)
    high, low = np.divmod(keys, n_components)
    high, low = high[low < n_docs], low[low < n_docs]
    members = np.argsort(comp[: graph.n_real], kind="stable")
    bounds = np.searchsorted(comp[members], np.arange(n_docs + 1))
    pair, first = expand(bounds[high], bounds[high + 1])
    owner, second = expand(bounds[low[pair]], bounds[low[pair] + 1])
    return members[first[owner]], members[second]


def partial_orders(group, subgroup, doc, level, rank) -> PartialOrders:
    """Closure of the preferences of several-jsg groups (rows of those groups only), condensed where cyclic."""
    graph = _preference_graph(group, subgroup, doc, level)
    node, n_real = graph.node, graph.n_real
    first = first_rows(node, n_real)
    if not n_real:
        empty = np.zeros(0, np.int64)
        return PartialOrders(node, empty, empty, np.zeros(0), empty, empty)
    preferred, other = _condensed_pairs(graph)
    last = np.lexsort((-level, subgroup, node))
    last = last[np.r_[node[last][1:] != node[last][:-1], True]]
    return PartialOrders(node, group[first], rank[first], level[last], preferred, other)


# -- consistency checks ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Inconsistency:
    """A judgment group trec_eval rejects: ``rows`` are the two offending input rows."""

    message: str
    rows: tuple[int, int]


@dataclass(frozen=True)
class Cycles:
    """The (query, jg) whose several-jsg preferences hold a cycle, evaluated on their condensation.

    ``blocks``: one input row of each such (query, jg), in (query, jg) order; ``first``: one input row per doc
    of the first cycle (the strongly connected component of the first block holding its smallest doc code),
    in doc code order.
    """

    blocks: np.ndarray
    first: np.ndarray


def find_cycles(query, group, subgroup, doc, level) -> Cycles:
    """The cycles of several-jsg groups (trec_eval's "Pref inconsistency"): strongly connected components of
    each group's preference graph holding two docs or more; all groups of all queries in one graph."""
    gid, _ = dense_ids(query, group)
    rows = np.flatnonzero(subgroup_counts(gid, subgroup)[gid] > 1)
    graph = _preference_graph(gid[rows], subgroup[rows], doc[rows], level[rows])
    node_rows = rows[first_rows(graph.node, graph.n_real)]  # in (query, jg, doc) order
    component = graph.component[: graph.n_real]
    nodes = np.flatnonzero(_cyclic_components(graph)[component])
    if not len(nodes):
        return Cycles(np.zeros(0, np.int64), np.zeros(0, np.int64))
    node_gid = gid[node_rows[nodes]]
    blocks = node_rows[nodes[np.r_[True, node_gid[1:] != node_gid[:-1]]]]
    return Cycles(blocks, node_rows[component == component[nodes[0]]])


def find_inconsistency(query, group, subgroup, doc, level, *, cycles: bool = True) -> Inconsistency | None:
    """The first judgment group trec_eval would reject, if any.

    With one jsg, a doc at two levels; with several, a doc whose level goes from 0 to non-zero or back
    along (jsg, level descending) order ("has both 0 and non-0 rel_level"), or, if ``cycles``, two docs each
    preferred to the other after transitive closure ("Pref inconsistency found", where trec_eval aborts;
    :func:`.trec_prefs.trec_prefs_values` evaluates such a group on its condensation).
    """
    gid, _ = dense_ids(query, group)
    multi = subgroup_counts(gid, subgroup)[gid] > 1
    rows = np.flatnonzero(~multi)
    ids, n = dense_ids(gid[rows], doc[rows])
    levels_seen = dense_ids(ids, level[rows])[1]
    if levels_seen > n:
        order = np.lexsort((level[rows], ids))
        clash = np.flatnonzero(
            (ids[order][1:] == ids[order][:-1]) & (level[rows][order][1:] != level[rows][order][:-1])
        )
        a, b = rows[order[clash[0]]], rows[order[clash[0] + 1]]
        return Inconsistency("doc listed at two levels in a one-sub-group judgment group", (int(a), int(b)))
    rows = np.flatnonzero(multi)
    order = rows[np.lexsort((-level[rows], subgroup[rows], doc[rows], gid[rows]))]
    same = (gid[order][1:] == gid[order][:-1]) & (doc[order][1:] == doc[order][:-1])
    previous, current = level[order][:-1], level[order][1:]
    flip = np.flatnonzero(same & (((previous > 0) & (current == 0)) | ((previous == 0) & (current > 0))))
    if len(flip):
        return Inconsistency(
            "doc has both 0 and non-0 levels in one judgment group", (int(order[flip[0]]), int(order[flip[0] + 1]))
        )
    if not cycles:
        return None
    found = find_cycles(query, group, subgroup, doc, level)
    if not len(found.first):
        return None
    return Inconsistency(
        "Pref inconsistency: two docs each preferred to the other", (int(found.first[0]), int(found.first[1]))
    )
