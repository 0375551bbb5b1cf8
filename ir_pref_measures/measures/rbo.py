"""Rank-biased overlap truncated at a fixed depth, in the form the compatibility references use.

``RBO(A, B) = sum_{d=1..D} p^(d-1) |A[:d] & B[:d]| / d  /  sum_{d=1..D} p^(d-1)``

with no extrapolation and no residual; a list shorter than ``d`` contributes its whole prefix. Clarke's
``compatibility.py`` and Luo's ``greedy_pgc.py`` both use ``D = 1000``. Sums accumulate from depth 1
upwards, as the references do (``cumsum`` is a left-to-right sum), so values agree to the last bit.

W. Webber, A. Moffat, J. Zobel. A similarity measure for indefinite rankings. ACM TOIS 28(4), 2010.
C. L. A. Clarke, M. D. Smucker, A. Vtyurina. Offline evaluation by maximum similarity to an ideal
ranking. CIKM 2020.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CHUNK_CELLS = 1 << 21  # queries x depth cells per block of the vectorised sum (bounds memory)


def check_params(p: float, depth: int) -> None:
    """Raise ``ValueError`` unless ``0 < p <= 1`` and ``depth >= 1``."""
    if not 0 < p <= 1:
        raise ValueError(f"RBO persistence p={p} must lie in (0, 1]")
    if int(depth) != depth or depth < 1:
        raise ValueError(f"RBO depth={depth} must be a positive integer")


def _weights(p: float, depth: int) -> tuple[np.ndarray, float]:
    """``p^(d-1)`` for d = 1..depth, as repeated products, and their left-to-right sum."""
    weights = np.cumprod(np.r_[1.0, np.full(depth - 1, float(p))])
    return weights, float(np.cumsum(weights)[-1])


def rbo_sums(query: np.ndarray, shared_at: np.ndarray, n_queries: int, p: float, depth: int) -> np.ndarray:
    """RBO of ``n_queries`` pairs of lists, from the items the two lists of a query share.

    ``query[i]`` is the query of shared item ``i`` and ``shared_at[i]`` the first depth (1-based) at which
    it lies in both prefixes: ``max(position in A, position in B) + 1``. Items of one list only do not
    count and need not be given.
    """
    check_params(p, depth)
    weights, normalizer = _weights(p, depth)
    depths = np.arange(1, depth + 1, dtype=np.float64)
    keep = shared_at <= depth
    query, shared_at = query[keep], shared_at[keep].astype(np.int64)
    order = np.argsort(query, kind="stable")
    query, shared_at = query[order], shared_at[order]
    out = np.zeros(n_queries)
    step = max(1, CHUNK_CELLS // depth)
    for lo in range(0, n_queries, step):
        hi = min(n_queries, lo + step)
        a, b = np.searchsorted(query, [lo, hi])
        cells = (query[a:b] - lo) * depth + shared_at[a:b] - 1
        overlap = np.cumsum(np.bincount(cells, minlength=(hi - lo) * depth).reshape(hi - lo, depth), axis=1)
        out[lo:hi] = np.cumsum(weights * overlap / depths, axis=1)[:, -1]
    return out / normalizer


def self_rbo(lengths: np.ndarray, p: float, depth: int) -> np.ndarray:
    """RBO of a list of each length with itself (the maximum any list can reach against it)."""
    check_params(p, depth)
    weights, normalizer = _weights(p, depth)
    depths = np.arange(1, depth + 1, dtype=np.int64)
    values, inverse = np.unique(np.asarray(lengths, dtype=np.int64), return_inverse=True)
    sums = [float(np.cumsum(weights * np.minimum(depths, n) / depths)[-1]) / normalizer for n in values.tolist()]
    return np.asarray(sums, dtype=np.float64)[inverse.reshape(-1)] if len(values) else np.zeros(0)


def normalized(score: np.ndarray, best: np.ndarray) -> np.ndarray:
    """``score / best``, and 0 where ``best`` is 0 (an empty ideal), as ``compatibility.py`` does."""
    out = np.zeros_like(score)
    np.divide(score, best, out=out, where=best > 0)
    return out


def rbo(a: Sequence, b: Sequence, p: float = 0.95, depth: int = 1000, normalize: bool = False) -> float:
    """RBO of two lists of distinct items; with ``normalize``, divided by ``RBO(b, b)``.

    ``b`` plays the ideal: ``compatibility.py`` scores ``rbo(run, ideal) / rbo(ideal, ideal)``.
    """
    pos_b = {item: i for i, item in enumerate(b)}
    if len(pos_b) != len(b) or len(set(a)) != len(a):
        raise ValueError("rbo() needs lists of distinct items")
    shared = [max(i, pos_b[item]) + 1 for i, item in enumerate(a) if item in pos_b]
    value = rbo_sums(np.zeros(len(shared), np.int64), np.asarray(shared, np.int64), 1, p, depth)
    if normalize:
        value = normalized(value, self_rbo(np.asarray([len(b)]), p, depth))
    return float(value[0])
