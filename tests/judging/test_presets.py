"""Presets: judge.py's prompt verbatim, its reading of a response and its rule for the two orders (against the
direct reading in tests/oracles/judge_py.py on every case), Clarke's log lines, the majority rule against a direct
count, and the checks on user templates."""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pytest
from oracles.judge_py import at_line, better, reading

from ir_pref_measures.judging import Answer, Pair, QueryText, Texts
from ir_pref_measures.judging.presets import (
    PRESETS,
    RULES,
    Preset,
    arabzadeh_clarke,
    clarke_line,
    clarke_lines,
    majority,
    preset,
    read_one_or_two,
    verdicts,
)

AC = PRESETS["arabzadeh-clarke"]
SAID = {1: "first", -1: "second", 0: "unusable"}
PAIR = Pair("q", "a", "b")


def answers_of(x: int, y: int, pair: Pair = PAIR) -> list[Answer]:
    return [Answer(pair, SAID[x], "llm"), Answer(pair.swapped(), SAID[y], "llm", sample=0)]


def test_the_arabzadeh_clarke_prompt_is_judge_py_verbatim():
    messages = AC.messages(QueryText("Q?"), "first text", "second text")
    assert messages == [
        {"role": "system", "content": "\nYou are a highly experienced and accurate assessor for TREC.\n"},
        {
            "role": "user",
            "content": "\nSelect the passage that answers the question better. Just answer 1 or 2, without any "
            "explanation or extra verbiage.  If both passages are similar, select the simplest and clearest."
            "\nQuestion:\nQ?\nPassage 1:\nfirst text\nPassage 2:\nsecond text\n",
        },
    ]
    assert AC.orders(PAIR) == (PAIR, PAIR.swapped()) and AC.rule == "arabzadeh-clarke"


@pytest.mark.parametrize(
    "response",
    [
        "1",
        "2",
        "Passage 1",
        "Passage 2",
        "Passage 2 beats 1",
        "1 and 2",
        "None",
        "",
        "12",
        "1\n",
        "\n2",
        "Passage\n1",
        "Passage 1 or Passage 2",
        "3",
        "21",
    ],
)
def test_a_response_is_read_as_judge_py_reads_it(response):
    assert read_one_or_two(response) == SAID[reading(response)]


@pytest.mark.parametrize(("x", "y"), list(itertools.product((1, -1, 0), repeat=2)))
def test_the_two_orders_combine_as_in_judge_py(x, y):
    assert arabzadeh_clarke(PAIR, answers_of(x, y)) == {1: "first", -1: "second", 0: "tie"}[better(x, y)]
    # the answers' order does not matter, only the order each was shown in
    assert arabzadeh_clarke(PAIR, answers_of(x, y)[::-1]) == arabzadeh_clarke(PAIR, answers_of(x, y))


@pytest.mark.parametrize(("x", "y"), list(itertools.product((1, -1, 0), repeat=2)))
@pytest.mark.parametrize(("text_a", "text_b"), [("short", "longer"), ("longer", "short"), ("same", "SAME")])
def test_clarke_lines_as_judge_py_prints_them(x, y, text_a, text_b):
    texts = Texts({"q": QueryText("?")}, {"a": text_a, "b": text_b})
    expected = at_line("q", "a", "b", {"a": text_a, "b": text_b}, x, y)
    assert clarke_lines([PAIR], answers_of(x, y), AC, texts) == [expected]


@pytest.mark.parametrize("present", [{"a": "A"}, {"b": "B"}, {}])
def test_a_missing_passage_is_a_question_mark_line(present):
    texts = Texts({"q": QueryText("?")}, present)
    missing = [Answer(p, "unusable", "llm", reason=texts.missing(PAIR)) for p in (PAIR, PAIR.swapped())]
    assert AC.verdict(PAIR, missing) == "missing"
    assert clarke_line(PAIR, "missing", texts) == at_line("q", "a", "b", present, None, None)


def test_samples_per_order_vote_within_their_order():
    """With k samples per order, each order reads as the sign of its samples' votes."""
    two_one = [
        Answer(PAIR, "first", "llm", sample=0),
        Answer(PAIR, "first", "llm", sample=1),
        Answer(PAIR, "second", "llm", sample=2),
    ]
    swapped = [Answer(PAIR.swapped(), "unusable", "llm", sample=k) for k in range(3)]
    assert arabzadeh_clarke(PAIR, two_one + swapped) == "first"  # x = 1, y = 0
    assert arabzadeh_clarke(PAIR, two_one[1:] + swapped) == "tie"  # x = 0, y = 0


def test_majority_is_a_direct_count_on_random_answers():
    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(1, 8))
        shown = [PAIR if flip else PAIR.swapped() for flip in rng.integers(0, 2, size=n)]
        said = [str(s) for s in rng.choice(["first", "second", "tie", "unusable"], size=n)]
        answers = [Answer(p, s, "llm", sample=k) for k, (p, s) in enumerate(zip(shown, said, strict=True))]
        wins_a = sum(
            (s == "first") == (p == PAIR) for p, s in zip(shown, said, strict=True) if s in ("first", "second")
        )
        wins_b = sum(s in ("first", "second") for s in said) - wins_a
        if all(s == "unusable" for s in said):
            expected = "unusable"
        else:
            expected = "first" if wins_a > wins_b else "second" if wins_b > wins_a else "tie"
        assert majority(PAIR, answers) == expected
        order = rng.permutation(n)
        assert majority(PAIR, [answers[i] for i in order]) == expected


def test_verdicts_follow_the_requested_pairs_whatever_the_answers_order():
    pairs = [Pair("q", "a", "b"), Pair("q", "c", "b"), Pair("r", "a", "b")]
    answers = answers_of(1, -1, pairs[0]) + answers_of(-1, 1, pairs[1]) + answers_of(1, 1, pairs[2])
    expected = ["first", "second", "tie"]
    assert verdicts(pairs, answers, AC) == expected
    assert verdicts(pairs, answers[::-1], AC) == expected
    # a pair asked the other way round reads the same answers from its own side
    assert verdicts([p.swapped() for p in pairs], answers, AC) == ["second", "first", "tie"]
    with pytest.raises(ValueError, match="no answer"):
        verdicts([Pair("z", "a", "b")], answers, AC)


def test_user_templates_are_checked_and_hashed():
    custom = preset('Q: {query} ({description})\n1: {first}\n2: {second}\nJSON like {{"answer": 1}}', rule="majority")
    assert custom.messages(QueryText("q", "desc"), "A", "B") == [
        {"role": "user", "content": 'Q: q (desc)\n1: A\n2: B\nJSON like {"answer": 1}'}
    ]
    assert custom.prompt_hash != AC.prompt_hash and len(AC.prompt_hash) == 16
    assert AC.prompt_hash == Preset("x", AC.template, AC.system).prompt_hash  # the prompt, not the name
    with pytest.raises(ValueError, match=r"missing \{second\}"):
        preset("{query} {first}")
    with pytest.raises(ValueError, match=r"unknown field\(s\) \{passage\}"):
        preset("{query} {first} {second} {passage}")
    with pytest.raises(ValueError, match="unknown combination rule"):
        preset("{query} {first} {second}", rule="coin")
    with pytest.raises(ValueError, match="unknown preset"):
        preset("nonesuch")
    assert set(RULES) == {"arabzadeh-clarke", "majority"} and preset(AC) is AC
    narrative = PRESETS["narrative"].messages(QueryText("t", "d", "n"), "A", "B")[-1]["content"]
    assert "t\nDescription:\nd\nNarrative:\nn\nPassage 1:\nA\nPassage 2:\nB" in narrative


@pytest.mark.parametrize("old", ["llm", "presets", "batches"])
def test_a_moved_module_path_still_gives_its_names_and_warns_once(old):
    """``ir_pref_measures.judging.<old>`` moved to ``ir_pref_measures.judging.judges.<old>``: the old path gives the
    same objects for one release, with one DeprecationWarning."""
    moved = importlib.reload(importlib.import_module(f"ir_pref_measures.judging.{old}"))
    new = importlib.import_module(f"ir_pref_measures.judging.judges.{old}")
    names = [n for n, v in vars(new).items() if getattr(v, "__module__", None) == new.__name__][:3]
    assert len(names) == 3
    with pytest.warns(DeprecationWarning, match=f"judging.judges.{old}") as record:
        found = [getattr(moved, n) for n in names]
    assert len(record) == 1 and found == [getattr(new, n) for n in names]
    with pytest.raises(AttributeError):
        moved.no_such_name  # noqa: B018
