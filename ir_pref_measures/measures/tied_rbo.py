"""Tie-aware rank-biased overlap: the variants RBO^w, RBO^a and RBO^b, each as an extrapolated value and as the
lower and upper bounds (and their residual) of what the seen prefixes allow.

Rankings may hold ties: a tie group occupies the ranks ``t..b`` (0-based, top and bottom). An item's
*contribution* to the prefix of depth ``d`` is, for RBO^w, 1 once its group starts (``t < d``), and for RBO^a
and RBO^b ``clip((d - t) / (b - t + 1), 0, 1)``: its share of the group's positions seen so far. With the
contributions ``c_S``, ``c_L`` of the shorter ranking S (length s) and the longer L (length l), the overlap is
``X_d = sum_i c_S,i(d) c_L,i(d)`` and the agreement ``A_d`` is ``2 X_d / (sum c_S + sum c_L)`` (w),
``X_d / d`` (a), ``X_d / sqrt(sum c_S^2 sum c_L^2)`` (b). Past depth s, S counts as ``d`` items, and its unseen
items add nothing to ``X_d`` (``min``), match the first unseen items of L (``max``), or agree as the last seen
depth did (``ext``); past depth l, the tail of Webber et al.'s bounds and extrapolation follows.
``RBO = (1 - p)/p (sum_{d=1..l} A_d p^d + tail)``; ``res = max - min``. Without ties the three variants are
Webber et al.'s RBO, and ``min`` is the truncated RBO of :mod:`.rbo` summed to infinity.

Vectorised over depths and queries: the overlap is counted from the items' intervals (fully seen in both
rankings; partly seen in one, whose group at depth d is the only partial group there) with one ``bincount``
and ``cumsum`` each, so the cost is linear in the summed lengths. A ranking with no item has ``min = ext = 0``
against any other (an empty one included): nothing seen agrees; ``max`` is 1 unless the other ranking ties.

W. Webber, A. Moffat, J. Zobel. A similarity measure for indefinite rankings. ACM TOIS 28(4), 2010.
M. Corsi, J. Urbano. The treatment of ties in rank-biased overlap. SIGIR 2024.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ir_pref_measures import arguments
from ir_pref_measures.errors import InputError
from ir_pref_measures.model.ids import ranges

TIES = ("w", "a", "b")
SCORES = ("ext", "min", "max", "res")
CHUNK_CELLS = (
    1 << 16
)  # query x depth cells per block: the block's arrays stay in cache (measured 2x faster than 1 << 21)


def check_params(p: float, ties: str, depth: int | None = None) -> tuple[float, str, int | None]:
    """``(p, ties, depth)`` checked: an :class:`InputError` unless ``0 < p < 1``, ``ties`` is one of :data:`TIES`
    and ``depth`` is ``None`` or an integer >= 1."""
    p = arguments.open_unit(p, "RBO persistence p")
    ties = arguments.choice(ties, "RBO ties", TIES)
    return p, ties, None if depth is None else arguments.positive_int(depth, "RBO depth")


@dataclass(frozen=True)
class TiedLists:
    """Rankings of several queries side by side: query q holds positions ``offsets[q]:offsets[q+1]``;
    ``top`` and ``bottom`` give each position the 0-based ranks (within its query) of the first and the last
    position of its tie group (equal for an untied item)."""

    lengths: np.ndarray
    top: np.ndarray
    bottom: np.ndarray

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.lengths)])

    @classmethod
    def from_starts(cls, group_start: np.ndarray, lengths: np.ndarray) -> TiedLists:
        """From a flag per position: True where a new tie group begins (forced at each query's first position)."""
        lengths = np.asarray(lengths, dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        starts = np.asarray(group_start, dtype=bool).copy()
        if len(starts) != offsets[-1]:
            raise ValueError(f"{len(starts)} positions for rankings of {offsets[-1]} positions in all")
        starts[offsets[:-1][lengths > 0]] = True
        first = np.flatnonzero(starts)
        sizes = np.diff(np.append(first, len(starts)))
        top = first - offsets[np.searchsorted(offsets, first, "right") - 1]  # groups never cross queries
        return cls(lengths, np.repeat(top, sizes), np.repeat(top + sizes - 1, sizes))

    @classmethod
    def from_scores(cls, scores: np.ndarray, lengths: np.ndarray) -> TiedLists:
        """From scores in rank order (descending within each query): equal neighbours are tied."""
        scores = np.asarray(scores)
        starts = np.ones(len(scores), dtype=bool)
        np.not_equal(scores[1:], scores[:-1], out=starts[1:])
        return cls.from_starts(starts, lengths)

    def cut(self, depth: int) -> np.ndarray:
        """Mask of the positions kept at ``depth``: those whose tie group starts above it (a group that
        straddles the depth is kept whole, so no choice among tied items is made)."""
        return self.top < depth


def tied_rbo(
    a: TiedLists,
    b: TiedLists,
    query: np.ndarray,
    pos_a: np.ndarray,
    pos_b: np.ndarray,
    p: float,
    ties: str = "a",
) -> dict[str, np.ndarray]:
    """Tie-aware RBO of ``ties`` for each query of ``a`` and ``b``: ``{"ext", "min", "max", "res"} -> values``.

    ``query``, ``pos_a``, ``pos_b`` list the items the two rankings share: their query and their 0-based
    positions in ``a`` and in ``b``. The shorter ranking of a query is S (``b`` when the lengths are equal).
    """
    p, ties, _ = check_params(p, ties)
    la, lb = np.asarray(a.lengths, np.int64), np.asarray(b.lengths, np.int64)
    query, pos_a, pos_b = (np.asarray(v, np.int64) for v in (query, pos_a, pos_b))
    if np.any(query[1:] < query[:-1]):
        order = np.argsort(query, kind="stable")
        query, pos_a, pos_b = query[order], pos_a[order], pos_b[order]
    off_a, off_b = a.offsets, b.offsets
    out = {score: np.empty(len(la)) for score in SCORES}
    cells = np.cumsum(np.maximum(la, lb))
    lo = 0
    while lo < len(la):
        hi = max(lo + 1, int(np.searchsorted(cells, (cells[lo - 1] if lo else 0) + CHUNK_CELLS, "right")))
        i, j = np.searchsorted(query, [lo, hi])
        part_a = TiedLists(la[lo:hi], a.top[off_a[lo] : off_a[hi]], a.bottom[off_a[lo] : off_a[hi]])
        part_b = TiedLists(lb[lo:hi], b.top[off_b[lo] : off_b[hi]], b.bottom[off_b[lo] : off_b[hi]])
        values = _block(part_a, part_b, query[i:j] - lo, pos_a[i:j], pos_b[i:j], float(p), ties)
        for score in SCORES:
            out[score][lo:hi] = values[score]
        lo = hi
    return out


def _interval_counts(first: np.ndarray, stop: np.ndarray, total: int) -> np.ndarray:
    """On a grid of ``total`` cells, the number (int32) of intervals ``[first, stop)`` (cell indices) holding
    each cell: ``bincount`` of the ends and its ``cumsum`` (integer sums: exact, and faster than float ones)."""
    keep = first < stop
    events = np.bincount(first[keep], minlength=total + 1) - np.bincount(stop[keep], minlength=total + 1)
    return np.cumsum(events[:total], dtype=np.int32)


def _block(a: TiedLists, b: TiedLists, query, pos_a, pos_b, p: float, ties: str) -> dict[str, np.ndarray]:
    """:func:`tied_rbo` on one block of queries (all its arrays held at once). The grid has one cell per depth
    ``d = 1..l`` of each query; past depth s (only where the lengths differ) the unseen part of S is added."""
    la, lb = a.lengths, b.lengths
    short_a = la < lb  # S = a; otherwise S = b
    s, length = np.minimum(la, lb), np.maximum(la, lb)
    n_queries, total = len(la), int(length.sum())
    start = np.concatenate([[0], np.cumsum(length)[:-1]])
    top, bottom = np.concatenate([a.top, b.top]), np.concatenate([a.bottom, b.bottom])  # a's positions, then b's
    off_a, off_b = a.offsets[:-1], b.offsets[:-1] + len(a.top)
    cells = np.arange(total)
    depth0 = cells - np.repeat(start, length)  # d - 1
    depth = depth0 + 1.0
    at_l = cells + np.repeat(np.where(short_a, off_b, off_a) - start, length)
    top_l, bottom_l = top[at_l], bottom[at_l]
    at_s = cells + np.repeat(np.where(short_a, off_a, off_b) - start, length)  # past depth s: any position
    uneven = bool(np.any(s < length))
    in_s = depth0 < np.repeat(s, length) if uneven else None
    at_s = np.minimum(at_s, len(top) - 1) if uneven else at_s
    top_s, bottom_s = top[at_s], bottom[at_s]

    def sized_s(inside, past):  # a per-depth quantity of S: past depth s, S counts as d items
        return np.where(in_s, inside, past) if uneven else inside

    # the shared items: ranks of their groups in S and in L (for RBO^w an item counts fully from its top rank)
    ga, gb = off_a[query] + pos_a, off_b[query] + pos_b
    short_item = short_a[query]
    item_s, item_l = np.where(short_item, ga, gb), np.where(short_item, gb, ga)
    t_s, t_l = top[item_s], top[item_l]
    b_s, b_l = (t_s, t_l) if ties == "w" else (bottom[item_s], bottom[item_l])
    base, end = start[query], start[query] + length[query]
    overlap = _interval_counts(base + np.maximum(b_s, b_l), end, total).astype(np.float64)
    c_l = None
    if ties != "w":  # the contribution of the one partly seen group of each ranking at depth d
        c_s = sized_s((depth - top_s) / (bottom_s - top_s + 1), 1.0)
        c_l = (depth - top_l) / (bottom_l - top_l + 1)
        part_s_full_l = _interval_counts(base + np.maximum(t_s, b_l), base + b_s, total)
        full_s_part_l = _interval_counts(base + np.maximum(t_l, b_s), base + b_l, total)
        part_both = _interval_counts(base + np.maximum(t_s, t_l), base + np.minimum(b_s, b_l), total)
        overlap += c_s * (part_s_full_l + c_l * part_both) + c_l * full_s_part_l

    # agreement = overlap x factor, the factor from the prefix sizes
    if ties == "w":
        factor = 2.0 / (sized_s(bottom_s + 1.0, depth) + bottom_l + 1.0)
    elif ties == "a":
        factor = 1.0 / depth
    else:
        sq_s = sized_s(top_s + (depth - top_s) ** 2 / (bottom_s - top_s + 1), depth)
        factor = 1.0 / np.sqrt(sq_s * (top_l + (depth - top_l) ** 2 / (bottom_l - top_l + 1)))
    powers = p ** np.arange(1, 2 * int(length.max(initial=0)) + 2, dtype=np.float64)  # p^d for d = 1..2l+1
    weighted = factor * powers[depth0]  # the weight of a unit of overlap at each depth
    seen = overlap * weighted
    filled = length > 0
    sum_min = np.zeros(n_queries)
    sum_min[filled] = np.add.reduceat(seen, start[filled]) if total else 0.0
    a_s = np.zeros(n_queries)  # A at depth s, extrapolated past it
    a_s[s > 0] = (overlap * factor)[(start + s - 1)[s > 0]]
    sum_ext, sum_max = sum_min.copy(), sum_min.copy()
    if uneven:
        _past_s(
            sum_ext,
            sum_max,
            (s, length, start, short_a),
            (ga, gb, len(top)),
            (at_l, top_l, bottom_l, c_l),
            weighted,
            a_s,
            ties,
        )

    # the tails past depth l
    harmonic = np.concatenate([[0.0], np.cumsum(powers / np.arange(1, len(powers) + 1))])  # sum_{d<=n} p^d / d
    x_l = np.zeros(n_queries)  # an integer: every group is whole at depth l
    x_l[filled] = np.round(overlap[(start + length - 1)[filled]])
    tail_min = x_l * (-np.log1p(-p) - harmonic[length])  # log1p: exact for p down to the smallest float
    f = (length + s - x_l).astype(np.int64)
    geometric = (powers[length] - powers[f]) / (1.0 - p)  # sum_{d=l+1..f} p^d
    tail_max = 2.0 * geometric - f * (harmonic[f] - harmonic[length]) + powers[f] / (1.0 - p)
    tail_ext = (x_l + (length - s) * a_s) / np.maximum(length, 1) * powers[length] / (1.0 - p)
    scale = (1.0 - p) / p
    out = {
        "ext": scale * (sum_ext + tail_ext),
        "min": scale * (sum_min + tail_min),
        "max": scale * (sum_max + tail_max),
    }
    out["res"] = out["max"] - out["min"]
    return out


def _past_s(sum_ext, sum_max, sizes, shared, ranks_l, weighted, a_s, ties) -> None:
    """Add to ``sum_ext`` and ``sum_max`` the unseen items of S at depths s+1..l: they match the first items
    of L that S lacks (``max``), or agree as depth s did, in proportion to the contributions of the items of L
    that S lacks (``ext``)."""
    s, length, start, short_a = sizes
    ga, gb, n_positions = shared
    at_l, top_l, bottom_l, c_l = ranks_l
    past = ranges(start + s, start + length)  # the grid cells past depth s
    q_past = np.repeat(np.arange(len(s)), length - s)
    in_both = np.zeros(n_positions, bool)
    in_both[ga], in_both[gb] = True, True
    only = np.flatnonzero(~in_both[at_l])  # grid cells (positions of L) whose item S lacks
    first_past = np.concatenate([[0], np.cumsum(length - s)[:-1]])  # the past cells of each query, numbered

    q_only = np.searchsorted(start, only, "right") - 1
    has_past = length > s

    def counted(rank_only):  # at each past cell (depth d): the items of L that S lacks with rank <= d - 1
        before = np.bincount(q_only, (rank_only < s[q_only]).astype(np.float64), minlength=len(s))
        later = rank_only >= s[q_only]
        cell = first_past[q_only[later]] + rank_only[later] - s[q_only[later]]
        events = np.bincount(cell, minlength=len(past)).astype(np.float64)
        running = np.cumsum(events)
        earlier = np.zeros(len(s))  # the events of the queries before
        earlier[has_past] = running[first_past[has_past]] - events[first_past[has_past]]
        return (before - earlier)[q_past] + running

    beyond = (past - start[q_past] - s[q_past] + 1).astype(np.float64)  # d - s
    started = counted(top_l[only])
    ended = started if ties == "w" else counted(bottom_l[only])
    unseen_max = np.minimum(beyond, ended)
    mean_unseen = np.ones(len(past))
    if ties != "w":
        c = c_l[past]
        unseen_max += c * (np.minimum(beyond, started) - np.minimum(beyond, ended))
        mean_unseen = np.divide(ended + c * (started - ended), started, out=mean_unseen, where=started > 0)
    w = weighted[past]
    sum_max += np.bincount(q_past, unseen_max * w, minlength=len(s))
    sum_ext += np.bincount(q_past, beyond * a_s[q_past] * mean_unseen * w, minlength=len(s))


def _flat(ranking: Sequence) -> tuple[list, list[bool]]:
    """Items of a ranking given as a list whose entries are items or collections of tied items, and whether
    each begins a tie group."""
    items: list = []
    starts: list[bool] = []
    for entry in ranking:
        group = sorted(entry, key=repr) if isinstance(entry, set | frozenset | list | tuple) else [entry]
        if not group:
            raise InputError(f"ranking entry {len(starts)}: an empty tie group", expected="an item or a non-empty set")
        items.extend(group)
        starts.extend([True] + [False] * (len(group) - 1))
    _check_distinct(items)
    return items, starts


def _check_distinct(items: list) -> None:
    try:
        distinct = set(items)
    except TypeError as error:
        raise InputError(
            f"a ranking holds an item that is not hashable ({error})", expected="ids: str, int, ..."
        ) from None
    if len(distinct) != len(items):
        seen: set = set()
        for item in items:
            if item in seen:
                raise InputError(f"a ranking lists the item {item!r} twice", expected="each item once")
            seen.add(item)


def _prefix(items: list, lists: TiedLists, depth: int) -> tuple[list, TiedLists]:
    """One ranking cut at ``depth`` (:meth:`TiedLists.cut`)."""
    n = int(lists.cut(depth).sum())
    return items[:n], TiedLists(np.array([n]), lists.top[:n], lists.bottom[:n])


def _pair(x_items: list, x_lists: TiedLists, y_items: list, y_lists: TiedLists, p, ties, depth) -> dict[str, float]:
    p, ties, depth = check_params(p, ties, depth)
    if depth is not None:
        x_items, x_lists = _prefix(x_items, x_lists, depth)
        y_items, y_lists = _prefix(y_items, y_lists, depth)
    where_y = {item: i for i, item in enumerate(y_items)}
    shared = [(i, where_y[item]) for i, item in enumerate(x_items) if item in where_y]
    pos_x = np.array([i for i, _ in shared], np.int64)
    pos_y = np.array([j for _, j in shared], np.int64)
    values = tied_rbo(x_lists, y_lists, np.zeros(len(shared), np.int64), pos_x, pos_y, p, ties)
    return {score: float(value[0]) for score, value in values.items()}


def rbo(x: Sequence, y: Sequence, p: float = 0.9, ties: str = "a", depth: int | None = None) -> dict[str, float]:
    """Tie-aware RBO of two rankings, each a list whose entries are items or collections (set, list, tuple)
    of tied items, e.g. ``["red", {"blue", "green"}, "yellow"]``: ``{"ext", "min", "max", "res"} -> value``.

    ``depth`` keeps the items whose tie group starts above it. See the module docstring for the definitions.

    Parameters
    ----------
    x, y : Sequence
        The two rankings, best first; an entry is an item or a collection of tied items.
    p : float
        The persistence, in (0, 1).
    ties : {"w", "a", "b"}
        RBO^w (Webber et al.'s rule for ties), RBO^a or RBO^b (Corsi and Urbano).
    depth : int, optional
        Only the items whose tie group starts above this depth.

    Returns
    -------
    dict[str, float]
        ``ext`` (the extrapolated value), ``min`` and ``max`` (the bounds) and ``res`` (their difference).
    """
    x_items, x_starts = _flat(x)
    y_items, y_starts = _flat(y)
    x_lists = TiedLists.from_starts(np.array(x_starts, bool), np.array([len(x_items)]))
    y_lists = TiedLists.from_starts(np.array(y_starts, bool), np.array([len(y_items)]))
    return _pair(x_items, x_lists, y_items, y_lists, p, ties, depth)


def rbo_of_scores(
    x_items: Iterable[Hashable],
    x_scores: Iterable[float],
    y_items: Iterable[Hashable],
    y_scores: Iterable[float],
    p: float = 0.9,
    ties: str = "a",
    depth: int | None = None,
) -> dict[str, float]:
    """Tie-aware RBO of two rankings given as items and scores (larger first; equal scores are tied).

    Parameters
    ----------
    x_items, y_items : Iterable[Hashable]
        The items of each ranking.
    x_scores, y_scores : Iterable[float]
        Their scores, larger first; equal scores are tied.
    p, ties, depth
        As :func:`rbo`.

    Returns
    -------
    dict[str, float]
        As :func:`rbo`.
    """
    check_params(p, ties, depth)
    pairs = []
    for side, items, scores in (("x", x_items, x_scores), ("y", y_items, y_scores)):
        items, scores = list(items), _scores(scores, f"{side}_scores")
        if len(items) != len(scores):
            raise InputError(f"{side}_items has {len(items)} items but {side}_scores {len(scores)} scores")
        _check_distinct(items)
        order = np.argsort(-scores, kind="stable")
        pairs.append(([items[i] for i in order], TiedLists.from_scores(scores[order], np.array([len(items)]))))
    return _pair(*pairs[0], *pairs[1], p, ties, depth)


def _scores(scores: Iterable[float], name: str) -> np.ndarray:
    """``scores`` as float64, each a number (not a string, not NaN; infinities order as they are)."""
    scores = list(scores)
    bad = [s for s in scores if isinstance(s, bool) or not isinstance(s, int | float | np.integer | np.floating)]
    values = np.asarray(scores if not bad else [], dtype=np.float64)
    if bad or np.isnan(values).any():
        shown = bad[0] if bad else "nan"
        raise InputError(f"{name}: the score {shown!r} is not a number", expected="a number per item, not NaN")
    return values
