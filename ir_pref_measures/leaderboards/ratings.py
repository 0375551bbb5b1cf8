"""Ratings from pairwise outcomes (battles): Bradley-Terry maximum likelihood, online Elo, win-rate matrices.

A battle is ``(a, b, outcome, weight)``: systems ``a`` and ``b`` (integer codes), ``outcome`` 1 when a wins,
0 when b wins, 0.5 for a tie (half a win each way), and a positive weight. Battles enter the Bradley-Terry
model only through the *points matrix* ``W[i, j]``, the weighted wins of i over j (ties counting half):
:func:`points_matrix`.

* Bradley-Terry (Bradley and Terry, Biometrika 1952; Hunter, Ann. Statist. 2004): ``P(i beats j) =
  1 / (1 + exp(beta_j - beta_i))``; :func:`bradley_terry` maximises ``sum_ij W[i, j] log P(i beats j) -
  prior / 2 * sum_i beta_i^2`` by Newton's method with a backtracking line search, to machine precision, with
  ``mean(beta) = 0``. The Elo scale is ``1000 + 400 * log10(strength)`` = ``1000 + 400 beta / ln 10``
  (:func:`elo_scale`), as Chatbot Arena reports it (Chiang et al., ICML 2024).
* Without a prior the maximum exists and is unique if and only if the directed graph "i beat j at least
  once" is strongly connected (Zermelo 1929; Ford, Amer. Math. Monthly 1957): :func:`identifiability`
  names the systems that break it. With ``prior > 0`` (an L2 penalty, as the style-controlled ratings of
  Chatbot Arena use) the maximum always exists.
* Online Elo (Elo 1978), with FastChat's defaults ``k=4, base=10, scale=400, init=1000``: :func:`online_elo`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components
from scipy.special import expit, log_expit
from threadpoolctl import threadpool_limits

from ir_pref_measures.errors import InputError

INIT = 1000.0
SCALE = 400.0
BASE = 10.0
ELO_K = 4.0
STEP_TOLERANCE = 1e-11  # Newton stops when no log-strength moves by more than this (1e-9 Elo points)
MAX_NEWTON = 200


def points_matrix(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, weight: np.ndarray, n: int) -> np.ndarray:
    """``W[i, j]``: the summed ``weight * outcome`` of battles i vs j plus ``weight * (1 - outcome)`` of battles
    j vs i (the points of i against j; a tie gives each side half)."""
    points = np.bincount(a * n + b, weight * outcome, minlength=n * n)
    points += np.bincount(b * n + a, weight * (1.0 - outcome), minlength=n * n)
    return points.reshape(n, n)


def log_likelihood(beta: np.ndarray, points: np.ndarray, prior: float = 0.0) -> np.ndarray:
    """``sum_ij W[i, j] log sigmoid(beta_i - beta_j) - prior / 2 |beta|^2``, over the last axes (batched)."""
    differences = beta[..., :, None] - beta[..., None, :]
    return (points * log_expit(differences)).sum(axis=(-2, -1)) - prior / 2 * (beta**2).sum(axis=-1)


def bradley_terry(points: np.ndarray, prior: float = 0.0, tolerance: float = STEP_TOLERANCE) -> np.ndarray:
    """The maximum-likelihood log-strengths ``beta`` (natural log, mean 0) of points matrices ``points``
    (``(n, n)`` or a batch ``(..., n, n)``): Newton's method on the concave log-likelihood, steps halved until
    the likelihood does not fall, until no ``beta`` moves by more than ``tolerance``.

    The caller checks :func:`identifiability` first when ``prior`` is 0: otherwise there is no maximum and a
    :class:`ValueError` says the iterations did not converge.
    """
    with threadpool_limits(1, user_api="blas"):  # small solves: threads of a busy machine only slow them down
        return _newton(np.asarray(points, dtype=np.float64), prior, tolerance)


def _newton(points: np.ndarray, prior: float, tolerance: float) -> np.ndarray:
    shape, n = points.shape[:-2], points.shape[-1]
    points = points.reshape(-1, n, n)
    if prior == 0:
        points = unit_points(points)
    games = points + np.swapaxes(points, -1, -2)
    wins = points.sum(axis=-1)
    beta = np.zeros((len(points), n))
    gauge = 0.0 if prior > 0 else 1.0 / n  # the rank-one term fixes sum(beta) = 0 without a prior
    active = np.arange(len(points))
    for _ in range(MAX_NEWTON):
        if not len(active):
            return beta.reshape(*shape, n)
        b, w, g = beta[active], points[active], games[active]
        p = expit(b[:, :, None] - b[:, None, :])
        gradient = wins[active] - (g * p).sum(axis=-1) - prior * b
        curvature = g * p * (1.0 - p)
        hessian = -curvature
        hessian[:, np.arange(n), np.arange(n)] = curvature.sum(axis=-1) + prior
        step = np.linalg.solve(hessian + gauge, gradient[..., None])[..., 0]
        step -= step.mean(axis=-1, keepdims=True) if prior == 0 else 0.0
        before = log_likelihood(b, w, prior)
        size = np.ones(len(active))
        for _halving in range(60):
            trial = b + size[:, None] * step
            worse = log_likelihood(trial, w, prior) < before - 1e-12 * np.abs(before)
            if not worse.any():
                break
            size[worse] /= 2
        beta[active] = trial
        moved = np.abs(size[:, None] * step).max(axis=-1)
        active = active[moved > tolerance]
    raise ValueError("the Bradley-Terry iterations did not converge: is the comparison graph identifiable?")


def unit_points(points: np.ndarray) -> np.ndarray:
    """Each points matrix of a batch ``(k, n, n)`` multiplied by a power of two that brings its total near n^2
    (one point per pair of systems): without a prior the maximum-likelihood ratings do not depend on the scale of
    the weights, and on this scale Newton's steps neither underflow (weights of 1e-300) nor overflow (1e300); a
    power of two changes no value but the exponent."""
    _, exponent = np.frexp(points.sum(axis=(-2, -1)))
    _, target = np.frexp(float(points.shape[-1] ** 2))
    shift = np.where(exponent != 0, target - exponent, 0)  # an empty matrix (no battle) stays as it is
    return np.ldexp(points, shift[:, None, None])


def identifiability(points: np.ndarray, names: Sequence[str]) -> str | None:
    """Why the maximum-likelihood ratings of ``points`` do not exist, or ``None`` when they do.

    They exist if and only if for every split of the systems into two groups each group won at least once
    against the other (Ford 1957): the graph with an edge i -> j when ``W[i, j] > 0`` is strongly connected.
    The message names the groups of systems that never met, or the systems that never lose (never win) against
    the rest."""
    n = len(names)
    if n < 2:
        return f"a rating needs at least two systems; the battles have {n}"
    systems = np.asarray(names, dtype=object)
    graph = coo_array(points > 0)
    parts, label = connected_components(graph, directed=True, connection="weak")
    if parts > 1:
        groups = [_listed(systems[label == k]) for k in range(parts)]
        return f"the comparison graph is not connected: these groups of systems never met: {'; '.join(groups)}"
    parts, label = connected_components(graph, directed=True, connection="strong")
    if parts == 1:
        return None
    beaten = points > 0  # beaten[i, j]: i beat j at least once
    across = label[:, None] != label[None, :]
    top = [k for k in range(parts) if not (beaten & across)[:, label == k].any()]  # nobody outside beat them
    bottom = [k for k in range(parts) if not (beaten & across)[label == k, :].any()]  # they beat nobody outside
    lines = [_who(systems[label == k], "never lost", "to a system outside their group") for k in top]
    lines += [_who(systems[label == k], "never won", "against a system outside their group") for k in bottom]
    return "the battles have no finite maximum-likelihood rating: " + "; ".join(lines)


def _listed(names: np.ndarray, limit: int = 10) -> str:
    shown = ", ".join(sorted(map(str, names))[:limit])
    return "{" + shown + (f", ... ({len(names)} systems)" if len(names) > limit else "") + "}"


def _who(names: np.ndarray, verb: str, outside: str) -> str:
    if len(names) == 1:
        return f"system {names[0]!s} {verb} a battle"
    return f"systems {_listed(names)} {verb} {outside}"


def check_identifiable(points: np.ndarray, names: Sequence[str]) -> None:
    """Raise :class:`InputError` with :func:`identifiability`'s reason, and the remedy, when there is one."""
    reason = identifiability(points, names)
    if reason is not None:
        raise InputError(
            reason,
            expected="battles in which every group of systems won and lost against the rest, or a prior (--prior)",
        )


def elo_scale(beta: np.ndarray, init: float = INIT, scale: float = SCALE, base: float = BASE) -> np.ndarray:
    """Log-strengths (natural log) on the Elo scale: ``init + scale * beta / ln(base)``."""
    return init + scale * np.asarray(beta) / math.log(base)


def online_elo(
    a: np.ndarray,
    b: np.ndarray,
    outcome: np.ndarray,
    n: int,
    weight: np.ndarray | None = None,
    *,
    k: float = ELO_K,
    base: float = BASE,
    scale: float = SCALE,
    init: float = INIT,
) -> np.ndarray:
    """Online Elo ratings after the battles in their order: ``e = 1 / (1 + base^((r_b - r_a) / scale))``,
    ``r_a += k w (outcome - e)``, ``r_b -= k w (outcome - e)``, from ``init`` for every system (FastChat's
    ``compute_elo``, with a weight per battle). The result depends on the order of the battles."""
    alpha = math.log(base) / scale
    ratings = [init] * n
    weights = [1.0] * len(a) if weight is None else np.asarray(weight, dtype=np.float64).tolist()
    for i, j, s, w in zip(a.tolist(), b.tolist(), np.asarray(outcome, dtype=np.float64).tolist(), weights, strict=True):
        update = k * w * (s - 1.0 / (1.0 + math.exp(alpha * (ratings[j] - ratings[i]))))
        ratings[i] += update
        ratings[j] -= update
    return np.array(ratings)


def win_rates(points: np.ndarray) -> np.ndarray:
    """``W[i, j] / (W[i, j] + W[j, i])``: the share of points i took from its battles against j (NaN when
    they never met)."""
    games = points + points.T
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(games > 0, points / games, np.nan)


def predicted_win_probability(beta: np.ndarray) -> np.ndarray:
    """``P[i, j] = 1 / (1 + exp(beta_j - beta_i))``: the model's probability that i beats j in a battle."""
    return expit(beta[:, None] - beta[None, :])
