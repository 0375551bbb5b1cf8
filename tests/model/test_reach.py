"""The strict transitive closure (``carterette.md`` §2.2): the batched bit-set kernel and the per-query
breadth-first kernel against a direct search, and the batching of queries in ``Judgments``."""

from __future__ import annotations

from collections import deque

import numpy as np
import pandas as pd
import pytest

from ir_pref_measures.model import pairs as pairs_module
from ir_pref_measures.model import reach
from ir_pref_measures.model.judgments import Judgments, combine


def direct_closure(n, src, dst, tie_a, tie_b, bad) -> list[tuple[int, int]]:
    """Search from each doc over (doc, has a strict edge been seen): ties lead on unless out of a bad doc,
    strict edges set the flag; (i, j) when j is reached with the flag, i != j or an explicit self-edge."""
    ties = [[] for _ in range(n)]
    for a, b in zip(tie_a.tolist(), tie_b.tolist(), strict=True):
        if not bad[a]:
            ties[a].append(b)
        if not bad[b]:
            ties[b].append(a)
    strict = [[] for _ in range(n)]
    for s, d in zip(src.tolist(), dst.tolist(), strict=True):
        strict[s].append(d)
    self_edge = {s for s, d in zip(src.tolist(), dst.tolist(), strict=True) if s == d}
    pairs = []
    for i in range(n):
        seen, todo = {(i, False)}, deque([(i, False)])
        while todo:
            doc, flag = todo.popleft()
            for nxt in [(t, flag) for t in ties[doc]] + [(d, True) for d in strict[doc]]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        pairs += [(i, j) for j in range(n) if (j, True) in seen and (i != j or i in self_edge)]
    return pairs


def random_query(rng, n):
    m, t = int(rng.integers(0, 3 * n)), int(rng.integers(0, n))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    tie_a, tie_b = rng.integers(0, n, t), rng.integers(0, n, t)
    order = np.argsort(tie_a, kind="stable")
    bad = rng.random(n) < rng.random() * 0.4
    grades = rng.integers(0, rng.integers(1, 6), n).astype(float)
    grades[rng.random(n) < rng.random()] = np.nan
    return (src, dst, tie_a[order], tie_b[order], bad), grades


def with_derived(graph, grades):
    """The graph with every derived edge a -> b (grade(a) > grade(b), a not bad) listed."""
    src, dst, tie_a, tie_b, bad = graph
    a, b = (x.ravel() for x in np.meshgrid(np.arange(len(bad)), np.arange(len(bad)), indexing="ij"))
    derived = (grades[a] > grades[b]) & ~bad[a]
    return np.r_[src, a[derived]], np.r_[dst, b[derived]], tie_a, tie_b, bad


@pytest.mark.parametrize("seed", range(3))
def test_both_kernels_give_the_closure_by_definition(seed):
    rng = np.random.default_rng(seed)
    for _ in range(150):
        n = int(rng.integers(1, 15))
        graph, grades = random_query(rng, n)
        zeros, local = np.zeros(n, dtype=np.int64), np.arange(n)
        expected = direct_closure(n, *graph)
        for i, j in (reach.query_closure(*graph), reach.batch_closure(zeros, local, *graph)):
            assert list(zip(i.tolist(), j.tolist(), strict=True)) == expected
        expected = direct_closure(n, *with_derived(graph, grades))  # grades too: derived edges never listed
        for i, j in (
            reach.query_closure(*with_derived(graph, grades)),
            reach.batch_closure(zeros, local, *graph, grades),
        ):
            assert list(zip(i.tolist(), j.tolist(), strict=True)) == expected


@pytest.mark.parametrize("seed", range(3))
def test_a_batch_of_queries_is_closed_as_each_query_alone(monkeypatch, seed):
    """Queries of different sizes (wider than 64 docs too) in one batch, in small edge chunks."""
    monkeypatch.setattr(reach, "EDGE_CHUNK", 7)
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 140, 12)
    offsets = np.r_[0, np.cumsum(sizes)]
    parts = [random_query(rng, int(n)) for n in sizes]
    expected = []
    for base, n, (graph, grades) in zip(offsets[:-1].tolist(), sizes.tolist(), parts, strict=True):
        expected += [(base + i, base + j) for i, j in direct_closure(n, *with_derived(graph, grades))]
    joined = [np.concatenate([g[k] + base for (g, _), base in zip(parts, offsets, strict=False)]) for k in range(4)]
    bad, grades = (np.concatenate([g[4] for g, _ in parts]), np.concatenate([grades for _, grades in parts]))
    doc_query = np.repeat(np.arange(len(sizes)), sizes)
    i, j = reach.batch_closure(doc_query, np.arange(offsets[-1]) - offsets[doc_query], *joined, bad, grades)
    assert list(zip(i.tolist(), j.tolist(), strict=True)) == expected


def _combined_judgments(rng, n_queries):
    """Graded qrels plus explicit preferences (some against the grades, some cycles), ties and bad marks."""
    rows, prefs = [], []
    for q in range(n_queries):
        n = int(rng.integers(2, 90))
        docs = [f"d{q}_{k}" for k in range(n)]
        flat = q % 4 == 1  # one grade, no preference: no pair, left out of the batches
        grades = np.ones(n, dtype=int) if flat else rng.integers(0, 4, n)
        rows += [(f"q{q}", d, int(g)) for d, g in zip(docs, grades, strict=True)]
        for _ in range(0 if flat else int(rng.integers(0, 20))):
            a, b = rng.choice(docs, 2, replace=False)
            value = int(rng.choice([-1, 1, 0, -2], p=[0.45, 0.35, 0.15, 0.05]))
            prefs.append((f"q{q}", a, "NA" if value == -2 else b, value))
    graded = Judgments.from_qrels(pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"]))
    explicit = Judgments.from_preferences(
        pd.DataFrame(prefs, columns=["query_id", "doc_id_a", "doc_id_b", "preference"])
    )
    return combine(graded, explicit)


def test_batches_of_any_size_and_lone_queries_give_the_same_pairs(monkeypatch):
    """Every way of splitting the queries gives the pairs of the breadth-first kernel on listed edges."""
    judgments = _combined_judgments(np.random.default_rng(3), 40)
    monkeypatch.setattr(pairs_module, "BIT_QUERY_DOCS", 0)  # every query alone, its edges listed
    expected = pairs_module.preference_pairs(judgments, True)
    assert len(expected.src) > 1000
    for docs, batch_bytes in ((2048, 1 << 24), (2048, 1), (60, 1 << 24)):
        monkeypatch.setattr(pairs_module, "BIT_QUERY_DOCS", docs)
        monkeypatch.setattr(pairs_module, "BIT_BATCH_BYTES", batch_bytes)  # 1: a batch per query
        pairs = pairs_module.preference_pairs(judgments, True)
        assert pairs.src.tolist() == expected.src.tolist()
        assert pairs.dst.tolist() == expected.dst.tolist()
        assert pairs.source.tolist() == expected.source.tolist()


@pytest.mark.parametrize("exclude", [frozenset(), frozenset({0, 5, 17})])
def test_the_preferring_docs_are_the_sources_of_the_listed_good_edges(exclude):
    """Found from the grades without listing the derived edges: the sources of the listed edges, or tied."""
    judgments = _combined_judgments(np.random.default_rng(4), 30)
    src, _, _ = pairs_module._good_edges_of(judgments, exclude)
    expected = np.zeros(judgments.n_docs, dtype=bool)
    for docs in (src, judgments.tie_a, judgments.tie_b):
        expected[docs] = True
    expected &= ~judgments.bad
    derived = pairs_module._derived_sources(judgments)
    assert pairs_module._sources(judgments, exclude, derived).tolist() == expected.tolist()
