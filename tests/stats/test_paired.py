"""ir_pref_measures.stats.paired against scipy.stats and statsmodels on random data."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats
from statsmodels.stats.multitest import multipletests

from ir_pref_measures.errors import InputError
from ir_pref_measures.stats import paired as stats

seeds = st.integers(0, 2**32 - 1)


def _data(seed: int, rows: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    data = rng.normal(rng.normal(), 1, size=(rows, n))
    data[rng.random(data.shape) < 0.2] = 0.0  # ties at zero, as per-query differences have
    return data


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(3, 40))
def test_t_test_is_scipys(seed, n):
    d = _data(seed, 3, n)
    expected = [scipy_stats.ttest_rel(row, np.zeros(n)).pvalue for row in d]
    np.testing.assert_allclose(stats.t_test(d), expected, rtol=1e-10, equal_nan=True)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n=st.integers(5, 40))
def test_wilcoxon_test_is_scipys(seed, n):
    d = _data(seed, 2, n)
    expected = [scipy_stats.wilcoxon(row).pvalue if row.any() else np.nan for row in d]
    np.testing.assert_allclose(stats.wilcoxon_test(d), expected, rtol=1e-12, equal_nan=True)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n=st.integers(2, 11))
def test_exact_randomisation_test_is_scipys_permutation_test(seed, n):
    d = _data(seed, 3, n)
    expected = scipy_stats.permutation_test(
        (d,), lambda x, axis: x.sum(axis=axis), permutation_type="samples", n_resamples=np.inf, axis=-1, vectorized=True
    ).pvalue
    np.testing.assert_allclose(stats.randomisation_test(d, samples=2**n), expected, rtol=1e-12)


def test_sampled_randomisation_test_is_seeded_and_close_to_exact():
    d = _data(4, 4, 14)
    exact = stats.randomisation_test(d, samples=2**14)
    sampled = stats.randomisation_test(d, 5000, np.random.default_rng(3))
    np.testing.assert_array_equal(sampled, stats.randomisation_test(d, 5000, np.random.default_rng(3)))
    assert not np.array_equal(sampled, stats.randomisation_test(d, 5000, np.random.default_rng(4)))
    np.testing.assert_allclose(sampled, exact, atol=0.03)
    assert stats.SAMPLES == 10_000


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n=st.integers(2, 30), confidence=st.sampled_from([0.9, 0.95, 0.99]))
def test_bootstrap_ci_is_scipys_percentile_bootstrap(seed, n, confidence):
    x = _data(seed, 3, n)
    expected = scipy_stats.bootstrap(
        (x,),
        np.mean,
        axis=-1,
        vectorized=True,
        n_resamples=999,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    ).confidence_interval
    low, high = stats.bootstrap_ci(x, confidence, 999, np.random.default_rng(seed))
    np.testing.assert_allclose(low, expected.low, rtol=1e-12)
    np.testing.assert_allclose(high, expected.high, rtol=1e-12)


def test_bootstrap_ci_holds_the_mean_and_narrows_with_the_level():
    x = _data(8, 5, 30)
    low, high = stats.bootstrap_ci(x, 0.95, 4000)
    assert (low <= x.mean(axis=1)).all() and (x.mean(axis=1) <= high).all()
    low90, high90 = stats.bootstrap_ci(x, 0.90, 4000)
    assert (low90 >= low).all() and (high90 <= high).all()


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(2, 30), scale=st.floats(0.01, 100))
def test_effect_size_is_the_standardised_mean_difference(seed, n, scale):
    d = _data(seed, 3, n)
    expected = [row.mean() / row.std(ddof=1) if row.std(ddof=1) > 0 else np.nan for row in d]
    np.testing.assert_allclose(stats.effect_size(d), expected, rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(stats.effect_size(scale * d), stats.effect_size(d), rtol=1e-9, equal_nan=True)
    np.testing.assert_allclose(stats.effect_size(-d), -stats.effect_size(d), rtol=1e-12, equal_nan=True)


def test_bootstrap_test_matches_the_studentised_definition_on_its_draws():
    d = _data(5, 2, 12)
    rng = np.random.default_rng(9)
    draws = np.random.default_rng(9).integers(0, 12, size=(500, 12))
    z = d - d.mean(axis=1, keepdims=True)
    observed = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(12))
    for row in range(2):
        resampled = z[row][draws]
        t = resampled.mean(axis=1) / (resampled.std(axis=1, ddof=1) / np.sqrt(12))
        expected = (1 + (np.abs(t) >= np.abs(observed[row]) * (1 - 100 * np.finfo(float).eps)).sum()) / 501
        assert stats.bootstrap_test(d, 500, rng)[row] == pytest.approx(expected)
        rng = np.random.default_rng(9)


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_correct_is_statsmodels_on_the_finite_p_values(method):
    p = np.array([0.01, np.nan, 0.04, 0.2, 0.03])
    reject, corrected = stats.correct(p, method)
    want_reject, want_corrected = multipletests(p[[0, 2, 3, 4]], alpha=0.05, method=method)[:2]
    np.testing.assert_array_equal(reject[[0, 2, 3, 4]], want_reject)
    np.testing.assert_allclose(corrected[[0, 2, 3, 4]], want_corrected)
    assert not reject[1] and np.isnan(corrected[1])


def test_bad_settings_are_input_errors():
    with pytest.raises(InputError, match="unknown correction 'nope'"):
        stats.check_correction("nope")
    for samples in (0, "x", None, float("nan"), 2.5):
        with pytest.raises(InputError, match="positive integer"):
            stats.randomisation_test(np.ones((1, 3)), samples=samples)
    with pytest.raises(InputError, match="confidence level"):
        stats.bootstrap_ci(np.ones((1, 3)), confidence=1.5)


def test_sign_test_is_the_binomial_test_of_wins():
    assert stats.sign_test([1, 2, 3, 0], [0, 0, 0, 0]) == (3.0, pytest.approx(scipy_stats.binomtest(3, 3).pvalue))
    assert np.isnan(stats.sign_test([1, 2], [1, 2])[1])
