"""Pair selectors: seeded and reproducible across processes, each doing what its definition says."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import SimulatedJudge, Store, combine_answers, loop
from ir_pref_measures.judging.selectors import (
    AllPairs,
    BinaryInsertion,
    RatingDriven,
    TopK,
    all_pairs_cost,
    depth_pools,
    random_pairs,
)
from ir_pref_measures.judging.selectors.base import query_rng, top_ranks
from ir_pref_measures.judging.selectors.rating import disagreement, uniform_slot
from ir_pref_measures.leaderboards import bradley_terry
from ir_pref_measures.leaderboards.ratings import points_matrix


def graded(seed: int, queries: int = 3, docs: int = 12, grades: int = 4) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(seed)
    return {f"q{q}": {f"d{d:02d}": float(rng.integers(grades)) for d in range(docs)} for q in range(queries)}


def drive(selector, judge, query: str, limit: int = 10_000):
    """Run one query to the end (or ``limit`` questions): the history and every question asked."""
    history, asked = [], []
    while len(asked) < limit:
        pairs = selector.next_round(query, history)
        if not pairs:
            break
        asked += pairs
        history.append([combine_answers(p, judge.judge([p]), round=len(history)) for p in pairs])
    return history, asked


def systems(grades, count: int = 4, seed: int = 0) -> dict[str, pd.DataFrame]:
    """``count`` runs, each a seeded random ranking of every doc of every query."""
    rng = np.random.default_rng(seed)
    made = {}
    for s in range(count):
        rows = [(q, d, float(r)) for q, g in grades.items() for r, d in enumerate(rng.permutation(sorted(g)))]
        made[f"s{s}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return made


def make(name: str, grades, seed: int):
    pools = {q: sorted(g) for q, g in grades.items()}
    return {
        "all": lambda: AllPairs(pools, seed),
        "random": lambda: random_pairs(pools, seed, batch=3),
        "insertion": lambda: BinaryInsertion(pools, seed),
        "rating": lambda: RatingDriven(pools, seed, batch=4),
        "rating-runs": lambda: RatingDriven(pools, seed, batch=4, runs=systems(grades), depth=5),
        "topk": lambda: TopK(grades, seed, k=2, f=5, p=3),
        "topk-rest": lambda: TopK(grades, seed, k=2, f=5, p=3, rest=RatingDriven(pools, seed, runs=systems(grades))),
    }[name]()


SELECTORS = ("all", "random", "insertion", "rating", "rating-runs", "topk", "topk-rest")


@pytest.mark.parametrize("name", SELECTORS)
def test_same_seed_same_questions_other_seed_other_questions(name):
    grades = graded(1, docs=14)
    judge = SimulatedJudge(grades, seed=3, noise=0.2)
    runs = [drive(make(name, grades, seed), judge, "q1")[1] for seed in (7, 7, 8)]
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


SCRIPT = """
from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.rules import combine_answers
from ir_pref_measures.judging.judges import SimulatedJudge
from ir_pref_measures.judging.selectors import TopK, RatingDriven
grades = {"q": {f"d{i}": float(i % 3) for i in range(15)}}
judge = SimulatedJudge(grades, seed=1, noise=0.3)
for selector in (TopK(grades, 5, k=2, f=5, p=3), RatingDriven({"q": sorted(grades["q"])}, 5, batch=3)):
    history = []
    for _ in range(6):
        pairs = selector.next_round("q", history)
        print(pairs)
        history.append([combine_answers(p, judge.judge([p])) for p in pairs])
"""


def test_the_questions_do_not_depend_on_the_process_hash_seed(tmp_path):
    outputs = set()
    for hash_seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        command = [sys.executable, "-c", textwrap.dedent(SCRIPT)]
        done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        outputs.add(done.stdout)
    assert len(outputs) == 1 and outputs.pop().count("Pair(") > 20


def test_all_pairs_asks_each_pair_once_in_both_display_orders():
    grades = graded(2, queries=1, docs=30)
    selector = AllPairs({"q0": sorted(grades["q0"])}, seed=1)
    (pairs,) = [selector.next_round("q0", [])]
    assert len(pairs) == all_pairs_cost({"q0": grades["q0"]})["q0"] == 435
    assert len({frozenset((p.first, p.second)) for p in pairs}) == 435
    shown_smaller_first = sum(p.first < p.second for p in pairs)
    assert 150 < shown_smaller_first < 285  # a fair coin: 217.5 expected, 10.4 the standard deviation


def test_random_pairs_are_a_uniform_sample():
    pools = {"q": [f"d{i}" for i in range(6)]}
    counts = {}
    for seed in range(3000):
        (pair,) = random_pairs(pools, seed).next_round("q", [])
        key = tuple(sorted((pair.first, pair.second)))
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 15 and max(counts.values()) < 260 and min(counts.values()) > 140  # 200 expected


@pytest.mark.parametrize("seed", range(5))
def test_binary_insertion_with_a_perfect_judge_ranks_by_grade(seed):
    grades = graded(seed, queries=1, docs=40, grades=6)
    selector = BinaryInsertion({"q0": sorted(grades["q0"])}, seed)
    history, asked = drive(selector, SimulatedJudge(grades), "q0")
    state = selector.state("q0", history)
    assert [grades["q0"][d] for d in state.ranked] == sorted(grades["q0"].values(), reverse=True)
    assert len(asked) <= sum(math.ceil(math.log2(k + 1)) for k in range(1, 40))  # binary search: log2 per doc
    assert len({frozenset((p.first, p.second)) for p in asked}) == len(asked)  # transitivity: no pair twice


def test_binary_insertion_sets_bad_documents_aside():
    grades = graded(4, queries=1, docs=25, grades=3)
    selector = BinaryInsertion({"q0": sorted(grades["q0"])}, 1)
    history, _ = drive(selector, SimulatedJudge(grades, bad_marks=True), "q0")
    state = selector.state("q0", history)
    zero = {d for d, g in grades["q0"].items() if g == 0}
    assert set(state.bad) | set(state.ranked) == set(grades["q0"])
    assert set(state.bad) <= zero and len(state.bad) >= len(zero) - 1  # the first doc ranked is never compared bad
    assert [grades["q0"][d] for d in state.ranked if d not in zero] == sorted(
        (g for g in grades["q0"].values() if g > 0), reverse=True
    )


def test_rating_driven_never_repeats_a_pair_and_ends_with_all_pairs():
    grades = graded(5, queries=1, docs=9)
    selector = RatingDriven({"q0": sorted(grades["q0"])}, seed=2, batch=5)
    history, asked = drive(selector, SimulatedJudge(grades, noise=0.1), "q0")
    assert len(asked) == 36 == len({frozenset((p.first, p.second)) for p in asked})


def test_rating_driven_asks_first_about_the_docs_it_knows_least():
    docs = [f"d{i}" for i in range(10)]
    selector = RatingDriven({"q": docs}, seed=0, batch=5, uniform=0.0)
    first = selector.next_round("q", [])
    seen = [d for p in first for d in (p.first, p.second)]
    assert len(set(seen)) == 10  # with nothing known, five questions cover all ten docs


@pytest.mark.parametrize("seed", range(4))
def test_rating_driven_warm_fits_choose_what_a_fresh_selector_chooses(seed):
    """Pair by pair, the selector that warm-starts each fit from the last asks exactly what a fresh selector
    (a resumed run: every fit from zero) asks for the same history; its ratings are the dense fit's to 1e-9."""
    grades = graded(seed, queries=1, docs=30, grades=5)
    pools = {"q0": sorted(grades["q0"])}
    judge = SimulatedJudge(grades, seed=seed, noise=0.3, tie_rate=0.1)
    live = RatingDriven(pools, seed=seed, batch=1)
    history = []
    for _ in range(120):
        pairs = live.next_round("q0", history)
        assert pairs == RatingDriven(pools, seed=seed, batch=1).next_round("q0", history)
        history.append([combine_answers(p, judge.judge([p]), round=len(history)) for p in pairs])
    fit = live.ratings("q0", history)
    points = np.array([v.points() for r in history for v in r])
    played = points.sum(axis=1) > 0
    total = points[played].sum(axis=1)
    matrix = points_matrix(fit.a[played], fit.b[played], points[played, 0] / total, total, len(fit.docs))
    np.testing.assert_allclose(fit.beta, bradley_terry(matrix, prior=1.0), rtol=0, atol=1e-9)


def test_rating_driven_refits_from_zero_when_the_history_is_not_an_extension():
    grades = graded(4, queries=1, docs=10)
    pools = {"q0": sorted(grades["q0"])}
    selector = RatingDriven(pools, seed=1, batch=3)
    history, _ = drive(selector, SimulatedJudge(grades, seed=1, noise=0.3), "q0", limit=12)
    other, _ = drive(RatingDriven(pools, seed=2, batch=3), SimulatedJudge(grades, seed=5, noise=0.3), "q0", limit=12)
    for h in (other, history[:2], history):
        assert selector.next_round("q0", h) == RatingDriven(pools, seed=1, batch=3).next_round("q0", h)


def test_rating_driven_needs_a_positive_prior():
    with pytest.raises(InputError, match="positive prior"):
        RatingDriven({"q": ["a", "b"]}, prior=0.0)


def test_depth_pools_take_the_top_of_every_run(tmp_path):
    run_a = tmp_path / "a.run"
    run_a.write_text("q1 Q0 x 1 3.0 a\nq1 Q0 y 2 2.0 a\nq1 Q0 z 3 1.0 a\nq2 Q0 x 1 1.0 a\n")
    run_b = tmp_path / "b.run"
    run_b.write_text("q1 Q0 w 1 5.0 b\nq1 Q0 z 2 4.0 b\nq1 Q0 x 3 1.0 b\n")
    assert depth_pools({"a": run_a, "b": run_b}, 2) == {"q1": ["w", "x", "y", "z"], "q2": ["x"]}


def naive_disagreement(docs, ranks, depth):
    """``w_ij``: the ordered pairs of systems (s, t) where s ranks i above j and t ranks j above i, within depth."""
    w = np.zeros((len(docs), len(docs)))
    for i, x in enumerate(docs):
        for j, y in enumerate(docs):
            for s in ranks:
                for t in ranks:
                    above_s = s.get(x, depth + 1) < s.get(y, depth + 1)
                    above_t = t.get(y, depth + 1) < t.get(x, depth + 1)
                    w[i, j] += above_s and above_t
    return w


@pytest.mark.parametrize("seed", range(5))
def test_disagreement_weights_are_the_direct_count(seed):
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(int(rng.integers(2, 12)))]
    depth = int(rng.integers(1, 8))
    ranks = []
    for _ in range(int(rng.integers(1, 6))):
        top = rng.permutation(docs)[: int(rng.integers(0, depth + 1))]
        ranks.append({str(d): r for r, d in enumerate(top, start=1)})
    w = disagreement(docs, ranks, depth)
    np.testing.assert_array_equal(w, naive_disagreement(docs, ranks, depth))
    np.testing.assert_array_equal(w, w.T)


def test_top_ranks_keep_each_run_to_its_depth():
    runs = systems({"q": {f"d{i}": 0.0 for i in range(6)}}, count=2)
    ranks = top_ranks(runs, 3)["q"]
    assert [sorted(r.values()) for r in ranks] == [[1, 2, 3], [1, 2, 3]]
    best = runs["s0"].sort_values("score", ascending=False)["doc_id"].iloc[0]
    assert ranks[0][best] == 1


def with_runs(seed: int, docs: int, count: int, depth: int, batch: int, uniform: float = 0.0):
    """One query's graded docs, ``count`` random systems, their weights to ``depth`` and the selector given them
    (targeted only by default: the weights decide every question)."""
    grades = graded(seed, queries=1, docs=docs)
    runs = systems(grades, count=count, seed=seed)
    pool = sorted(grades["q0"])
    w = disagreement(pool, top_ranks(runs, depth)["q0"], depth)
    return (
        grades,
        pool,
        w,
        lambda: RatingDriven({"q0": pool}, seed=seed + 1, batch=batch, runs=runs, depth=depth, uniform=uniform),
    )


def test_rating_with_runs_asks_first_where_the_systems_disagree_most():
    _, docs, w, make_selector = with_runs(3, docs=12, count=5, depth=4, batch=1)
    (pair,) = make_selector().next_round("q0", [])
    assert w[docs.index(pair.first), docs.index(pair.second)] == w.max() > 0  # no verdicts: the weight decides


def test_rating_with_runs_asks_every_disputed_pair_before_any_other_and_ends_with_all_pairs():
    grades, docs, w, make_selector = with_runs(6, docs=10, count=3, depth=3, batch=3)
    selector = make_selector()
    history, asked = drive(selector, SimulatedJudge(grades, noise=0.1), "q0")
    weights = [w[docs.index(p.first), docs.index(p.second)] for p in asked]
    disputed = int((np.triu(w, 1) > 0).sum())
    assert 0 < disputed < 45 and all(x > 0 for x in weights[:disputed]) and not any(weights[disputed:])
    assert len(asked) == 45 == len({frozenset((p.first, p.second)) for p in asked})
    assert make_selector().next_round("q0", history[:5]) == selector.next_round("q0", history[:5])  # a resumed run


def unordered(pairs) -> list[frozenset]:
    return [frozenset((p.first, p.second)) for p in pairs]


@pytest.mark.parametrize("name", ["rating", "rating-runs", "topk-rest"])
@pytest.mark.parametrize("budget", [5, 17, 40])
def test_within_a_budget_no_pair_is_asked_twice_and_the_same_seed_asks_the_same(name, budget):
    grades = graded(9, queries=2, docs=14)
    asked = []
    for _ in range(2):
        with Store(":memory:") as store:
            report = loop(store, make(name, grades, 3), SimulatedJudge(grades, seed=2, noise=0.2), budget=budget)
            asked.append([(r.pair, r.round) for r in store.requests()])
        assert report.asked == len(asked[-1]) <= budget
        for q in grades:  # the process may name a pair again: its verdict is reused, never asked again
            mine = unordered(p for p, _ in asked[-1] if p.query_id == q)
            assert len(mine) == len(set(mine))
    assert asked[0] == asked[1]
    if name != "topk-rest":  # a reused verdict still counts in the round the runner cuts to the budget
        assert len(asked[0]) == budget


@pytest.mark.parametrize("share", [0.0, 0.25, 0.5, 1 / 3, 1.0])
def test_uniform_slots_are_the_share_of_every_prefix(share):
    slots = [uniform_slot(t, share) for t in range(200)]
    assert all(sum(slots[:m]) == math.floor(m * share + 1e-12) for m in range(201))


def test_rating_with_every_question_uniform_asks_a_uniform_sample():
    grades = graded(0, queries=1, docs=6)
    runs = systems(grades, count=3)
    counts = {}
    for seed in range(3000):
        selector = RatingDriven({"q0": sorted(grades["q0"])}, seed, batch=1, runs=runs, depth=3, uniform=1.0)
        (pair,) = selector.next_round("q0", [])
        key = tuple(sorted((pair.first, pair.second)))
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 15 and max(counts.values()) < 260 and min(counts.values()) > 140  # 200 expected


def test_rating_mixes_targeted_and_uniform_questions_one_for_one():
    """With the default share, a round's first question is the targeted rule's (the most disputed pair: no
    verdicts yet), its second is drawn uniformly among the others."""
    grades = graded(3, queries=1, docs=12)
    runs = systems(grades, count=5, seed=3)
    docs = sorted(grades["q0"])
    w = disagreement(docs, top_ranks(runs, 4)["q0"], 4)
    firsts, seconds = set(), set()
    for seed in range(200):
        first, second = RatingDriven({"q0": docs}, seed, batch=2, runs=runs, depth=4).next_round("q0", [])
        firsts.add(w[docs.index(first.first), docs.index(first.second)])
        seconds.add(frozenset((second.first, second.second)))
    assert firsts == {w.max()} and w.max() > 0
    assert len(seconds) > 50  # of 65: about 62 expected from 200 uniform draws


def test_topk_with_rest_runs_the_same_process_and_asks_beyond_it():
    grades = graded(4, queries=2, docs=20, grades=5)
    pools = {q: sorted(g) for q, g in grades.items()}
    judge = SimulatedJudge(grades)  # answers by grade: the same whatever else is asked
    for q in grades:
        plain = TopK(grades, 6, k=2, f=5, p=3)
        history, process = drive(plain, judge, q)
        extended = TopK(grades, 6, k=2, f=5, p=3, rest=RatingDriven(pools, 6, runs=systems(grades)))
        wide, asked = drive(extended, judge, q)
        assert len(set(unordered(asked))) == 190  # beyond the process: every pair of the pool
        assert extended.prefs(q, wide) == plain.prefs(q, history) != {}
        for r, pairs in enumerate(history):  # each round of the process, with as many questions beyond it
            round_asked = [v.pair for v in wide[r]]
            assert round_asked[::2] == [v.pair for v in pairs] and len(round_asked) == 2 * len(pairs)


def test_topk_rest_must_hold_the_candidates():
    grades = {"q": {"a": 2.0, "b": 1.0, "c": 1.0}}
    with pytest.raises(InputError, match="candidates of query q"):
        TopK(grades, rest=RatingDriven({"q": ["a", "b"]}))


def direct_round(selector, docs, w, history, size):
    """The targeted questions of a round by the definition, over every pair of the pool: the open pair maximising
    ``w_ij p_ij (1 - p_ij) (1/info_i + 1/info_j)`` among those of positive weight (else without ``w_ij``), ties
    to the lowest ``(tiebreak_i, tiebreak_j)``; each question counted in both docs' information."""
    fit = selector.ratings("q0", history)
    n, beta = len(docs), fit.beta
    asked = np.eye(n, dtype=bool)
    asked[fit.a, fit.b] = asked[fit.b, fit.a] = True
    p = 1 / (1 + np.exp(-(beta[fit.a] - beta[fit.b])))
    info = selector.prior + np.bincount(fit.a, p * (1 - p), n) + np.bincount(fit.b, p * (1 - p), n)
    tiebreak = query_rng(selector.seed, "q0", len(history)).permutation(n)
    chosen = []
    for _ in range(size):
        scored = []
        for i in range(n):
            for j in range(i + 1, n):
                if not asked[i, j]:
                    q = 1 / (1 + np.exp(-(beta[i] - beta[j])))
                    spread = q * (1 - q) * (1 / info[i] + 1 / info[j])
                    scored.append((w[i, j] > 0, w[i, j] * spread if w[i, j] > 0 else spread, i, j))
        if not scored:
            break
        top = max((positive, gain) for positive, gain, _, _ in scored)
        near = [(tiebreak[i], tiebreak[j], i, j) for positive, gain, i, j in scored
                if positive == top[0] and gain >= top[1] * (1 - 1e-9)]  # fmt: skip
        _, _, i, j = min(near)
        chosen.append(frozenset((docs[i], docs[j])))
        asked[i, j] = asked[j, i] = True
        q = 1 / (1 + np.exp(-(beta[i] - beta[j])))
        info[i] += q * (1 - q)
        info[j] += q * (1 - q)
    return chosen


@pytest.mark.parametrize("seed", range(4))
def test_rating_with_runs_asks_what_the_direct_definition_asks(seed):
    """The selector scores only the disputed pairs while one is open, then every open pair: round by round, the
    same questions as the definition over every pair of the pool (and the end, every pair asked once)."""
    grades, docs, w, make_selector = with_runs(seed, docs=11, count=4, depth=4, batch=4)
    history, asked = drive(make_selector(), SimulatedJudge(grades, seed=seed, noise=0.2), "q0")
    assert len(asked) == 55 == len(set(unordered(asked)))
    for r in range(len(history)):
        fresh = make_selector()
        assert unordered(fresh.next_round("q0", history[:r])) == direct_round(fresh, docs, w, history[:r], 4)
