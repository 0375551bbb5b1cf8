"""The adjudication selector: people judge exactly the pairs an LLM judge is unsure of.

It is handed the unsure pairs of an LLM effort, per query (:func:`ir_pref_measures.judging.adjudication.unsure`:
the pairs whose two orders disagree, whose samples split, or whose every answer is unusable), and asks them all in
one round, in the order the LLM effort asked them; then each query is done. Its pools are the docs of those pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ir_pref_measures.judging.protocol import Pair
from ir_pref_measures.judging.selectors.base import History


class Adjudication:
    """Asks ``unsure[query]`` (the pairs an LLM judge is unsure of) in one round, then nothing more."""

    name = "adjudication"

    def __init__(self, unsure: Mapping[str, Sequence[Pair]]) -> None:
        self.unsure = {q: list(pairs) for q, pairs in unsure.items() if pairs}
        docs = {q: {d for p in pairs for d in (p.first, p.second)} for q, pairs in self.unsure.items()}
        self.pools: Mapping[str, Sequence[str]] = {q: sorted(found) for q, found in docs.items()}

    def next_round(self, query_id: str, history: History) -> list[Pair]:
        """The query's unsure pairs in round 0; nothing after."""
        return [] if history else list(self.unsure.get(query_id, ()))
