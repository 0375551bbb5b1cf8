"""Cross-prediction PPI (parity with ppi_py, recorded), stratified PPI (coverage by simulation), the fixed-size
stratified draw (strata by a score, proportional allocation), the one-sided tuned interval where ppi-python returns
a two-sided one, and the effective sample size of a result."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ir_pref_measures.errors import InputError
from ir_pref_measures.stats import (
    classical_mean,
    crossppi_mean,
    ppi_mean,
    proportional_allocation,
    score_strata,
    stratified_ppi_mean,
)

REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "ppi_py" / "reference.json").read_text())


@pytest.mark.parametrize("case", REFERENCE["crossppi_mean_ci"], ids=lambda case: case["alternative"])
def test_crossppi_equals_recorded_ppi_py(case):
    got = crossppi_mean(
        np.array(case["y"]),
        np.array(case["yhat"]),
        np.array(case["yhat_unlabelled"]),
        confidence=1 - case["alpha"],
        alternative=case["alternative"],
    )
    assert got.estimate[0] == pytest.approx(case["estimate"], abs=1e-9)
    for name in ("lower", "upper"):
        expected = case[name]
        assert getattr(got, name)[0] == (expected if math.isinf(expected) else pytest.approx(expected, abs=1e-9))


def test_crossppi_with_one_model_is_plain_ppi():
    rng = np.random.default_rng(2)
    y, yhat, yhat_u = rng.normal(size=30), rng.normal(size=30), rng.normal(size=200)
    cross, plain = crossppi_mean(y, yhat, yhat_u[:, None]), ppi_mean(y, yhat, yhat_u, lam=1.0)
    np.testing.assert_allclose([cross.lower, cross.upper], [plain.lower, plain.upper], rtol=0, atol=1e-12)


@pytest.mark.parametrize("case", REFERENCE["one_sided_tuned"], ids=lambda case: case["alternative"])
def test_one_sided_tuned_interval_is_one_sided(case):
    """ppi-python returns the two-sided interval for a one-sided alternative with the tuned lam; ours is the
    one-sided interval it gives when handed that lam."""
    y, yhat, yhat_u = (np.array(case[k]) for k in ("y", "yhat", "yhat_unlabelled"))
    got = ppi_mean(y, yhat, yhat_u, confidence=0.9, alternative=case["alternative"])
    two_sided = ppi_mean(y, yhat, yhat_u, confidence=0.9)
    assert got.lam[0] == pytest.approx(case["lam"], abs=1e-12)
    np.testing.assert_allclose([got.lower[0], got.upper[0]], case["given_lam"], rtol=0, atol=1e-9)
    np.testing.assert_allclose([two_sided.lower[0], two_sided.upper[0]], case["returned"], rtol=0, atol=1e-9)


def test_effective_n_is_the_people_only_size_of_the_same_width():
    rng = np.random.default_rng(9)
    y = rng.normal(size=25)
    yhat, yhat_u = y + rng.normal(0, 0.3, 25), rng.normal(size=500)
    got = ppi_mean(y, yhat, yhat_u)
    assert got.effective_n[0] > 25
    # a people-only interval from effective_n labels of the same spread has the same width
    same = classical_mean(y).se[0] * math.sqrt(25 / got.effective_n[0])
    assert same == pytest.approx(got.se[0], rel=1e-12)
    assert classical_mean(y).effective_n[0] == 25
    assert ppi_mean(y, yhat, yhat_u, lam=0.0).effective_n[0] == pytest.approx(25, rel=1e-12)


def test_stratified_with_one_stratum_is_ppi():
    rng = np.random.default_rng(4)
    y, yhat, yhat_u = rng.normal(size=20), rng.normal(size=20), rng.normal(size=90)
    one, plain = stratified_ppi_mean(y, yhat, yhat_u, np.zeros(20), np.zeros(90)), ppi_mean(y, yhat, yhat_u)
    for name in ("estimate", "se", "lower", "upper", "lam"):
        np.testing.assert_allclose(getattr(one, name), getattr(plain, name), rtol=0, atol=1e-12)


def test_stratified_covers_when_strata_are_sampled_at_different_rates():
    """Three query groups with different means, LLM biases and people's sampling rates: the stratified interval
    covers the population mean at the nominal 95% (within 3 standard errors over 2000 replications), while plain
    PPI on the pooled units, which assumes one uniform sample, misses it far more often."""
    sizes = [(120, 180, 0.2, 0.5), (60, 540, 0.6, -0.4), (90, 210, 0.9, 0.1)]  # n_k, N_k, mean, LLM bias
    reps, rng = 2000, np.random.default_rng(17)
    ys, yhats, yhat_us, strata, strata_u = [], [], [], [], []
    for k, (n, big_n, mean, bias) in enumerate(sizes):
        truth = rng.normal(mean, 0.3, size=(n + big_n, reps))
        llm = 0.8 * truth + rng.normal(0, 0.15, size=truth.shape) + bias
        ys.append(truth[:n]), yhats.append(llm[:n]), yhat_us.append(llm[n:])
        strata += [k] * n
        strata_u += [k] * big_n
    y, yhat, yhat_u = np.vstack(ys), np.vstack(yhats), np.vstack(yhat_us)
    total = sum(n + big_n for n, big_n, _, _ in sizes)
    target = sum((n + big_n) / total * mean for n, big_n, mean, _ in sizes)
    got = stratified_ppi_mean(y, yhat, yhat_u, strata, strata_u)
    coverage = np.mean((got.lower <= target) & (target <= got.upper))
    assert coverage >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / reps), coverage
    pooled = ppi_mean(y, yhat, yhat_u)
    assert np.mean((pooled.lower <= target) & (target <= pooled.upper)) < 0.5


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: crossppi_mean([1.0, 2.0], [1.0, 2.0], [1.0, 2.0]), "one column per fold's model"),
        (lambda: crossppi_mean([1.0], [1.0], [[1.0]]), "at least 2 labelled units"),
        (lambda: stratified_ppi_mean([1, 2, 3], [1, 2, 3], [1, 2], [0, 0, 1], [0, 1]), "stratum '1' has 1 labelled"),
        (lambda: stratified_ppi_mean([1, 2], [1, 2], [1], [0], [0]), "one stratum per unit"),
        (lambda: score_strata([1.0, 2.0], 3), "between 1 and the 2 units"),
        (lambda: score_strata([1.0, float("nan")], 1), "finite number"),
        (lambda: proportional_allocation([5, 5], 10), "between 1 and 9"),
        (lambda: proportional_allocation([3, 40], 10), "give 1, 9"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(InputError, match=message):
        call()


@given(st.lists(st.integers(0, 30), min_size=1, max_size=40), st.integers(1, 40))
def test_score_strata_are_ordered_consecutive_groups_of_near_equal_size(scores, strata):
    strata = min(strata, len(scores))
    labels = score_strata(scores, strata)
    sizes = np.bincount(labels, minlength=strata)
    assert len(sizes) == strata and sizes.max() - sizes.min() <= 1
    for k in range(strata - 1):  # every unit of a stratum scores at most what every unit of the next one scores
        assert max(np.asarray(scores)[labels == k]) <= min(np.asarray(scores)[labels == k + 1])


@given(st.lists(st.integers(3, 30), min_size=1, max_size=6), st.floats(0.0, 1.0))
def test_proportional_allocation_sums_to_the_labels_within_one_of_the_share(sizes, fraction):
    total = sum(sizes)
    labels = 2 * len(sizes) + round(fraction * (total - 3 * len(sizes)))
    try:
        counts = proportional_allocation(sizes, labels)
    except InputError as error:  # a stratum whose share rounds below 2 labels, or to all its units
        assert "labelled units and one unlabelled unit in every stratum" in str(error)
        return
    assert counts.sum() == labels and (counts >= 2).all() and (counts < np.array(sizes)).all()
    assert (np.abs(counts - labels * np.array(sizes) / total) < 1).all()


def test_proportional_allocation_worked_example():
    """46 queries in strata of 23 and 23, 20 labels: 10 each; strata of 10, 20, 16 and 20 labels: shares 4.35,
    8.70, 6.96, rounded down to 4, 8, 6 and the two left to the largest remainders (6.96, 8.70): 4, 9, 7."""
    assert proportional_allocation([23, 23], 20).tolist() == [10, 10]
    assert proportional_allocation([10, 20, 16], 20).tolist() == [4, 9, 7]
