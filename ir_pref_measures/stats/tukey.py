"""All pairs of many systems at once on a topic x system matrix: the Tukey HSD test and the randomised Tukey HSD
test, both topic-blocked, with Sakai's effect sizes and margins of error.

``x`` is a ``(topics, systems)`` array (n topics, m systems). Pairs ``(i, j)`` with ``i < j`` come in R's
``TukeyHSD`` order (1-2, 1-3, ..., 2-3, ...); each holds ``diff`` = mean_j - mean_i ("j minus i", as R).

* :func:`tukey_hsd`: Tukey's honestly significant difference test on the residual variance V_E of the two-way
  ANOVA without replication (:mod:`~ir_pref_measures.stats.anova`): q = |diff| / sqrt(V_E / n), adjusted p =
  P(Q >= q) for the studentized range Q with m groups and (m - 1)(n - 1) df, computed as R's ``ptukey``
  (:mod:`~ir_pref_measures.stats.studentized_range`, vectorised over the pairs); simultaneous interval diff
  +- q_conf sqrt(V_E / n), q_conf as R's ``qtukey``. Equal to R's ``TukeyHSD(aov(score ~ system + topic))``.
  J. W. Tukey, *The Problem of Multiple Comparisons*, 1953; T. Sakai, *Laboratory Experiments in Information
  Retrieval*, Springer 2018, ch. 4-5.
* :func:`randomised_tukey`: the randomised Tukey HSD test: shuffle the system labels within each topic, take the
  range (max - min) of the system means; the adjusted p of a pair is the share of shuffles whose range is at
  least |diff|. Exact (every one of the (m!)^n shuffles) when there are at most ``samples`` of them; otherwise
  ``samples`` random shuffles and p = (1 + as extreme) / (1 + samples), as the package's other randomisation
  tests. The interval is diff +- the ``confidence`` quantile of the shuffled ranges. B. Carterette, TOIS 30(1),
  2012; T. Sakai, Springer 2018, ch. 4-5 (default B = 5,000).

Effect size of a pair (both tests): Sakai's standardised mean difference diff / sqrt(V_E) (Springer 2018,
ch. 4-5); margin of error: the interval's half-width.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ir_pref_measures import arguments
from ir_pref_measures.choices import FAMILY_TESTS
from ir_pref_measures.errors import InputError
from ir_pref_measures.stats import studentized_range
from ir_pref_measures.stats.anova import anova, check_matrix, rescaled, standardised
from ir_pref_measures.stats.paired import BLOCK, CONFIDENCE, check_samples

SAMPLES = 5_000  # Sakai's B
TESTS = FAMILY_TESTS
NAMES = {"tukey": "Tukey HSD test", "randomised-tukey": "randomised Tukey HSD test"}


@dataclass(frozen=True)
class Pairs:
    """Every pair ``(i[k], j[k])`` of systems: ``diff`` (mean_j - mean_i), the simultaneous interval ``low`` /
    ``high`` and its half-width ``margin``, the adjusted ``p`` and the ``effect`` size diff / sqrt(V_E)."""

    i: np.ndarray
    j: np.ndarray
    diff: np.ndarray
    low: np.ndarray
    high: np.ndarray
    margin: np.ndarray
    p: np.ndarray
    effect: np.ndarray

    def frame(self, names) -> pd.DataFrame:
        """``run, vs, diff, ci low, ci high, margin, p-value, effect size``: ``run`` is system j, ``vs`` system i."""
        names = np.asarray([str(n) for n in names], dtype=object)
        return pd.DataFrame(
            {
                "run": names[self.j],
                "vs": names[self.i],
                "diff": self.diff,
                "ci low": self.low,
                "ci high": self.high,
                "margin": self.margin,
                "p-value": self.p,
                "effect size": self.effect,
            }
        )

    def matrix(self) -> np.ndarray:
        """The adjusted p-values as a symmetric systems x systems matrix, NaN on the diagonal."""
        m = int(self.j.max()) + 1
        out = np.full((m, m), np.nan)
        out[self.i, self.j] = out[self.j, self.i] = self.p
        return out


def _pairs(y: np.ndarray, exponent: int, margin, p) -> Pairs:
    """The pairs of the systems of the standardised matrix ``y`` (:func:`~ir_pref_measures.stats.anova.standardised`:
    the scores are ``2^exponent y`` plus a constant) with their intervals of half-width ``margin`` (in the units of
    ``y``), adjusted ``p`` and effect sizes on the residual variance; differences and intervals in the scores'
    units."""
    i, j = np.triu_indices(y.shape[1], k=1)
    means = y.mean(axis=0)
    diff = means[j] - means[i]
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = diff / math.sqrt(anova(y).residual_variance)
    margin = np.broadcast_to(np.asarray(margin, dtype=np.float64), diff.shape)
    low, high, diff, margin = (rescaled(v, exponent) for v in (diff - margin, diff + margin, diff, margin))
    return Pairs(i, j, diff, low, high, margin, np.asarray(p, dtype=np.float64), effect)


def _check_confidence(confidence: float) -> None:
    arguments.open_unit(confidence, "confidence level")


def tukey_hsd(x, confidence: float = CONFIDENCE) -> Pairs:
    """The Tukey HSD test of every pair of systems of a ``(topics, systems)`` matrix (module docstring).

    Parameters
    ----------
    x : array_like
        The ``(topics, systems)`` matrix of scores.
    confidence : float
        The level of the simultaneous intervals.

    Returns
    -------
    Pairs
        Every pair of systems: difference, interval, adjusted p-value, effect size (``.frame(names)`` as a table).
    """
    y, exponent = standardised(check_matrix(x))
    _check_confidence(confidence)
    n, m = y.shape
    se = math.sqrt(anova(y).residual_variance / n)
    df = (m - 1) * (n - 1)
    i, j = np.triu_indices(m, k=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(y.mean(axis=0)[j] - y.mean(axis=0)[i]) / se  # inf: no residual; NaN: nor any difference
    return _pairs(y, exponent, studentized_range.ppf(confidence, m, df) * se, studentized_range.sf(q, m, df))


def shuffled_ranges(x: np.ndarray, samples: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """The range (max - min) of the system means under shuffles of the systems within each topic, and whether
    they are all (m!)^n shuffles (when that many fit in ``samples``) rather than ``samples`` random ones
    (``rng.permuted`` on each topic's row, in blocks of :data:`~ir_pref_measures.stats.paired.BLOCK` cells)."""
    n, m = x.shape
    if n * math.lgamma(m + 1) <= math.log(samples) + 1e-9:  # (m!)^n <= samples
        orders = np.array(list(itertools.permutations(range(m))))
        sums = np.zeros((1, m))
        for row in x:  # every shuffle of the topics so far, extended by every order of this topic: (m!)^t x m
            sums = (sums[:, None, :] + row[orders][None, :, :]).reshape(-1, m)
        means = sums / n
        return means.max(axis=1) - means.min(axis=1), True
    ranges = np.empty(samples)
    size = max(1, BLOCK // (n * m))
    for start in range(0, samples, size):
        block = min(size, samples - start)
        means = rng.permuted(np.broadcast_to(x, (block, n, m)), axis=2).mean(axis=1)
        ranges[start : start + block] = means.max(axis=1) - means.min(axis=1)
    return ranges, False


def randomised_tukey(
    x, samples: int = SAMPLES, rng: np.random.Generator | None = None, confidence: float = CONFIDENCE
) -> Pairs:
    """The randomised Tukey HSD test of every pair of systems of a ``(topics, systems)`` matrix (module
    docstring); ``rng``: ``numpy.random.default_rng(0)`` by default.

    Parameters
    ----------
    x : array_like
        The ``(topics, systems)`` matrix of scores.
    samples : int
        The number of within-topic shuffles (Sakai's B).
    rng : numpy.random.Generator, optional
        The source of the shuffles.
    confidence : float
        The level of the simultaneous intervals.

    Returns
    -------
    Pairs
        As :func:`tukey_hsd`, with the p-values and intervals from the distribution of the shuffled ranges.
    """
    y, exponent = standardised(check_matrix(x))
    samples = check_samples(samples)
    _check_confidence(confidence)
    rng = np.random.default_rng(0) if rng is None else rng
    if not isinstance(rng, np.random.Generator):
        raise InputError(f"rng={rng!r}: must be a numpy.random.Generator (numpy.random.default_rng(seed))")
    ranges, exact = shuffled_ranges(y, samples, rng)
    i, j = np.triu_indices(y.shape[1], k=1)
    observed = np.abs(y.mean(axis=0)[j] - y.mean(axis=0)[i])
    # as extreme: up to the relative tolerance of scipy.stats.permutation_test (100 eps), as stats._exceeds
    threshold = observed - observed * 100 * np.finfo(np.float64).eps
    count = len(ranges) - np.searchsorted(np.sort(ranges), threshold, side="left")
    p = count / len(ranges) if exact else (count + 1) / (len(ranges) + 1)
    margin = np.quantile(ranges, confidence, method="higher")
    return _pairs(y, exponent, margin, p)


def all_pairs(x, test: str = "tukey", *, confidence: float = CONFIDENCE, samples: int = SAMPLES, rng=None) -> Pairs:
    """:func:`tukey_hsd` (``test="tukey"``) or :func:`randomised_tukey` (``"randomised-tukey"``)."""
    if test == "tukey":
        return tukey_hsd(x, confidence)
    if test == "randomised-tukey":
        return randomised_tukey(x, samples, rng, confidence)
    raise InputError(f"unknown test {test!r}", expected=f"one of {', '.join(TESTS)}")
