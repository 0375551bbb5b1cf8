"""trec_eval's 14 preference measures (``-R prefs`` / ``-R qrels_prefs``), as numpy kernels.

Definitions from trec_eval 9.0+ (C. Buckley 2008; ``form_prefs_counts.c`` and ``m_prefs_*.c`` of
usnistgov/trec_eval). The input is one row per judgment line: query, judgment group (jg), sub-group
(jsg), doc, level. Within a jsg every doc of a higher level is preferred to every doc of a lower one.

* A jg with one jsg is a weak order: its preferences are counted line by line (a doc listed twice at a
  level counts twice), by sorting and prefix sums, never pair by pair.
* A jg with several jsgs is a partial order: the set union of its jsgs' preferences and their transitive
  closure, computed sparsely per group (each jsg is chained through one virtual node per level, so its
  edges are linear in its lines). trec_eval aborts on a cycle ("Pref inconsistency"); here a group with
  cycles is evaluated on its *condensation*: the docs of one strongly connected component of the group's
  preference graph are tied (no preference among them), the preferences between components are kept with
  their transitive closure. On a consistent group this is trec_eval's closure, unchanged.

Each judged doc has an *internal rank*: retrieved docs by run position, then the docs not retrieved by
docno. A preference A > B is *retrieved* (both retrieved; fulfilled iff A ranks above B), *implied*
(exactly one retrieved; fulfilled iff it is A) or *not retrieved* (never fulfilled). Per query:

* ``prefs_num_prefs_poss`` / ``_ful`` / ``_ful_ret``: preferences possible, fulfilled, fulfilled retrieved;
* ``prefs_simp``: fulfilled / possible over all jgs; ``_ret``: retrieved only; ``_imp``: no not-retrieved;
* ``prefs_pair``: mean over doc pairs of the share of that pair's preferences (over jgs) fulfilled;
* ``prefs_avgjg``: ``prefs_simp`` within each jg, averaged over jgs (0 unless the sum is positive);
* ``prefs_avgjg_Rnonrel``: as ``prefs_avgjg`` with the non-relevant docs of each jg (level 0) cut or padded
  to R, its number of relevant docs (see :func:`_rnonrel_ratio`); akin to bpref.

The arithmetic follows trec_eval's order of floating-point operations (sequential sums), so that values
printed with four decimals match it byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ir_pref_measures.measures.pair_counts import lower_before

MEASURES = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)
COUNT_MEASURES = MEASURES[:3]


@dataclass(frozen=True)
class Inconsistency:
    """A judgment group trec_eval rejects: ``rows`` are the two offending input rows."""

    message: str
    rows: tuple[int, int]


@dataclass
class _Counts:
    """Per-group preference counts; ``*_total`` include the fulfilled ones (trec_eval's "possible")."""

    ful_ret: np.ndarray
    ret_total: np.ndarray
    ful_imp: np.ndarray
    imp_total: np.ndarray
    not_retrieved: np.ndarray

    @property
    def ful(self) -> np.ndarray:
        return self.ful_ret + self.ful_imp

    @property
    def total(self) -> np.ndarray:
        return self.ret_total + self.imp_total + self.not_retrieved

    def __add__(self, other: _Counts) -> _Counts:
        return _Counts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


# -- small helpers -------------------------------------------------------------------------------------------------


def _dense_ids(*columns: np.ndarray) -> tuple[np.ndarray, int]:
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


def _first_rows(ids: np.ndarray, n: int) -> np.ndarray:
    """For each id in ``0..n-1``, the first row holding it."""
    first = np.full(n, len(ids), np.int64)
    np.minimum.at(first, ids, np.arange(len(ids)))
    return first


def _expand(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All ``(i, p)`` with ``lo[i] <= p < hi[i]``: the owners ``i`` and the positions ``p``."""
    sizes = np.maximum(hi - lo, 0)
    owner = np.repeat(np.arange(len(lo)), sizes)
    starts = np.cumsum(sizes) - sizes
    return owner, np.arange(int(sizes.sum())) - np.repeat(starts - lo, sizes)


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """``np.unique(keys)`` by sorting (numpy 2.4's hash-based ``np.unique`` is ~50x slower on millions of keys)."""
    keys = np.sort(keys)
    return keys[np.r_[True, keys[1:] != keys[:-1]]] if len(keys) else keys


def _count(ids: np.ndarray, n: int, weights: np.ndarray | None = None) -> np.ndarray:
    return np.rint(np.bincount(ids, weights=weights, minlength=n)).astype(np.int64)


def _position_in_segment(segment: np.ndarray) -> np.ndarray:
    """0, 1, 2, ... within runs of equal values of a sorted ``segment``."""
    return np.arange(len(segment)) - np.searchsorted(segment, segment)


def _sequential_sums(values: np.ndarray, segment: np.ndarray, n: int) -> np.ndarray:
    """Sum of ``values`` per segment, left to right as trec_eval adds them (``segment`` sorted)."""
    out = np.zeros(n)
    bounds = np.searchsorted(segment, np.arange(n + 1))
    for s in np.flatnonzero(np.diff(bounds)):
        out[s] = np.add.accumulate(values[bounds[s] : bounds[s + 1]])[-1]
    return out


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` where the denominator is non-zero, else 0 (trec_eval's default)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator != 0, numerator / np.where(denominator != 0, denominator, 1), 0.0)


# -- internal ranks ------------------------------------------------------------------------------------------------


def internal_ranks(query: np.ndarray, doc: np.ndarray, rank: np.ndarray, n_queries: int):
    """Per row, the internal rank of its doc in its query, and per query the number of judged docs retrieved.

    Retrieved judged docs come first by ``rank``, then the others by doc code (codes must follow docno
    order, as trec_eval numbers unretrieved docs by ``strcmp``).
    """
    ids, n = _dense_ids(query, doc)
    first = _first_rows(ids, n)
    q, d, r = query[first], doc[first], rank[first]
    order = np.lexsort((d, r, q))
    internal = np.empty(n, np.int64)
    internal[order] = _position_in_segment(q[order])
    retrieved = np.bincount(q[np.isfinite(r)], minlength=n_queries).astype(np.int64)
    return internal[ids], retrieved


# -- weak orders (one jsg) -----------------------------------------------------------------------------------------


def _weak_order_counts(group: np.ndarray, level: np.ndarray, rank: np.ndarray, ret: np.ndarray, n: int) -> _Counts:
    """Counts of the line pairs (a, b) of a group with level(a) > level(b), by kind, without listing pairs."""
    if not len(group):
        zero = np.zeros(n, np.int64)
        return _Counts(zero, zero, zero, zero, zero)
    lev, span = _dense_ids(level)
    key = group * span + lev
    top = (group + 1) * span

    def above(sorted_keys: np.ndarray) -> np.ndarray:
        return np.searchsorted(sorted_keys, top) - np.searchsorted(sorted_keys, key, "right")

    above_all, above_ret = above(np.sort(key)), above(np.sort(key[ret]))
    above_not = above_all - above_ret
    ful_imp = _count(group[~ret], n, above_ret[~ret])
    return _Counts(
        ful_ret=_concordant(group[ret], lev[ret], rank[ret], span, n),
        ret_total=_count(group[ret], n, above_ret[ret]),
        ful_imp=ful_imp,
        imp_total=ful_imp + _count(group[ret], n, above_not[ret]),
        not_retrieved=_count(group[~ret], n, above_not[~ret]),
    )


def _concordant(group: np.ndarray, lev: np.ndarray, rank: np.ndarray, span: int, n: int) -> np.ndarray:
    """Per group, the pairs with the higher level ranked first (a merge count, O(m log^2 m))."""
    order = np.lexsort((rank, group))
    group, lev = group[order], lev[order]
    before, _ = lower_before(group * span + (span - 1 - lev), np.ones(len(group)))
    return _count(group, n, before - np.searchsorted(group, group))


def _weak_order_pairs(group: np.ndarray, level: np.ndarray, rank: np.ndarray) -> tuple[np.ndarray, ...]:
    """The line pairs (group, rank of the preferred doc, rank of the other) of weak-order groups."""
    lev, span = _dense_ids(level)
    key = group * span + lev
    order = np.argsort(key, kind="stable")
    sorted_keys = key[order]
    owner, position = _expand(
        np.searchsorted(sorted_keys, key, "right"), np.searchsorted(sorted_keys, (group + 1) * span)
    )
    return group[owner], rank[order[position]], rank[owner]


# -- partial orders (several jsgs) ---------------------------------------------------------------------------------


@dataclass
class _PartialOrders:
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
        owner, position = _expand(out[x], out[x + 1])
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

    node, n_real = _dense_ids(group, doc)
    step, n_steps = _dense_ids(group, subgroup, level)  # (group, jsg, level), levels ascending within a jsg
    step_first = _first_rows(step, n_steps)
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
    owner, position = _expand(bounds[step[rows] - 1], bounds[step[rows]])
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
    pair, first = _expand(bounds[high], bounds[high + 1])
    owner, second = _expand(bounds[low[pair]], bounds[low[pair] + 1])
    return members[first[owner]], members[second]


def _partial_orders(group, subgroup, doc, level, rank) -> _PartialOrders:
    """Closure of the preferences of several-jsg groups (rows of those groups only), condensed where cyclic."""
    graph = _preference_graph(group, subgroup, doc, level)
    node, n_real = graph.node, graph.n_real
    first = _first_rows(node, n_real)
    if not n_real:
        empty = np.zeros(0, np.int64)
        return _PartialOrders(node, empty, empty, np.zeros(0), empty, empty)
    preferred, other = _condensed_pairs(graph)
    last = np.lexsort((-level, subgroup, node))
    last = last[np.r_[node[last][1:] != node[last][:-1], True]]
    return _PartialOrders(node, group[first], rank[first], level[last], preferred, other)


def _pair_counts(group, preferred_rank, other_rank, retrieved, n: int) -> _Counts:
    """Counts of explicit pairs by kind (``retrieved``: per pair, the judged docs retrieved in its query)."""
    a_ret, b_ret = preferred_rank < retrieved, other_rank < retrieved
    both = a_ret & b_ret
    return _Counts(
        ful_ret=_count(group[both & (preferred_rank < other_rank)], n),
        ret_total=_count(group[both], n),
        ful_imp=_count(group[a_ret & ~b_ret], n),
        imp_total=_count(group[a_ret != b_ret], n),
        not_retrieved=_count(group[~a_ret & ~b_ret], n),
    )


# -- per-group statistics -----------------------------------------------------------------------------------------


@dataclass
class _GroupStats:
    """Per judgment group: preference counts, relevant / non-relevant docs, and the R-nonrel recounts."""

    counts: _Counts
    distinct: _Counts  # each distinct doc pair once (prefs_pair of a query with one jg)
    rel: np.ndarray
    rel_ret: np.ndarray
    nonrel: np.ndarray
    nonrel_ret: np.ndarray
    cut_ful: np.ndarray  # recount with the non-relevant docs cut to R (prefs_avgjg_Rnonrel when R < N)
    cut_total: np.ndarray
    cut_ful_ret: np.ndarray  # the same among retrieved docs (prefs_avgjg_Rnonrel_ret)
    cut_total_ret: np.ndarray

    def __add__(self, other: _GroupStats) -> _GroupStats:
        return _GroupStats(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


def _weak_order_stats(group, level, rank, ret, n: int) -> _GroupStats:
    """Statistics of the one-jsg groups; relevance counts are per line (as trec_eval's classes hold lines)."""
    rel, nonrel = level > 0, level <= 0
    rel_count, rel_ret = _count(group[rel], n), _count(group[rel & ret], n)
    distinct = _first_rows(*_dense_ids(group, level, rank))
    ful, total, ful_ret, total_ret = _weak_order_cut(group, level, rank, ret, rel_count, rel_ret, n)
    return _GroupStats(
        counts=_weak_order_counts(group, level, rank, ret, n),
        distinct=_weak_order_counts(group[distinct], level[distinct], rank[distinct], ret[distinct], n),
        rel=rel_count,
        rel_ret=rel_ret,
        nonrel=_count(group[nonrel], n),
        nonrel_ret=_count(group[nonrel & ret], n),
        cut_ful=ful,
        cut_total=total,
        cut_ful_ret=ful_ret,
        cut_total_ret=total_ret,
    )


def _weak_order_cut(group, level, rank, ret, rel, rel_ret, n: int):
    """trec_eval's recount of a one-jsg group when it has more non-relevant lines than relevant ones.

    The lowest class keeps its first R lines by rank (R relevant lines; for ``_ret``, R relevant retrieved
    lines and only retrieved lines kept). Counted: the preferences between the other classes, plus every
    line of the group (the lowest class included, a quirk of ``m_prefs_avgjg_Rnonrel.c``) against each kept
    line, fulfilled when it is retrieved and ranked above. Where the lowest class holds fewer than R lines,
    trec_eval reads past it (undefined); here it keeps them all.
    """
    lowest_level = np.full(n, np.inf)
    np.minimum.at(lowest_level, group, level)
    lowest = level == lowest_level[group]
    rest = _weak_order_counts(group[~lowest], level[~lowest], rank[~lowest], ret[~lowest], n)
    low = np.flatnonzero(lowest)
    low = low[np.lexsort((rank[low], group[low]))]
    position = _position_in_segment(group[low])
    kept = low[position < rel[group[low]]]
    kept_ret = low[(position < rel_ret[group[low]]) & ret[low]]
    lines, lines_ret = _count(group, n), _count(group[ret], n)
    ful, size = _ranked_after(group, rank, ret, kept, n)
    ful_ret, size_ret = _ranked_after(group, rank, ret, kept_ret, n)
    return rest.ful + ful, rest.total + lines * size, rest.ful_ret + ful_ret, rest.ret_total + lines_ret * size_ret


def _ranked_after(group, rank, ret, kept: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group: pairs (retrieved line x, kept line y) with y ranked after x, and the number of kept lines."""
    span = int(rank.max()) + 2 if len(rank) else 1
    keys = np.sort(group[kept] * span + rank[kept])
    after = np.searchsorted(keys, (group + 1) * span) - np.searchsorted(keys, group * span + rank, "right")
    return _count(group[ret], n, after[ret]), _count(group[kept], n)


def _partial_order_stats(po: _PartialOrders, retrieved: np.ndarray, n: int) -> _GroupStats:
    """Statistics of the several-jsg groups from their closure; ``retrieved`` per node (judged docs retrieved)."""
    node_ret = po.node_rank < retrieved
    rel, nonrel = po.node_level > 0, po.node_level == 0
    rel_count = _count(po.node_group[rel], n)

    def counts(keep=None) -> _Counts:
        a, b = po.preferred, po.other
        if keep is not None:
            a, b = a[keep[a] & keep[b]], b[keep[a] & keep[b]]
        return _pair_counts(po.node_group[a], po.node_rank[a], po.node_rank[b], retrieved[a], n)

    cut, cut_ret = counts(_keep_first(po, nonrel, rel_count)), counts(_keep_first(po, nonrel & node_ret, rel_count))
    every = counts()
    return _GroupStats(
        counts=every,
        distinct=every,
        rel=rel_count,
        rel_ret=_count(po.node_group[rel & node_ret], n),
        nonrel=_count(po.node_group[nonrel], n),
        nonrel_ret=_count(po.node_group[nonrel & node_ret], n),
        cut_ful=cut.ful,
        cut_total=cut.total,
        cut_ful_ret=cut_ret.ful_ret,
        cut_total_ret=cut_ret.ret_total,
    )


def _keep_first(po: _PartialOrders, candidates: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Per node: False for the candidates of a group past its first ``limit[group]`` by rank, else True."""
    keep = np.ones(len(candidates), bool)
    nodes = np.flatnonzero(candidates)
    nodes = nodes[np.lexsort((po.node_rank[nodes], po.node_group[nodes]))]
    keep[nodes] = _position_in_segment(po.node_group[nodes]) < limit[po.node_group[nodes]]
    return keep


def _rnonrel_ratios(s: _GroupStats) -> tuple[np.ndarray, np.ndarray]:
    """Per group, the ratios of ``prefs_avgjg_Rnonrel`` and ``_ret`` (NaN where trec_eval divides 0 by 0).

    With R relevant and N non-relevant docs: if R >= N, R * (R - N) fulfilled preferences are added for each
    retrieved relevant doc (and R * (R - N) possible ones for each relevant doc); else the group is recounted
    with only its first R non-relevant docs (:func:`_weak_order_cut`, :func:`_keep_first`). The ``_ret``
    variant counts retrieved preferences, with R and N the retrieved relevant / non-relevant docs.
    """
    extra, extra_ret = s.rel - s.nonrel, s.rel_ret - s.nonrel_ret
    ful = np.where(extra >= 0, s.counts.ful + s.rel_ret * extra, s.cut_ful)
    total = np.where(extra >= 0, s.counts.total + s.rel * extra, s.cut_total)
    ful_ret = np.where(extra_ret >= 0, s.counts.ful_ret + s.rel_ret * extra_ret, s.cut_ful_ret)
    total_ret = np.where(extra_ret >= 0, s.counts.ret_total + s.rel * extra_ret, s.cut_total_ret)
    with np.errstate(divide="ignore", invalid="ignore"):
        return ful / total, ful_ret / total_ret


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
    gid, _ = _dense_ids(query, group)
    rows = np.flatnonzero(_subgroup_counts(gid, subgroup)[gid] > 1)
    graph = _preference_graph(gid[rows], subgroup[rows], doc[rows], level[rows])
    node_rows = rows[_first_rows(graph.node, graph.n_real)]  # in (query, jg, doc) order
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
    :func:`trec_prefs_values` evaluates such a group on its condensation).
    """
    gid, _ = _dense_ids(query, group)
    multi = _subgroup_counts(gid, subgroup)[gid] > 1
    rows = np.flatnonzero(~multi)
    ids, n = _dense_ids(gid[rows], doc[rows])
    levels_seen = _dense_ids(ids, level[rows])[1]
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


def _subgroup_counts(gid: np.ndarray, subgroup: np.ndarray) -> np.ndarray:
    ids, n = _dense_ids(gid, subgroup)
    return np.bincount(gid[_first_rows(ids, n)], minlength=int(gid.max()) + 1 if len(gid) else 0)


# -- per query -----------------------------------------------------------------------------------------------------


def trec_prefs_values(query, group, subgroup, doc, level, rank, n_queries: int) -> dict[str, np.ndarray]:
    """The 14 measures per query ``0..n_queries-1``, from one row per judgment line.

    ``query``, ``group``, ``subgroup``, ``doc``: int codes (``group`` and ``subgroup`` in jg / jsg string
    order, ``doc`` in docno order: they order jgs when averaging, the final level of a doc in several
    jsgs and the docs not retrieved); ``level``: float; ``rank``: the doc's position in the run (float,
    ``inf`` = not retrieved; trec_eval orders the run by score descending, then docno ascending). Counts
    are int64, the rest float64. The groups must pass :func:`find_inconsistency` with ``cycles=False``; a
    several-jsg group with cycles (:func:`find_cycles`) is evaluated on its condensation (module docstring).
    """
    query, group, subgroup, doc = (np.asarray(a, np.int64) for a in (query, group, subgroup, doc))
    level, rank = np.asarray(level, np.float64), np.asarray(rank, np.float64)
    gid, n = _dense_ids(query, group)
    g_query = query[_first_rows(gid, n)]
    internal, retrieved = internal_ranks(query, doc, rank, n_queries)
    ret = internal < retrieved[query]
    partial = (_subgroup_counts(gid, subgroup) > 1)[gid]
    rows = np.flatnonzero(partial)
    po = _partial_orders(gid[rows], subgroup[rows], doc[rows], level[rows], internal[rows])
    weak = np.flatnonzero(~partial)
    w = (gid[weak], level[weak], internal[weak])
    stats = _weak_order_stats(*w, ret[weak], n) + _partial_order_stats(po, retrieved[g_query[po.node_group]], n)
    values = _simple_and_avgjg(stats, g_query, n_queries)
    multi = (np.bincount(g_query, minlength=n_queries) > 1)[g_query]
    in_multi = multi[w[0]]
    pa_multi = multi[po.node_group[po.preferred]]
    a, b = po.preferred[pa_multi], po.other[pa_multi]
    pa_pairs = (po.node_group[a], po.node_rank[a], po.node_rank[b])
    pairs = zip(_weak_order_pairs(*(x[in_multi] for x in w)), pa_pairs, strict=True)
    pair_group, preferred, other = (np.concatenate(p) for p in pairs)
    values |= _pair_measures(stats.distinct, g_query, g_query[pair_group], preferred, other, retrieved, n_queries)
    return {name: values[name] for name in MEASURES}


def _simple_and_avgjg(s: _GroupStats, g_query: np.ndarray, n_queries: int) -> dict[str, np.ndarray]:
    """The counts and the ``simp``, ``avgjg`` and ``avgjg_Rnonrel`` families."""
    c = s.counts

    def per_query(values):
        return _count(g_query, n_queries, values)

    ful, total, ful_ret, ret_total = per_query(c.ful), per_query(c.total), per_query(c.ful_ret), per_query(c.ret_total)
    imp_total = ret_total + per_query(c.imp_total)
    n_groups = np.bincount(g_query, minlength=n_queries)

    def mean_over_groups(ratios):
        sums = _sequential_sums(ratios, g_query, n_queries)
        return np.where(sums > 0, sums / np.maximum(n_groups, 1), 0.0)

    rnonrel, rnonrel_ret = _rnonrel_ratios(s)
    return {
        "prefs_num_prefs_poss": total,
        "prefs_num_prefs_ful": ful,
        "prefs_num_prefs_ful_ret": ful_ret,
        "prefs_simp": _ratio(ful, total),
        "prefs_simp_ret": _ratio(ful_ret, ret_total),
        "prefs_simp_imp": _ratio(ful, imp_total),
        "prefs_avgjg": mean_over_groups(_ratio(c.ful, c.total)),
        "prefs_avgjg_ret": mean_over_groups(_ratio(c.ful_ret, c.ret_total)),
        "prefs_avgjg_imp": mean_over_groups(_ratio(c.ful, c.ret_total + c.imp_total)),
        "prefs_avgjg_Rnonrel": mean_over_groups(rnonrel),
        "prefs_avgjg_Rnonrel_ret": mean_over_groups(rnonrel_ret),
    }


def _pair_measures(distinct: _Counts, g_query, pair_query, preferred, other, retrieved, n_queries: int):
    """``prefs_pair`` and its variants: the mean over doc pairs of the share of their preferences fulfilled.

    A pair counts in ``_ret`` when both docs are retrieved, in ``_imp`` when at least one is, in
    ``prefs_pair`` always (a pair with neither retrieved adds 0). With one jg per query every share is
    0 or 1, so the distinct-pair counts give it; with several jgs the pairs of the query are listed and
    the shares added in trec_eval's order (both retrieved first, then by internal rank).
    """
    low, high = np.minimum(preferred, other), np.maximum(preferred, other)
    ids, m = _dense_ids(pair_query, low, high)
    first = _first_rows(ids, m)
    share = _count(ids, m, (preferred < other).astype(np.float64)) / np.bincount(ids, minlength=m)
    q, low, high = pair_query[first], low[first], high[first]
    kind = (high >= retrieved[q]).astype(np.int64) + (low >= retrieved[q])  # 0 both retrieved, 1 one, 2 none
    order = np.lexsort((high, low, kind, q))
    q, kind, share = q[order], kind[order], share[order]
    listed = np.bincount(q, minlength=n_queries) > 0
    both, some = kind == 0, kind < 2
    n_both, n_some, n_all = (np.bincount(q[mask], minlength=n_queries) for mask in (both, some, kind >= 0))
    sum_both = _sequential_sums(share[both], q[both], n_queries)
    sum_some = _sequential_sums(share[some], q[some], n_queries)

    def per_query(values):
        return _count(g_query, n_queries, values)

    ful, ful_ret = per_query(distinct.ful), per_query(distinct.ful_ret)
    ret_total, imp_total = per_query(distinct.ret_total), per_query(distinct.imp_total)
    return {
        "prefs_pair": np.where(listed, _ratio(sum_some, n_all), _ratio(ful, per_query(distinct.total))),
        "prefs_pair_ret": np.where(listed, _ratio(sum_both, n_both), _ratio(ful_ret, ret_total)),
        "prefs_pair_imp": np.where(listed, _ratio(sum_some, n_some), _ratio(ful, ret_total + imp_total)),
    }
