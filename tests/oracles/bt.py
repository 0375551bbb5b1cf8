"""A direct Bradley-Terry maximum-likelihood solve, the oracle of the leaderboard tests.

Straight from the definition, battle by battle: the log-likelihood of the battles (a tie half a win each way,
weights as multipliers) over the log-strengths of systems 1..n-1, system 0 pinned at 0 (another gauge than the
library's mean 0), maximised by Newton's method (steps halved while the objective rises) with the gradient and
Hessian summed per battle in Python loops; the result is then centred.
"""

from __future__ import annotations

import math

import numpy as np


def bradley_terry(battles: list[tuple[int, int, float, float]], n: int, prior: float = 0.0) -> np.ndarray:
    """``battles``: ``(a, b, outcome, weight)``; returns beta (natural log) with mean 0. ``prior``: an L2 penalty
    ``prior / 2 * sum(beta^2)`` (then no system is pinned)."""
    free = n if prior > 0 else n - 1

    def full(x: np.ndarray) -> np.ndarray:
        return x if prior > 0 else np.concatenate([[0.0], x])

    def negative(x: np.ndarray):
        beta = full(x)
        value, gradient, hessian = 0.0, np.zeros(n), np.zeros((n, n))
        for a, b, s, w in battles:
            d = beta[a] - beta[b]
            p = 1.0 / (1.0 + math.exp(-d))
            value -= w * (s * math.log(p) + (1 - s) * math.log(1 - p))
            gradient[a] -= w * (s - p)
            gradient[b] += w * (s - p)
            c = w * p * (1 - p)
            hessian[a, a] += c
            hessian[b, b] += c
            hessian[a, b] -= c
            hessian[b, a] -= c
        value += prior / 2 * float(beta @ beta)
        gradient += prior * beta
        hessian += prior * np.eye(n)
        cut = n - free
        return value, gradient[cut:], hessian[cut:, cut:]

    x = np.zeros(free)
    for _ in range(500):  # Newton's method, steps halved while the objective rises
        value, gradient, hessian = negative(x)
        step = np.linalg.solve(hessian, gradient)
        if np.abs(step).max() < 1e-12:
            break
        size = 1.0
        while negative(x - size * step)[0] > value + 1e-13 * abs(value) and size > 1e-12:
            size /= 2
        x = x - size * step
    else:
        raise AssertionError("no convergence")
    beta = full(x)
    return beta - beta.mean()
