"""Topic set size design: Sakai's published sizes, independent power implementations, Monte Carlo power of the
sized designs, the reverse computations and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ir_pref_measures.errors import InputError
from ir_pref_measures.stats import topic_set_size as tss

# T. Sakai, Topic set size design with variance estimates from two-way ANOVA, EVIA 2014, Table (adhoc/news, measure
# depth 1000): topics for a one-way ANOVA over m = 10 systems, alpha = 0.05, beta = 0.20, at minD = 0.10, 0.20, 0.25.
# The variances behind them are not printed; each row must be reproduced by one variance.
SAKAI_ANOVA_ROWS = {"Q": (168, 43, 28), "nDCG": (176, 45, 29), "nERR": (377, 95, 61), "AP": (166, 42, 27)}


def _variances_giving(n: int, systems: int, min_range: float) -> tuple[float, float]:
    """The range of variances whose ANOVA design needs exactly ``n`` topics (bisection on the monotone size)."""
    ends = []
    for strict in (False, True):
        low, high = 1e-5, 1.0
        for _ in range(60):
            middle = (low + high) / 2
            size = tss.anova_topics(systems, min_range, middle)
            low, high = (low, middle) if (size > n if strict else size >= n) else (middle, high)
        ends.append(high if not strict else low)
    return ends[0], ends[1]


@pytest.mark.parametrize("measure", ["Q", "nDCG", "nERR"])
def test_sakai_anova_rows(measure):
    first, *others = SAKAI_ANOVA_ROWS[measure]
    low, high = _variances_giving(first, 10, 0.10)
    assert low < high
    sizes = {(tss.anova_topics(10, 0.20, v), tss.anova_topics(10, 0.25, v)) for v in np.linspace(low, high, 7)}
    assert tuple(others) in sizes


def test_sakai_anova_row_of_ap_within_one_topic():
    """For AP the exact noncentral F asks 28 topics at minD = 0.25 where Sakai's approximation printed 27."""
    first, *others = SAKAI_ANOVA_ROWS["AP"]
    low, high = _variances_giving(first, 10, 0.10)
    sizes = {(tss.anova_topics(10, 0.20, v), tss.anova_topics(10, 0.25, v)) for v in np.linspace(low, high, 7)}
    assert (others[0], others[1] + 1) in sizes and tuple(others) not in sizes


def test_powers_equal_statsmodels():
    """statsmodels' power calculators (exact noncentral t and F) on the same designs."""
    from statsmodels.stats.power import FTestAnovaPower, TTestPower

    for n, d, variance in [(10, 0.1, 0.02), (50, 0.05, 0.03), (120, 0.02, 0.01)]:
        effect = d / np.sqrt(2 * variance)
        expected = TTestPower().power(effect_size=effect, nobs=n, alpha=0.05, alternative="two-sided")
        assert tss.t_test_power(n, d, variance) == pytest.approx(expected, abs=1e-10)
    for n, m, d, variance in [(20, 3, 0.1, 0.02), (50, 10, 0.1, 0.05), (8, 5, 0.3, 0.04)]:
        f = np.sqrt(d**2 / (2 * variance * m))
        expected = FTestAnovaPower().power(effect_size=f, nobs=n * m, alpha=0.05, k_groups=m)
        assert tss.anova_power(n, m, d, variance) == pytest.approx(expected, abs=1e-10)


def test_sizes_are_the_smallest_with_enough_power():
    for d, variance, alpha, beta in [(0.05, 0.02, 0.05, 0.2), (0.1, 0.05, 0.01, 0.1), (0.02, 0.01, 0.05, 0.2)]:
        n = tss.t_test_topics(d, variance, alpha, beta)
        assert tss.t_test_power(n, d, variance, alpha) >= 1 - beta > tss.t_test_power(n - 1, d, variance, alpha)
        n = tss.anova_topics(5, d, variance, alpha, beta)
        assert tss.anova_power(n, 5, d, variance, alpha) >= 1 - beta > tss.anova_power(n - 1, 5, d, variance, alpha)
        n = tss.ci_topics(d, variance, alpha)
        assert tss.expected_ci_width(n, variance, alpha) <= d < tss.expected_ci_width(n - 1, variance, alpha)


def test_reverse_gives_back_the_power():
    for n, variance in [(50, 0.02), (25, 0.05), (200, 0.01)]:
        d = tss.t_test_detectable(n, variance)
        assert tss.t_test_power(n, d, variance) == pytest.approx(0.8, abs=1e-9)
        assert tss.t_test_topics(d * 1.0001, variance) <= n
        d = tss.anova_detectable(n, 10, variance)
        assert tss.anova_power(n, 10, d, variance) == pytest.approx(0.8, abs=1e-9)


def test_the_sized_t_test_design_reaches_its_power_in_simulation():
    """Seeded Monte Carlo: n topics of two systems whose per-topic scores have variance sigma^2 (independent
    errors: differences with variance 2 sigma^2) and true difference minDt; the paired t-test rejects at the stated
    power within Monte Carlo error."""
    rng = np.random.default_rng(7)
    d, variance = 0.05, 0.03
    n = tss.t_test_topics(d, variance)
    power = tss.t_test_power(n, d, variance)
    repetitions = 4000
    scores = rng.normal(0.0, np.sqrt(variance), (repetitions, n, 2)) + [d, 0.0] + rng.normal(0, 0.2, (1, n, 1))
    rejected = stats.ttest_rel(scores[..., 0], scores[..., 1], axis=1).pvalue < 0.05
    assert power >= 0.8
    assert abs(rejected.mean() - power) < 3 * np.sqrt(power * (1 - power) / repetitions)


def test_the_sized_anova_design_reaches_its_power_in_simulation():
    rng = np.random.default_rng(8)
    m, d, variance = 5, 0.1, 0.02
    n = tss.anova_topics(m, d, variance)
    power = tss.anova_power(n, m, d, variance)
    repetitions = 3000
    means = np.r_[d / 2, -d / 2, np.zeros(m - 2)]
    scores = rng.normal(0.0, np.sqrt(variance), (repetitions, n, m)) + means
    rejected = stats.f_oneway(*np.moveaxis(scores, 2, 0), axis=1).pvalue < 0.05
    assert abs(rejected.mean() - power) < 3 * np.sqrt(power * (1 - power) / repetitions)


def test_the_sized_ci_design_has_the_expected_width_in_simulation():
    rng = np.random.default_rng(9)
    width, variance = 0.05, 0.02
    n = tss.ci_topics(width, variance)
    differences = rng.normal(0.0, np.sqrt(2 * variance), (20000, n))
    widths = 2 * stats.t.isf(0.025, n - 1) * differences.std(axis=1, ddof=1) / np.sqrt(n)
    assert widths.mean() <= width
    assert widths.mean() == pytest.approx(tss.expected_ci_width(n, variance), rel=3 * widths.std() / 141 / width)


def test_residual_variance_of_sakai_table_5_1(testdata):
    import pandas as pd

    table = pd.read_csv(testdata("stats", "sakai_table_5_1.csv"))
    matrix = table.pivot(index="topic", columns="system", values="score").to_numpy()
    assert tss.residual_variance(matrix) == pytest.approx(0.021886, abs=5e-7)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: tss.t_test_topics(0.0, 0.02), "min difference must be a positive"),
        (lambda: tss.t_test_topics(0.05, -1.0), "variance must be a positive"),
        (lambda: tss.t_test_topics(0.05, 0.02, alpha=1.5), "alpha must lie"),
        (lambda: tss.anova_topics(5, 0.05, 0.02, beta=0.0), "beta must lie"),
        (lambda: tss.anova_topics(1, 0.05, 0.02), "number of systems"),
        (lambda: tss.t_test_detectable(1, 0.02), "number of topics"),
        (lambda: tss.ci_topics(1e-9, 0.02), "more than"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(InputError, match=message):
        call()


def _t_power_by_quadrature(n: int, d: float, variance: float, alpha: float) -> float:
    """The paired t-test's power by another route: the noncentral t as a normal over a chi-square, integrated."""
    from scipy import integrate, stats

    df, nc = n - 1, d / np.sqrt(2 * variance) * np.sqrt(n)
    c = stats.t.ppf(1 - alpha / 2, df)

    def density(v):
        s = c * np.sqrt(v / df)
        return stats.chi2.pdf(v, df) * (stats.norm.sf(s - nc) + stats.norm.cdf(-s - nc))

    return integrate.quad(density, 0, np.inf, epsabs=1e-13, epsrel=1e-12, limit=200)[0]


def test_small_designs_are_finite_and_equal_statsmodels():
    """n = 2..10 topics, alpha {.05, .01} x beta {.2, .1} x variance {.01, .02, .05}: every detectable difference
    and range is finite; the t-test's power there is 1 - beta by statsmodels' TTestPower wherever its noncentral t
    is finite, and by quadrature everywhere; the ANOVA's by statsmodels' FTestAnovaPower."""
    from statsmodels.stats.power import FTestAnovaPower, TTestPower

    compared = 0
    for n in range(2, 11):
        for alpha in (0.05, 0.01):
            for beta in (0.2, 0.1):
                for variance in (0.01, 0.02, 0.05):
                    d = tss.t_test_detectable(n, variance, alpha, beta)
                    assert np.isfinite(d) and d > 0
                    assert _t_power_by_quadrature(n, d, variance, alpha) == pytest.approx(1 - beta, abs=1e-9)
                    with np.errstate(all="ignore"):
                        theirs = TTestPower().power(effect_size=d / np.sqrt(2 * variance), nobs=n, alpha=alpha)
                    if np.isfinite(theirs):
                        compared += 1
                        assert theirs == pytest.approx(1 - beta, abs=1e-12)
                    r = tss.anova_detectable(n, 5, variance, alpha, beta)
                    f = np.sqrt(r**2 / (2 * variance * 5))
                    theirs = FTestAnovaPower().power(effect_size=f, nobs=n * 5, alpha=alpha, k_groups=5)
                    assert np.isfinite(r) and theirs == pytest.approx(1 - beta, abs=1e-9)
    assert compared >= 100  # statsmodels' noncentral t is NaN at a few of the 108 designs
