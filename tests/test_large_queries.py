"""Large single queries (issue 11): combined graphs without derived edges, closure budgets, bounded depths."""

from __future__ import annotations

import numpy as np
import pytest

from ir_pref_measures.measures.greedy_fas import greedy_fas_order, layered_greedy_fas_order


def _listed(n, src, dst, grades, bad):
    """Explicit edges plus every derived edge a -> b (grade(a) > grade(b), a not bad), sorted by (src, dst)."""
    a, b = (x.ravel() for x in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    derived = (grades[a] > grades[b]) & ~bad[a]
    s, d = np.r_[src, a[derived]], np.r_[dst, b[derived]]
    order = np.lexsort((d, s))
    return s[order], d[order]


@pytest.mark.parametrize("seed", range(4))
def test_layered_greedy_fas_is_the_greedy_fas_of_the_listed_graph(seed):
    rng = np.random.default_rng(seed)
    for _ in range(400):
        n = int(rng.integers(1, 40))
        scale = 0.5 if rng.random() < 0.5 else 1.0
        grades = rng.integers(0, rng.integers(1, 8), n).astype(float) * scale
        grades[rng.random(n) < rng.random() * 0.5] = np.nan
        bad = rng.random(n) < rng.random() * 0.3
        m = int(rng.integers(0, 3 * n))
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        if rng.random() < 0.7:
            src, dst = src[src != dst], dst[src != dst]
        src, dst = src[~bad[src]], dst[~bad[src]]  # good edges never leave a bad doc
        priority = rng.permutation(n)
        expected = greedy_fas_order(n, *_listed(n, src, dst, grades, bad), priority)
        assert layered_greedy_fas_order(n, src, dst, priority, grades, bad).tolist() == expected.tolist()


def _direct_rbo_sums(query, shared_at, n_queries, p, depth):
    """The one-block form (every depth summed at once), as rbo.py computed it before depths were chunked."""
    weights = np.cumprod(np.r_[1.0, np.full(depth - 1, float(p))])
    keep = shared_at <= depth
    cells = query[keep] * depth + shared_at[keep] - 1
    overlap = np.cumsum(np.bincount(cells, minlength=n_queries * depth).reshape(n_queries, depth), axis=1)
    return (
        np.cumsum(weights * overlap / np.arange(1, depth + 1, dtype=np.float64), axis=1)[:, -1] / np.cumsum(weights)[-1]
    )


@pytest.mark.parametrize("chunk", [1, 5, 64, 1 << 16])
def test_rbo_by_depth_chunks_is_bit_identical(monkeypatch, chunk):
    from ir_pref_measures.measures import rbo

    monkeypatch.setattr(rbo, "DEPTH_CHUNK", chunk)
    rng = np.random.default_rng(chunk)
    for _ in range(100):
        n_queries, depth = int(rng.integers(1, 5)), int(rng.integers(1, 3000))
        p = float(rng.choice([0.5, 0.9, 0.95, 0.999, 1.0, rng.random()]))
        m = int(rng.integers(0, 60))
        query, shared_at = rng.integers(0, n_queries, m), rng.integers(1, 400, m)
        expected = _direct_rbo_sums(query, shared_at, n_queries, p, depth)
        assert rbo.rbo_sums(query, shared_at, n_queries, p, depth).tolist() == expected.tolist()
        lengths = rng.integers(0, 500, 4)
        direct = [_direct_rbo_sums(np.zeros(n, np.int64), np.arange(1, n + 1), 1, p, depth)[0] for n in lengths]
        assert rbo.self_rbo(lengths, p, depth).tolist() == direct


def test_a_huge_rbo_depth_costs_what_the_data_needs():
    from ir_pref_measures.measures import rbo

    rng = np.random.default_rng(7)
    query, shared_at = rng.integers(0, 20, 2000), rng.integers(1, 3000, 2000)
    expected = _direct_rbo_sums(query, shared_at, 20, 0.95, 200_000)
    assert rbo.rbo_sums(query, shared_at, 20, 0.95, 10**9).tolist() == expected.tolist()  # settled long before
    assert (
        rbo.self_rbo(np.array([0, 5, 3000]), 0.95, 10**12).tolist()
        == rbo.self_rbo(np.array([0, 5, 3000]), 0.95, 200_000).tolist()
    )
