"""trec_eval's preference counts per judgment group, by kind, and the statistics its averaged measures need.

Definitions from trec_eval 9.0+ (C. Buckley 2008; ``form_prefs_counts.c`` and ``m_prefs_avgjg_Rnonrel.c`` of
usnistgov/trec_eval). Each judged doc has an *internal rank*: retrieved docs by run position, then the docs not
retrieved by docno. A preference A > B is *retrieved* (both retrieved; fulfilled iff A ranks above B), *implied*
(exactly one retrieved; fulfilled iff it is A) or *not retrieved* (never fulfilled).

* A jg with one jsg (a weak order) is counted line by line (a doc listed twice at a level counts twice), by
  sorting and prefix sums, never pair by pair.
* A jg with several jsgs is counted pair by pair on its closure (:func:`.trec_groups.partial_orders`).

Per group, besides the counts: its relevant (level > 0) and non-relevant docs, retrieved or not, and the recount
with the non-relevant docs cut to R that ``prefs_avgjg_Rnonrel`` needs (:func:`rnonrel_ratios`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ir_pref_measures.measures.pair_counts import lower_before
from ir_pref_measures.measures.trec_groups import PartialOrders, dense_ids, expand, first_rows


@dataclass
class PreferenceCounts:
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

    def __add__(self, other: PreferenceCounts) -> PreferenceCounts:
        return PreferenceCounts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


def count_by(ids: np.ndarray, n: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Per id ``0..n-1``, its number of rows (or the sum of their ``weights``), as int64."""
    return np.rint(np.bincount(ids, weights=weights, minlength=n)).astype(np.int64)


def _position_in_segment(segment: np.ndarray) -> np.ndarray:
    """0, 1, 2, ... within runs of equal values of a sorted ``segment``."""
    return np.arange(len(segment)) - np.searchsorted(segment, segment)


# -- internal ranks ----------------------------------------------------------------------------------------------------


def internal_ranks(query: np.ndarray, doc: np.ndarray, rank: np.ndarray, n_queries: int):
    """Per row, the internal rank of its doc in its query, and per query the number of judged docs retrieved.

    Retrieved judged docs come first by ``rank``, then the others by doc code (codes must follow docno
    order, as trec_eval numbers unretrieved docs by ``strcmp``).
    """
    ids, n = dense_ids(query, doc)
    first = first_rows(ids, n)
    q, d, r = query[first], doc[first], rank[first]
    order = np.lexsort((d, r, q))
    internal = np.empty(n, np.int64)
    internal[order] = _position_in_segment(q[order])
    retrieved = np.bincount(q[np.isfinite(r)], minlength=n_queries).astype(np.int64)
    return internal[ids], retrieved


# -- weak orders (one jsg) ---------------------------------------------------------------------------------------------


def _weak_order_counts(
    group: np.ndarray, level: np.ndarray, rank: np.ndarray, ret: np.ndarray, n: int
) -> PreferenceCounts:
    """Counts of the line pairs (a, b) of a group with level(a) > level(b), by kind, without listing pairs."""
    if not len(group):
        zero = np.zeros(n, np.int64)
        return PreferenceCounts(zero, zero, zero, zero, zero)
    lev, span = dense_ids(level)
    key = group * span + lev
    top = (group + 1) * span

    def above(sorted_keys: np.ndarray) -> np.ndarray:
        return np.searchsorted(sorted_keys, top) - np.searchsorted(sorted_keys, key, "right")

    above_all, above_ret = above(np.sort(key)), above(np.sort(key[ret]))
    above_not = above_all - above_ret
    ful_imp = count_by(group[~ret], n, above_ret[~ret])
    return PreferenceCounts(
        ful_ret=_concordant(group[ret], lev[ret], rank[ret], span, n),
        ret_total=count_by(group[ret], n, above_ret[ret]),
        ful_imp=ful_imp,
        imp_total=ful_imp + count_by(group[ret], n, above_not[ret]),
        not_retrieved=count_by(group[~ret], n, above_not[~ret]),
    )


def _concordant(group: np.ndarray, lev: np.ndarray, rank: np.ndarray, span: int, n: int) -> np.ndarray:
    """Per group, the pairs with the higher level ranked first (a merge count, O(m log^2 m))."""
    order = np.lexsort((rank, group))
    group, lev = group[order], lev[order]
    before, _ = lower_before(group * span + (span - 1 - lev), np.ones(len(group)))
    return count_by(group, n, before - np.searchsorted(group, group))


def weak_order_pairs(group: np.ndarray, level: np.ndarray, rank: np.ndarray) -> tuple[np.ndarray, ...]:
    """The line pairs (group, rank of the preferred doc, rank of the other) of weak-order groups."""
    lev, span = dense_ids(level)
    key = group * span + lev
    order = np.argsort(key, kind="stable")
    sorted_keys = key[order]
    owner, position = expand(
        np.searchsorted(sorted_keys, key, "right"), np.searchsorted(sorted_keys, (group + 1) * span)
    )
    return group[owner], rank[order[position]], rank[owner]


# -- partial orders (several jsgs) -------------------------------------------------------------------------------------


def _pair_counts(group, preferred_rank, other_rank, retrieved, n: int) -> PreferenceCounts:
    """Counts of explicit pairs by kind (``retrieved``: per pair, the judged docs retrieved in its query)."""
    a_ret, b_ret = preferred_rank < retrieved, other_rank < retrieved
    both = a_ret & b_ret
    return PreferenceCounts(
        ful_ret=count_by(group[both & (preferred_rank < other_rank)], n),
        ret_total=count_by(group[both], n),
        ful_imp=count_by(group[a_ret & ~b_ret], n),
        imp_total=count_by(group[a_ret != b_ret], n),
        not_retrieved=count_by(group[~a_ret & ~b_ret], n),
    )


# -- per-group statistics ----------------------------------------------------------------------------------------------


@dataclass
class GroupStats:
    """Per judgment group: preference counts, relevant / non-relevant docs, and the R-nonrel recounts."""

    counts: PreferenceCounts
    distinct: PreferenceCounts  # each distinct doc pair once (prefs_pair of a query with one jg)
    rel: np.ndarray
    rel_ret: np.ndarray
    nonrel: np.ndarray
    nonrel_ret: np.ndarray
    cut_ful: np.ndarray  # recount with the non-relevant docs cut to R (prefs_avgjg_Rnonrel when R < N)
    cut_total: np.ndarray
    cut_ful_ret: np.ndarray  # the same among retrieved docs (prefs_avgjg_Rnonrel_ret)
    cut_total_ret: np.ndarray

    def __add__(self, other: GroupStats) -> GroupStats:
        return GroupStats(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


def weak_order_stats(group, level, rank, ret, n: int) -> GroupStats:
    """Statistics of the one-jsg groups; relevance counts are per line (as trec_eval's classes hold lines)."""
    rel, nonrel = level > 0, level <= 0
    rel_count, rel_ret = count_by(group[rel], n), count_by(group[rel & ret], n)
    distinct = first_rows(*dense_ids(group, level, rank))
    ful, total, ful_ret, total_ret = _weak_order_cut(group, level, rank, ret, rel_count, rel_ret, n)
    return GroupStats(
        counts=_weak_order_counts(group, level, rank, ret, n),
        distinct=_weak_order_counts(group[distinct], level[distinct], rank[distinct], ret[distinct], n),
        rel=rel_count,
        rel_ret=rel_ret,
        nonrel=count_by(group[nonrel], n),
        nonrel_ret=count_by(group[nonrel & ret], n),
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
    lines, lines_ret = count_by(group, n), count_by(group[ret], n)
    ful, size = _ranked_after(group, rank, ret, kept, n)
    ful_ret, size_ret = _ranked_after(group, rank, ret, kept_ret, n)
    return rest.ful + ful, rest.total + lines * size, rest.ful_ret + ful_ret, rest.ret_total + lines_ret * size_ret


def _ranked_after(group, rank, ret, kept: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group: pairs (retrieved line x, kept line y) with y ranked after x, and the number of kept lines."""
    span = int(rank.max()) + 2 if len(rank) else 1
    keys = np.sort(group[kept] * span + rank[kept])
    after = np.searchsorted(keys, (group + 1) * span) - np.searchsorted(keys, group * span + rank, "right")
    return count_by(group[ret], n, after[ret]), count_by(group[kept], n)


def partial_order_stats(po: PartialOrders, retrieved: np.ndarray, n: int) -> GroupStats:
    """Statistics of the several-jsg groups from their closure; ``retrieved`` per node (judged docs retrieved)."""
    node_ret = po.node_rank < retrieved
    rel, nonrel = po.node_level > 0, po.node_level == 0
    rel_count = count_by(po.node_group[rel], n)

    def counts(keep=None) -> PreferenceCounts:
        a, b = po.preferred, po.other
        if keep is not None:
            a, b = a[keep[a] & keep[b]], b[keep[a] & keep[b]]
        return _pair_counts(po.node_group[a], po.node_rank[a], po.node_rank[b], retrieved[a], n)

    cut, cut_ret = counts(_keep_first(po, nonrel, rel_count)), counts(_keep_first(po, nonrel & node_ret, rel_count))
    every = counts()
    return GroupStats(
        counts=every,
        distinct=every,
        rel=rel_count,
        rel_ret=count_by(po.node_group[rel & node_ret], n),
        nonrel=count_by(po.node_group[nonrel], n),
        nonrel_ret=count_by(po.node_group[nonrel & node_ret], n),
        cut_ful=cut.ful,
        cut_total=cut.total,
        cut_ful_ret=cut_ret.ful_ret,
        cut_total_ret=cut_ret.ret_total,
    )


def _keep_first(po: PartialOrders, candidates: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Per node: False for the candidates of a group past its first ``limit[group]`` by rank, else True."""
    keep = np.ones(len(candidates), bool)
    nodes = np.flatnonzero(candidates)
    nodes = nodes[np.lexsort((po.node_rank[nodes], po.node_group[nodes]))]
    keep[nodes] = _position_in_segment(po.node_group[nodes]) < limit[po.node_group[nodes]]
    return keep


def rnonrel_ratios(s: GroupStats) -> tuple[np.ndarray, np.ndarray]:
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
