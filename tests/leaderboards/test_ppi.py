"""Prediction-powered Bradley-Terry ratings: parity with ppi-python's logistic PPI on the Bradley-Terry design,
coverage of the true ratings with a biased LLM judge, the battle-table front end and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from ir_pref_measures.errors import InputError
from ir_pref_measures.leaderboards import bradley_terry
from ir_pref_measures.leaderboards.ppi import EncodedBattles, ppi_bradley_terry, ppi_rate
from ir_pref_measures.leaderboards.ratings import points_matrix

REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "ppi" / "reference.json").read_text())
CASES = [(case, result) for case in REFERENCE["bradley_terry"] for result in case["results"]]


def _fit(case, lam, confidence=0.9):
    people = EncodedBattles(np.array(case["a"]), np.array(case["b"]), np.array(case["y"]))
    unlabelled = EncodedBattles(
        np.array(case["a_unlabelled"]), np.array(case["b_unlabelled"]), np.array(case["f_unlabelled"])
    )
    names = [f"s{k}" for k in range(case["systems"])]
    return ppi_bradley_terry(people, np.array(case["f"]), unlabelled, names, lam=lam, confidence=confidence)


@pytest.mark.parametrize("case, result", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_contrasts_equal_recorded_ppi_logistic(case, result):
    """ppi-python fits the contrasts beta_i - beta_0 (system 0 the reference) by L-BFGS; ours by Newton to machine
    precision: the contrasts and their intervals agree to the optimiser's tolerance."""
    got = _fit(case, result["lam"], result["confidence"])
    contrasts = np.array([got.difference(i, 0) for i in range(1, case["systems"])])
    np.testing.assert_allclose(contrasts[:, 0], result["estimate"], rtol=0, atol=1e-7)
    np.testing.assert_allclose(contrasts[:, 1], result["lower"], rtol=0, atol=1e-7)
    np.testing.assert_allclose(contrasts[:, 2], result["upper"], rtol=0, atol=1e-7)


def test_lam_zero_is_the_people_only_fit():
    case = REFERENCE["bradley_terry"][0]
    got = _fit(case, 0.0)
    a, b, y = (np.array(case[k]) for k in ("a", "b", "y"))
    direct = bradley_terry(points_matrix(a, b, y, np.ones(len(a)), case["systems"]))
    np.testing.assert_allclose(got.beta, direct, atol=1e-10)


def test_tuned_lambda_minimises_the_trace_of_the_covariance():
    case = REFERENCE["bradley_terry"][1]
    tuned = _fit(case, None)
    assert 0 < tuned.lam < 1
    traces = {lam: np.trace(_fit(case, lam).covariance) for lam in np.linspace(0, 1, 11)}
    assert np.trace(tuned.covariance) <= min(traces.values()) * 1.02


def _simulate(rng, beta, n, big_n, agreement):
    m = len(beta)

    def battles(k):
        a = rng.integers(0, m, k)
        b = (a + rng.integers(1, m, k)) % m
        y = (rng.random(k) < expit(beta[a] - beta[b])).astype(np.float64)
        favoured = np.where(a == 0, 1.0, np.where(b == 0, 0.0, 1.0))  # the LLM favours system 0, else system a
        return a, b, y, np.where(rng.random(k) < agreement, y, favoured)

    a, b, y, f = battles(n)
    ua, ub, _, uf = battles(big_n)
    return EncodedBattles(a, b, y), f, EncodedBattles(ua, ub, uf)


def test_coverage_of_the_true_ratings_with_a_biased_judge():
    """Seeded simulation: the people follow a Bradley-Terry model; the LLM copies them 70% of the time and
    otherwise favours system 0 (or the first-listed system). The 90% intervals of PPI++ cover each true rating at
    the nominal rate within Monte Carlo error; the LLM-only fit is biased and covers system 0 almost never."""
    rng = np.random.default_rng(36)
    beta = np.array([-0.4, 0.6, 0.1, -0.3])  # system 0 is not the best: the judge's bias moves it up
    beta -= beta.mean()
    names = ["s0", "s1", "s2", "s3"]
    repetitions = 300
    covered = np.zeros(len(beta))
    naive_covered = 0
    for _ in range(repetitions):
        people, f, unlabelled = _simulate(rng, beta, 300, 3000, 0.7)
        got = ppi_bradley_terry(people, f, unlabelled, names, confidence=0.9)
        low, high = got.intervals()
        covered += (low <= beta) & (beta <= high)
        llm_only = ppi_bradley_terry(unlabelled, unlabelled.outcome, unlabelled, names, lam=0.0)
        low, high = llm_only.intervals()
        naive_covered += low[0] <= beta[0] <= high[0]
    rate = covered / repetitions
    monte_carlo = 3 * np.sqrt(0.9 * 0.1 / repetitions)
    assert np.all(np.abs(rate - 0.9) < monte_carlo), rate
    assert naive_covered / repetitions < 0.05


def test_battle_tables_front_end():
    rng = np.random.default_rng(1)
    people, f, unlabelled = _simulate(rng, np.array([0.5, 0.0, -0.5]), 200, 600, 0.8)
    names = np.array(["bm25", "dense", "splade"])
    winner = {1.0: "a", 0.0: "b", 0.5: "tie"}

    def table(battles, outcome):
        return pd.DataFrame(
            {
                "query_id": [f"q{k}" for k in range(len(battles.a))],
                "system_a": names[battles.a],
                "system_b": names[battles.b],
                "winner": [winner[o] for o in outcome],
            }
        )

    got = ppi_rate(table(people, people.outcome), table(people, f), table(unlabelled, unlabelled.outcome))
    direct = ppi_bradley_terry(people, f, unlabelled, list(names))
    np.testing.assert_allclose(got.beta, direct.beta, atol=1e-12)
    frame = got.table()
    assert list(frame.columns) == ["system", "rating", "ci low", "ci high", "se", "rank"]
    assert frame["system"].tolist()[0] == "bm25"
    assert (frame["ci low"] < frame["rating"]).all() and (frame["rating"] < frame["ci high"]).all()
    assert frame["rating"].mean() == pytest.approx(1000.0)
    shifted = table(people, f).iloc[::-1].reset_index(drop=True)
    with pytest.raises(InputError, match="not the people's battles"):
        ppi_rate(table(people, people.outcome), shifted, table(unlabelled, unlabelled.outcome))


def test_bad_input():
    rng = np.random.default_rng(2)
    people, f, unlabelled = _simulate(rng, np.array([0.5, 0.0, -0.5]), 50, 100, 0.8)
    names = ["a", "b", "c"]
    one = EncodedBattles(people.a[:1], people.b[:1], people.outcome[:1])
    with pytest.raises(InputError, match="at least 2 battles judged by people"):
        ppi_bradley_terry(one, f[:1], unlabelled, names)
    empty = EncodedBattles(people.a[:0], people.b[:0], people.outcome[:0])
    with pytest.raises(InputError, match="by the LLM alone"):
        ppi_bradley_terry(people, f, empty, names)
    with pytest.raises(InputError, match="lam must lie in"):
        ppi_bradley_terry(people, f, unlabelled, names, lam=2.0)
    never_loses = EncodedBattles(np.zeros(10, dtype=np.int64), np.ones(10, dtype=np.int64), np.ones(10))
    with pytest.raises(InputError, match="never lost|never won|not connected"):
        ppi_bradley_terry(never_loses, np.ones(10), never_loses, names[:2], lam=0.0)
