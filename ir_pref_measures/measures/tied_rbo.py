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

TIES = ("w", "a", "b")
SCORES = ("ext", "min", "max", "res")
CHUNK_CELLS = 1 << 21  # query x depth cells per block (bounds memory to some 100 MB whatever the input size)


def check_params(p: float, ties: str) -> None:
    """Raise ``ValueError`` unless ``0 < p < 1`` and ``ties`` is one of :data:`TIES`."""
    if not 0 < p < 1:
        raise ValueError(f"RBO persistence p={p} must lie in (0, 1)")
    if ties not in TIES:
        raise ValueError(f"RBO ties={ties!r} must be one of {', '.join(TIES)}")


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
        n = int(offsets[-1])
        starts = np.asarray(group_start, dtype=bool).copy()
        starts[offsets[:-1][lengths > 0]] = True
        index = np.arange(n)
        first = np.maximum.accumulate(np.where(starts, index, 0))
        ends = np.append(starts[1:], True)
        last = np.minimum.accumulate(np.where(ends, index, n)[::-1])[::-1]
        base = np.repeat(offsets[:-1], lengths)
        return cls(lengths, first - base, last - base)

    @classmethod
    def from_scores(cls, scores: np.ndarray, lengths: np.ndarray) -> TiedLists:
        """From scores in rank order (descending within each query): equal neighbours are tied."""
        scores = np.asarray(scores)
        return cls.from_starts(np.append(True, scores[1:] != scores[:-1]), lengths)

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
    check_params(p, ties)
    la, lb = np.asarray(a.lengths, np.int64), np.asarray(b.lengths, np.int64)
    query = np.asarray(query, np.int64)
    order = np.argsort(query, kind="stable")
    query, pos_a, pos_b = query[order], np.asarray(pos_a, np.int64)[order], np.asarray(pos_b, np.int64)[order]
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
    """On a grid of ``total`` cells, the number of intervals ``[first, stop)`` (grid indices) holding each cell."""
    keep = first < stop
    events = np.bincount(first[keep], minlength=total + 1) - np.bincount(stop[keep], minlength=total + 1)
    return np.cumsum(events[:total])


def _block(a: TiedLists, b: TiedLists, query, pos_a, pos_b, p: float, ties: str) -> dict[str, np.ndarray]:
    """:func:`tied_rbo` on one block of queries (all its arrays held at once)."""
    la, lb = a.lengths, b.lengths
    short_a = la < lb  # S = a; otherwise S = b
    s, length = np.minimum(la, lb), np.maximum(la, lb)
    n_queries, total = len(la), int(length.sum())
    start = np.concatenate([[0], np.cumsum(length)[:-1]])
    cell_query = np.repeat(np.arange(n_queries), length)
    depth0 = np.arange(total) - start[cell_query]  # d - 1
    depth = depth0 + 1.0

    def on_grid(lists: TiedLists, values: np.ndarray, fill) -> np.ndarray:
        grid = np.full(total, fill, dtype=values.dtype)
        grid[np.repeat(start - lists.offsets[:-1], lists.lengths) + np.arange(len(values))] = values
        return grid

    def pick(from_a, from_b, where_a):
        return np.where(where_a, from_a, from_b)

    short_cell = short_a[cell_query]
    top = {side: on_grid(lists, lists.top, 0) for side, lists in (("a", a), ("b", b))}
    bottom = {side: on_grid(lists, lists.bottom, 0) for side, lists in (("a", a), ("b", b))}
    top_s, top_l = pick(top["a"], top["b"], short_cell), pick(top["b"], top["a"], short_cell)
    bottom_s, bottom_l = pick(bottom["a"], bottom["b"], short_cell), pick(bottom["b"], bottom["a"], short_cell)
    in_s = depth0 < s[cell_query]

    # the shared items: ranks of their groups in S and in L (for RBO^w an item counts fully from its top rank)
    ga, gb = a.offsets[query] + pos_a, b.offsets[query] + pos_b
    short_item = short_a[query]
    t_s, t_l = pick(a.top[ga], b.top[gb], short_item), pick(b.top[gb], a.top[ga], short_item)
    b_s, b_l = pick(a.bottom[ga], b.bottom[gb], short_item), pick(b.bottom[gb], a.bottom[ga], short_item)
    if ties == "w":
        b_s, b_l = t_s, t_l
    base, end = start[query], start[query] + length[query]
    overlap = _interval_counts(base + np.maximum(b_s, b_l), end, total).astype(np.float64)
    if ties == "w":
        c_s = c_l = None
    else:  # the contribution of the one partly seen group of each ranking at depth d
        c_s = np.where(in_s, (depth - top_s) / (bottom_s - top_s + 1), 1.0)
        c_l = (depth - top_l) / (bottom_l - top_l + 1)
        part_s_full_l = _interval_counts(base + np.maximum(t_s, b_l), base + b_s, total)
        full_s_part_l = _interval_counts(base + np.maximum(t_l, b_s), base + b_l, total)
        part_both = _interval_counts(base + np.maximum(t_s, t_l), base + np.minimum(b_s, b_l), total)
        overlap += c_s * part_s_full_l + c_l * full_s_part_l + c_s * c_l * part_both

    # agreement: overlap over the prefix sizes; past depth s, S counts as d items
    if ties == "w":
        size_s = np.where(in_s, bottom_s + 1.0, depth)
        size_l = bottom_l + 1.0

        def agreement(x):
            return 2.0 * x / (size_s + size_l)
    elif ties == "a":

        def agreement(x):
            return x / depth
    else:
        sq_s = np.where(in_s, top_s + (depth - top_s) ** 2 / (bottom_s - top_s + 1), depth)
        sq_l = top_l + (depth - top_l) ** 2 / (bottom_l - top_l + 1)
        norm = np.sqrt(sq_s) * np.sqrt(sq_l)

        def agreement(x):
            return x / norm

    seen = agreement(overlap)
    a_s = np.zeros(n_queries)
    a_s[s > 0] = seen[(start + s - 1)[s > 0]]  # A at depth s, extrapolated past it

    # the items of L that S lacks, in L's order: how many have started / ended their group by depth d
    shared_a, shared_b = np.zeros(len(a.top), bool), np.zeros(len(b.top), bool)
    shared_a[ga], shared_b[gb] = True, True
    only_a = np.flatnonzero(~shared_a & ~np.repeat(short_a, la))  # a is L and the item is not in b
    only_b = np.flatnonzero(~shared_b & np.repeat(short_a, lb))
    q_only = np.concatenate([np.repeat(np.arange(n_queries), la)[only_a], np.repeat(np.arange(n_queries), lb)[only_b]])
    t_only = np.concatenate([a.top[only_a], b.top[only_b]])
    b_only = t_only if ties == "w" else np.concatenate([a.bottom[only_a], b.bottom[only_b]])
    q_end = start[q_only] + length[q_only]
    started = _interval_counts(start[q_only] + t_only, q_end, total)
    ended = started if ties == "w" else _interval_counts(start[q_only] + b_only, q_end, total)
    beyond = np.maximum(depth0 - s[cell_query] + 1, 0)  # d - s: depths past S
    unseen_max = np.minimum(beyond, ended).astype(np.float64)
    mean_unseen = np.ones(total)
    if ties != "w":
        unseen_max += c_l * (np.minimum(beyond, started) - np.minimum(beyond, ended))
        mean_unseen = np.divide(ended + c_l * (started - ended), started, out=mean_unseen, where=started > 0)
    past_s = ~in_s
    a_min = seen
    a_max = np.where(past_s, agreement(overlap + unseen_max), seen)
    a_ext = np.where(past_s, agreement(overlap + beyond * a_s[cell_query] * mean_unseen), seen)

    # sums over the seen depths, then the tails past depth l
    longest = int(length.max(initial=0))
    powers = p ** np.arange(1, 2 * longest + 2, dtype=np.float64)  # p^d for d = 1..2l+1
    harmonic = np.concatenate([[0.0], np.cumsum(powers / np.arange(1, len(powers) + 1))])  # sum_{d<=n} p^d / d
    weight = powers[depth0]
    x_l = np.zeros(n_queries)  # an integer: every group is whole at depth l
    x_l[length > 0] = np.round(overlap[(start + length - 1)[length > 0]])
    tail_min = x_l * (np.log(1.0 / (1.0 - p)) - harmonic[length])
    f = (length + s - x_l).astype(np.int64)
    geometric = (powers[length] - powers[f]) / (1.0 - p)  # sum_{d=l+1..f} p^d
    tail_max = 2.0 * geometric - f * (harmonic[f] - harmonic[length]) + powers[f] / (1.0 - p)
    tail_ext = (x_l + (length - s) * a_s) / np.maximum(length, 1) * powers[length] / (1.0 - p)
    scale = (1.0 - p) / p

    def seen_sum(agreements):
        return np.bincount(cell_query, agreements * weight, minlength=n_queries)

    out = {
        "ext": scale * (seen_sum(a_ext) + tail_ext),
        "min": scale * (seen_sum(a_min) + tail_min),
        "max": scale * (seen_sum(a_max) + tail_max),
    }
    out["res"] = out["max"] - out["min"]
    return out


def _flat(ranking: Sequence) -> tuple[list, list[bool]]:
    """Items of a ranking given as a list whose entries are items or collections of tied items, and whether
    each begins a tie group."""
    items, starts = [], []
    for entry in ranking:
        group = sorted(entry, key=repr) if isinstance(entry, set | frozenset | list | tuple) else [entry]
        if not group:
            raise ValueError("an empty tie group in a ranking")
        items.extend(group)
        starts.extend([True] + [False] * (len(group) - 1))
    if len(set(items)) != len(items):
        raise ValueError("a ranking lists an item twice")
    return items, starts


def _prefix(items: list, lists: TiedLists, depth: int) -> tuple[list, TiedLists]:
    """One ranking cut at ``depth`` (:meth:`TiedLists.cut`)."""
    n = int(lists.cut(depth).sum())
    return items[:n], TiedLists(np.array([n]), lists.top[:n], lists.bottom[:n])


def _pair(x_items: list, x_lists: TiedLists, y_items: list, y_lists: TiedLists, p, ties, depth) -> dict[str, float]:
    if depth is not None:
        if int(depth) != depth or depth < 1:
            raise ValueError(f"RBO depth={depth} must be a positive integer")
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
    """Tie-aware RBO of two rankings given as items and scores (larger first; equal scores are tied)."""
    pairs = []
    for items, scores in ((x_items, x_scores), (y_items, y_scores)):
        items, scores = list(items), np.asarray(list(scores), dtype=np.float64)
        if len(items) != len(scores):
            raise ValueError(f"{len(items)} items but {len(scores)} scores")
        if np.isnan(scores).any():
            raise ValueError("a score is NaN")
        if len(set(items)) != len(items):
            raise ValueError("a ranking lists an item twice")
        order = np.argsort(-scores, kind="stable")
        pairs.append(([items[i] for i in order], TiedLists.from_scores(scores[order], np.array([len(items)]))))
    return _pair(*pairs[0], *pairs[1], p, ties, depth)
