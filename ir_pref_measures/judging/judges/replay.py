"""The replay judge: recorded judgments replayed as ``sim.py`` does (Luo, Clarke and Smucker, SIGIR 2021).

The judgments are read by :func:`~ir_pref_measures.loading.sources.read_recorded`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ir_pref_measures.judging.judges.simulated import grade_order, question_rng
from ir_pref_measures.judging.protocol import Answer, Pair


class ReplayJudge:
    """A judge that replays recorded judgments ``recorded`` (``{query: {(a, b): [outcomes]}}`` with ``a < b``
    and outcomes ``"a"``, ``"b"`` or ``"tie"``), ``sim.py``'s rule (Luo, Clarke and Smucker, SIGIR 2021): one
    recorded judgment of the pair drawn at random, a fair coin where the pair was never judged.

    With ``fallback`` graded qrels (``{query: {doc: grade}}``), a pair never judged gets the qrels' answer
    instead of the coin: the doc of the higher grade, a tie for equal grades (:func:`grade_order`). Recorded
    judgments of a selection process cover only the pairs that process asked; the coin makes every other pair
    noise, the qrels an answer consistent with the assessors'."""

    def __init__(
        self,
        recorded: Mapping[str, Mapping[tuple[str, str], Sequence[str]]],
        seed: int = 0,
        name: str = "replay",
        fallback: Mapping[str, Mapping[str, float]] | None = None,
    ):
        self.recorded, self.seed, self.name, self.fallback = recorded, seed, name, fallback

    blind = "a coin flip"  # the answer to a pair never recorded (without fallback qrels)

    def knows(self, query_id: str, docs: Sequence[str]) -> bool:
        """Whether it holds a recorded judgment of ``query_id``, or fallback qrels grading one of ``docs``."""
        if self.fallback is not None and any(d in self.fallback.get(query_id, {}) for d in docs):
            return True
        return bool(self.recorded.get(query_id))

    def answer(self, pair: Pair) -> str:
        a, b = sorted((pair.first, pair.second))
        outcomes = self.recorded.get(pair.query_id, {}).get((a, b))
        if not outcomes and self.fallback is not None:
            return grade_order(self.fallback, pair)
        outcomes = outcomes or ("a", "b")
        drawn = outcomes[int(question_rng(self.seed, pair).integers(len(outcomes)))]
        if drawn == "tie":
            return "tie"
        return "first" if (a if drawn == "a" else b) == pair.first else "second"

    def judge(self, pairs: Sequence[Pair]) -> list[Answer]:
        return [Answer(p, self.answer(p), self.name) for p in pairs]
