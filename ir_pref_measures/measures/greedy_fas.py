"""Greedy feedback-arc-set ordering of a preference multigraph (Eades, Lin & Smyth 1993), as Greedy PGC
uses it (Luo 2021, Algorithm 2).

While vertices remain: while a sink exists, remove the sink of **largest** priority and put it in front
of the tail list ``s2``; while a source exists, remove the source of **smallest** priority and append it
to the head list ``s1``; then remove the vertex of maximum ``delta = outdeg - indeg`` (smallest priority
among equals) and append it to ``s1``. The order is ``s1 + s2``. Parallel edges count in the degrees; a
self-loop adds one to both degrees of its vertex. With no edges at all the order is the priority order.

Sinks and sources go to heaps; the delta heap is refreshed lazily, only for vertices whose degrees
changed since the last max-delta step, and made anew when most of it is stale, so each edge costs O(log V):
O((V + E) log V) in all.

P. Eades, X. Lin, W. F. Smyth. A fast and effective heuristic for the feedback arc set problem.
Information Processing Letters 47(6), 1993.
"""

from __future__ import annotations

from collections.abc import Callable
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
    heapify(sinks)
    heapify(sources)
    heapify(deltas)
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
        if len(deltas) > 2 * (n - len(head) - len(tail)) + 64:  # mostly stale: made anew, in O(V)
            deltas = [(in_deg[v] - out_deg[v], prio[v], v) for v in range(n) if alive[v]]
            heapify(deltas)
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
      highest layer holding one; the vertices with explicit edges share their derived delta with the others
      of their class (layer and goodness), so each class keeps a heap by explicit delta (refreshed lazily,
      as :func:`greedy_fas_order`'s) and only the classes' tops are compared.

    O((V + E) log V) for V vertices and E explicit edges, plus O(L) per max-delta step for L grade layers.
    """
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    graph = _LayeredGraph(n, src, dst, priority, grades, bad)
    alive, sinks, sources, remove = graph.alive, graph.sinks, graph.sources, graph.remove
    head: list[int] = []
    tail: list[int] = []
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
        v = graph.max_delta_vertex()
        head.append(v)
        remove(v)
    return np.asarray(head + tail[::-1], dtype=np.int64)


class _LayeredGraph:
    """The state of :func:`layered_greedy_fas_order`: explicit degrees and edges, the remaining vertices counted
    per grade layer, and the heaps of sink and source candidates (entries may be stale: check ``alive``).

    Layers are numbered by grade ascending (``layer[v] == -1``: ungraded). ``lo`` is the lowest layer holding a
    remaining vertex, ``top`` the highest holding a remaining good one; ``plain[g]`` lists the plain vertices of
    layer ``g`` by priority, ``plain_next[g]`` where its remaining ones start.
    """

    __slots__ = (
        "n_layers", "layer", "good", "graded", "prio", "out_e", "in_e", "succ", "succ_w", "pred", "pred_w",
        "count_all", "count_good", "all_below", "good_below", "members", "is_plain", "plain", "plain_next",
        "plain_left", "class_of", "heaps", "class_members", "changed", "stale", "alive", "lo", "top", "plain_top",
        "good_left", "sinks", "sources",
    )  # fmt: skip

    def __init__(
        self, n: int, src: np.ndarray, dst: np.ndarray, priority: np.ndarray, grades: np.ndarray, bad: np.ndarray
    ) -> None:
        grades = np.asarray(grades, dtype=np.float64)
        graded_mask = ~np.isnan(grades)
        values, layer_of = np.unique(grades[graded_mask], return_inverse=True)
        self.n_layers = n_layers = len(values)
        layer_arr = np.full(n, -1, dtype=np.int64)
        layer_arr[graded_mask] = layer_of.reshape(-1)
        good_arr = graded_mask & ~np.asarray(bad, dtype=bool)
        self.layer, self.good, self.graded = layer_arr.tolist(), good_arr.tolist(), graded_mask.tolist()
        self.prio = [int(x) for x in priority]
        self.out_e, self.in_e, self.succ, self.succ_w, self.pred, self.pred_w = _adjacency(n, src, dst)
        special_arr = np.zeros(n, dtype=bool)
        special_arr[np.asarray(src, np.int64)] = True
        special_arr[np.asarray(dst, np.int64)] = True
        self.count_all = np.bincount(layer_arr[graded_mask], minlength=n_layers).tolist()
        self.count_good = np.bincount(layer_arr[good_arr], minlength=n_layers).tolist()
        self.all_below, self.good_below = _Counts(self.count_all), _Counts(self.count_good)
        self.members = self._by_layer(np.flatnonzero(graded_mask), layer_arr)
        plain_arr = good_arr & ~special_arr
        self.is_plain = plain_arr.tolist()
        plain_order = np.flatnonzero(plain_arr)
        plain_order = plain_order[np.lexsort((np.asarray(priority)[plain_order], layer_arr[plain_order]))]
        self.plain = self._by_layer(plain_order, layer_arr)
        self.plain_next, self.plain_left = [0] * n_layers, [len(p) for p in self.plain]
        self._set_up_class_heaps(n, special_arr, layer_arr, good_arr)
        self.alive = [True] * n
        self._set_up_ends_and_heaps(n)

    def _by_layer(self, vertices: np.ndarray, layer_arr: np.ndarray) -> list[list[int]]:
        """``vertices`` (graded) grouped by layer, each layer's in their order in ``vertices``."""
        grouped: list[list[int]] = [[] for _ in range(self.n_layers)]
        for v in vertices[np.argsort(layer_arr[vertices], kind="stable")].tolist():
            grouped[self.layer[v]].append(v)
        return grouped

    def _set_up_class_heaps(self, n: int, special: np.ndarray, layer: np.ndarray, good: np.ndarray) -> None:
        """The vertices with explicit edges by class ``2 * (layer + 1) + good`` (ungraded: class 0), each class a
        heap of ``(indeg - outdeg, priority, v)`` over explicit degrees."""
        classes = np.where(special, 2 * (layer + 1) + good, -1)
        self.class_of = classes.tolist()
        self.class_members: list[list[int]] = [[] for _ in range(2 * (self.n_layers + 1))]
        for v in np.flatnonzero(special).tolist():
            self.class_members[self.class_of[v]].append(v)
        self.heaps = [self._class_heap(c) for c in range(len(self.class_members))]
        self.changed: list[bool] = [False] * n
        self.stale: list[int] = []

    def _class_heap(self, c: int) -> list[tuple[int, int, int]]:
        """Class ``c``'s heap made anew from its remaining vertices (the stale entries dropped)."""
        out_e, in_e, prio = self.out_e, self.in_e, self.prio
        heap = [(in_e[v] - out_e[v], prio[v], v) for v in self.class_members[c]]
        heapify(heap)
        return heap

    def _set_up_ends_and_heaps(self, n: int) -> None:
        """The lowest and highest layers in use, and the first sinks and sources."""
        self.lo, self.top, self.plain_top = 0, self.n_layers - 1, self.n_layers - 1
        self.good_left = sum(self.count_good)
        while self.lo < self.n_layers and self.count_all[self.lo] == 0:
            self.lo += 1
        while self.top >= 0 and self.count_good[self.top] == 0:
            self.top -= 1
        self.sinks = [(-self.prio[v], v) for v in range(n) if self.is_sink(v)]
        self.sources = [(self.prio[v], v) for v in range(n) if self.in_zero(v) and not self.is_sink(v)]
        heapify(self.sinks)
        heapify(self.sources)

    def is_sink(self, v: int) -> bool:
        return self.out_e[v] == 0 and (not self.good[v] or self.layer[v] == self.lo)

    def in_zero(self, v: int) -> bool:
        return self.in_e[v] == 0 and (not self.graded[v] or self.layer[v] >= self.top)

    def remove(self, v: int) -> None:
        """Takes ``v`` out: its explicit edges, then its layer's counts; pushes the vertices it makes sinks or
        sources."""
        self.alive[v] = False
        if self.pred[v] or self.succ[v]:  # most vertices of a large combined graph have no explicit edge
            self._remove_edges(v)
        g = self.layer[v]
        if g >= 0:
            self._remove_from_layer(v, g)

    def _remove_edges(self, v: int) -> None:
        alive, prio, is_sink, in_zero = self.alive, self.prio, self.is_sink, self.in_zero
        out_e, in_e, sinks, sources = self.out_e, self.in_e, self.sinks, self.sources
        changed, stale = self.changed, self.stale
        for u, w in zip(self.pred[v], self.pred_w[v], strict=True):
            if alive[u]:
                out_e[u] -= w
                if is_sink(u):
                    heappush(sinks, (-prio[u], u))
                if not changed[u]:
                    changed[u] = True
                    stale.append(u)
        for u, w in zip(self.succ[v], self.succ_w[v], strict=True):
            if alive[u]:
                in_e[u] -= w
                if in_zero(u) and not is_sink(u):
                    heappush(sources, (prio[u], u))
                if not changed[u]:
                    changed[u] = True
                    stale.append(u)

    def _remove_from_layer(self, v: int, g: int) -> None:
        self.count_all[g] -= 1
        self.all_below.add(g, -1)
        good = self.good[v]
        if good:
            self.count_good[g] -= 1
            self.good_below.add(g, -1)
            self.good_left -= 1
            if self.is_plain[v]:
                self.plain_left[g] -= 1
        if self.count_all[g] == 0 and g == self.lo:
            self._lowest_layer_emptied(g)
        if good and self.count_good[g] == 0 and g == self.top:
            self._top_layer_emptied(g)

    def _lowest_layer_emptied(self, g: int) -> None:
        """Moves ``lo`` up past the empty layers; the good vertices of the new lowest layer without explicit
        out-edges become sinks."""
        lo = g
        while lo < self.n_layers and self.count_all[lo] == 0:
            lo += 1
        self.lo = lo
        if lo < self.n_layers:
            alive, good, out_e, prio = self.alive, self.good, self.out_e, self.prio
            for u in self.members[lo]:
                if alive[u] and good[u] and out_e[u] == 0:
                    heappush(self.sinks, (-prio[u], u))

    def _top_layer_emptied(self, g: int) -> None:
        """Moves ``top`` down past the layers without good vertices; the vertices of the new top layer without
        explicit in-edges become sources (unless sinks)."""
        top = g
        while top >= 0 and self.count_good[top] == 0:
            top -= 1
        self.top = top
        if top >= 0:
            alive, in_e, prio, is_sink = self.alive, self.in_e, self.prio, self.is_sink
            for u in self.members[top]:
                if alive[u] and in_e[u] == 0 and not is_sink(u):
                    heappush(self.sources, (prio[u], u))

    def delta_function(self) -> Callable[[int], int]:
        """``v -> outdeg - indeg`` of ``v`` (explicit plus derived edges) in the current state, with the state
        bound as locals: it runs once per vertex with explicit edges at every max-delta step (the hot loop)."""
        out_e, in_e, layer, good = self.out_e, self.in_e, self.layer, self.good
        all_below, good_below, good_left = self.all_below.below, self.good_below.below, self.good_left

        def delta(v: int) -> int:
            d = out_e[v] - in_e[v]
            g = layer[v]
            if g >= 0:
                if good[v]:
                    d += all_below(g)
                d -= good_left - good_below(g + 1)
            return d

        return delta

    def max_delta_vertex(self) -> int:
        """The remaining vertex of largest delta, smallest priority among equals: the best plain vertex (the
        first of the highest layer holding one) against the best vertex with explicit edges of each class."""
        best: tuple[int, int, int] | None = None
        top = self.plain_top
        while top >= 0 and self.plain_left[top] == 0:
            top -= 1
        self.plain_top = top
        alive, prio, delta = self.alive, self.prio, self.delta_function()
        if top >= 0:
            members_top, i = self.plain[top], self.plain_next[top]
            while not alive[members_top[i]]:
                i += 1
            self.plain_next[top] = i
            v = members_top[i]
            best = (-delta(v), prio[v], v)
        out_e, in_e, heaps, changed, class_of = self.out_e, self.in_e, self.heaps, self.changed, self.class_of
        for u in self.stale:
            changed[u] = False
            if alive[u]:
                heappush(heaps[class_of[u]], (in_e[u] - out_e[u], prio[u], u))
        self.stale.clear()
        for c, heap in enumerate(heaps):
            if len(heap) > 2 * len(self.class_members[c]) + 64:  # mostly stale: made anew, in O(its vertices)
                self.class_members[c] = [v for v in self.class_members[c] if alive[v]]
                heaps[c] = self._class_heap(c)
        for heap in heaps:
            while heap and not (alive[heap[0][2]] and heap[0][0] == in_e[heap[0][2]] - out_e[heap[0][2]]):
                heappop(heap)
            if heap:
                v = heap[0][2]
                candidate = (-delta(v), prio[v], v)
                if best is None or candidate < best:
                    best = candidate
        assert best is not None, "max_delta_vertex is asked only while a vertex remains"
        return best[2]
