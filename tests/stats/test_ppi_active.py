"""Active prediction-powered inference: inclusion probabilities, the estimator written out, coverage by simulation
with labels drawn proportional to an uncertainty, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_pref_measures.errors import InputError
from ir_pref_measures.stats import active_ppi_mean, inclusion_probabilities


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0, 10), min_size=2, max_size=40),
    st.floats(0.05, 1.0),
    st.floats(0.01, 1.0),
)
def test_probabilities_sum_to_the_budget_within_zero_and_one(uncertainty, fraction, share):
    budget = fraction * len(uncertainty)
    p = inclusion_probabilities(uncertainty, budget, uniform_share=share)
    assert p.sum() == pytest.approx(budget, rel=1e-9)
    assert (p > 0).all() and (p <= 1).all()
    u = np.asarray(uncertainty)
    below = p < 1  # where not capped, larger uncertainty never gets a smaller probability
    order = np.argsort(u[below], kind="stable")
    assert (np.diff(p[below][order]) >= -1e-12).all()


def test_estimator_written_out():
    rng = np.random.default_rng(8)
    yhat = rng.normal(size=50)
    pi = inclusion_probabilities(np.abs(yhat), 20)
    labelled = rng.random(50) < pi
    y = yhat[labelled] + rng.normal(0.3, 0.5, labelled.sum())
    for lam in (1.0, 0.4):
        got = active_ppi_mean(y, yhat, labelled, pi, lam=lam)
        full = np.zeros(50)
        full[labelled] = y
        terms = lam * yhat + (full - lam * yhat) * labelled / pi
        assert got.estimate[0] == pytest.approx(terms.mean(), abs=1e-12)
        assert got.se[0] == pytest.approx(terms.std() / math.sqrt(50), abs=1e-12)
    tuned = active_ppi_mean(y, yhat, labelled, pi)
    assert tuned.se[0] <= active_ppi_mean(y, yhat, labelled, pi, lam=1.0).se[0] + 1e-12
    grid = [active_ppi_mean(y, yhat, labelled, pi, lam=lam).se[0] for lam in np.linspace(0, 1, 101)]
    assert tuned.se[0] <= min(grid) + 1e-12


def test_coverage_and_narrower_than_uniform_when_the_uncertainty_is_informative():
    """Labels N(yhat + bias, s_i) with s_i known to the rule: drawn proportional to s_i, the interval covers the
    mean at 95% (within 3 standard errors over 2000 replications) and is narrower than with uniform draws."""
    rng = np.random.default_rng(12)
    big_n, reps, budget = 400, 2000, 80
    yhat = rng.normal(size=(big_n, 1))
    spread = np.where(rng.random(big_n) < 0.2, 2.0, 0.1)
    widths, covered = {}, {}
    for name, u in (("uncertainty", spread), ("uniform", np.ones(big_n))):
        pi = inclusion_probabilities(u, budget, uniform_share=0.05)
        y_all = yhat + 0.3 + spread[:, None] * rng.normal(size=(big_n, reps))
        hits, width = 0, 0.0
        for r in range(reps):
            labelled = rng.random(big_n) < pi
            got = active_ppi_mean(y_all[labelled, r], yhat[:, 0], labelled, pi, lam=1.0)
            target = y_all[:, r].mean()  # the mean of this replication's labels
            hits += got.lower[0] <= target <= got.upper[0]
            width += (got.upper - got.lower)[0] / reps
        covered[name], widths[name] = hits / reps, width
    assert covered["uncertainty"] >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / reps), covered
    assert widths["uncertainty"] < 0.9 * widths["uniform"], widths


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: inclusion_probabilities([1.0, -1.0], 1), "finite non-negative"),
        (lambda: inclusion_probabilities([1.0, 2.0], 3), r"must lie in \(0, 2\]"),
        (lambda: inclusion_probabilities([0.0, 1.0], 1, uniform_share=0.0), "could never be labelled"),
        (lambda: active_ppi_mean([1.0], [1.0, 2.0], [True, False], [0.5, 0.5]), "at least 2 labelled"),
        (lambda: active_ppi_mean([1.0, 2.0], [1.0, 2.0], [True, True], [0.0, 0.5]), r"in \(0, 1\]"),
        (lambda: active_ppi_mean([1.0], [1.0, 2.0], [True, True], [0.5, 0.5]), "labels of shape"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(InputError, match=message):
        call()
