"""Binary insertion with transitivity and bad marks (Carterette, Bennett, Chickering and Dumais, *Here or there:
preference judgments for relevance*, ECIR 2008).

The docs of a pool are taken one at a time in a seeded random order and inserted into a ranking (best first) by
binary search: each question compares the doc with the middle of the remaining range, and transitivity spares the
other comparisons. A tie (or an answer without a usable verdict) places the doc just below the one it was compared
with; a bad mark takes a doc out of the ranking for good (it is below every other doc and never shown again). One
question per query a round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ir_pref_measures.judging.protocol import Pair
from ir_pref_measures.judging.selectors.base import History, query_rng, shown


@dataclass
class Insertion:
    """A query's insertion after some rounds: ``ranked`` best first, the ``bad`` docs, the docs still ``waiting``
    (the first is being inserted into ``ranked[lo:hi]``) and the ``rounds`` applied."""

    ranked: list[str]
    waiting: list[str]
    bad: list[str] = field(default_factory=list)
    lo: int = 0
    hi: int = 0
    rounds: int = 0

    def settle(self) -> None:
        """Insert the waiting docs that need no question (into an empty ranking, or a range closed)."""
        while self.waiting and (not self.ranked or self.lo >= self.hi):
            self.ranked.insert(self.lo, self.waiting.pop(0))
            self.lo, self.hi = 0, len(self.ranked)

    def question(self) -> tuple[str, str] | None:
        """The pair to ask next: the doc being inserted and the middle of its range (``None``: all placed)."""
        self.settle()
        return (self.waiting[0], self.ranked[(self.lo + self.hi) // 2]) if self.waiting else None

    def apply(self, outcome: str | None, doc: str, other: str, first: str) -> None:
        """Apply the verdict ``outcome`` (relative to the pair shown with ``first`` first) on ``doc`` vs ``other``."""
        mid = (self.lo + self.hi) // 2
        if outcome in ("bad-first", "bad-second"):
            marked = first if outcome == "bad-first" else (other if first == doc else doc)
            if marked == doc:
                self.bad.append(self.waiting.pop(0))
                self.lo, self.hi = 0, len(self.ranked)
            else:
                self.bad.append(self.ranked.pop(mid))
                self.hi -= 1
        elif outcome in ("first", "second"):
            won = (outcome == "first") == (first == doc)
            self.lo, self.hi = (self.lo, mid) if won else (mid + 1, self.hi)
        else:  # a tie or nothing: just below the doc it was compared with
            self.lo = self.hi = mid + 1
        self.rounds += 1


class BinaryInsertion:
    """Binary insertion of ``pools[query]`` (module docstring)."""

    name = "insertion"

    def __init__(self, pools: Mapping[str, Sequence[str]], seed: int = 0) -> None:
        self.pools, self.seed = pools, seed
        self._states: dict[str, Insertion] = {}

    def state(self, query_id: str, history: History) -> Insertion:
        """The insertion after the rounds of ``history`` (kept between calls and advanced as history grows)."""
        state = self._states.get(query_id)
        if state is None or state.rounds > len(history):
            docs = sorted(set(self.pools[query_id]))
            order = query_rng(self.seed, query_id, 0).permutation(len(docs))
            state = self._states[query_id] = Insertion([], [docs[i] for i in order])
        for verdicts in history[state.rounds :]:
            asked = state.question()
            if asked is None:
                raise ValueError(f"round {state.rounds} of query {query_id} has verdicts, but every doc was placed")
            doc, other = asked
            (verdict,) = verdicts
            if {verdict.pair.first, verdict.pair.second} != {doc, other}:
                raise ValueError(f"round {state.rounds} of query {query_id} asked {verdict.pair}, not {doc} {other}")
            state.apply(verdict.outcome, doc, other, verdict.pair.first)
        return state

    def next_round(self, query_id: str, history: History) -> list[Pair]:
        question = self.state(query_id, history).question()
        return [] if question is None else shown(query_id, [question], query_rng(self.seed, query_id, len(history)))
