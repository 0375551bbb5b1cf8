"""Greedy feedback-arc-set ordering of a preference multigraph (Eades, Lin & Smyth 1993), as Greedy PGC
uses it (Luo 2021, Algorithm 2).

While vertices remain: while a sink exists, remove the sink of **largest** priority and put it in front
of the tail list ``s2``; while a source exists, remove the source of **smallest** priority and append it
to the head list ``s1``; then remove the vertex of maximum ``delta = outdeg - indeg`` (smallest priority
among equals) and append it to ``s1``. The order is ``s1 + s2``. Parallel edges count in the degrees; a
self-loop adds one to both degrees of its vertex. With no edges at all the order is the priority order.

Sinks and sources go to heaps; the delta heap is refreshed lazily, only for vertices whose degrees
changed since the last max-delta step, so each edge costs O(log V): O((V + E) log V) in all.

P. Eades, X. Lin, W. F. Smyth. A fast and effective heuristic for the feedback arc set problem.
Information Processing Letters 47(6), 1993.
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush

import numpy as np


def _adjacency(n: int, src: np.ndarray, dst: np.ndarray) -> tuple[list, list, list, list, list, list]:
    """Degrees (with multiplicity) and, per vertex, its distinct successors and predecessors with edge counts."""
    keys, counts = np.unique(np.asarray(src, np.int64) * n + np.asarray(dst, np.int64), return_counts=True)
    s, d = keys // n, keys % n
    out_deg = np.bincount(s, counts, minlength=n).astype(np.int64).tolist()
    in_deg = np.bincount(d, counts, minlength=n).astype(np.int64).tolist()
    by_dst = np.argsort(d, kind="stable")
    succ, succ_w = _split(d, counts, s, n)
    pred, pred_w = _split(s[by_dst], counts[by_dst], d[by_dst], n)
    return out_deg, in_deg, succ, succ_w, pred, pred_w


def _split(items: np.ndarray, weights: np.ndarray, owner: np.ndarray, n: int) -> tuple[list, list]:
    """Per vertex ``v`` (``owner`` sorted), the lists of its ``items`` and ``weights``."""
    bounds = np.searchsorted(owner, np.arange(n + 1)).tolist()
    items, weights = items.tolist(), weights.tolist()
    spans = list(zip(bounds[:-1], bounds[1:], strict=True))
    return [items[a:b] for a, b in spans], [weights[a:b] for a, b in spans]


def greedy_fas_order(n: int, src: np.ndarray, dst: np.ndarray, priority: np.ndarray) -> np.ndarray:
    """Vertices ``0..n-1`` in greedy FAS order for edges ``src -> dst`` (src preferred); ties between
    candidates are broken by ``priority`` (distinct integers, lower = earlier in the actual ranking)."""
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    prio = [int(x) for x in priority]
    out_deg, in_deg, succ, succ_w, pred, pred_w = _adjacency(n, src, dst)
    alive = [True] * n
    changed = [False] * n
    stale: list[int] = []
    sinks = [(-prio[v], v) for v in range(n) if out_deg[v] == 0]
    sources = [(prio[v], v) for v in range(n) if in_deg[v] == 0 and out_deg[v] > 0]
    deltas = [(in_deg[v] - out_deg[v], prio[v], v) for v in range(n)]
    for heap in (sinks, sources, deltas):
        heapify(heap)
    head: list[int] = []
    tail: list[int] = []

    def remove(v: int) -> None:
        alive[v] = False
        for u, w in zip(pred[v], pred_w[v], strict=True):
            if alive[u]:
                left = out_deg[u] - w
                out_deg[u] = left
                if left == 0:
                    heappush(sinks, (-prio[u], u))
                if not changed[u]:
                    changed[u] = True
                    stale.append(u)
        for u, w in zip(succ[v], succ_w[v], strict=True):
            if alive[u]:
                left = in_deg[u] - w
                in_deg[u] = left
                if left == 0 and out_deg[u] > 0:
                    heappush(sources, (prio[u], u))
                if not changed[u]:
                    changed[u] = True
                    stale.append(u)

    while len(head) + len(tail) < n:
        while sinks:  # a sink stays a sink until removed: no entry goes stale
            v = heappop(sinks)[1]
            if alive[v]:
                tail.append(v)
                remove(v)
        while sources:  # an alive source entry is valid: its out-degree cannot fall to 0 in this phase
            v = heappop(sources)[1]
            if alive[v]:
                head.append(v)
                remove(v)
        if len(head) + len(tail) == n:
            break
        for u in stale:
            changed[u] = False
            if alive[u]:
                heappush(deltas, (in_deg[u] - out_deg[u], prio[u], u))
        stale.clear()
        while True:
            negative_delta, _, v = heappop(deltas)
            if alive[v] and negative_delta == in_deg[v] - out_deg[v]:
                break
        head.append(v)
        remove(v)
    return np.asarray(head + tail[::-1], dtype=np.int64)


class _Counts:
    """Fenwick tree over grade layers: how many remaining vertices lie in layers ``< i``."""

    def __init__(self, counts: list[int]) -> None:
        self.n = len(counts)
        self.tree = [0] * (self.n + 1)
        for i, c in enumerate(counts):
            self.add(i, c)

    def add(self, i: int, delta: int) -> None:
        i += 1
        while i <= self.n:
            self.tree[i] += delta
            i += i & -i

    def below(self, i: int) -> int:
        total = 0
        while i > 0:
            total += self.tree[i]
            i -= i & -i
        return total


def layered_greedy_fas_order(
    n: int, src: np.ndarray, dst: np.ndarray, priority: np.ndarray, grades: np.ndarray, bad: np.ndarray
) -> np.ndarray:
    """:func:`greedy_fas_order` of a *combined* graph, without listing its derived edges.

    The graph holds the explicit edges ``src -> dst`` (multiplicity kept) plus, for every two graded
    vertices (``grades`` not NaN) with ``grades[a] > grades[b]`` and ``a`` not ``bad``, the derived edge
    ``a -> b``: a complete layered DAG by grade. Its degrees come from counts per grade layer: a vertex's
    derived out-degree is the number of remaining graded vertices in lower layers (none for a bad one), its
    derived in-degree the number of remaining good graded vertices in higher layers. The order is the same
    as :func:`greedy_fas_order` on the listed edges, vertex for vertex:

    * a vertex of the lowest non-empty layer is a sink once its explicit out-degree is 0, a vertex of the
      highest layer holding a good vertex (or above) a source once its explicit in-degree is 0: each layer
      becomes lowest or highest once, so each vertex is looked at O(1) times outside its explicit edges;
    * the max-delta vertex: among the graded good vertices without explicit edges ("plain"), the derived
      delta grows strictly with the layer, so the candidate is the plain vertex of smallest priority in the
      highest layer holding one; the vertices with explicit edges are compared one by one.

    O(V log V + E) for V vertices and E explicit edges, plus O(E) per max-delta step.
    """
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    grades = np.asarray(grades, dtype=np.float64)
    graded_mask = ~np.isnan(grades)
    values, layer_of = np.unique(grades[graded_mask], return_inverse=True)
    n_layers = len(values)
    layer_arr = np.full(n, -1, dtype=np.int64)
    layer_arr[graded_mask] = layer_of.reshape(-1)
    good_arr = graded_mask & ~np.asarray(bad, dtype=bool)
    layer = layer_arr.tolist()
    good = good_arr.tolist()
    graded = graded_mask.tolist()
    prio = [int(x) for x in priority]
    out_e, in_e, succ, succ_w, pred, pred_w = _adjacency(n, src, dst)
    special_arr = np.zeros(n, dtype=bool)
    special_arr[np.asarray(src, np.int64)] = True
    special_arr[np.asarray(dst, np.int64)] = True
    count_all = np.bincount(layer_arr[graded_mask], minlength=n_layers).tolist()
    count_good = np.bincount(layer_arr[good_arr], minlength=n_layers).tolist()
    members: list[list[int]] = [[] for _ in range(n_layers)]
    for v in np.flatnonzero(graded_mask)[np.argsort(layer_arr[graded_mask], kind="stable")].tolist():
        members[layer[v]].append(v)
    plain_arr = good_arr & ~special_arr
    is_plain = plain_arr.tolist()
    plain_order = np.flatnonzero(plain_arr)
    plain_order = plain_order[np.lexsort((np.asarray(priority)[plain_order], layer_arr[plain_order]))]
    plain: list[list[int]] = [[] for _ in range(n_layers)]
    for v in plain_order.tolist():
        plain[layer[v]].append(v)
    plain_next = [0] * n_layers
    plain_left = [len(p) for p in plain]
    specials = np.flatnonzero(special_arr).tolist()
    all_below = _Counts(count_all)
    good_below = _Counts(count_good)
    state = {"lo": 0, "top": n_layers - 1, "plain_top": n_layers - 1, "good_left": sum(count_good)}
    while state["lo"] < n_layers and count_all[state["lo"]] == 0:
        state["lo"] += 1
    while state["top"] >= 0 and count_good[state["top"]] == 0:
        state["top"] -= 1
    alive = [True] * n

    def is_sink(v: int) -> bool:
        return out_e[v] == 0 and (not good[v] or layer[v] == state["lo"])

    def in_zero(v: int) -> bool:
        return in_e[v] == 0 and (not graded[v] or layer[v] >= state["top"])

    sinks = [(-prio[v], v) for v in range(n) if is_sink(v)]
    sources = [(prio[v], v) for v in range(n) if in_zero(v) and not is_sink(v)]
    heapify(sinks)
    heapify(sources)
    head: list[int] = []
    tail: list[int] = []

    def remove(v: int) -> None:
        alive[v] = False
        for u, w in zip(pred[v], pred_w[v], strict=True):
            if alive[u]:
                out_e[u] -= w
                if is_sink(u):
                    heappush(sinks, (-prio[u], u))
        for u, w in zip(succ[v], succ_w[v], strict=True):
            if alive[u]:
                in_e[u] -= w
                if in_zero(u) and not is_sink(u):
                    heappush(sources, (prio[u], u))
        g = layer[v]
        if g < 0:
            return
        count_all[g] -= 1
        all_below.add(g, -1)
        if good[v]:
            count_good[g] -= 1
            good_below.add(g, -1)
            state["good_left"] -= 1
            if is_plain[v]:
                plain_left[g] -= 1
        if count_all[g] == 0 and g == state["lo"]:
            lo = g
            while lo < n_layers and count_all[lo] == 0:
                lo += 1
            state["lo"] = lo
            if lo < n_layers:
                for u in members[lo]:
                    if alive[u] and good[u] and out_e[u] == 0:
                        heappush(sinks, (-prio[u], u))
        if good[v] and count_good[g] == 0 and g == state["top"]:
            top = g
            while top >= 0 and count_good[top] == 0:
                top -= 1
            state["top"] = top
            if top >= 0:
                for u in members[top]:
                    if alive[u] and in_e[u] == 0 and not is_sink(u):
                        heappush(sources, (prio[u], u))

    def delta(v: int) -> int:
        d = out_e[v] - in_e[v]
        g = layer[v]
        if g >= 0:
            if good[v]:
                d += all_below.below(g)
            d -= state["good_left"] - good_below.below(g + 1)
        return d

    while len(head) + len(tail) < n:
        while sinks:
            v = heappop(sinks)[1]
            if alive[v]:
                tail.append(v)
                remove(v)
        while sources:
            v = heappop(sources)[1]
            if alive[v]:
                head.append(v)
                remove(v)
        if len(head) + len(tail) == n:
            break
        best = None
        top = state["plain_top"]
        while top >= 0 and plain_left[top] == 0:
            top -= 1
        state["plain_top"] = top
        if top >= 0:
            members_top, i = plain[top], plain_next[top]
            while not alive[members_top[i]]:
                i += 1
            plain_next[top] = i
            v = members_top[i]
            best = (-delta(v), prio[v], v)
        specials = [v for v in specials if alive[v]]
        for v in specials:
            candidate = (-delta(v), prio[v], v)
            if best is None or candidate < best:
                best = candidate
        v = best[2]
        head.append(v)
        remove(v)
    return np.asarray(head + tail[::-1], dtype=np.int64)
