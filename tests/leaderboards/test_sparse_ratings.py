"""The sparse Bradley-Terry fit: the dense fit's maximum, from any start."""

import numpy as np
import pytest

from ir_pref_measures.leaderboards import bradley_terry
from ir_pref_measures.leaderboards.ratings import points_matrix
from ir_pref_measures.leaderboards.sparse_ratings import bradley_terry_battles


def battles(rng: np.random.Generator, n: int, m: int):
    first = rng.integers(0, n, m)
    second = (first + rng.integers(1, n, m)) % n
    outcome = rng.choice([0.0, 0.5, 1.0], m)
    return first, second, np.stack([outcome, 1 - outcome], axis=1)


@pytest.mark.parametrize("seed", range(8))
def test_sparse_fit_equals_the_dense_fit_on_random_battles(seed):
    rng = np.random.default_rng(seed)
    n, m, prior = int(rng.integers(2, 60)), int(rng.integers(1, 300)), float(rng.choice([0.1, 1.0, 3.0]))
    first, second, points = battles(rng, n, m)
    dense = bradley_terry(points_matrix(first, second, points[:, 0], np.ones(m), n), prior=prior)
    np.testing.assert_allclose(bradley_terry_battles(first, second, points, n, prior), dense, rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_a_warm_start_reaches_the_same_maximum(seed):
    rng = np.random.default_rng(100 + seed)
    n = 40
    first, second, points = battles(rng, n, 200)
    cold = bradley_terry_battles(first, second, points, n, 1.0)
    for start in (rng.normal(scale=3, size=n), bradley_terry_battles(first[:150], second[:150], points[:150], n, 1.0)):
        warm = bradley_terry_battles(first, second, points, n, 1.0, start=start)
        assert np.linalg.norm(warm - cold) <= 2e-10


def test_no_battles_and_unplayed_docs_rate_zero():
    assert not bradley_terry_battles(np.array([], int), np.array([], int), np.zeros((0, 2)), 3, 1.0).any()
    beta = bradley_terry_battles(np.array([0]), np.array([1]), np.array([[1.0, 0.0]]), 4, 1.0)
    assert beta[0] > 0 > beta[1] and beta[0] == pytest.approx(-beta[1]) and not beta[2:].any()


def test_the_sparse_fit_needs_a_prior():
    with pytest.raises(ValueError, match="positive prior"):
        bradley_terry_battles(np.array([0]), np.array([1]), np.array([[1.0, 0.0]]), 2, 0.0)
