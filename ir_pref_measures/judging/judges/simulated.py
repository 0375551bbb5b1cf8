"""The simulated judge: it answers from graded qrels, with the rates of ties, position bias and noise a lab sets.
Each question draws from ``numpy.random.default_rng`` seeded by the judge's seed and the question itself (query and
both docs in the order shown, by a stable hash), so an answer does not depend on which other questions are asked
with it or on a restart, and a question asked again gets the same answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.protocol import Answer, Pair
from ir_pref_measures.judging.selectors.base import stable_hash


def question_rng(seed: int, pair: Pair) -> np.random.Generator:
    """The generator of one question: seeded by ``seed`` and the stable hashes of the query and both docs."""
    return np.random.default_rng([int(seed), *(stable_hash(x) for x in (pair.query_id, pair.first, pair.second))])


def grade_order(grades: Mapping[str, Mapping[str, float]], pair: Pair) -> str:
    """The answer of graded qrels ``grades`` to ``pair``: the doc of the higher grade (``"first"`` or
    ``"second"``; an ungraded doc has grade 0), ``"tie"`` for equal grades."""
    graded = grades.get(pair.query_id, {})
    first, second = graded.get(pair.first, 0.0), graded.get(pair.second, 0.0)
    return "tie" if first == second else ("first" if first > second else "second")


class SimulatedJudge:
    """A judge that knows graded qrels ``grades`` (``{query: {doc: grade}}``; an ungraded doc has grade 0).

    Each question, with the question's generator: with probability ``tie_rate`` a tie; else with probability
    ``position_bias`` the doc shown first; else the doc of the higher grade (equal grades: a tie), replaced by
    the other doc with probability ``noise``. With ``bad_marks``, a doc graded 0 or less against a doc graded
    above 0 is marked bad instead of losing."""

    def __init__(
        self,
        grades: Mapping[str, Mapping[str, float]],
        seed: int = 0,
        noise: float = 0.0,
        tie_rate: float = 0.0,
        position_bias: float = 0.0,
        bad_marks: bool = False,
        name: str = "simulated",
    ) -> None:
        for label, rate in (("noise", noise), ("tie_rate", tie_rate), ("position_bias", position_bias)):
            if not 0.0 <= rate <= 1.0:
                raise InputError(f"{label} must be a probability in [0, 1], not {rate}")
        self.grades, self.seed, self.name = grades, seed, name
        self.noise, self.tie_rate, self.position_bias, self.bad_marks = noise, tie_rate, position_bias, bad_marks

    blind = "a tie"  # the answer where it knows no grade

    def knows(self, query_id: str, docs: Sequence[str]) -> bool:
        """Whether its qrels grade any of ``docs`` on ``query_id``."""
        grades = self.grades.get(query_id, {})
        return any(d in grades for d in docs)

    def answer(self, pair: Pair) -> str:
        """The answer to ``pair`` (class docstring)."""
        draws = question_rng(self.seed, pair).random(3)
        if draws[0] < self.tie_rate:
            return "tie"
        if draws[1] < self.position_bias:
            return "first"
        grades = self.grades.get(pair.query_id, {})
        first, second = grades.get(pair.first, 0.0), grades.get(pair.second, 0.0)
        answer = grade_order(self.grades, pair)
        if answer == "tie":
            return answer
        if draws[2] < self.noise:
            answer = "second" if answer == "first" else "first"
        if self.bad_marks and min(first, second) <= 0 < max(first, second):
            loser = "second" if answer == "first" else "first"
            if (grades.get(getattr(pair, loser), 0.0)) <= 0:
                return f"bad-{loser}"
        return answer

    def judge(self, pairs: Sequence[Pair]) -> list[Answer]:
        return [Answer(p, self.answer(p), self.name) for p in pairs]
