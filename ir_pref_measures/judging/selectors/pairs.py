"""All pairs of a pool, in a seeded random order: cut by a budget, random pairs within that budget.

The order is numpy's: ``rng.permutation`` of the pairs' indices, then one coin of ``rng.random`` per pair (which doc
is shown first). It is kept lazily (:class:`PairOrder`): the permutation as 4-byte indices rather than a list of
pairs, each pair made from its index when it is asked for, and the coins drawn as far as the questions asked reach.
numpy's shuffle must run over every index, so beyond ``NUMPY_ORDER_PAIRS`` pairs (64 MB of indices, a pool of
about 5,800 docs) the permutation is drawn lazily instead (:class:`LazyShuffle`, Durstenfeld's Fisher-Yates shuffle
from the front, keeping only the positions it has displaced): another order, uniform as well, whose memory grows
with the questions asked, not with the n^2 pairs (a pool of 10,000 docs would hold 200 MB of indices).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ir_pref_measures.judging.protocol import Pair
from ir_pref_measures.judging.selectors.base import History, query_rng

COINS = 4096  # coins drawn at least at once
NUMPY_ORDER_PAIRS = 2**24  # up to this many pairs numpy's permutation; beyond it the lazy shuffle
CHUNK = 4096  # positions the lazy shuffle fixes at once (fixed boundaries: the order is the same however it is read)


class LazyShuffle:
    """A uniformly random permutation of ``range(size)``, made from the front as far as it is read.

    Durstenfeld's shuffle: position ``i`` takes the value at a uniform ``j`` in ``[i, size)`` and the value at ``i``
    moves to ``j``. Only moved values are kept (a dict), so reading ``m`` positions costs O(m) memory and time.
    The draws are ``rng.integers`` over whole chunks of :data:`CHUNK` positions, so the permutation does not
    depend on how it is read."""

    def __init__(self, size: int, rng: np.random.Generator) -> None:
        self.size, self.rng = size, rng
        self.fixed = np.zeros(0, dtype=np.int64)
        self.moved: dict[int, int] = {}

    def __getitem__(self, places: np.ndarray) -> np.ndarray:
        """The values at ``places`` (an array of positions)."""
        if len(places):
            self._fix(int(places.max()) + 1)
        return self.fixed[places]

    def _fix(self, needed: int) -> None:
        while len(self.fixed) < needed:
            start = len(self.fixed)
            positions = np.arange(start, min(start + CHUNK, self.size), dtype=np.int64)
            draws = self.rng.integers(positions, self.size)
            values, moved = np.empty(len(positions), dtype=np.int64), self.moved
            for k, (i, j) in enumerate(zip(positions.tolist(), draws.tolist(), strict=True)):
                at_i = moved.pop(i, i)
                if j == i:
                    values[k] = at_i
                else:
                    values[k] = moved.get(j, j)
                    moved[j] = at_i
            self.fixed = np.concatenate([self.fixed, values])


class PairOrder(Sequence):
    """Every pair of ``docs`` (unordered, ``a < b`` by :func:`~ir_pref_measures.judging.selectors.base.all_pairs`'s
    order) permuted by ``rng`` and each shown one way or the other by a coin of ``rng``: the list that
    ``shown(query_id, [pairs[i] for i in rng.permutation(len(pairs))], rng)`` makes, made one pair at a time (beyond
    ``NUMPY_ORDER_PAIRS`` pairs, :class:`LazyShuffle`'s permutation: module docstring)."""

    def __init__(self, query_id: str, docs: Sequence[str], rng: np.random.Generator) -> None:
        self.query_id = query_id
        self.docs = sorted(set(docs))
        n = len(self.docs)
        self.size = n * (n - 1) // 2
        self.permutation: np.ndarray | LazyShuffle
        if self.size <= NUMPY_ORDER_PAIRS:
            self.permutation = np.arange(self.size, dtype=np.uint32)
            rng.shuffle(self.permutation)  # numpy's permutation(n) is this shuffle of arange(n), whatever the dtype
        else:
            self.permutation = LazyShuffle(self.size, np.random.default_rng(rng.integers(2**63, size=4)))
        self.rng = rng
        self.flips = np.zeros(0, dtype=bool)
        # where each row i of the pairs (i, j > i) starts in all_pairs' order
        rows = np.arange(n, dtype=np.int64)
        self.starts = rows * n - rows * (rows + 1) // 2

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self._pairs(range(*index.indices(self.size)))
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError("pair index out of range")
        return self._pairs(range(index, index + 1))[0]

    def __eq__(self, other) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __iter__(self):
        for start in range(0, self.size, COINS):
            yield from self._pairs(range(start, min(start + COINS, self.size)))

    def __repr__(self) -> str:
        return f"PairOrder({self.query_id!r}, {len(self.docs)} docs, {self.size} pairs)"

    def _pairs(self, positions: range) -> list[Pair]:
        if not positions:
            return []
        self._coins(max(positions[0], positions[-1]) + 1)
        places = np.asarray(positions, dtype=np.int64)
        k = np.asarray(self.permutation[places], dtype=np.int64)
        first = np.searchsorted(self.starts, k, side="right") - 1
        second = first + 1 + (k - self.starts[first])
        docs, flips, q = self.docs, self.flips[places], self.query_id
        return [
            Pair(q, docs[b], docs[a]) if flip else Pair(q, docs[a], docs[b])
            for a, b, flip in zip(first.tolist(), second.tolist(), flips.tolist(), strict=True)
        ]

    def _coins(self, needed: int) -> None:
        """Draw the coins up to position ``needed`` (in order: those drawn before are the same)."""
        have = len(self.flips)
        if needed <= have:
            return
        more = min(self.size, max(needed, 2 * have, COINS)) - have
        self.flips = np.concatenate([self.flips, self.rng.random(more) < 0.5])


class AllPairs:
    """Every pair of ``pools[query]``, shuffled by the query's generator (round 0's), each shown in a random
    order, ``batch`` a round (all in one round by default). A budget that cuts the list leaves a uniformly random
    sample of pairs: :func:`random_pairs`."""

    name = "all-pairs"

    def __init__(self, pools: Mapping[str, Sequence[str]], seed: int = 0, batch: int | None = None) -> None:
        self.pools, self.seed, self.batch = pools, seed, batch
        self._orders: dict[str, PairOrder] = {}

    def order(self, query_id: str) -> PairOrder:
        """Every question of the query, in the order they are asked (a lazy sequence: module docstring)."""
        if query_id not in self._orders:
            self._orders[query_id] = PairOrder(query_id, self.pools[query_id], query_rng(self.seed, query_id, 0))
        return self._orders[query_id]

    def next_round(self, query_id: str, history: History) -> Sequence[Pair]:
        order = self.order(query_id)
        if self.batch is None:
            return [] if history else order
        asked = len(history) * self.batch  # every round but the last is whole
        return order[asked : asked + self.batch]


def random_pairs(pools: Mapping[str, Sequence[str]], seed: int = 0, batch: int = 1) -> AllPairs:
    """Random pairs without repetition, ``batch`` a round: to be cut by a budget."""
    selector = AllPairs(pools, seed, batch)
    selector.name = "random"
    return selector
