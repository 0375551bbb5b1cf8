"""Two-way ANOVA without replication on a topic x system matrix: the topic-blocked analysis of many systems.

``x`` is a ``(topics, systems)`` array with one score per cell. The model is score = grand mean + system effect +
topic effect + residual (no interaction: one observation per cell), and the sums of squares split as

    SS_total = SS_system + SS_topic + SS_residual,
    SS_system = n sum_j (mean_j - mean)^2,  SS_topic = m sum_i (mean_i - mean)^2,

with n topics, m systems, df m - 1, n - 1 and (m - 1)(n - 1); F = MS_effect / MS_residual, p from the F
distribution (``scipy.stats.f``). As R's ``aov(score ~ system + topic)`` and statsmodels'
``anova_lm(ols("score ~ C(system) + C(topic)"))``. T. Sakai, *Laboratory Experiments in Information Retrieval*,
Springer 2018, ch. 4-5; the residual mean square V_E is the variance that the Tukey HSD test
(:mod:`~ir_pref_measures.stats.tukey`) and Sakai's effect sizes use.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ir_pref_measures.errors import InputError

SOURCES = ("system", "topic", "residual")


def check_matrix(x, what: str = "scores") -> np.ndarray:
    """``x`` as a float ``(topics, systems)`` array; an :class:`InputError` unless it is a rectangular matrix of
    numbers (not text, not booleans) of at least two topics and two systems and every cell holds a finite value."""
    try:
        raw = np.asarray(x)
    except ValueError:  # rows of different lengths
        raise InputError(
            f"{what}: a rectangular topics x systems matrix is needed (rows of different lengths)"
        ) from None
    numeric = (
        raw.dtype.kind in "iuf"
        or raw.dtype.kind == "O"
        and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in raw.ravel())
    )
    if not numeric:
        raise InputError(f"{what}: a topics x systems matrix of numbers is needed, not values of type {raw.dtype}")
    x = raw.astype(np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise InputError(f"{what}: a topics x systems matrix of at least 2 x 2 is needed, not shape {x.shape}")
    bad = np.argwhere(~np.isfinite(x))
    if len(bad):
        topic, system = bad[0]
        raise InputError(f"{what}: no finite value for system {system} on topic {topic} ({x[topic, system]!r})")
    return x


def standardised(x: np.ndarray) -> tuple[np.ndarray, int]:
    """``(y, e)`` with ``x - mean(x) = 2^e y`` and ``max |y|`` in [1/2, 1) (``e = 0`` for a constant matrix): the
    sums of squares of ``y`` neither overflow nor underflow whatever the units of ``x`` (1e-300 or 1e300), and a
    power of two keeps every value exact. Every statistic of the ANOVA and the Tukey tests is computed on ``y``."""
    _, first = np.frexp(np.abs(x).max())
    y = np.ldexp(x, -first)
    y -= y.mean()
    peak = np.abs(y).max()
    if peak == 0:
        return y, 0
    _, second = np.frexp(peak)
    return np.ldexp(y, -second), int(first + second)


def rescaled(values, exponent: int) -> np.ndarray:
    """``values * 2^exponent`` (infinite where the true value exceeds the float range)."""
    with np.errstate(over="ignore"):
        return np.ldexp(np.asarray(values, dtype=np.float64), exponent)


@dataclass(frozen=True)
class Anova:
    """Sums of squares, degrees of freedom, mean squares, F and p of ``system`` and ``topic``, and the
    ``residual`` (its mean square: V_E). The sums of squares are kept as ``unit_ss`` of the standardised matrix
    (:func:`standardised`) and its ``exponent``: ``ss = unit_ss * 4^exponent``."""

    unit_ss: np.ndarray  # system, topic, residual
    df: np.ndarray
    topics: int
    systems: int
    exponent: int = 0

    @property
    def ss(self) -> np.ndarray:
        return rescaled(self.unit_ss, 2 * self.exponent)

    @property
    def ms(self) -> np.ndarray:
        return self.ss / self.df

    @property
    def residual_variance(self) -> float:
        """V_E: the residual mean square."""
        return float(self.ms[2])

    @property
    def f(self) -> np.ndarray:
        """F of system and topic (infinite when the residual is 0 and the effect is not; NaN when both are)."""
        ms = self.unit_ss / self.df
        with np.errstate(divide="ignore", invalid="ignore"):
            return ms[:2] / ms[2]

    @property
    def p(self) -> np.ndarray:
        from scipy import stats

        return stats.f.sf(self.f, self.df[:2], self.df[2])

    def table(self) -> pd.DataFrame:
        """``source, df, sum sq, mean sq, F, p-value``: one row per source, as R's ``summary(aov(...))``."""
        return pd.DataFrame(
            {
                "source": list(SOURCES),
                "df": self.df.astype(np.int64),
                "sum sq": self.ss,
                "mean sq": self.ms,
                "F": [*self.f, np.nan],
                "p-value": [*self.p, np.nan],
            }
        )


def anova(x) -> Anova:
    """The two-way ANOVA without replication of a ``(topics, systems)`` matrix (module docstring).

    Parameters
    ----------
    x : array_like
        The ``(topics, systems)`` matrix of scores.

    Returns
    -------
    Anova
        Sums of squares, degrees of freedom, mean squares, F and p (``.table()`` as a DataFrame).
    """
    y, exponent = standardised(check_matrix(x))
    n, m = y.shape
    grand = y.mean()
    system, topic = y.mean(axis=0), y.mean(axis=1)
    residual = y - system - topic[:, None] + grand
    ss = np.array([n * ((system - grand) ** 2).sum(), m * ((topic - grand) ** 2).sum(), (residual**2).sum()])
    return Anova(ss, np.array([m - 1, n - 1, (m - 1) * (n - 1)], dtype=np.float64), n, m, exponent)
