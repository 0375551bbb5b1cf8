"""Paired significance tests, bootstrap confidence intervals, effect sizes and multiple-testing corrections.

Every function works on many comparisons at once: ``d`` is a ``(comparisons, queries)`` array of per-query
differences (run minus baseline), or ``x`` a ``(rows, queries)`` array of per-query values. The resampling
functions draw from the ``numpy.random.Generator`` they are given (``numpy.random.default_rng(seed)``), the same
draws for every row, so results depend only on the seed. Defaults: :data:`SAMPLES` resamples, :data:`CONFIDENCE`.

* :func:`t_test`: Student's paired t-test (as ``scipy.stats.ttest_rel``). Student, Biometrika 6(1), 1908.
* :func:`wilcoxon_test`: Wilcoxon's signed-rank test (``scipy.stats.wilcoxon``). F. Wilcoxon, Biometrics
  Bulletin 1(6), 1945.
* :func:`sign_test`: the exact sign test (``scipy.stats.binomtest``). W. J. Dixon, A. M. Mood, JASA 1946.
* :func:`randomisation_test`: the paired randomisation (permutation) test of the mean difference, exact when all
  2^n sign vectors fit in ``samples`` (as ``scipy.stats.permutation_test(..., permutation_type="samples")``).
  M. D. Smucker, J. Allan, B. Carterette, CIKM 2007; J. Urbano, H. Lima, A. Hanjalic, SIGIR 2019.
* :func:`bootstrap_test`: the paired studentised bootstrap test. T. Sakai, SIGIR 2006.
* :func:`bootstrap_ci`: the percentile bootstrap confidence interval of the mean (as ``scipy.stats.bootstrap(...,
  method="percentile")``). B. Efron, R. Tibshirani, *An Introduction to the Bootstrap*, 1993, ch. 13.
* :func:`bootstrap_sums`: the per-query sums of each bootstrap resample, for statistics of summed tables.
* :func:`effect_size`: the standardised mean difference of paired values, mean(d) / sd(d) (Cohen's d_z).
  T. Sakai, *Statistical Reform in Information Retrieval?*, SIGIR Forum 48(1), 2014.
* :func:`correct`: statsmodels' ``multipletests`` (Holm, Bonferroni, Benjamini-Hochberg, ...; definitions and
  citations in docs/experiments.md).

:func:`p_values` runs any of the tests by name (:data:`TESTS`) on rows of differences; a row that is all zero (a
run identical to its baseline on every query) has no test: its p-value is NaN, whatever the test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ir_pref_measures.choices import PAIRED_TESTS, SAMPLES
from ir_pref_measures.errors import InputError

TESTS = PAIRED_TESTS
CONFIDENCE = 0.95  # default confidence level of the intervals
BLOCK = 1 << 22  # entries of one (rows x resamples) block of a resampling computation: bounds memory
CORRECTIONS = (
    "bonferroni, sidak, holm-sidak, holm, simes-hochberg, hommel, fdr_bh, fdr_by, fdr_tsbh, fdr_tsbky (statsmodels "
    "multipletests)"
)


def _blocks(rows: int, pairs: int) -> list[slice]:
    size = max(1, BLOCK // max(pairs, 1))
    return [slice(start, start + size) for start in range(0, rows, size)]


def _exceeds(null: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """|null| >= |observed| up to the relative tolerance ``scipy.stats.permutation_test`` uses (100 eps)."""
    observed = np.abs(observed)
    return np.abs(null) >= observed - observed * 100 * np.finfo(np.float64).eps


def _resample_counts(n: int, samples: int, rng: np.random.Generator) -> np.ndarray:
    """How often each of ``n`` queries is drawn in each of ``samples`` bootstrap samples (``samples x n``), from
    ``rng.integers(0, n, (samples, n))`` (the draws ``scipy.stats.bootstrap`` makes)."""
    draws = rng.integers(0, n, size=(samples, n))
    counts = np.bincount((draws + n * np.arange(samples)[:, None]).ravel(), minlength=samples * n)
    return counts.reshape(samples, n).astype(np.float64)


def check_samples(samples) -> int:
    """``samples`` as an int; an :class:`InputError` unless it is a positive integer."""
    try:
        valid = not isinstance(samples, bool) and int(samples) == samples and samples >= 1
    except (TypeError, ValueError, OverflowError):  # not a number, NaN, infinity
        valid = False
    if not valid:
        raise InputError(f"samples must be a positive integer, not {samples!r}")
    return int(samples)


def t_test(d: np.ndarray) -> np.ndarray:
    """Two-sided paired t-test per row of differences (as ``scipy.stats.ttest_rel``; NaN when a row is
    constant): t = mean / sqrt(var / n) with n - 1 degrees of freedom, p = 2 * P(T > |t|) (Student's t
    distribution, ``scipy.special.stdtr``, without importing ``scipy.stats``)."""
    from scipy.special import stdtr

    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    n = d.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = d.mean(axis=1) / np.sqrt(d.var(axis=1, ddof=1) / n)
        return np.minimum(2.0 * stdtr(n - 1, -np.abs(t)), 1.0)


def wilcoxon_test(d: np.ndarray) -> np.ndarray:
    """Two-sided Wilcoxon signed-rank test per row of differences (``scipy.stats.wilcoxon``, zero differences
    dropped; NaN when every difference is zero)."""
    from scipy import stats

    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    p = np.full(len(d), np.nan)
    for row, values in enumerate(d):
        if values.any():
            p[row] = stats.wilcoxon(values).pvalue
    return p


def sign_test(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Two-sided sign test of paired values: the exact binomial test (p = 1/2) of the number of pairs with
    x > y among those with x != y (ties dropped). Returns ``(wins, p)``; p is NaN when no pair differs. With
    p = 1/2 the distribution is symmetric, so the two-sided p-value (as ``scipy.stats.binomtest``'s) is
    ``min(1, 2 * P(X <= min(wins, losses)))`` (``scipy.special.bdtr``).
    W. J. Dixon, A. M. Mood. The statistical sign test. JASA 41(236), 1946."""
    from scipy.special import bdtr

    difference = np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    wins, losses = int((difference > 0).sum()), int((difference < 0).sum())
    if wins + losses == 0:
        return 0.0, math.nan
    return float(wins), float(min(1.0, 2.0 * bdtr(min(wins, losses), wins + losses, 0.5)))


def p_values(d: np.ndarray, test: str, samples: int = SAMPLES, rng: np.random.Generator | None = None) -> np.ndarray:
    """Two-sided p-values of ``test`` (one of :data:`TESTS`) per row of differences ``d``; NaN for a row with no
    difference at all. ``samples`` and ``rng``: the resampling tests' (``permutation``, ``bootstrap``)."""
    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    if test == "t":
        p = t_test(d)
    elif test == "wilcoxon":
        p = wilcoxon_test(d)
    elif test == "sign":
        p = np.array([sign_test(row, np.zeros_like(row))[1] for row in d], dtype=np.float64)
    elif test == "permutation":
        p = randomisation_test(d, samples, rng)
    elif test == "bootstrap":
        p = bootstrap_test(d, samples, rng)
    else:
        raise InputError(f"unknown test {test!r}", expected=f"one of {', '.join(TESTS)}")
    return np.where(d.any(axis=1), p, np.nan)


def randomisation_test(d: np.ndarray, samples: int = SAMPLES, rng: np.random.Generator | None = None) -> np.ndarray:
    """Two-sided paired randomisation test of the mean difference per row: each query's difference keeps or flips
    its sign. Exact (all 2^n sign vectors, p = share as extreme) when 2^n <= ``samples``; otherwise ``samples``
    random sign vectors and p = (1 + as extreme) / (1 + samples), as ``scipy.stats.permutation_test``."""
    samples = check_samples(samples)
    rng = np.random.default_rng(0) if rng is None else rng
    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    n = d.shape[1]
    if n < 63 and 2**n <= samples:
        signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
        adjust = 0
    else:
        signs = 1 - 2 * rng.integers(0, 2, size=(samples, n))
        adjust = 1
    observed = d.sum(axis=1, keepdims=True)
    count = np.zeros(len(d), dtype=np.int64)
    for block in _blocks(len(signs), len(d)):
        count += _exceeds(d @ signs[block].T.astype(np.float64), observed).sum(axis=1)
    return (count + adjust) / (len(signs) + adjust)


def bootstrap_test(d: np.ndarray, samples: int = SAMPLES, rng: np.random.Generator | None = None) -> np.ndarray:
    """Two-sided paired bootstrap test (Sakai, SIGIR 2006): resample the queries of the differences shifted to
    mean 0 (``rng.integers(0, n, (samples, n))``) and count the studentised means at least as extreme as the
    observed t; p = (1 + as extreme) / (1 + samples)."""
    samples = check_samples(samples)
    rng = np.random.default_rng(0) if rng is None else rng
    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    n = d.shape[1]
    sd = d.std(axis=1, ddof=1, keepdims=True)
    mean = d.mean(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = mean / (sd / math.sqrt(n))
    z = d - mean
    counts = _resample_counts(n, samples, rng)
    count = np.zeros(len(d), dtype=np.int64)
    for block in _blocks(samples, len(d)):
        total, squares = z @ counts[block].T, (z * z) @ counts[block].T
        with np.errstate(divide="ignore", invalid="ignore"):
            var = np.maximum(squares - total * total / n, 0) / (n - 1)
            t = (total / n) / np.sqrt(var / n)
        count += (_exceeds(t, observed) & ~np.isnan(t)).sum(axis=1)
    p = (count + 1) / (samples + 1)
    return np.where(np.isnan(observed[:, 0]), np.nan, p)


def bootstrap_ci(
    x: np.ndarray,
    confidence: float = CONFIDENCE,
    samples: int = SAMPLES,
    rng: np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap confidence interval of the mean of each row: the ``(1 - confidence) / 2`` and
    ``(1 + confidence) / 2`` quantiles of the means of ``samples`` resamples of the queries (the same resamples
    for every row). Returns ``(low, high)`` arrays."""
    samples = check_samples(samples)
    if not 0 < confidence < 1:
        raise InputError(f"the confidence level must lie strictly between 0 and 1, not {confidence!r}")
    rng = np.random.default_rng(0) if rng is None else rng
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    n = x.shape[1]
    counts = _resample_counts(n, samples, rng)
    means = np.concatenate([x @ counts[block].T / n for block in _blocks(samples, len(x))], axis=1)
    alpha = (1 - confidence) / 2
    low, high = np.percentile(means, [100 * alpha, 100 * (1 - alpha)], axis=1)
    return low, high


def bootstrap_sums(x: np.ndarray, samples: int = SAMPLES, rng: np.random.Generator | None = None) -> np.ndarray:
    """Per bootstrap sample of the queries (the draws of :func:`bootstrap_ci`), the sum of the rows of ``x``
    ``(queries, k)``: ``(samples, k)``. A statistic that is a function of per-query sums (a contingency table, a
    coincidence matrix) is then computed on every resample at once."""
    samples = check_samples(samples)
    rng = np.random.default_rng(0) if rng is None else rng
    x = np.asarray(x, dtype=np.float64)
    blocks = _blocks(samples, len(x))
    return np.concatenate([_resample_counts(len(x), min(b.stop, samples) - b.start, rng) @ x for b in blocks])


def effect_size(d: np.ndarray) -> np.ndarray:
    """Standardised mean difference per row of paired differences: mean(d) / sd(d) (sample sd, n - 1; Cohen's
    d_z); NaN when the differences are constant."""
    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    sd = d.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, d.mean(axis=1) / sd, np.nan)


def check_correction(method: str) -> None:
    """Raise :class:`InputError` unless ``method`` is a statsmodels ``multipletests`` method."""
    from statsmodels.stats.multitest import multipletests

    try:
        multipletests([0.5], method=method)
    except ValueError:
        raise InputError(f"unknown correction {method!r}", expected=CORRECTIONS) from None


def correct(p: np.ndarray, method: str, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """statsmodels' ``multipletests`` over the finite p-values (NaN ones are left out): ``(reject, corrected)``,
    False / NaN where p is NaN."""
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(p, dtype=np.float64)
    reject, corrected = np.zeros(len(p), dtype=bool), np.full(len(p), np.nan)
    tested = np.isfinite(p)
    if tested.any():
        reject[tested], corrected[tested] = multipletests(p[tested], alpha=alpha, method=method)[:2]
    return reject, corrected
