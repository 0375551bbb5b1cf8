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
