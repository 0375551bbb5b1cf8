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

CHUNK_CELLS = 1 << 18  # queries x depth cells per block of the vectorised sum (bounds memory: 2 MB arrays)
DEPTH_CHUNK = 1 << 16  # depths per block of that sum: memory never grows with the depth asked for


def check_params(p: float, depth: int) -> None:
    """Raise ``ValueError`` unless ``0 < p <= 1`` and ``depth >= 1``."""
    if not 0 < p <= 1:
        raise ValueError(f"RBO persistence p={p} must lie in (0, 1]")
    if int(depth) != depth or depth < 1:
        raise ValueError(f"RBO depth={depth} must be a positive integer")


def _depth_chunks(p: float, depth: int):
    """``(lo, hi, weights)``: the weights ``p^(d-1)`` for d = lo+1..hi, as repeated products, in chunks of
    at most ``DEPTH_CHUNK`` depths (callers stop early: see :func:`_settled`)."""
    lo, last = 0, None
    while lo < depth:
        hi = min(depth, lo + DEPTH_CHUNK)
        if last is None:
            weights = np.cumprod(np.r_[1.0, np.full(hi - lo - 1, float(p))])
        else:
            weights = np.cumprod(np.r_[last, np.full(hi - lo, float(p))])[1:]
        yield lo, hi, weights
        last = weights[-1]
        lo = hi


def _settled(total: np.ndarray, final: np.ndarray, weight: float) -> bool:
    """True when no later term can change any running sum: each later term is at most about ``weight``
    (weights never grow; an overlap at depth d is at most d), and a term below half the gap to the next
    float above a sum leaves that sum as it is. ``final`` marks the rows whose terms are not all 0 from
    here on. This is what bounds a huge ``depth`` by the data: with p = 0.95 the sums settle near depth
    800, whatever depth was asked for; with p = 1 they never do, and every depth is summed (memory stays
    bounded, time grows with the depth)."""
    total = total[final]
    return bool(np.all(4.0 * weight < np.nextafter(total, np.inf) - total))


def _running_sum(carry: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """Per row, ``carry`` plus the row of ``terms`` added left to right (what ``cumsum(...)[-1]`` gives)."""
    return np.cumsum(np.concatenate([carry[:, None], terms], axis=1), axis=1)[:, -1]


def _normalizer(p: float, depth: int) -> float:
    """``sum_{d=1..depth} p^(d-1)``, left to right."""
    total = np.zeros(1)
    for _, _, weights in _depth_chunks(p, depth):
        total = _running_sum(total, weights[None, :])
        if _settled(total, np.ones(1, bool), weights[-1]):
            break
    return float(total[0])


def rbo_sums(query: np.ndarray, shared_at: np.ndarray, n_queries: int, p: float, depth: int) -> np.ndarray:
    """RBO of ``n_queries`` pairs of lists, from the items the two lists of a query share.

    ``query[i]`` is the query of shared item ``i`` and ``shared_at[i]`` the first depth (1-based) at which
    it lies in both prefixes: ``max(position in A, position in B) + 1``. Items of one list only do not
    count and need not be given. Memory is bounded whatever ``depth``: depths are summed a chunk at a
    time, carrying each query's overlap and running sum, in the same order as one ``cumsum`` would.
    """
    check_params(p, depth)
    depth = int(depth)
    normalizer = _normalizer(p, depth)
    keep = shared_at <= depth
    query, shared_at = query[keep], shared_at[keep].astype(np.int64)
    order = np.argsort(query, kind="stable")
    query, shared_at = query[order], shared_at[order]
    out = np.zeros(n_queries)
    step = max(1, CHUNK_CELLS // min(depth, DEPTH_CHUNK))
    for lo in range(0, n_queries, step):
        hi = min(n_queries, lo + step)
        a, b = np.searchsorted(query, [lo, hi])
        rows, at = query[a:b] - lo, shared_at[a:b]
        total = np.zeros(hi - lo)
        seen = np.zeros(hi - lo, dtype=np.int64)
        last_shared = int(at.max()) if len(at) else 0
        for d_lo, d_hi, weights in _depth_chunks(p, depth):
            width = d_hi - d_lo
            inside = (at > d_lo) & (at <= d_hi)
            cells = rows[inside] * width + at[inside] - 1 - d_lo
            counts = np.bincount(cells, minlength=(hi - lo) * width).reshape(hi - lo, width)
            overlap = np.cumsum(counts, axis=1) + seen[:, None]
            depths = np.arange(d_lo + 1, d_hi + 1, dtype=np.float64)
            total = _running_sum(total, weights * overlap / depths)
            seen = overlap[:, -1]
            if d_hi >= last_shared and _settled(total, seen > 0, weights[-1]):
                break
        out[lo:hi] = total
    return out / normalizer


def self_rbo(lengths: np.ndarray, p: float, depth: int) -> np.ndarray:
    """RBO of a list of each length with itself (the maximum any list can reach against it)."""
    check_params(p, depth)
    depth = int(depth)
    normalizer = _normalizer(p, depth)
    values, inverse = np.unique(np.asarray(lengths, dtype=np.int64), return_inverse=True)
    if not len(values):
        return np.zeros(0)
    total = np.zeros(len(values))
    for d_lo, d_hi, weights in _depth_chunks(p, depth):
        depths = np.arange(d_lo + 1, d_hi + 1, dtype=np.int64)
        total = _running_sum(total, weights * np.minimum(depths, values[:, None]) / depths)
        if d_hi >= values[-1] and _settled(total, values > 0, weights[-1]):
            break
    return (total / normalizer)[inverse.reshape(-1)]


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
