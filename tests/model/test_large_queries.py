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


COUNT_FIELDS = ("offsets", "rank", "correct", "ordered", "gain", "preferred", "total", "unretrieved_preferred", "bad")


def _random_combined(rng):
    import pandas as pd

    from ir_pref_measures.model.judgments import Judgments, combine

    qrels, prefs = [], []
    for qi in range(int(rng.integers(1, 4))):
        n = int(rng.integers(2, 25))
        grades = rng.integers(0, rng.integers(1, 5), n)
        qrels += [(f"q{qi}", f"d{i}", int(grades[i])) for i in range(n) if rng.random() < 0.8]
        for _ in range(int(rng.integers(0, 8))):
            a, b = rng.choice(n, 2, replace=rng.random() < 0.1)
            value = int(rng.choice([-1, -1, 1, 0, -2, 2]))
            prefs.append((f"q{qi}", "NA" if value == 2 else f"d{a}", "NA" if value == -2 else f"d{b}", value))
    parts = [Judgments.from_qrels(pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]))]
    if prefs:
        columns = ["query_id", "doc_id_a", "doc_id_b", "preference"]
        parts.append(Judgments.from_preferences(pd.DataFrame(prefs, columns=columns)))
    return combine(*parts)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("seed", range(3))
def test_pairs_counted_by_blocks_equal_the_listed_pairs(monkeypatch, seed):
    from ir_pref_measures.measures import pair_counts as kernel

    rng = np.random.default_rng(seed)
    for _ in range(60):
        judgments = _random_combined(rng)
        n_docs = len(judgments.doc_ids)
        rank = np.where(rng.random(n_docs) < 0.7, rng.permutation(n_docs) + 1.0, np.inf)
        queries = np.arange(len(judgments))
        for transitive in (True, False):
            monkeypatch.setattr(kernel, "LIST_PAIRS", 10**12)  # every query listed
            listed = kernel.pair_counts(judgments, rank, queries, transitive)
            monkeypatch.setattr(kernel, "LIST_PAIRS", -1)  # every query counted by blocks
            counted = kernel.pair_counts(judgments, rank, queries, transitive)
            for name in COUNT_FIELDS:
                assert getattr(counted, name).tolist() == getattr(listed, name).tolist(), (name, transitive)


def _large_combined(n_docs):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    from bench_large_query import make_graded

    from ir_pref_measures.model.judgments import Judgments, combine

    qrels, prefs, run = make_graded(n_docs)
    return combine(Judgments.from_qrels(qrels), Judgments.from_preferences(prefs)), run


def test_a_large_combined_query_is_counted_as_listed(monkeypatch):
    import ir_measures

    from ir_pref_measures.measures import pair_counts as kernel

    judgments, run = _large_combined(1500)  # 1.2 million closure pairs: above LIST_PAIRS, counted by blocks
    names = ["APpref", "ppref@10", "wppref@10", "rpref@10", "pprefMax", "num_pref_total", "APpref(transitive=False)"]
    measures = [ir_measures.parse_measure(m) for m in names]
    counted = ir_measures.calc_aggregate(measures, judgments, run)
    monkeypatch.setattr(kernel, "LIST_PAIRS", 10**12)
    listed = ir_measures.calc_aggregate(measures, judgments, run)
    assert counted == listed


def test_a_closure_over_the_budget_is_refused_at_once(monkeypatch):
    import ir_measures
    import pandas as pd

    from ir_pref_measures.errors import InputError
    from ir_pref_measures.model import judgments as model
    from ir_pref_measures.model import pairs

    docs = [f"d{i}" for i in range(3000)]
    prefs = pd.DataFrame({"query_id": "chain", "doc_id_a": docs[:-1], "doc_id_b": docs[1:], "preference": -1})
    run = pd.DataFrame({"query_id": "chain", "doc_id": docs[::7], "score": -np.arange(len(docs[::7]), dtype=float)})
    judgments = model.Judgments.from_preferences(prefs)
    monkeypatch.setattr(pairs, "CLOSURE_BUDGET_BYTES", 2**20)
    with pytest.raises(InputError, match=r"query 'chain'.*4,498,500 pairs.*transitive=False"):
        ir_measures.calc_aggregate([ir_measures.parse_measure("ppref@10")], judgments, run)
    value = ir_measures.calc_aggregate([ir_measures.parse_measure("ppref(transitive=False)@10")], judgments, run)
    assert 0 < next(iter(value.values())) <= 1


def test_pgc_with_a_huge_depth_is_the_pgc_at_the_depth_where_terms_vanish():
    import ir_measures

    judgments, run = _large_combined(3000)
    huge = [ir_measures.parse_measure(f"{m}(depth=1000000000)") for m in ("PGC", "Compatibility")]
    deep = [ir_measures.parse_measure(f"{m}(depth=100000)") for m in ("PGC", "Compatibility")]
    assert list(ir_measures.calc_aggregate(huge, judgments, run).values()) == list(
        ir_measures.calc_aggregate(deep, judgments, run).values()
    )


@pytest.mark.filterwarnings("ignore")
def test_a_large_graded_only_query_beside_explicit_ones_takes_the_graded_kernel(monkeypatch):
    from ir_pref_measures.measures import pair_counts as kernel
    from ir_pref_measures.model import closure

    rng = np.random.default_rng(5)
    seen = 0
    for _ in range(80):
        judgments = _random_combined(rng)
        queries = np.arange(len(judgments))
        seen += sum(kernel._only_graded(judgments, q) for q in queries.tolist())
        n_docs = len(judgments.doc_ids)
        rank = np.where(rng.random(n_docs) < 0.7, rng.permutation(n_docs) + 1.0, np.inf)
        monkeypatch.setattr(kernel, "LIST_PAIRS", 10**12)
        listed = kernel.pair_counts(judgments, rank, queries)
        monkeypatch.setattr(kernel, "LIST_PAIRS", -1)
        monkeypatch.setattr(closure, "BLOCK_LIMIT", 0)  # no block plan: graded-only queries take the graded kernel
        counted = kernel.pair_counts(judgments, rank, queries)
        monkeypatch.undo()
        from ir_pref_measures.measures import catalog

        for spec in catalog.family("ppref"):
            if "ideal" in spec.args:  # nwppref: its ideal ranking needs the pair list
                continue
            extra = {"beta": 1.0} if "beta" in spec.args else {}
            for cutoff in (1, 5, None) if spec.has_cutoff else (None,):
                got = catalog.ppref_kernel(spec.name, counted, cutoff, **extra)
                want = catalog.ppref_kernel(spec.name, listed, cutoff, **extra)
                if spec.name == "wppref":  # the graded kernel adds the gains in another order
                    np.testing.assert_allclose(got, want, rtol=1e-12)
                else:
                    assert got.tolist() == want.tolist(), (spec.name, cutoff)
    assert seen > 10
