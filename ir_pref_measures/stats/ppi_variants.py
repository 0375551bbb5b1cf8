"""Two variants of the prediction-powered mean: cross-prediction and stratified.

**Cross-prediction** (T. Zrnic, E. J. Candès, *Cross-prediction-powered inference*, PNAS 121, 2024) is for a
predictor fitted or calibrated on the labelled units themselves (an LLM judge calibrated on people's judgments):
the labelled units are split into ``K`` folds, model ``k`` is fitted without fold ``k``; ``yhat`` holds each
labelled unit's prediction by the model that did not see it, ``yhat_unlabelled`` (``N x K``) every model's
prediction of the unlabelled units. The estimate is ``mean over units of mean_k yhat_unlabelled + mean(y - yhat)``
with standard error ``sqrt(var(mean_k yhat_unlabelled) / N + var(yhat - y) / n)`` (``ddof=0``) and the normal
interval: ``ppi_py.crossppi_mean_ci`` without ``bootstrap_data`` (its variances from the same data), equal on the
same inputs.

**Stratified** (A. Fisch, J. Maynez, R. A. Hofer, B. Dhingra, A. Globerson, W. W. Cohen, *Stratified
prediction-powered inference for hybrid language model evaluation*, NeurIPS 2024; ``ppi_py`` has no stratified
mean): the units fall into strata (query groups) with people's labels drawn at random within each stratum, at
rates that may differ. Each stratum ``k`` gets its own PPI++ estimate ``theta_k`` (its own tuned power parameter,
:func:`~ir_pref_measures.stats.ppi.ppi_mean`), weighted by the stratum's share of all units
``w_k = (n_k + N_k) / (n + N)``: ``theta = sum_k w_k theta_k``, ``se^2 = sum_k w_k^2 se_k^2``, and the normal
interval. Each stratum needs two labelled units and one unlabelled.

**A fixed-size stratified draw** of the labelled units: :func:`score_strata` splits the units into ``strata``
groups of (nearly) equal size by the order of a score known before any label (the number of pairs an LLM judged per
query, say), :func:`proportional_allocation` gives each stratum its share ``n N_k / N`` of the ``n`` labels
(rounded, largest remainders first), drawn uniformly without replacement within the stratum: stratified random
sampling with proportional allocation (W. G. Cochran, *Sampling techniques*, 3rd ed., Wiley 1977, Section 5.3), on
which the stratified estimate above is valid.
"""

from __future__ import annotations

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.stats.ppi import (
    CONFIDENCE,
    MIN_LABELLED,
    MeanEstimate,
    _columns,
    effective_n,
    interval,
    ppi_mean,
)


def crossppi_mean(
    y, yhat, yhat_unlabelled, *, confidence: float = CONFIDENCE, alternative: str = "two-sided"
) -> MeanEstimate:
    """The cross-prediction-powered mean and its interval (module docstring). ``y``, ``yhat``: the ``n`` labelled
    units' labels and out-of-fold predictions; ``yhat_unlabelled``: ``(N, K)``, one column per fold's model."""
    y, yhat = _columns(y, "labels"), _columns(yhat, "predictions")
    if y.shape[1] != 1 or yhat.shape != y.shape:
        raise InputError(f"labels {y.shape} and predictions {yhat.shape}: one value of each per labelled unit")
    yhat_unlabelled = np.asarray(yhat_unlabelled, dtype=np.float64)
    if yhat_unlabelled.ndim != 2 or not len(yhat_unlabelled):
        raise InputError("the unlabelled predictions: one row per unlabelled unit, one column per fold's model")
    imputed = _columns(yhat_unlabelled.mean(axis=1), "unlabelled predictions")
    n, big_n = len(y), len(imputed)
    if n < MIN_LABELLED:
        raise InputError(f"prediction-powered inference needs at least {MIN_LABELLED} labelled units, got {n}")
    estimate = imputed.mean(0) + (y - yhat).mean(0)
    se = np.sqrt(imputed.var(0) / big_n + (yhat - y).var(0) / n)
    lower, upper = interval(estimate, se, confidence, alternative)
    return MeanEstimate(estimate, se, lower, upper, np.ones(1), n, big_n, effective_n(y, se))


def stratified_ppi_mean(
    y,
    yhat,
    yhat_unlabelled,
    strata,
    strata_unlabelled,
    *,
    lam: float | None = None,
    confidence: float = CONFIDENCE,
    alternative: str = "two-sided",
) -> MeanEstimate:
    """The stratified prediction-powered mean (module docstring). ``strata``, ``strata_unlabelled``: each
    labelled and unlabelled unit's stratum (any labels); the other arguments as
    :func:`~ir_pref_measures.stats.ppi.ppi_mean` takes them (``lam`` fixed for every stratum, or tuned per
    stratum). ``lam`` of the result is the strata's mean power parameter, weighted by ``w_k``."""
    y, yhat = _columns(y, "labels"), _columns(yhat, "predictions")
    yhat_unlabelled = _columns(yhat_unlabelled, "unlabelled predictions")
    strata, strata_unlabelled = np.asarray(strata).ravel(), np.asarray(strata_unlabelled).ravel()
    if len(strata) != len(y) or len(strata_unlabelled) != len(yhat_unlabelled):
        raise InputError(
            f"one stratum per unit is needed: {len(strata)} strata for {len(y)} labelled units, "
            f"{len(strata_unlabelled)} for {len(yhat_unlabelled)} unlabelled"
        )
    names = np.unique(np.concatenate([strata, strata_unlabelled]))
    total = len(strata) + len(strata_unlabelled)
    estimate, variance, lam_mean = (np.zeros(y.shape[1]) for _ in range(3))
    for name in names:
        labelled, unlabelled = strata == name, strata_unlabelled == name
        if labelled.sum() < MIN_LABELLED or not unlabelled.any():
            counts = f"{int(labelled.sum())} labelled and {int(unlabelled.sum())} unlabelled units"
            raise InputError(
                f"stratum {str(name)!r} has {counts}",
                expected=f"at least {MIN_LABELLED} labelled units and one unlabelled unit in every stratum",
            )
        part = ppi_mean(y[labelled], yhat[labelled], yhat_unlabelled[unlabelled], lam=lam, confidence=confidence)
        share = (labelled.sum() + unlabelled.sum()) / total
        estimate = estimate + share * part.estimate
        variance = variance + share**2 * part.se**2
        lam_mean = lam_mean + share * part.lam
    se = np.sqrt(variance)
    lower, upper = interval(estimate, se, confidence, alternative)
    return MeanEstimate(estimate, se, lower, upper, lam_mean, len(y), len(yhat_unlabelled), effective_n(y, se))


def score_strata(score, strata: int) -> np.ndarray:
    """Each unit's stratum ``0 .. strata - 1``: the units in increasing order of ``score`` (ties in the order
    given) cut into ``strata`` consecutive groups whose sizes differ by at most one (``numpy.array_split``)."""
    score = np.asarray(score, dtype=np.float64).ravel()
    if not np.isfinite(score).all():
        raise InputError("the score of every unit must be a finite number")
    if not 1 <= strata <= len(score):
        raise InputError(f"the number of strata must lie between 1 and the {len(score)} units, not {strata!r}")
    labels = np.empty(len(score), dtype=np.int64)
    for k, group in enumerate(np.array_split(np.argsort(score, kind="stable"), strata)):
        labels[group] = k
    return labels


def proportional_allocation(stratum_sizes, labels: int) -> np.ndarray:
    """The labels of each stratum, proportional to its size (``labels N_k / N`` rounded down, the rest one each to
    the largest remainders, the first stratum first among equal ones); every stratum must get at least
    :data:`~ir_pref_measures.stats.ppi.MIN_LABELLED` labels and keep one unit unlabelled."""
    sizes = np.asarray(stratum_sizes, dtype=np.int64).ravel()
    total = int(sizes.sum())
    if not len(sizes) or (sizes < 1).any():
        raise InputError("every stratum needs at least one unit")
    if not 0 < labels < total:
        raise InputError(f"the labels must number between 1 and {total - 1} (the units less one), not {labels!r}")
    share = labels * sizes / total
    counts = np.floor(share).astype(np.int64)
    counts[np.argsort(-(share - counts), kind="stable")[: labels - int(counts.sum())]] += 1
    if (counts < MIN_LABELLED).any() or (counts >= sizes).any():
        raise InputError(
            f"{labels} labels over strata of {', '.join(map(str, sizes))} units give {', '.join(map(str, counts))}",
            expected=f"at least {MIN_LABELLED} labelled units and one unlabelled unit in every stratum (fewer strata)",
        )
    return counts
