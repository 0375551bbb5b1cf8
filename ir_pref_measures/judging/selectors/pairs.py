"""All pairs of a pool, in a seeded random order: cut by a budget, random pairs within that budget."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ir_pref_measures.judging.protocol import Pair
from ir_pref_measures.judging.selectors.base import History, all_pairs, query_rng, shown


class AllPairs:
    """Every pair of ``pools[query]``, shuffled by the query's generator (round 0's), each shown in a random
    order, ``batch`` a round (all in one round by default). A budget that cuts the list leaves a uniformly random
    sample of pairs: :func:`random_pairs`."""

    name = "all-pairs"

    def __init__(self, pools: Mapping[str, Sequence[str]], seed: int = 0, batch: int | None = None) -> None:
        self.pools, self.seed, self.batch = pools, seed, batch
        self._orders: dict[str, list[Pair]] = {}

    def order(self, query_id: str) -> list[Pair]:
        """Every question of the query, in the order they are asked."""
        if query_id not in self._orders:
            rng = query_rng(self.seed, query_id, 0)
            pairs = all_pairs(self.pools[query_id])
            permuted = [pairs[i] for i in rng.permutation(len(pairs))]
            self._orders[query_id] = shown(query_id, permuted, rng)
        return self._orders[query_id]

    def next_round(self, query_id: str, history: History) -> list[Pair]:
        asked = sum(len(r) for r in history)
        order = self.order(query_id)
        return order[asked : len(order) if self.batch is None else asked + self.batch]


def random_pairs(pools: Mapping[str, Sequence[str]], seed: int = 0, batch: int = 1) -> AllPairs:
    """Random pairs without repetition, ``batch`` a round: to be cut by a budget."""
    selector = AllPairs(pools, seed, batch)
    selector.name = "random"
    return selector
