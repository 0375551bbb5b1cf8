"""Prediction-powered inference (PPI) of a mean, and its power-tuned form PPI++.

``y`` holds the gold labels of ``n`` labelled units (people's judgments), ``yhat`` the predictions on the same units
(an LLM's), ``yhat_unlabelled`` the predictions on ``N`` further units that nobody labelled. With a power parameter
``lam``, the estimate of the mean of ``y`` over the population of units is

    theta = lam * mean(yhat_unlabelled) + mean(y - lam * yhat),

unbiased whatever the predictions (the second term, the *rectifier*, removes their bias), with standard error
``se^2 = var(lam * yhat_unlabelled) / N + var(y - lam * yhat) / n`` (population variances, ``ddof=0``) and the normal
interval ``theta -/+ z se``. ``lam = 1`` is PPI (A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan, T. Zrnic,
*Prediction-powered inference*, Science 382, 2023); ``lam = 0`` the classical interval from the labels alone;
``lam=None`` estimates the variance-minimising ``lam`` (PPI++: A. N. Angelopoulos, J. C. Duchi, T. Zrnic,
*PPI++: Efficient prediction-powered inference*, arXiv 2311.01453, 2023), per column, clipped to [0, 1]:

    lam = cov(y, yhat) / ((1 + n / N) var(yhat over all n + N units)),

the covariance over the labelled units with ``ddof=0``, the variance with ``ddof=1``. Every number equals
``ppi_py.ppi_mean_ci`` / ``ppi_py.ppi_mean_pointestimate`` (``ppi-python`` 0.2.3; ``lam_optim_mode="element"``
for several columns) on the same inputs, weights included (normalised to sum to ``n`` and ``N``), with one
exception: a one-sided ``alternative`` with the tuned ``lam=None``. There ``ppi_mean_ci`` (0.2.3, and its GitHub
HEAD bd90caa) drops ``alternative`` in its recursive call once it has tuned ``lam`` and returns the two-sided
interval; ours is the one-sided interval, the one ``ppi_mean_ci`` returns when given that tuned ``lam`` itself.

The *effective sample size* of a result is the number of people's labels whose people-only interval
(:func:`classical_mean` on the same labels and weights) has the same width: ``n se_classical^2 / se^2``.

A difference between two runs is the mean of a per-unit difference: pass ``y_a - y_b`` and the predicted
differences.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ir_pref_measures.errors import InputError

CONFIDENCE = 0.95
ALTERNATIVES = ("two-sided", "larger", "smaller")
MIN_LABELLED = 2  # a variance needs two labelled units


@dataclass(frozen=True)
class MeanEstimate:
    """Per column: the ``estimate``, its standard error ``se``, the interval ``lower``-``upper`` and the power
    parameter ``lam`` used; ``n`` labelled and ``N`` unlabelled units; ``effective_n`` (module docstring)."""

    estimate: np.ndarray
    se: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    lam: np.ndarray
    n: int
    N: int
    effective_n: np.ndarray


def _columns(x, what: str) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim not in (1, 2):
        raise InputError(f"{what}: one value per unit (a vector) or one column per estimate, not shape {x.shape}")
    x = x[:, None] if x.ndim == 1 else x
    if not np.isfinite(x).all():
        raise InputError(f"{what}: unit {int(np.argwhere(~np.isfinite(x))[0, 0])} has no finite value")
    return x


def _weights(w, size: int, what: str) -> np.ndarray:
    """Weights normalised to sum to ``size`` (ones when ``w`` is None), as a column."""
    if w is None:
        return np.ones((size, 1))
    w = np.asarray(w, dtype=np.float64).ravel()
    if len(w) != size or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise InputError(f"{what}: {size} non-negative weights with a positive sum are needed")
    return (w / w.sum() * size)[:, None]


def interval(estimate, se, confidence: float = CONFIDENCE, alternative: str = "two-sided"):
    """The normal interval ``estimate -/+ z se``: two-sided, or one-sided ``larger`` (``[estimate - z se, inf)``) or
    ``smaller`` (``(-inf, estimate + z se]``), as statsmodels' ``_zconfint_generic``."""
    if alternative not in ALTERNATIVES:
        raise InputError(f"unknown alternative {alternative!r}", expected=", ".join(ALTERNATIVES))
    if not 0 < confidence < 1:
        raise InputError(f"the confidence level must lie strictly between 0 and 1, not {confidence!r}")
    from scipy.special import ndtri  # the normal quantile (scipy.stats' norm.ppf), without importing scipy.stats

    alpha = 1.0 - confidence
    if alternative == "two-sided":
        z = ndtri(1 - alpha / 2.0)
        return estimate - z * se, estimate + z * se
    z = ndtri(1 - alpha)
    if alternative == "larger":
        return estimate - z * se, np.full_like(estimate, np.inf)
    return np.full_like(estimate, -np.inf), estimate + z * se


def tuned_lambda(y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray, w=None, w_unlabelled=None) -> np.ndarray:
    """PPI++'s power parameter per column (module docstring), clipped to [0, 1]; 0 where the predictions do not
    vary (they carry no information)."""
    n, big_n = len(y), len(yhat_unlabelled)
    w, wu = _weights(w, n, "weights"), _weights(w_unlabelled, big_n, "unlabelled weights")
    theta = point_estimate(y, yhat, yhat_unlabelled, 1.0, w, wu)
    grads, grads_hat, grads_unlabelled = w * (y - theta), w * (yhat - theta), wu * (yhat_unlabelled - theta)
    covariance = 2.0 / n * ((grads - grads.mean(0)) * (grads_hat - grads_hat.mean(0))).sum(0)
    variance = np.var(np.concatenate([grads_hat, grads_unlabelled]), axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = covariance / (2 * (1 + n / big_n) * variance)
    return np.clip(np.where(variance > 0, lam, 0.0), 0.0, 1.0)


def point_estimate(y, yhat, yhat_unlabelled, lam, w, w_unlabelled) -> np.ndarray:
    """``mean(w_u lam yhat_u) + mean(w (y - lam yhat))`` per column (weights already normalised)."""
    return (w_unlabelled * lam * yhat_unlabelled).mean(0) + (w * (y - lam * yhat)).mean(0)


def ppi_mean(
    y,
    yhat,
    yhat_unlabelled,
    *,
    lam: float | None = None,
    confidence: float = CONFIDENCE,
    alternative: str = "two-sided",
    w=None,
    w_unlabelled=None,
) -> MeanEstimate:
    """The prediction-powered estimate of the mean of ``y`` and its interval (module docstring). ``y`` and ``yhat``:
    ``n`` labelled units (a vector, or one column per estimate); ``yhat_unlabelled``: ``N`` unlabelled units;
    ``lam``: the power parameter, ``None`` for PPI++'s tuned one, 1 for PPI, 0 for the labels alone; ``w``,
    ``w_unlabelled``: optional unit weights."""
    y, yhat = _columns(y, "labels"), _columns(yhat, "predictions")
    yhat_unlabelled = _columns(yhat_unlabelled, "unlabelled predictions")
    if y.shape != yhat.shape:
        raise InputError(f"labels {y.shape} and predictions {yhat.shape} must have the same shape (one per unit)")
    if yhat_unlabelled.shape[1] != y.shape[1]:
        raise InputError(f"the unlabelled predictions have {yhat_unlabelled.shape[1]} columns, the labels {y.shape[1]}")
    n, big_n = len(y), len(yhat_unlabelled)
    if n < MIN_LABELLED:
        raise InputError(f"prediction-powered inference needs at least {MIN_LABELLED} labelled units, got {n}")
    if big_n < 1:
        raise InputError("prediction-powered inference needs unlabelled units (predictions without labels), got none")
    if lam is not None and not np.isfinite(lam):
        raise InputError(f"the power parameter lam must be a finite number or None, not {lam!r}")
    chosen = tuned_lambda(y, yhat, yhat_unlabelled, w, w_unlabelled) if lam is None else lam
    lams = np.broadcast_to(np.asarray(chosen, dtype=np.float64), (y.shape[1],))
    w, wu = _weights(w, n, "weights"), _weights(w_unlabelled, big_n, "unlabelled weights")
    estimate = point_estimate(y, yhat, yhat_unlabelled, lams, w, wu)
    se = np.sqrt(np.var(wu * lams * yhat_unlabelled, axis=0) / big_n + np.var(w * (y - lams * yhat), axis=0) / n)
    lower, upper = interval(estimate, se, confidence, alternative)
    return MeanEstimate(estimate, se, lower, upper, lams.copy(), n, big_n, effective_n(y, se, w))


def effective_n(y: np.ndarray, se: np.ndarray, w=None) -> np.ndarray:
    """People-only labels with the standard error ``se``: ``n se_classical^2 / se^2`` (``n`` where ``se`` is 0)."""
    classical = classical_mean(y, w=w).se
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, len(y) * classical**2 / se**2, float(len(y)))


def classical_mean(y, *, confidence: float = CONFIDENCE, alternative: str = "two-sided", w=None) -> MeanEstimate:
    """The labels alone: ``mean(y) -/+ z sd(y) / sqrt(n)`` (``ddof=0``; ``ppi_py.classical_mean_ci``)."""
    y = _columns(y, "labels")
    if len(y) < MIN_LABELLED:
        raise InputError(f"an interval needs at least {MIN_LABELLED} labelled units, got {len(y)}")
    w = _weights(w, len(y), "weights")
    estimate, se = (w * y).mean(0), (w * y).std(0) / np.sqrt(len(y))
    lower, upper = interval(estimate, se, confidence, alternative)
    return MeanEstimate(estimate, se, lower, upper, np.zeros(y.shape[1]), len(y), 0, np.full(y.shape[1], len(y), float))
