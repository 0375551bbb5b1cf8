"""Scale invariance: ANOVA, Tukey HSD, randomised Tukey HSD, Bradley-Terry and tie-aware RBO give the same results
when the scores (or the battles' weights) are multiplied by any power of ten from 1e-300 to 1e300; each of these
statistics is invariant under that scaling by its definition."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_pref_measures.leaderboards import leaderboard
from ir_pref_measures.measures.tied_rbo import rbo_of_scores
from ir_pref_measures.stats import anova, randomised_tukey, tukey_hsd

EXPONENTS = st.integers(-300, 300)
SEEDS = st.integers(0, 2**32 - 1)


def matrix(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n, m = rng.integers(2, 9), rng.integers(2, 6)
    return rng.normal(size=(n, m)) + rng.normal(size=m)


@settings(max_examples=40, deadline=None)
@given(SEEDS, EXPONENTS)
def test_anova_and_tukey_do_not_depend_on_the_scale(seed, exponent):
    x, scale = matrix(seed), 10.0**exponent
    base, scaled = anova(x), anova(x * scale)
    np.testing.assert_allclose(scaled.f, base.f, rtol=1e-9)
    np.testing.assert_allclose(scaled.p, base.p, rtol=1e-8, atol=1e-300)
    for test in (tukey_hsd, lambda v: randomised_tukey(v, 200, np.random.default_rng(seed))):
        one, other = test(x), test(x * scale)
        np.testing.assert_allclose(other.p, one.p, rtol=1e-8, atol=1e-300)
        np.testing.assert_allclose(other.effect, one.effect, rtol=1e-9)
        np.testing.assert_allclose(other.diff / scale, one.diff, rtol=1e-9, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(SEEDS, EXPONENTS)
def test_bradley_terry_does_not_depend_on_the_scale_of_the_weights(seed, exponent):
    rng = np.random.default_rng(seed)
    systems = ["s1", "s2", "s3", "s4"]
    rows = [
        (f"q{k}", systems[i], systems[j], rng.choice(["a", "b", "tie"]), rng.uniform(0.5, 2.0))
        for k in range(4)
        for i in range(4)
        for j in range(i + 1, 4)
    ]
    rows += [("q9", systems[i], systems[(i + 1) % 4], "a", 1.0) for i in range(4)]  # a cycle: ratings exist
    battles = pd.DataFrame(rows, columns=["query_id", "system_a", "system_b", "winner", "weight"])
    base = leaderboard(battles, rounds=0)
    scaled = leaderboard(battles.assign(weight=battles["weight"] * 10.0**exponent), rounds=0)
    pd.testing.assert_series_equal(
        scaled.set_index("system")["rating"], base.set_index("system")["rating"], rtol=0, atol=1e-6
    )


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 5), min_size=1, max_size=12),
    st.lists(st.integers(0, 5), min_size=1, max_size=12),
    EXPONENTS,
)
def test_rbo_of_scores_does_not_depend_on_the_scale(x_scores, y_scores, exponent):
    x_items = [f"d{i}" for i in range(len(x_scores))]
    y_items = [f"d{i + 3}" for i in range(len(y_scores))]
    scale = 10.0**exponent
    for ties in ("w", "a", "b"):
        base = rbo_of_scores(x_items, [s + 1.0 for s in x_scores], y_items, [s + 1.0 for s in y_scores], 0.8, ties)
        scaled = rbo_of_scores(
            x_items, [(s + 1.0) * scale for s in x_scores], y_items, [(s + 1.0) * scale for s in y_scores], 0.8, ties
        )
        assert scaled == base
