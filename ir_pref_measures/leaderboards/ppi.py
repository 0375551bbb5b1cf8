"""Prediction-powered Bradley-Terry ratings: people's battles and an LLM judge's, with valid intervals.

People judged ``n`` battles (outcome ``y``: 1 a won, 0 b won, 0.5 a tie); an LLM judged the same battles
(``f``) and ``N`` battles that nobody else judged (``f~``). The Bradley-Terry log-strengths ``beta`` (mean 0) are
the M-estimate of the *rectified* loss (A. N. Angelopoulos, J. C. Duchi, T. Zrnic, *PPI++: Efficient
prediction-powered inference*, arXiv 2311.01453, 2023, eq. 2; its use for rankings from pairwise comparisons:
I. Chatzi, E. Straitouri, S. Thejaswi, M. Gomez-Rodriguez, *Prediction-powered ranking of large language models*,
NeurIPS 2024):

    L(beta) = 1/n sum_i l(beta; x_i, y_i) + lam (1/N sum_j l(beta; x~_j, f~_j) - 1/n sum_i l(beta; x_i, f_i)),

``l`` the logistic loss of a battle (``x = e_a - e_b``, ``P(a wins) = sigmoid(x . beta)``). The rectified loss is a
Bradley-Terry log-likelihood whose points matrix is ``W(y)/n + lam (W(f~)/N - W(f)/n)``, so the same Newton solver
(:func:`~ir_pref_measures.leaderboards.ratings.bradley_terry`) maximises it. The covariance is the sandwich
``H+ (cov(g - lam g^) + n/N cov(lam g~)) H+ / n`` with ``g = x (sigmoid(x . beta) - y)`` the per-battle gradients
(``g^`` with ``f``, ``g~`` on the LLM-only battles), ``H`` the Hessian pooled over all ``n + N`` battles and ``H+`` its
pseudo-inverse on the sum-zero ratings; intervals are normal. ``lam=None`` picks PPI++'s power parameter (the trace of
the covariance minimised, clipped to [0, 1]); ``lam=0`` is the people-only fit with its sandwich interval. These
are ``ppi_py.ppi_logistic_ci``'s formulas on the design ``x = e_a - e_b``. The interval is valid whatever the LLM's
bias when the people's battles are a uniform random sample of all battles and the model holds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from ir_pref_measures.errors import InputError
from ir_pref_measures.leaderboards import ratings as kernels
from ir_pref_measures.model.ids import intern
from ir_pref_measures.parsing.battles import read_battles
from ir_pref_measures.stats.ppi import CONFIDENCE, interval

MIN_PEOPLE = 2


@dataclass(frozen=True)
class PPIRatings:
    """Log-strengths ``beta`` (natural log, mean 0) of ``names``, their ``covariance``, the power parameter
    ``lam``, ``n`` people's and ``N`` LLM-only battles, and the interval level."""

    names: list[str]
    beta: np.ndarray
    covariance: np.ndarray
    lam: float
    n: int
    N: int
    confidence: float = CONFIDENCE

    @property
    def se(self) -> np.ndarray:
        return np.sqrt(np.clip(np.diag(self.covariance), 0.0, None))

    def intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """The normal interval of each log-strength."""
        return interval(self.beta, self.se, self.confidence)

    def difference(self, i: int, j: int) -> tuple[float, float, float]:
        """``beta_i - beta_j`` and its interval (gauge-free: it does not depend on the mean-zero convention)."""
        contrast = np.zeros(len(self.names))
        contrast[[i, j]] = 1.0, -1.0
        se = float(np.sqrt(max(contrast @ self.covariance @ contrast, 0.0)))
        low, high = interval(self.beta[i] - self.beta[j], se, self.confidence)
        return float(self.beta[i] - self.beta[j]), float(low), float(high)

    def table(self) -> pd.DataFrame:
        """``system, rating, ci low, ci high, se, rank`` on the Elo scale (mean 1000), best first (equal ratings in
        name order)."""
        low, high = self.intervals()
        scale = kernels.elo_scale(np.float64(1.0)) - kernels.elo_scale(np.float64(0.0))
        frame = pd.DataFrame(
            {
                "system": self.names,
                "rating": kernels.elo_scale(self.beta),
                "ci low": kernels.elo_scale(low),
                "ci high": kernels.elo_scale(high),
                "se": self.se * scale,
                "rank": 1 + (self.beta[None, :] > self.beta[:, None]).sum(axis=1),
            }
        )
        order = np.lexsort((np.arange(len(self.names)), -self.beta))
        return frame.iloc[order].reset_index(drop=True)


@dataclass(frozen=True)
class EncodedBattles:
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray


def _gradients(battles: EncodedBattles, beta: np.ndarray, outcome: np.ndarray) -> np.ndarray:
    """Per battle, the gradient of its logistic loss: ``x (sigmoid(x . beta) - outcome)``, ``(battles, systems)``."""
    residual = expit(beta[battles.a] - beta[battles.b]) - outcome
    rows = np.arange(len(battles.a))
    g = np.zeros((len(battles.a), len(beta)))
    np.add.at(g, (rows, battles.a), residual)
    np.add.at(g, (rows, battles.b), -residual)
    return g


def _hessian(groups: list[EncodedBattles], beta: np.ndarray) -> np.ndarray:
    """The mean over the battles of ``sigmoid' (x . beta) x x^T``."""
    m = len(beta)
    a = np.concatenate([g.a for g in groups])
    b = np.concatenate([g.b for g in groups])
    p = expit(beta[a] - beta[b])
    c = p * (1.0 - p) / len(a)
    h = np.bincount(a * m + b, c, minlength=m * m) + np.bincount(b * m + a, c, minlength=m * m)
    h = -h.reshape(m, m)
    h[np.diag_indices(m)] = -h.sum(axis=1)
    return h


def _pseudo_inverse(h: np.ndarray) -> np.ndarray:
    """The inverse of ``h`` on the sum-zero vectors (its null space is the constant vector)."""
    m = len(h)
    centre = np.full((m, m), 1.0 / m)
    return np.linalg.inv(h + centre) - centre


def _fit(
    people: EncodedBattles, llm: EncodedBattles, unlabelled: EncodedBattles, lam: float, names: list[str]
) -> np.ndarray:
    m, n, big_n = len(names), len(people.a), len(unlabelled.a)
    ones = np.ones(n)
    points = kernels.points_matrix(people.a, people.b, people.outcome, ones, m) / n
    points -= lam * kernels.points_matrix(llm.a, llm.b, llm.outcome, ones, m) / n
    points += lam * kernels.points_matrix(unlabelled.a, unlabelled.b, unlabelled.outcome, np.ones(big_n), m) / big_n
    kernels.check_identifiable(np.where(points > 0, points, 0.0), names)
    try:
        return kernels.bradley_terry(points)
    except ValueError as error:
        raise InputError(f"the prediction-powered Bradley-Terry fit (lam={lam:g}) has no finite maximum") from error


def _statistics(people, llm, unlabelled, beta, lam_used_unlabelled: bool):
    g, g_hat = _gradients(people, beta, people.outcome), _gradients(llm, beta, llm.outcome)
    g_unlabelled = _gradients(unlabelled, beta, unlabelled.outcome)
    hessian = _hessian([people, unlabelled] if lam_used_unlabelled else [people], beta)
    return g, g_hat, g_unlabelled, _pseudo_inverse(hessian)


def _tuned_lambda(g, g_hat, g_unlabelled, inverse) -> float:
    """PPI++'s power parameter minimising the trace of the covariance, clipped to [0, 1]."""
    n, big_n = len(g), len(g_unlabelled)
    centred, centred_hat = g - g.mean(0), g_hat - g_hat.mean(0)
    cross = (centred.T @ centred_hat + centred_hat.T @ centred) / n
    variance = np.cov(np.concatenate([g_hat, g_unlabelled]).T)
    denominator = 2 * (1 + n / big_n) * np.trace(inverse @ variance @ inverse)
    if denominator <= 0:
        return 0.0
    return float(np.clip(np.trace(inverse @ cross @ inverse) / denominator, 0.0, 1.0))


def ppi_bradley_terry(
    people: EncodedBattles,
    llm_outcome: np.ndarray,
    unlabelled: EncodedBattles,
    names: list[str],
    *,
    lam: float | None = None,
    confidence: float = CONFIDENCE,
) -> PPIRatings:
    """The prediction-powered Bradley-Terry ratings (module docstring) of encoded battles: ``people`` (system codes
    ``a``, ``b`` and people's outcomes), ``llm_outcome`` (the LLM's outcomes of the same battles), ``unlabelled``
    (battles only the LLM judged)."""
    n, big_n = len(people.a), len(unlabelled.a)
    if n < MIN_PEOPLE:
        raise InputError(f"prediction-powered ratings need at least {MIN_PEOPLE} battles judged by people, got {n}")
    if big_n < 1:
        raise InputError("prediction-powered ratings need battles judged by the LLM alone, got none")
    llm = EncodedBattles(people.a, people.b, np.asarray(llm_outcome, dtype=np.float64))
    if lam is None:
        beta = _fit(people, llm, unlabelled, 1.0, names)
        lam = _tuned_lambda(*_statistics(people, llm, unlabelled, beta, True))
    elif not (np.isfinite(lam) and 0 <= lam <= 1):
        raise InputError(f"the power parameter lam must lie in [0, 1] or be None, not {lam!r}")
    beta = _fit(people, llm, unlabelled, lam, names)
    g, g_hat, g_unlabelled, inverse = _statistics(people, llm, unlabelled, beta, lam != 0)
    middle = np.cov((g - lam * g_hat).T) + n / big_n * np.cov((lam * g_unlabelled).T)
    covariance = inverse @ middle @ inverse / n
    return PPIRatings(names, beta, covariance, float(lam), n, big_n, confidence)


def ppi_rate(people, llm, unlabelled, *, lam: float | None = None, confidence: float = CONFIDENCE) -> PPIRatings:
    """Prediction-powered Bradley-Terry ratings from three battle tables or files
    (:func:`~ir_pref_measures.parsing.battles.read_battles`): ``people``'s battles, the ``llm``'s judgments of the
    same battles (same rows in the same order: query and systems), and the battles only the LLM judged. Weighted
    battles are refused (every battle is one unit)."""
    tables = [read_battles(x) for x in (people, llm, unlabelled)]
    for what, table in zip(("people", "llm", "unlabelled"), tables, strict=True):
        if (table["weight"] != 1).any():
            raise InputError(f"the {what} battles carry weights: prediction-powered ratings take unweighted battles")
    first, second = tables[0], tables[1]
    same = len(first) == len(second)
    if same:
        keys = ("query_id", "system_a", "system_b")
        mismatch = np.flatnonzero(~np.all([first[k].to_numpy() == second[k].to_numpy() for k in keys], axis=0))
        same = not len(mismatch)
    if not same:
        where = f"row {int(mismatch[0])}" if len(first) == len(second) else f"{len(first)} vs {len(second)} rows"
        raise InputError(
            f"the LLM's battles are not the people's battles ({where})",
            expected="the LLM's judgments of the same battles as the people's, row for row (query, system_a, system_b)",
        )
    (a, b, ua, ub), vocabulary = intern(
        first["system_a"], first["system_b"], tables[2]["system_a"], tables[2]["system_b"]
    )
    names = [str(x) for x in vocabulary]
    codes = [np.asarray(x, dtype=np.int64) for x in (a, b, ua, ub)]
    people_battles = EncodedBattles(codes[0], codes[1], first["outcome"].to_numpy(dtype=np.float64))
    unlabelled_battles = EncodedBattles(codes[2], codes[3], tables[2]["outcome"].to_numpy(dtype=np.float64))
    llm_outcome = second["outcome"].to_numpy(dtype=np.float64)
    return ppi_bradley_terry(people_battles, llm_outcome, unlabelled_battles, names, lam=lam, confidence=confidence)
