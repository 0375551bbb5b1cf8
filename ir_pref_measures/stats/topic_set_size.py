"""Topic set size design: how many topics a test collection needs, and what a given number of topics can detect.

From a variance estimate ``variance`` (sigma^2 of a measure's per-topic scores; T. Sakai's choice is the residual
mean square V_E of the two-way ANOVA of runs x topics, :func:`residual_variance`), at significance level
``alpha`` and power ``1 - beta`` (T. Sakai, *Topic set size design*, Information Retrieval Journal 19(3), 2016;
*Laboratory Experiments in Information Retrieval*, Springer 2018, ch. 6-7):

* **paired t-test** (:func:`t_test_topics`): the smallest n whose two-sided paired t-test detects a difference
  ``min_difference`` (minDt) between two systems with probability ``1 - beta``; the variance of the per-topic
  differences is ``sigma_t^2 = 2 sigma^2``. The power is exact: under the alternative the statistic follows the
  noncentral t distribution with ``n - 1`` degrees of freedom and noncentrality ``sqrt(n) minDt / sigma_t``, and
  both tails count.
* **one-way ANOVA over m systems** (:func:`anova_topics`): the smallest n whose F test detects a range
  ``min_range`` (minD: the best system minus the worst, the others at the middle: the least favourable
  configuration) with probability ``1 - beta``; noncentral F with ``m - 1`` and ``m (n - 1)`` degrees of freedom
  and noncentrality ``n minD^2 / (2 sigma^2)``.
* **confidence interval width** (:func:`ci_topics`): the smallest n whose ``100 (1 - alpha)%`` interval of the
  difference between two systems, ``2 t(alpha/2; n - 1) sqrt(V_t / n)``, has expected width at most ``width``;
  ``E[sqrt(V_t)] = sigma_t sqrt(2 / (n - 1)) Gamma(n / 2) / Gamma((n - 1) / 2)``.

The reverse (:func:`t_test_detectable`, :func:`anova_detectable`, :func:`expected_ci_width`) gives, for n topics, the
smallest difference (range) detected with power ``1 - beta``, or the expected interval width. Sakai's Excel tools
approximate the noncentral distributions; the exact powers here can ask for one topic fewer or more.
"""

from __future__ import annotations

import math

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.stats.anova import anova

ALPHA = 0.05
BETA = 0.20
MAX_TOPICS = 10_000_000


def residual_variance(x) -> float:
    """Sakai's variance estimate: the residual mean square V_E of the two-way ANOVA without replication of a
    ``(topics, systems)`` score matrix (:func:`~ir_pref_measures.stats.anova.anova`)."""
    return anova(x).residual_variance


def _check(alpha: float, beta: float | None = None, **positive: float) -> None:
    if not 0 < alpha < 1:
        raise InputError(f"alpha must lie strictly between 0 and 1, not {alpha!r}")
    if beta is not None and not 0 < beta < 1:
        raise InputError(f"beta must lie strictly between 0 and 1 (the power is 1 - beta), not {beta!r}")
    for name, value in positive.items():
        if not (np.isfinite(value) and value > 0):
            raise InputError(f"{name.replace('_', ' ')} must be a positive number, not {value!r}")


def _check_topics(n: int, least: int = 2) -> None:
    if not isinstance(n, int | np.integer) or n < least:
        raise InputError(f"the number of topics must be an integer of at least {least}, not {n!r}")


def t_test_power(n: int, min_difference: float, variance: float, alpha: float = ALPHA) -> float:
    """The power of the two-sided paired t-test on ``n`` topics against a true mean difference ``min_difference``,
    per-topic score variance ``variance`` (differences: twice it)."""
    from scipy import stats  # imported here: importing ir_pref_measures.stats costs no scipy.stats

    _check(alpha, min_difference=abs(min_difference) or np.nan, variance=variance)
    _check_topics(n)
    df = n - 1
    critical = stats.t.isf(alpha / 2, df)
    noncentrality = math.sqrt(n) * abs(min_difference) / math.sqrt(2 * variance)  # the power is even in it
    return min(1.0, _tail(critical, df, noncentrality) + _tail(critical, df, -noncentrality))


def _tail(critical: float, df: int, noncentrality: float) -> float:
    """``P(T > critical)`` for ``T`` noncentral t with ``df`` degrees of freedom and ``noncentrality``: scipy's
    ``nct.sf``, or where that is not a number (scipy 1.17's ``nctdtr`` returns NaN far in a tail, e.g. ``df = 1``,
    ``noncentrality = -8``) the integral ``E[Phi(noncentrality - critical sqrt(V / df))]`` over ``V ~ chi2(df)``,
    computed in logarithms (its value is then below ``Phi(noncentrality)``, far under the other tail's ulp)."""
    from scipy import stats

    value = float(stats.nct.sf(critical, df, noncentrality))
    if math.isfinite(value):
        return value
    return _tail_integral(critical, df, noncentrality)


def _tail_integral(critical: float, df: int, noncentrality: float) -> float:
    """``P(T > critical)`` of the noncentral t by quadrature over ``S = sqrt(V) ~ chi(df)`` (:func:`_tail`)."""
    from scipy import integrate, special, stats

    scale = critical / math.sqrt(df)

    def integrand(s: float) -> float:
        return math.exp(special.log_ndtr(noncentrality - scale * s) + stats.chi.logpdf(s, df))

    # the mass sits where the chi density does, or near 0 when the normal tail falls fast there
    points = sorted({math.sqrt(max(df - 1.0, 0.0)), 1.0 / (1.0 + abs(noncentrality) * scale), 2.0 * math.sqrt(df)})
    total = 0.0
    for low, high in zip([0.0, *points], [*points, math.inf], strict=True):
        total += integrate.quad(integrand, low, high, epsabs=0.0, epsrel=1e-11, limit=200)[0]
    return total


def anova_power(n: int, systems: int, min_range: float, variance: float, alpha: float = ALPHA) -> float:
    """The power of the one-way ANOVA F test over ``systems`` systems with ``n`` topics each when the best and the
    worst system differ by ``min_range`` and the others sit at the middle."""
    from scipy import stats

    _check(alpha, min_range=min_range, variance=variance)
    _check_topics(n)
    if not isinstance(systems, int | np.integer) or systems < 2:
        raise InputError(f"the number of systems must be an integer of at least 2, not {systems!r}")
    dfn, dfd = systems - 1, systems * (n - 1)
    critical = stats.f.isf(alpha, dfn, dfd)
    noncentrality = n * min_range**2 / (2 * variance)
    power = float(stats.ncf.sf(critical, dfn, dfd, noncentrality))
    smaller = noncentrality
    while not math.isfinite(power) and smaller > 1.0:  # scipy's NaN far in the tail (noncentrality 1e31)
        smaller /= 2
        if stats.ncf.sf(critical, dfn, dfd, smaller) == 1.0:
            return 1.0  # the power grows with the noncentrality and is 1 to double precision already at a smaller one
    return power


def expected_ci_width(n: int, variance: float, alpha: float = ALPHA) -> float:
    """The expected width of the ``100 (1 - alpha)%`` t interval of the mean difference between two systems on
    ``n`` topics (module docstring)."""
    from scipy import stats
    from scipy.special import gammaln

    _check(alpha, variance=variance)
    _check_topics(n)
    sd = math.sqrt(2 * variance) * math.sqrt(2 / (n - 1)) * math.exp(gammaln(n / 2) - gammaln((n - 1) / 2))
    return float(2 * stats.t.isf(alpha / 2, n - 1) * sd / math.sqrt(n))


def no_variance(variance: float, values) -> bool:
    """Whether ``variance`` (a residual variance of ``values``) is zero up to rounding: the systems' per-topic
    scores differ by the same amount on every topic (two identical runs), nothing to size a topic set with."""
    scale = float(np.mean(np.square(np.asarray(values, dtype=np.float64)))) if np.size(values) else 0.0
    return variance <= 1e-24 * max(scale, np.finfo(np.float64).tiny)


def _smallest(enough) -> int:
    """The smallest n >= 2 with ``enough(n)`` (monotone in n), by doubling then bisection."""
    high = 2
    while not enough(high):
        high *= 2
        if high > MAX_TOPICS:
            raise InputError(f"more than {MAX_TOPICS} topics would be needed: is the difference too small?")
    low = max(high // 2, 1)  # enough(low) is False unless low == 1 (then n = 2 is the answer)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    return high


def t_test_topics(min_difference: float, variance: float, alpha: float = ALPHA, beta: float = BETA) -> int:
    """The number of topics for the paired t-test (module docstring)."""
    _check(alpha, beta, min_difference=min_difference, variance=variance)
    return _smallest(lambda n: t_test_power(n, min_difference, variance, alpha) >= 1 - beta)


def anova_topics(systems: int, min_range: float, variance: float, alpha: float = ALPHA, beta: float = BETA) -> int:
    """The number of topics for the one-way ANOVA over ``systems`` systems (module docstring)."""
    _check(alpha, beta, min_range=min_range, variance=variance)
    return _smallest(lambda n: anova_power(n, systems, min_range, variance, alpha) >= 1 - beta)


def ci_topics(width: float, variance: float, alpha: float = ALPHA) -> int:
    """The number of topics whose interval of the difference is expected to be at most ``width`` wide."""
    _check(alpha, width=width, variance=variance)
    return _smallest(lambda n: expected_ci_width(n, variance, alpha) <= width)


def _detectable(power, variance: float, beta: float) -> float:
    """The smallest effect whose ``power(effect)`` reaches ``1 - beta``, by root finding on the monotone power."""
    from scipy import optimize

    high = math.sqrt(variance)
    while power(high) < 1 - beta:
        high *= 2
    return float(optimize.brentq(lambda d: power(d) - (1 - beta), 1e-12 * high, high, xtol=1e-14, rtol=1e-14))


def t_test_detectable(n: int, variance: float, alpha: float = ALPHA, beta: float = BETA) -> float:
    """The smallest mean difference the paired t-test on ``n`` topics detects with power ``1 - beta``."""
    _check(alpha, beta, variance=variance)
    _check_topics(n)
    return _detectable(lambda d: t_test_power(n, d, variance, alpha), variance, beta)


def anova_detectable(n: int, systems: int, variance: float, alpha: float = ALPHA, beta: float = BETA) -> float:
    """The smallest range (best minus worst system) the one-way ANOVA over ``systems`` systems with ``n`` topics
    detects with power ``1 - beta``."""
    _check(alpha, beta, variance=variance)
    _check_topics(n)
    return _detectable(lambda d: anova_power(n, systems, d, variance, alpha), variance, beta)
