"""Simulated and replay judges: their rates, sim.py's rule, one answer per question whatever is asked with it."""

from __future__ import annotations

import numpy as np
import pytest

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import Pair
from ir_pref_measures.judging.judges import JUDGES, FilesJudge, ReplayJudge, SimulatedJudge, read_recorded

GRADES = {"q": {f"d{i}": float(i % 4) for i in range(40)}}
STRICT = [Pair("q", f"d{i}", f"d{j}") for i in range(40) for j in range(40) if i % 4 != j % 4]


def shares(judge, pairs):
    answers = [a.answer for a in judge.judge(pairs)]
    return {x: answers.count(x) / len(answers) for x in set(answers)}


def truth(pair):
    return "first" if GRADES["q"][pair.first] > GRADES["q"][pair.second] else "second"


def test_a_perfect_judge_follows_the_grades():
    judge = SimulatedJudge(GRADES)
    assert all(a.answer == truth(a.pair) for a in judge.judge(STRICT))
    assert judge.judge([Pair("q", "d0", "d4")])[0].answer == "tie"  # equal grades
    assert judge.judge([Pair("other", "x", "y")])[0].answer == "tie"  # ungraded: grade 0 both


@pytest.mark.parametrize(
    ("noise", "tie_rate", "position_bias"), [(0.2, 0, 0), (0, 0.3, 0), (0, 0, 0.4), (0.1, 0.1, 0.2)]
)
def test_rates_are_as_asked(noise, tie_rate, position_bias):
    judge = SimulatedJudge(GRADES, seed=1, noise=noise, tie_rate=tie_rate, position_bias=position_bias)
    answers = judge.judge(STRICT)  # 1,200 questions
    ties = np.mean([a.answer == "tie" for a in answers])
    strict = [a for a in answers if a.answer != "tie"]
    first = np.mean([a.answer == "first" for a in strict])
    wrong = np.mean([a.answer != truth(a.pair) for a in strict])
    expected_wrong = (
        position_bias * 0.5 + (1 - position_bias) * noise
    ) / 1.0  # a biased "first" is wrong half the time
    assert abs(ties - tie_rate) < 0.04
    assert abs(first - (0.5 + position_bias / 2)) < 0.05
    assert abs(wrong - expected_wrong) < 0.05


def test_an_answer_depends_on_the_question_only():
    judge = SimulatedJudge(GRADES, seed=3, noise=0.3, tie_rate=0.2)
    alone = [judge.judge([p])[0].answer for p in STRICT[:100]]
    together = [a.answer for a in judge.judge(STRICT[:100][::-1])][::-1]
    assert alone == together
    other = SimulatedJudge(GRADES, seed=4, noise=0.3, tie_rate=0.2)
    assert alone != [a.answer for a in other.judge(STRICT[:100])]


def test_bad_marks_for_docs_graded_zero():
    judge = SimulatedJudge(GRADES, bad_marks=True)
    assert judge.judge([Pair("q", "d0", "d1")])[0].answer == "bad-first"
    assert judge.judge([Pair("q", "d2", "d4")])[0].answer == "bad-second"
    assert judge.judge([Pair("q", "d2", "d1")])[0].answer == "first"


def test_rates_must_be_probabilities():
    with pytest.raises(InputError, match="noise must be a probability"):
        SimulatedJudge(GRADES, noise=1.5)


def test_replay_draws_one_recorded_judgment_or_flips_a_coin(tmp_path):
    path = tmp_path / "judgments.txt"
    path.write_text("q a b\n" * 3 + "q b a\n" + "q c d\n")  # pairs format: winner first; a beat b 3 times of 4
    recorded = read_recorded(path, "pairs")
    assert recorded == {"q": {("a", "b"): ["a", "a", "a", "b"], ("c", "d"): ["a"]}}
    wins = {"a": 0, "c": 0, "e": 0}
    for seed in range(2000):
        judge = ReplayJudge(recorded, seed)
        for first, second in (("a", "b"), ("d", "c"), ("e", "f")):
            answer = judge.judge([Pair("q", first, second)])[0]
            winner = first if answer.answer == "first" else second
            wins[min(first, second)] += winner == min(first, second)
    assert abs(wins["a"] / 2000 - 0.75) < 0.04  # one of the four recorded at random
    assert wins["c"] == 2000  # always c: the only recorded judgment
    assert abs(wins["e"] / 2000 - 0.5) < 0.04  # never judged: a fair coin


def test_replay_keeps_recorded_ties(tmp_path):
    path = tmp_path / "judgments.txt"
    path.write_text("q a b 0\nq c NA -2\n")
    assert read_recorded(path, "carterette") == {"q": {("a", "b"): ["tie"]}}


def test_a_judgments_file_with_a_bad_line_names_it(tmp_path):
    judgments = tmp_path / "judgments.txt"
    judgments.write_text("q a b\nq a b c\n")
    with pytest.raises(InputError, match="'c' is neither doc") as caught:
        FilesJudge(tmp_path / "requests.txt", judgments).judge([Pair("q", "a", "b")])
    assert caught.value.line_no == 2


def test_the_registry_builds_judges_by_name(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q 0 a 2\nq 0 b 1\n")
    judge = JUDGES["simulated"](qrels, seed=1, noise=0.0)
    assert judge.judge([Pair("q", "b", "a")])[0].answer == "second"
    assert {"simulated", "replay", "files"} <= set(JUDGES)


def test_replay_with_a_qrels_fallback_answers_unrecorded_pairs_by_grade(tmp_path):
    path = tmp_path / "judgments.txt"
    path.write_text("q b a\n")  # recorded: b beat a, against the grades
    fallback = {"q": {"a": 2.0, "b": 1.0, "c": 1.0}}
    for seed in range(50):
        judge = ReplayJudge(read_recorded(path, "pairs"), seed, fallback=fallback)
        answers = judge.judge([Pair("q", "a", "b"), Pair("q", "c", "a"), Pair("q", "b", "c"), Pair("q", "d", "c")])
        assert [a.answer for a in answers] == ["second", "second", "tie", "second"]  # d ungraded: grade 0


def test_the_registry_replay_takes_qrels_as_its_fallback(tmp_path):
    (tmp_path / "qrels").write_text("q 0 a 2\nq 0 b 1\n")
    (tmp_path / "judgments.txt").write_text("q b a\n")
    judge = JUDGES["replay"](tmp_path / "judgments.txt", seed=3, format="pairs", qrels=tmp_path / "qrels")
    assert [a.answer for a in judge.judge([Pair("q", "a", "b"), Pair("q", "a", "c")])] == ["second", "first"]
