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
