"""The top-k process against ``prefj.py``: the same stage rules, side by side on the CAsT 2019 qrels with an oracle
judge (``prefj.py``'s numbers recorded by ``tests/data/judging/record_prefj.py``), its ``prefs`` output, ties."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from conftest import testdata_path

from ir_pref_measures.judging import Answer, Pair, TopK, combine_answers, read_grades
from ir_pref_measures.judging.selectors.topk import candidates

RECORDED = Path(__file__).resolve().parent.parent / "data" / "judging" / "prefj_cast2019.json"
SEEDS = range(12)


class Oracle:
    """The recording's oracle: the higher grade wins; of two equal grades, the doc id that sorts first."""

    name = "oracle"

    def __init__(self, grades):
        self.grades = grades

    def judge(self, pairs):
        answers = []
        for p in pairs:
            grades = self.grades[p.query_id]
            best = min((p.first, p.second), key=lambda d: (-grades[d], d))
            answers.append(Answer(p, "first" if best == p.first else "second", self.name))
        return answers


def complete(selector, judge, query):
    history = []
    while pairs := selector.next_round(query, history):
        history.append([combine_answers(p, judge.judge([p]), round=len(history)) for p in pairs])
    return history


@pytest.fixture(scope="module")
def cast():
    return read_grades(testdata_path("cast2019_qrels", "2019qrels.txt"))


def test_side_by_side_with_prefj_on_cast2019(cast):
    recorded = json.loads(RECORDED.read_text())["seeds"]
    judge = Oracle(cast)
    judgments, exact = [], []
    for seed in SEEDS:
        selector = TopK(cast, seed)
        asked, right = 0, 0
        for query in sorted(cast):
            history = complete(selector, judge, query)
            asked += sum(len(r) for r in history)
            pool = selector.pools[query]
            truth = sorted(pool, key=lambda d: (-cast[query][d], d))[: min(5, len(pool))]
            right += set(selector.state(query, history).topk) == set(truth)
        judgments.append(asked / len(cast))
        exact.append(right / len(cast))
    theirs_judgments = statistics.mean(s["judgments"] / s["topics"] for s in recorded)
    theirs_exact = statistics.mean(s["exact_topics"] / s["topics"] for s in recorded)
    print(f"ours: {statistics.mean(judgments):.2f} judgments a topic, {statistics.mean(exact):.4f} exact top-k")
    print(f"prefj.py: {theirs_judgments:.2f} judgments a topic, {theirs_exact:.4f} exact top-k")
    assert recorded[0]["topics"] == len(cast)
    assert abs(statistics.mean(judgments) / theirs_judgments - 1) < 0.02
    assert abs(statistics.mean(exact) - theirs_exact) < 0.02


def test_parameters_as_prefj_corrects_them():
    selector = TopK({}, k=5, f=6, p=3)
    assert (selector.k, selector.p, selector.f) == (5, 6, 7)


def test_candidates_keep_the_ties_of_the_kth():
    grades = {"a": 3.0, "b": 1.0, "c": 2.0, "d": 2.0, "e": 2.0, "f": 0.0}
    assert candidates(grades, 2) == ["a", "c", "d", "e"]
    assert candidates(grades, 6) == ["a", "c", "d", "e", "b"]


def test_one_candidate_is_the_top_k_at_once():
    selector = TopK({"q": {"a": 2.0, "b": 0.0}})
    assert selector.next_round("q", []) == []
    assert selector.prefs("q", []) == {"a": 103.0, "b": 0.0}


def test_stage_one_pairs_every_doc_p_times_and_keeps_winners():
    grades = {"q": {f"d{i:02d}": 1.0 for i in range(20)}}
    selector = TopK(grades, seed=4)
    first = selector.next_round("q", [])
    counts = {}
    for p in first:
        for d in (p.first, p.second):
            counts[d] = counts.get(d, 0) + 1
    assert min(counts.values()) == 7 and len(counts) == 20
    assert len({frozenset((p.first, p.second)) for p in first}) == len(first)


def test_prefs_and_ties_counting_half():
    grades = {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "z": 0.0}}
    selector = TopK(grades, seed=0, k=2)
    (pairs,) = [selector.next_round("q", [])]  # three candidates, at most f: stage 2 at once
    assert len(pairs) == 3
    verdicts = []
    for p in pairs:
        pair = {p.first, p.second}
        outcome = "tie" if pair == {"a", "b"} else ("first" if "c" not in (p.first,) else "second")
        verdicts.append(combine_answers(p, [Answer(p, outcome, "j")]))
    # a-b tie; a and b each beat c: a 1.5, b 1.5, c 0
    assert selector.state("q", [verdicts]).topk == {"a": 1.5, "b": 1.5}
    assert selector.prefs("q", [verdicts]) == {"a": 102.5, "b": 102.5, "c": 1.0, "z": 0.0}


def test_all_tied_stage_one_goes_to_stage_two():
    grades = {"q": {f"d{i:02d}": 1.0 for i in range(12)}}
    selector = TopK(grades, seed=0)
    history = []
    while pairs := selector.next_round("q", history):
        history.append([combine_answers(p, [Answer(p, "tie", "j")]) for p in pairs])
    assert [len(r) for r in history][-1] == 66  # stage 1 kept every doc; then all pairs of the twelve
    assert len(history) == 2 and set(selector.state("q", history).topk) == set(grades["q"])


def test_a_pair_is_shown_either_way():
    grades = {"q": {f"d{i:02d}": 1.0 for i in range(9)}}
    pairs = TopK(grades, seed=1).next_round("q", [])
    assert {p.first < p.second for p in pairs} == {True, False}
    assert all(isinstance(p, Pair) for p in pairs)
