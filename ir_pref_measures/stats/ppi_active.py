"""Active prediction-powered inference: people label the units the LLM is least sure of, with inverse-probability
weights that keep the interval valid.

Every one of ``N`` units has an LLM prediction ``yhat_i``; unit ``i`` is labelled by people with probability
``pi_i`` (independently: Poisson sampling, ``xi_i = 1`` when labelled). The estimate of the mean of ``y`` is

    theta = mean_i( lam yhat_i + (y_i - lam yhat_i) xi_i / pi_i ),

unbiased whatever the predictions and the probabilities (as long as every ``pi_i > 0``), with standard error
``sd(z_i) / sqrt(N)`` of its terms ``z_i`` (``ddof=0``) and the normal interval: the active inference estimator of
T. Zrnic and E. J. Candès, *Active statistical inference*, ICML 2024 (their Eq. 3, with the power tuning of their
Section 3; the sampling rule "proportional to the model's uncertainty" of their Section 4). ``lam=None`` tunes
``lam`` per column to the least variance of the terms, ``-cov(a, b) / var(b)`` with ``a = y xi / pi`` and
``b = yhat (1 - xi / pi)``, clipped to [0, 1]; ``lam = 1`` is the plain estimator; with every ``pi_i`` equal it is
PPI on a Bernoulli sample.

:func:`inclusion_probabilities` turns an uncertainty per unit into probabilities with an expected ``budget`` of
labels: ``pi_i`` proportional to ``(1 - uniform_share) u_i / sum(u) + uniform_share / N``, the ones above 1 set to
1 and the rest scaled up again until the budget is met. The uniform share keeps every ``pi_i`` above 0 (a unit
never drawn would bias the estimate).
"""

from __future__ import annotations

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.stats.ppi import CONFIDENCE, MIN_LABELLED, MeanEstimate, _columns, effective_n, interval

UNIFORM_SHARE = 0.1  # the default share of the budget spread uniformly


def inclusion_probabilities(uncertainty, budget: float, *, uniform_share: float = UNIFORM_SHARE) -> np.ndarray:
    """Each unit's probability of being labelled, proportional to ``uncertainty`` mixed with a ``uniform_share``,
    summing to ``budget`` (module docstring)."""
    u = np.asarray(uncertainty, dtype=np.float64).ravel()
    if not len(u) or not np.isfinite(u).all() or (u < 0).any():
        raise InputError("the uncertainty: one finite non-negative number per unit is needed")
    if not 0 < budget <= len(u):
        raise InputError(f"the expected number of labels must lie in (0, {len(u)}], not {budget!r}")
    if not 0 <= uniform_share <= 1:
        raise InputError(f"the uniform share must lie between 0 and 1, not {uniform_share!r}")
    if u.sum() == 0:
        u, uniform_share = np.ones_like(u), 1.0
    p = budget * ((1 - uniform_share) * u / u.sum() + uniform_share / len(u))
    full = np.zeros(len(u), dtype=bool)
    while (p > 1 + 1e-12).any():  # cap at 1, spread the excess over the others (terminates: full only grows)
        full |= p >= 1
        rest = ~full
        p[full] = 1.0
        p[rest] *= (budget - full.sum()) / p[rest].sum()
    if not (p > 0).all():
        raise InputError("some units could never be labelled: give a uniform share above 0")
    return np.minimum(p, 1.0)


def active_ppi_mean(
    y,
    yhat,
    labelled,
    probabilities,
    *,
    lam: float | None = None,
    confidence: float = CONFIDENCE,
    alternative: str = "two-sided",
) -> MeanEstimate:
    """The active prediction-powered mean and its interval (module docstring). ``yhat``: the predictions of all
    ``N`` units (a vector, or one column per estimate); ``labelled``: ``N`` booleans, the units people labelled;
    ``y``: their labels, in the order of the units; ``probabilities``: the ``pi_i`` the labelled units were drawn
    with. ``n`` of the result is the number labelled, ``N`` the others."""
    yhat = _columns(yhat, "predictions")
    labelled = np.asarray(labelled, dtype=bool).ravel()
    pi = np.asarray(probabilities, dtype=np.float64).ravel()
    if len(labelled) != len(yhat) or len(pi) != len(yhat):
        raise InputError(f"{len(yhat)} units: as many labelled flags and probabilities are needed")
    if not (np.isfinite(pi).all() and (pi > 0).all() and (pi <= 1).all()):
        raise InputError("the probabilities of labelling must lie in (0, 1]")
    y = _columns(y, "labels")
    n = int(labelled.sum())
    if y.shape != (n, yhat.shape[1]):
        raise InputError(f"{n} units are labelled: labels of shape {(n, yhat.shape[1])} are needed, not {y.shape}")
    if n < MIN_LABELLED:
        raise InputError(f"active inference needs at least {MIN_LABELLED} labelled units, got {n}")
    weight = (labelled / pi)[:, None]
    full = np.zeros_like(yhat)
    full[labelled] = y
    a, b = full * weight, yhat * (1 - weight)
    if lam is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            tuned = -((a - a.mean(0)) * (b - b.mean(0))).mean(0) / b.var(0)
        lam_used = np.clip(np.where(b.var(0) > 0, tuned, 0.0), 0.0, 1.0)
    elif not np.isfinite(lam):
        raise InputError(f"the power parameter lam must be a finite number or None, not {lam!r}")
    else:
        lam_used = np.full(yhat.shape[1], float(lam))
    terms = a + lam_used * b
    estimate, se = terms.mean(0), terms.std(0) / np.sqrt(len(terms))
    lower, upper = interval(estimate, se, confidence, alternative)
    return MeanEstimate(estimate, se, lower, upper, lam_used, n, len(yhat) - n, effective_n(y, se))
