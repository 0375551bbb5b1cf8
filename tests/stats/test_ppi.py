"""Prediction-powered mean and PPI++: parity with ppi-python (recorded, and live when installed), properties,
coverage under a biased predictor, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ir_pref_measures.errors import InputError
from ir_pref_measures.stats.ppi import classical_mean, ppi_mean, tuned_lambda

REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "ppi" / "reference.json").read_text())
CASES = [(case, result) for case in REFERENCE["mean"] for result in case["results"]]


def _arrays(case):
    w = None if case["w"] is None else np.array(case["w"])
    wu = None if case["w_unlabelled"] is None else np.array(case["w_unlabelled"])
    return np.array(case["y"]), np.array(case["yhat"]), np.array(case["yhat_unlabelled"]), w, wu


@pytest.mark.parametrize("case, result", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_equals_recorded_ppi_python(case, result):
    y, yhat, yhat_u, w, wu = _arrays(case)
    got = ppi_mean(
        y,
        yhat,
        yhat_u,
        lam=result["lam"],
        confidence=result["confidence"],
        alternative=result["alternative"],
        w=w,
        w_unlabelled=wu,
    )
    for name in ("estimate", "lower", "upper"):  # ppi-python gives one infinite end for all columns
        expected = np.broadcast_to(result[name], got.estimate.shape)
        np.testing.assert_allclose(getattr(got, name), expected, rtol=0, atol=1e-9)


def test_equals_live_ppi_python():
    ppi_py = pytest.importorskip("ppi_py", reason="ppi-python is not installed: the recorded outputs still test parity")
    rng = np.random.default_rng(7)
    for _ in range(5):
        n, big_n = rng.integers(5, 80), rng.integers(20, 500)
        y = rng.normal(size=n)
        yhat = 0.6 * y + rng.normal(size=n) * rng.uniform(0.1, 2)
        yhat_u = rng.normal(size=big_n) + rng.normal()
        for lam in (None, 1.0, 0.25):
            got = ppi_mean(y, yhat, yhat_u, lam=lam, confidence=0.9)
            lower, upper = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.1, lam=lam)
            np.testing.assert_allclose([got.lower[0], got.upper[0]], [lower[0], upper[0]], rtol=0, atol=1e-9)
        np.testing.assert_allclose(
            classical_mean(y, confidence=0.9).lower, ppi_py.classical_mean_ci(y, alpha=0.1)[0], rtol=0, atol=1e-12
        )


def test_direct_definition_on_random_inputs():
    """The estimate, its standard error and the tuned lambda from the formulas written out on one column."""
    rng = np.random.default_rng(11)
    for _ in range(20):
        n, big_n = rng.integers(3, 50), rng.integers(3, 200)
        y, yhat, yhat_u = rng.normal(size=n), rng.normal(size=n), rng.normal(size=big_n)
        lam = rng.uniform(0, 1.5)
        got = ppi_mean(y, yhat, yhat_u, lam=lam)
        estimate = lam * yhat_u.mean() + (y - lam * yhat).mean()
        se = np.sqrt(np.var(lam * yhat_u) / big_n + np.var(y - lam * yhat) / n)
        assert got.estimate[0] == pytest.approx(estimate, abs=1e-12)
        assert got.se[0] == pytest.approx(se, abs=1e-12)
        c = np.mean((y - y.mean()) * (yhat - yhat.mean()))
        v = np.var(np.r_[yhat, yhat_u], ddof=1)
        assert tuned_lambda(y[:, None], yhat[:, None], yhat_u[:, None])[0] == pytest.approx(
            np.clip(c / ((1 + n / big_n) * v), 0, 1), abs=1e-12
        )


def test_lam_zero_is_the_classical_interval_and_columns_are_independent():
    rng = np.random.default_rng(3)
    y, yhat, yhat_u = rng.normal(size=(30, 3)), rng.normal(size=(30, 3)), rng.normal(size=(90, 3))
    classical = classical_mean(y)
    zero = ppi_mean(y, yhat, yhat_u, lam=0.0)
    np.testing.assert_allclose(zero.lower, classical.lower, atol=1e-15)
    together = ppi_mean(y, yhat, yhat_u)
    for k in range(3):
        alone = ppi_mean(y[:, k], yhat[:, k], yhat_u[:, k])
        assert alone.lower[0] == pytest.approx(together.lower[k], abs=1e-14)
        assert alone.lam[0] == pytest.approx(together.lam[k], abs=1e-14)


def test_input_order_does_not_matter():
    rng = np.random.default_rng(5)
    y, yhat, yhat_u = rng.normal(size=40), rng.normal(size=40), rng.normal(size=100)
    one = ppi_mean(y, yhat, yhat_u)
    order, order_u = rng.permutation(40), rng.permutation(100)
    two = ppi_mean(y[order], yhat[order], yhat_u[order_u])
    np.testing.assert_allclose([one.lower, one.upper], [two.lower, two.upper], rtol=0, atol=1e-12)


def test_coverage_with_a_biased_predictor_and_narrower_than_people_alone():
    """A predictor biased by +0.5 (and noisy): the PPI++ interval covers the true mean at about the nominal rate,
    the naive interval from the predictions alone does not, and PPI++ is narrower on average than people alone."""
    rng = np.random.default_rng(2024)
    repetitions, n, big_n, mean = 2000, 60, 600, 0.3
    covered, naive, width, classical_width = 0, 0, 0.0, 0.0
    for _ in range(repetitions):
        truth = rng.normal(mean, 1.0, n + big_n)
        prediction = truth + 0.5 + rng.normal(0, 0.5, n + big_n)
        got = ppi_mean(truth[:n], prediction[:n], prediction[n:], confidence=0.9)
        covered += got.lower[0] <= mean <= got.upper[0]
        width += (got.upper - got.lower)[0]
        classical = classical_mean(truth[:n], confidence=0.9)
        classical_width += (classical.upper - classical.lower)[0]
        naive_interval = classical_mean(prediction[n:], confidence=0.9)
        naive += naive_interval.lower[0] <= mean <= naive_interval.upper[0]
    monte_carlo = 3 * np.sqrt(0.9 * 0.1 / repetitions)
    assert abs(covered / repetitions - 0.9) < monte_carlo
    assert naive / repetitions < 0.05
    assert width < 0.8 * classical_width


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        (([1.0], [1.0], [1.0, 2.0]), {}, "at least 2 labelled"),
        (([1.0, 2.0], [1.0, 2.0], []), {}, "unlabelled units"),
        (([1.0, 2.0], [1.0], [1.0]), {}, "same shape"),
        (([1.0, np.nan], [1.0, 2.0], [1.0]), {}, "no finite value"),
        (([1.0, 2.0], [1.0, 2.0], [1.0]), {"alternative": "both"}, "unknown alternative"),
        (([1.0, 2.0], [1.0, 2.0], [1.0]), {"confidence": 1.0}, "confidence level"),
        (([1.0, 2.0], [1.0, 2.0], [1.0]), {"w": [1.0, -1.0]}, "non-negative weights"),
    ],
)
def test_bad_input(args, kwargs, message):
    with pytest.raises(InputError, match=message):
        ppi_mean(*args, **kwargs)
