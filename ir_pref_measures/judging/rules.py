"""Combination rules: the answers to one question -> one verdict on the pair (or nothing).

A judge may answer a question several times (both orders, ``k`` samples each); an effort declares the rule that
turns them into one :class:`Verdict`. Each answer is first read as a vote on the pair *as requested*: the doc it
prefers, a tie, or nothing (``unusable``); ``bad-first`` / ``bad-second`` is a vote for the other doc that also
marks the doc bad. Rules (:data:`RULES`; :func:`register_rule` adds one):

* ``majority`` (the default): the doc with more votes wins; equal votes (a tie, or one vote each way: the two
  orders of an LLM disagreeing) make a tie; no usable vote, nothing. The winner's opponent is marked bad when every
  vote against it was a bad mark. With one answer per order this is Arabzadeh and Clarke's rule (one order
  unusable: the other decides; the two disagree: a tie).
* ``unanimous``: a doc wins only when every usable vote prefers it; any disagreement is a tie.
* ``arabzadeh-clarke``: Arabzadeh and Clarke's ``judge.py`` with one answer per order: ``majority``, except that a
  question whose answers are all unusable is a tie (``judge.py``'s ``x = y = 0``), not nothing.

Whatever the rule, a question not asked because a text was missing (answers whose reason starts with ``missing
text``) has no verdict: ``judge.py``'s ``?``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.protocol import Answer, Pair
from ir_pref_measures.judging.texts import MISSING

OUTCOMES = ("first", "second", "tie", "bad-first", "bad-second")  # a verdict, relative to the pair as requested
FLIPPED = {"first": "second", "second": "first", "bad-first": "bad-second", "bad-second": "bad-first"}


@dataclass(frozen=True)
class Verdict:
    """The combined judgment of one question: ``pair`` as requested, ``outcome`` one of :data:`OUTCOMES` (relative
    to ``pair``) or ``None`` when no answer was usable, and the query's ``round`` it was asked in."""

    pair: Pair
    outcome: str | None
    round: int = 0

    def winner(self) -> str | None:
        """The preferred doc (a bad mark prefers the other), ``None`` for a tie or nothing."""
        if self.outcome in ("first", "bad-second"):
            return self.pair.first
        if self.outcome in ("second", "bad-first"):
            return self.pair.second
        return None

    def points(self) -> tuple[float, float]:
        """The wins of ``(first, second)``: 1 and 0 for a win, a half each for a tie, 0 and 0 for nothing."""
        if self.outcome == "tie":
            return 0.5, 0.5
        winner = self.winner()
        return (float(winner == self.pair.first), float(winner == self.pair.second)) if winner else (0.0, 0.0)


# an outcome's side: the doc preferred (a bad mark is a preference for the other doc), or a tie
SIDES = {"first": "first", "bad-second": "first", "second": "second", "bad-first": "second", "tie": "tie"}


def vote(answer: Answer, pair: Pair) -> str | None:
    """``answer`` read relative to ``pair`` (the answer may have been shown the other way round): an outcome, or
    ``None`` for ``unusable``."""
    if answer.answer == "unusable":
        return None
    if (answer.pair.first, answer.pair.second) == (pair.first, pair.second):
        return answer.answer
    if (answer.pair.first, answer.pair.second) == (pair.second, pair.first):
        return FLIPPED.get(answer.answer, answer.answer)
    raise ValueError(f"answer {answer.pair} does not answer {pair}")


def _tally(votes: Sequence[str]) -> tuple[int, int, bool, bool]:
    first = sum(v in ("first", "bad-second") for v in votes)
    second = sum(v in ("second", "bad-first") for v in votes)
    bad_first = second > 0 and all(v == "bad-first" for v in votes if v in ("second", "bad-first"))
    bad_second = first > 0 and all(v == "bad-second" for v in votes if v in ("first", "bad-second"))
    return first, second, bad_first, bad_second


def majority(votes: Sequence[str]) -> str | None:
    """The ``majority`` rule (module docstring) on the usable votes."""
    if not votes:
        return None
    first, second, bad_first, bad_second = _tally(votes)
    if first > second:
        return "bad-second" if bad_second else "first"
    if second > first:
        return "bad-first" if bad_first else "second"
    return "tie"


def unanimous(votes: Sequence[str]) -> str | None:
    """The ``unanimous`` rule (module docstring) on the usable votes."""
    if not votes:
        return None
    first, second, _, _ = _tally(votes)
    return majority(votes) if first == 0 or second == 0 else "tie"


def arabzadeh_clarke(votes: Sequence[str]) -> str | None:
    """The ``arabzadeh-clarke`` rule (module docstring) on the usable votes."""
    return majority(votes) or "tie"


RULES: dict[str, Callable[[Sequence[str]], str | None]] = {
    "majority": majority,
    "unanimous": unanimous,
    "arabzadeh-clarke": arabzadeh_clarke,
}
DEFAULT_RULE = "majority"


def register_rule(name: str, rule: Callable[[Sequence[str]], str | None]) -> None:
    """Declare a combination rule ``name``: usable votes (outcomes relative to the pair requested) -> an
    outcome or ``None``."""
    RULES[name] = rule


def combine_answers(pair: Pair, answers: Sequence[Answer], rule: str = DEFAULT_RULE, round: int = 0) -> Verdict:
    """The :class:`Verdict` of ``answers`` to the question ``pair`` under the combination ``rule``."""
    if rule not in RULES:
        raise InputError(f"unknown combination rule {rule!r}", expected=f"one of {', '.join(RULES)}")
    if any(a.reason.startswith(MISSING) for a in answers):
        return Verdict(pair, None, round)
    votes = [v for v in (vote(a, pair) for a in answers) if v is not None]
    return Verdict(pair, RULES[rule](votes), round)
