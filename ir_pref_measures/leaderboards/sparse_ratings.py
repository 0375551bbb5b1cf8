"""Bradley-Terry with an L2 prior from a list of battles, by sparse Newton steps that may start anywhere.

The model and objective are those of :func:`ir_pref_measures.leaderboards.ratings.bradley_terry`: maximise
``sum_k w_k log sigmoid(beta_a - beta_b) + l_k log sigmoid(beta_b - beta_a) - prior / 2 |beta|^2`` over the
battles ``k = (a, b)`` with points ``w_k`` of a and ``l_k`` of b (a tie: a half each). With ``prior > 0`` the
objective is strictly concave, so the maximum is unique and Newton's method with step halving reaches it from any
start. The Hessian is a weighted graph Laplacian plus ``prior I``: it has one nonzero per doc and two per pair
played, and its eigenvalues are at least ``prior``, so ``|beta - maximum| <= |gradient| / prior``: Newton stops
when that bound is below the tolerance. Each step solves the Hessian system by conjugate gradients with a diagonal
(Jacobi) preconditioner, to a relative residual ``min(0.1, |gradient|)`` (an inexact Newton method that keeps
quadratic convergence; Dembo, Eisenstat and Steihaug, SIAM J. Numer. Anal. 1982), falling back to SuperLU if they
stall: a sparse LU fills in on a random comparison graph and is a hundred times slower. Started from the ratings of
a few battles fewer (a warm start), Newton converges in one to three steps.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csc_array, dia_array
from scipy.sparse.linalg import cg, spsolve
from scipy.special import expit, log_expit
from threadpoolctl import threadpool_limits

SPARSE_TOLERANCE = 1e-10  # the largest distance |beta - maximum| (Euclidean) at which Newton stops
MAX_STEPS = 100


def battles_log_likelihood(
    beta: np.ndarray, first: np.ndarray, second: np.ndarray, points: np.ndarray, prior: float
) -> float:
    """The penalised log-likelihood of ``beta`` given battles ``first[k]`` vs ``second[k]`` with ``points[k]``
    (the points of first and of second)."""
    difference = beta[first] - beta[second]
    return float(points[:, 0] @ log_expit(difference) + points[:, 1] @ log_expit(-difference) - prior / 2 * beta @ beta)


def bradley_terry_battles(
    first: np.ndarray,
    second: np.ndarray,
    points: np.ndarray,
    n: int,
    prior: float,
    start: np.ndarray | None = None,
    tolerance: float = SPARSE_TOLERANCE,
) -> np.ndarray:
    """The maximum ``beta`` (length ``n``) of the module's objective, Newton's method from ``start`` (zeros by
    default) until ``beta`` is within ``tolerance`` of the maximum (Euclidean distance). ``prior`` must be
    positive."""
    with threadpool_limits(1, user_api="blas"):  # vectors of a few thousand: threads of a busy machine only slow
        return _newton(first, second, points, n, prior, start, tolerance)


def _newton(first, second, points, n: int, prior: float, start, tolerance: float) -> np.ndarray:
    if prior <= 0:
        raise ValueError(f"the sparse Bradley-Terry fit needs a positive prior, not {prior}")
    first, second = np.asarray(first, dtype=np.int64), np.asarray(second, dtype=np.int64)
    points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    beta = np.zeros(n) if start is None else np.array(start, dtype=np.float64)
    games = points.sum(axis=1)
    wins = np.bincount(first, points[:, 0], n) + np.bincount(second, points[:, 1], n)
    rows = np.concatenate([first, second, first, second, np.arange(n)])
    columns = np.concatenate([second, first, first, second, np.arange(n)])
    likelihood = battles_log_likelihood(beta, first, second, points, prior)
    for _ in range(MAX_STEPS):
        p = expit(beta[first] - beta[second])
        expected = np.bincount(first, games * p, n) + np.bincount(second, games * (1 - p), n)
        gradient = wins - expected - prior * beta
        norm = float(np.sqrt(gradient @ gradient))
        if norm <= tolerance * prior:
            return beta
        curvature = games * p * (1 - p)
        values = np.concatenate([-curvature, -curvature, curvature, curvature, np.full(n, float(prior))])
        hessian = csc_array((values, (rows, columns)), shape=(n, n))  # duplicates are summed
        step = newton_step(hessian, gradient, min(0.1, norm))
        size = 1.0
        for _halving in range(60):
            trial = beta + size * step
            after = battles_log_likelihood(trial, first, second, points, prior)
            if after >= likelihood - 1e-12 * abs(likelihood):
                break
            size /= 2
        beta, likelihood = trial, after
    raise ValueError("the sparse Bradley-Terry iterations did not converge")


def newton_step(hessian: csc_array, gradient: np.ndarray, rtol: float) -> np.ndarray:
    """The solution of ``hessian @ step = gradient`` (symmetric positive definite) to a relative residual ``rtol``:
    Jacobi-preconditioned conjugate gradients, or SuperLU when they do not reach it."""
    preconditioner = dia_array((1.0 / hessian.diagonal(), 0), shape=hessian.shape)
    step, info = cg(hessian, gradient, rtol=rtol, atol=0.0, maxiter=10 * len(gradient), M=preconditioner)
    return step if info == 0 else spsolve(hessian, gradient)
