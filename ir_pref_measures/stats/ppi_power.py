"""Planning prediction-powered inference: how many people's and LLM judgments a target needs at given prices.

A pilot of ``n`` units judged by both people (``y``) and the LLM (``yhat``) gives the *PPI correlation* ``rho``,
Pearson's correlation of ``y`` and ``yhat`` (population moments, weights as ``ppi_py``'s, capped at ``1 - 1/n``).
A PPI mean with ``n`` people's labels and ``N`` further LLM-only units, with the best power parameter, has the
variance of the people-only mean of

    effective_n = n (n + N) / (n + (1 - rho^2) N)

labels (D. Broska, M. Howes, A. van Loon, *The mixed subjects design: treating large language models as
(potentially) informative observations*, SocArXiv j3bnt, 2024). With a person's label costing ``cost_people``, an
LLM judgment ``cost_llm`` (every unit gets one, the people's included) and a unit itself ``cost_unit``, the
cheapest ``(n, N)`` reaching a target ``effective_n`` (or the largest ``effective_n`` a ``budget`` buys) is
:func:`ppi_power`: the closed form of Broska et al. as ``ppi_py.ppi_power`` computes it at its GitHub HEAD
(bd90caa, 2026-02), rounding included (Python's ``round``, half to even), with the optional cap ``n + N <= n_max``.
:func:`ppi_mean_power` takes the pilot's labels, as ``ppi_py.ppi_mean_power``. Every output equals ppi_py's.

A target width or power fixes ``effective_n`` through the people-only normal interval: a two-sided interval of
width ``2 z_{1-alpha/2} sigma / sqrt(n0)`` (:func:`labels_for_width`), or a z-test detecting a difference ``delta``
with power ``1 - beta``, ``n0 = ((z_{1-alpha/2} + z_{1-beta}) sigma / delta)^2`` (:func:`labels_for_power`), both
rounded up; ``sigma^2`` is the pilot people's variance (``ddof=1``). A difference between two runs is the mean of
the per-unit difference: pass the pilot's differences.

PPI++ as :func:`~ir_pref_measures.stats.ppi.ppi_mean` tunes it clips the power parameter to [0, 1], so a negative
correlation saves nothing there although these formulas (which use ``rho^2``) count it.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.stats.ppi import MIN_LABELLED


@dataclass(frozen=True)
class Plan:
    """``n`` people's labels (each unit also judged by the LLM), ``N`` units judged by the LLM alone, their total
    ``cost``, the ``effective_n`` they give (people-only labels of the same variance) and the ``ppi_corr`` used."""

    n: int
    N: int
    cost: float
    effective_n: int
    ppi_corr: float


def ppi_correlation(y, yhat, w=None) -> float:
    """The PPI correlation of a pilot (module docstring): ``ppi_py``'s ``_get_ppi_corr`` for the mean."""
    y, yhat = _pilot(y, yhat)
    n = len(y)
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64).ravel()
    if len(w) != n or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise InputError(f"weights: {n} non-negative weights with a positive sum are needed")
    w = w / w.sum() * n
    centre = np.sum(w * y) / np.sum(w)
    grads, grads_hat = w * (y - centre), w * (yhat - centre)
    grads, grads_hat = grads - grads.mean(), grads_hat - grads_hat.mean()
    denominator = math.sqrt(np.mean(grads**2) * np.mean(grads_hat**2))
    if denominator == 0:
        raise InputError("the pilot's people's or LLM's values do not vary: no correlation to plan with")
    return float(min(np.mean(grads * grads_hat) / denominator, 1 - 1 / n))


def _pilot(y, yhat) -> tuple[np.ndarray, np.ndarray]:
    y, yhat = np.asarray(y, dtype=np.float64), np.asarray(yhat, dtype=np.float64)
    if y.ndim != 1 or y.shape != yhat.shape:
        raise InputError(f"the pilot needs one people's and one LLM value per unit, got shapes {y.shape}, {yhat.shape}")
    if len(y) < MIN_LABELLED or not (np.isfinite(y).all() and np.isfinite(yhat).all()):
        raise InputError(f"the pilot needs at least {MIN_LABELLED} units with finite values")
    return y, yhat


def _costs(ppi_corr: float, cost_unit: float, cost_people: float, cost_llm: float) -> tuple[float, float, float]:
    """``gamma`` (an LLM-judged unit's price over a label's), PPI's and the classical cost per effective label."""
    for name, value in (("cost_people", cost_people), ("cost_llm", cost_llm), ("cost_unit", cost_unit)):
        if not (math.isfinite(value) and value >= 0):
            raise InputError(f"{name} must be a finite non-negative number, not {value!r}")
    if cost_people <= 0:
        raise InputError(f"cost_people must be positive, not {cost_people!r}")
    gamma = (cost_llm + cost_unit) / cost_people
    if gamma == 0 and ppi_corr != 0:
        raise InputError("free LLM-judged units make an unbounded number of them optimal: give cost_llm > 0")
    r2 = ppi_corr**2
    ppi_cost = cost_people * (1 - r2 + gamma * r2 + 2 * (gamma * r2 * (1 - r2)) ** 0.5)
    return gamma, ppi_cost, cost_people + cost_unit


def _effective(n: float, big_n: float, r2: float) -> int:
    return round(n * (n + big_n) / (n + (1 - r2) * big_n))


def _optimal_pair(n0: float, ppi_corr: float, gamma: float, cost_unit, cost_people, cost_llm) -> Plan:
    """The cheapest pair with the variance of ``n0`` labels (before the caps)."""
    r2 = ppi_corr**2
    n = n0 * (1 - r2 + np.sqrt(gamma * r2 * (1 - r2)))
    big_n = n * (n0 - n) / (n - (1 - r2) * n0) if ppi_corr != 0 else 0
    n, big_n = round(n), round(big_n)
    cost = n * cost_people + (n + big_n) * (cost_llm + cost_unit)
    return Plan(n, big_n, cost, _effective(n, big_n, r2), ppi_corr)


def ppi_power(
    ppi_corr: float,
    cost_people: float,
    cost_llm: float,
    *,
    cost_unit: float = 0.0,
    budget: float | None = None,
    effective_n: float | None = None,
    n_max: int | None = None,
) -> Plan:
    """The cheapest ``(n, N)`` reaching ``effective_n``, or with ``budget`` the most powerful pair it buys (used
    when both are given); ``n_max`` caps ``n + N`` (module docstring; ``ppi_py.ppi_power`` with ``cost_X =
    cost_unit``, ``cost_Y = cost_people``, ``cost_Yhat = cost_llm``)."""
    if budget is None and effective_n is None:
        raise InputError("planning needs a budget or a target effective sample size")
    if not -1 < ppi_corr < 1:
        raise InputError(f"the PPI correlation must lie strictly between -1 and 1, not {ppi_corr!r}")
    target = budget if budget is not None else effective_n
    if not (target is not None and math.isfinite(target) and target > 0):
        raise InputError(f"the {'budget' if budget is not None else 'effective sample size'} must be positive")
    gamma, ppi_cost, classical_cost = _costs(ppi_corr, cost_unit, cost_people, cost_llm)
    n0 = target / ppi_cost if budget is not None else target
    plan = _optimal_pair(n0, ppi_corr, gamma, cost_unit, cost_people, cost_llm)
    if classical_cost < ppi_cost or plan.N < 0:
        n = round(target / classical_cost) if budget is not None else round(n0)
        plan = Plan(n, 0, n * classical_cost, n, ppi_corr)
    if n_max is None or plan.n + plan.N <= n_max:
        return plan
    r2 = ppi_corr**2
    if budget is not None:
        if n_max * classical_cost <= target:
            return Plan(n_max, 0, n_max * classical_cost, n_max, ppi_corr)
        n = round(target / cost_people - n_max * gamma)
    else:
        if target > n_max:
            warnings.warn(
                f"an effective sample size of {target} needs more than n_max = {n_max} units: planned "
                f"{n_max} people's labels and no LLM-only unit",
                UserWarning,
                stacklevel=2,
            )
            return Plan(n_max, 0, n_max * classical_cost, n_max, ppi_corr)
        n = round(n0 * n_max * (1 - r2) / (n_max - r2 * n0))
    big_n = n_max - n
    cost = n * (cost_people + cost_llm + cost_unit) + big_n * (cost_llm + cost_unit)
    return Plan(n, big_n, cost, _effective(n, big_n, r2), ppi_corr)


def ppi_mean_power(
    y,
    yhat,
    cost_people: float,
    cost_llm: float,
    *,
    budget: float | None = None,
    effective_n: float | None = None,
    n_max: int | None = None,
    w=None,
) -> Plan:
    """:func:`ppi_power` at the pilot's :func:`ppi_correlation` (``ppi_py.ppi_mean_power``: no unit cost)."""
    return ppi_power(
        ppi_correlation(y, yhat, w), cost_people, cost_llm, budget=budget, effective_n=effective_n, n_max=n_max
    )


def _z(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))


def labels_for_width(width: float, variance: float, confidence: float = 0.95) -> int:
    """People-only labels whose two-sided normal interval has at most ``width``: ``ceil((2 z sigma / width)^2)``."""
    if not (width > 0 and variance >= 0 and 0 < confidence < 1):
        raise InputError("a positive width, a non-negative variance and a confidence in (0, 1) are needed")
    return max(MIN_LABELLED, math.ceil((2 * _z(1 - (1 - confidence) / 2)) ** 2 * variance / width**2))


def labels_for_power(difference: float, variance: float, power: float = 0.8, alpha: float = 0.05) -> int:
    """People-only labels for a two-sided z-test at level ``alpha`` to detect ``difference`` with ``power``:
    ``ceil(((z_{1-alpha/2} + z_power) sigma / difference)^2)``."""
    if not (difference != 0 and variance >= 0 and 0 < power < 1 and 0 < alpha < 1):
        raise InputError("a non-zero difference, a non-negative variance, and power and alpha in (0, 1) are needed")
    z = _z(1 - alpha / 2) + _z(power)
    return max(MIN_LABELLED, math.ceil(z**2 * variance / difference**2))
