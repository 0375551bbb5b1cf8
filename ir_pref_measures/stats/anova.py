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

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ir_pref_measures.errors import InputError

SOURCES = ("system", "topic", "residual")


def check_matrix(x, what: str = "scores") -> np.ndarray:
    """``x`` as a float ``(topics, systems)`` array; an :class:`InputError` unless it has at least two topics and
    two systems and every cell holds a finite value."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise InputError(f"{what}: a topics x systems matrix of at least 2 x 2 is needed, not shape {x.shape}")
    bad = np.argwhere(~np.isfinite(x))
    if len(bad):
        topic, system = bad[0]
        raise InputError(f"{what}: no finite value for system {system} on topic {topic} ({x[topic, system]!r})")
    return x


@dataclass(frozen=True)
class Anova:
    """Sums of squares, degrees of freedom, mean squares, F and p of ``system`` and ``topic``, and the
    ``residual`` (its mean square: V_E)."""

    ss: np.ndarray  # system, topic, residual
    df: np.ndarray
    topics: int
    systems: int

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
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.ms[:2] / self.ms[2]

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
    x = check_matrix(x)
    n, m = x.shape
    grand = x.mean()
    system, topic = x.mean(axis=0), x.mean(axis=1)
    residual = x - system - topic[:, None] + grand
    ss = np.array([n * ((system - grand) ** 2).sum(), m * ((topic - grand) ** 2).sum(), (residual**2).sum()])
    return Anova(ss, np.array([m - 1, n - 1, (m - 1) * (n - 1)], dtype=np.float64), n, m)
