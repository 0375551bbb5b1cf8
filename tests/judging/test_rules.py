"""Combination rules: both orders, samples, bad marks, and Arabzadeh and Clarke's table."""

from __future__ import annotations

import pytest

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import Answer, Pair
from ir_pref_measures.judging.rules import combine_answers, vote

PAIR = Pair("q", "a", "b")
READING = {1: "first", -1: "second", 0: "unusable"}  # judge.py's x / y: 1 = Passage 1, -1 = Passage 2, 0 unusable


def both_orders(x: int, y: int) -> list[Answer]:
    """judge.py's two prompts: x with a as Passage 1, y with b as Passage 1."""
    return [Answer(PAIR, READING[x], "llm"), Answer(PAIR.swapped(), READING[y], "llm")]


@pytest.mark.parametrize(
    ("x", "y", "expected"),
    [
        (1, -1, "first"),  # a wins both ways
        (-1, 1, "second"),
        (0, 1, "second"),  # x unusable: y decides (b first, b chosen)
        (0, -1, "first"),
        (1, 0, "first"),  # y unusable: x decides
        (-1, 0, "second"),
        (1, 1, "tie"),  # each order prefers the passage shown first: the orders disagree
        (-1, -1, "tie"),
    ],
)
def test_majority_of_both_orders_is_arabzadeh_and_clarke(x, y, expected):
    assert combine_answers(PAIR, both_orders(x, y)).outcome == expected


def test_no_usable_answer_is_no_verdict():
    assert combine_answers(PAIR, both_orders(0, 0)).outcome is None
    assert combine_answers(PAIR, []).outcome is None


def test_majority_of_samples_and_bad_marks():
    answers = [Answer(PAIR, "first", "llm", s) for s in range(3)] + [Answer(PAIR, "second", "llm", 3)]
    assert combine_answers(PAIR, answers).outcome == "first"
    assert combine_answers(PAIR, answers, "unanimous").outcome == "tie"
    bad = [Answer(PAIR, "bad-second", "p", assessor=x) for x in "xy"]
    assert combine_answers(PAIR, bad).outcome == "bad-second"
    assert combine_answers(PAIR, bad + [Answer(PAIR, "first", "p")]).outcome == "first"  # not every vote was a bad mark
    assert combine_answers(PAIR, [Answer(PAIR.swapped(), "bad-first", "p")]).outcome == "bad-second"


def test_verdict_points_and_winner():
    verdict = combine_answers(PAIR, [Answer(PAIR.swapped(), "first", "j")])
    assert (verdict.outcome, verdict.winner(), verdict.points()) == ("second", "b", (0.0, 1.0))
    assert combine_answers(PAIR, [Answer(PAIR, "tie", "j")]).points() == (0.5, 0.5)


def test_an_answer_to_another_question_or_an_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="does not answer"):
        vote(Answer(Pair("q", "a", "c"), "first", "j"), PAIR)
    with pytest.raises(InputError, match="unknown combination rule"):
        combine_answers(PAIR, [], "best-of-three")
