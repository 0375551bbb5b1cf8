"""Property tests: the vectorised kernels equal the direct definition on random inputs; input order and
the evaluation path (graded fast path or explicit pairs) do not change any value."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest
from oracles.ppref import closure, measures, pair_list

import ir_pref_measures as ipm
from ir_pref_measures.measures import pair_counts
from ir_pref_measures.measures import ppref as kernels
from ir_pref_measures.measures.catalog import family, ppref_kernel
from ir_pref_measures.measures.greedy_fas import greedy_fas_order
from ir_pref_measures.measures.pair_counts import explicit_counts, graded_counts, lower_before, lower_before_by_level
from ir_pref_measures.model.judgments import Judgments

CUTOFFS = (1, 3, 5, 10, None)
WHOLE_RUN = 10**9  # "no cutoff" = every rank of the run; (inf, inf) pairs are never ordered
NAMES = ("ppref", "rpref", "fpref", "wpref", "nwpref", "wppref")


def random_case(rng, n_queries=4, n_docs=25, n_levels=4, float_grades=False):
    qrels, run = [], []
    for q in range(n_queries):
        n = int(rng.integers(1, n_docs))
        grades = rng.integers(0, n_levels, size=n).astype(float)
        if float_grades:
            grades = np.round(rng.random(n) * 3, 1)
        docs = [f"d{q}_{i}" for i in range(n)]
        qrels += [(f"q{q}", d, g) for d, g in zip(docs, grades, strict=True)]
        retrieved = rng.permutation(n)[: int(rng.integers(0, n + 1))]
        extra = [f"u{q}_{i}" for i in range(int(rng.integers(0, 5)))]
        ranked = [docs[i] for i in retrieved] + extra
        rng.shuffle(ranked)
        run += [(f"q{q}", d, float(len(ranked) - i)) for i, d in enumerate(ranked)]
    return (
        pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
        pd.DataFrame(run, columns=["query_id", "doc_id", "score"]),
    )


def kernel_values(counts, k, ideal=None):
    out = {name: ppref_kernel(name, counts, k) for name in NAMES}
    out.update({spec.name: ppref_kernel(spec.name, counts) for spec in family("ppref") if not spec.args})
    if ideal is not None:
        out["nwppref"] = kernels.nwppref(counts, ideal, k)
    return out


def evaluate(judgments: Judgments, run: pd.DataFrame, path: str):
    ranking = ipm.as_ranking(run)
    queries = np.flatnonzero(np.isin(judgments.query_ids, ranking.query_ids))
    doc_rank = ranking.rank_of(judgments.query_ids[judgments.doc_query], judgments.doc_ids)
    if path == "graded":
        return queries, graded_counts(judgments, doc_rank, queries)
    return queries, explicit_counts(judgments, judgments.preference_pairs(True), doc_rank, queries)


def ranks_of(run: pd.DataFrame, qid: str) -> dict[str, int]:
    ranked = run[run.query_id == qid].sort_values(["score", "doc_id"], ascending=[False, False])
    return {d: i + 1 for i, d in enumerate(ranked.doc_id)}


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("path", ["graded", "explicit"])
def test_graded_judgments_match_the_direct_definition(seed, path):
    rng = np.random.default_rng(seed)
    qrels, run = random_case(rng, float_grades=seed % 3 == 0)
    judgments = Judgments.from_qrels(qrels)
    queries, counts = evaluate(judgments, run, path)
    ideal_counts = graded_counts(judgments, _grade_order_rank(judgments), queries)
    for k in CUTOFFS:
        ours = kernel_values(counts, k, ideal_counts)
        for i, qid in enumerate(judgments.query_ids[queries]):
            q = qrels[qrels.query_id == qid]
            grade = dict(zip(q.doc_id, q.relevance, strict=True))
            edges = {(a, b): 1 for a in grade for b in grade if grade[a] > grade[b]}
            degree = {(a, b): grade[a] - grade[b] for a, b in edges}
            rank = ranks_of(run, qid)
            pairs, pr, pu = pair_list(edges, set(), rank, degree)
            ideal_rank = {d: i + 1 for i, d in enumerate(sorted(grade, key=lambda d: -grade[d]))}
            ideal_pairs, _, _ = pair_list(edges, set(), ideal_rank, degree)
            direct = measures(pairs, pr, pu, 0, WHOLE_RUN if k is None else k, ideal_pairs)
            for name, value in direct.items():
                assert ours[name][i] == pytest.approx(value, rel=1e-12, abs=1e-12), (name, k, qid)


def _grade_order_rank(judgments):
    from ir_pref_measures.measures.ideal import ideal_doc_rank

    return ideal_doc_rank(judgments)


def random_preferences(rng, n_queries=4, n_docs=12, cyclic=False):
    """Consistent preferences with duplicates and bad docs, or (cyclic) random ±1 without duplicates."""
    rows, run = [], []
    for q in range(n_queries):
        qid = f"q{q}"
        n = int(rng.integers(2, n_docs))
        latent = rng.integers(0, 3, size=n)
        docs = [f"d{i}" for i in range(n)]
        for _ in range(int(rng.integers(1, 3 * n))):
            a, b = rng.choice(n, size=2, replace=False)
            if cyclic:
                rows.append((qid, docs[a], docs[b], int(rng.choice([-1, 1]))))
            elif latent[a] == latent[b]:
                rows.append((qid, docs[a], docs[b], 0))
            else:
                rows.append((qid, docs[a], docs[b], -1 if latent[a] > latent[b] else 1))
        sources = {r[1] for r in rows if r[0] == qid} | {r[2] for r in rows if r[0] == qid}
        for i in range(int(rng.integers(0, 3))):
            bad = f"bad{i}"
            rows.append((qid, bad, "NA", -2) if i % 2 else (qid, "NA", bad, 2))
            sources.add(bad)
        ranked = [d for d in sorted(sources) if rng.random() < 0.7] + ["x1", "x2"]
        rng.shuffle(ranked)
        run += [(qid, d, float(len(ranked) - i)) for i, d in enumerate(ranked)]
    return (
        pd.DataFrame(rows, columns=["query_id", "doc_id_a", "doc_id_b", "preference"]),
        pd.DataFrame(run, columns=["query_id", "doc_id", "score"]),
    )


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("cyclic", [False, True])
def test_explicit_preferences_match_the_direct_definition(seed, cyclic):
    rng = np.random.default_rng(100 + seed)
    prefs, run = random_preferences(rng, cyclic=cyclic)
    judgments = Judgments.from_preferences(prefs)
    queries, counts = evaluate(judgments, run, "explicit")
    for k in CUTOFFS:
        ours = kernel_values(counts, k)
        for i, qid in enumerate(judgments.query_ids[queries]):
            q = prefs[prefs.query_id == qid]
            edges: dict[tuple[str, str], int] = {}
            bad = set()
            for a, b, p in zip(q.doc_id_a, q.doc_id_b, q.preference, strict=True):
                if p == -1:
                    edges[(a, b)] = 1
                elif p == 1:
                    edges[(b, a)] = 1
                elif p == 0:
                    edges.setdefault((a, b), 0)
                    edges.setdefault((b, a), 0)
                else:
                    bad.add(a if p == -2 else b)
            pairs, pr, pu = pair_list(closure(edges), bad, ranks_of(run, qid))
            direct = measures(pairs, pr, pu, len(bad), WHOLE_RUN if k is None else k)
            for name, value in direct.items():
                assert ours[name][i] == pytest.approx(value, rel=1e-12, abs=1e-12), (name, k, qid)


@pytest.mark.parametrize("seed", range(5))
def test_results_do_not_depend_on_line_order(seed):
    rng = np.random.default_rng(seed)
    prefs, run = random_preferences(rng, n_queries=5)
    measures_ = [ir_measures.parse_measure(m) for m in ("ppref@5", "rpref@5", "APpref", "nwppref@5", "wpref@10")]
    expected = ir_measures.calc_aggregate(measures_, Judgments.from_preferences(prefs), run)
    shuffled_prefs = prefs.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    shuffled_run = run.sample(frac=1.0, random_state=seed + 1).reset_index(drop=True)
    got = ir_measures.calc_aggregate(measures_, Judgments.from_preferences(shuffled_prefs), shuffled_run)
    assert got == expected


@pytest.mark.parametrize("seed", range(5))
def test_graded_fast_path_equals_materialised_pairs(seed):
    """The same graded judgments through the fast path and as explicit preference pairs."""
    rng = np.random.default_rng(seed)
    qrels, run = random_case(rng, n_queries=6, n_docs=40)
    graded = Judgments.from_qrels(qrels)
    src, dst = graded.derived_edges()
    prefs = pd.DataFrame(
        {
            "query_id": graded.query_ids[graded.doc_query[src]],
            "doc_id_a": graded.doc_ids[src],
            "doc_id_b": graded.doc_ids[dst],
            "preference": -1,
        }
    )
    names = ("ppref@10", "rpref@10", "APpref", "pprefMax", "wpref@5", "nwpref@5", "num_preferred")
    measures_ = [ir_measures.parse_measure(m) for m in names]
    explicit_judgments = Judgments.from_preferences(prefs)
    explicit = {(m.query_id, m.measure): m.value for m in ir_measures.iter_calc(measures_, explicit_judgments, run)}
    fast = {(m.query_id, m.measure): m.value for m in ir_measures.iter_calc(measures_, graded, run)}
    # a query whose docs all share one grade has no pair, so it has no explicit preference at all
    assert explicit and set(explicit) <= set(fast)
    assert {key: fast[key] for key in explicit} == pytest.approx(explicit, rel=1e-12)


def test_lower_before_matches_a_double_loop():
    rng = np.random.default_rng(7)
    for n in (0, 1, 2, 3, 17, 64, 100):
        keys = rng.integers(0, 6, size=n)
        weights = rng.random(n)
        count, weight = lower_before(keys, weights)
        for i in range(n):
            lower = [j for j in range(i) if keys[j] < keys[i]]
            assert count[i] == len(lower)
            assert weight[i] == pytest.approx(weights[lower].sum())


def test_lower_before_by_level_matches_a_double_loop_within_segments():
    rng = np.random.default_rng(11)
    for n in (0, 1, 2, 5, 40, 300):
        level = rng.integers(0, 5, size=n)
        level_weight = np.exp2(-rng.random(5) * 4)
        segment = np.sort(rng.integers(0, 4, size=n))
        start = np.searchsorted(segment, segment, "left")
        count, weight = lower_before_by_level(level, start, level_weight)
        for i in range(n):
            lower = [j for j in range(start[i], i) if level[j] < level[i]]
            assert count[i] == len(lower)
            assert weight[i] == pytest.approx(level_weight[level[lower]].sum(), rel=1e-12, abs=1e-12)


def test_graded_counts_are_the_same_by_levels_and_by_merge_counts(monkeypatch):
    """The counts by level (few grades) and the merge-count path (many grades) agree exactly on integer grades."""
    rng = np.random.default_rng(5)
    n_queries, per_query = 30, 40
    qrels = pd.DataFrame(
        {
            "query_id": np.repeat([f"q{i}" for i in range(n_queries)], per_query),
            "doc_id": [f"d{i}" for i in range(n_queries * per_query)],
            "relevance": rng.integers(0, 5, n_queries * per_query),
        }
    )
    judgments = Judgments.from_qrels(qrels)
    doc_rank = np.where(rng.random(judgments.n_docs) < 0.7, rng.permutation(judgments.n_docs) + 1.0, np.inf)
    queries = np.arange(n_queries)
    by_level = graded_counts(judgments, doc_rank, queries)
    monkeypatch.setattr(pair_counts, "LEVEL_COUNTS", 0)
    by_merge = graded_counts(judgments, doc_rank, queries)
    for name in ("offsets", "rank", "correct", "ordered", "gain", "preferred", "total", "unretrieved_preferred"):
        assert np.array_equal(getattr(by_level, name), getattr(by_merge, name)), name


def test_greedy_fas_orders_an_acyclic_graph_topologically():
    rng = np.random.default_rng(3)
    n = 30
    latent = rng.permutation(n)
    src, dst = zip(
        *[(a, b) for a in range(n) for b in range(n) if latent[a] > latent[b] and rng.random() < 0.3], strict=True
    )
    order = greedy_fas_order(n, np.array(src), np.array(dst), np.arange(n))
    position = np.empty(n, int)
    position[order] = np.arange(n)
    assert sorted(order.tolist()) == list(range(n))
    assert all(position[a] < position[b] for a, b in zip(src, dst, strict=True))


def test_nwppref_of_the_ideal_order_is_one_on_consistent_preferences():
    rng = np.random.default_rng(11)
    prefs, _ = random_preferences(rng, n_queries=3)
    judgments = Judgments.from_preferences(prefs)
    from ir_pref_measures.measures.ideal import ideal_doc_rank

    rank = ideal_doc_rank(judgments)
    ideal_run = pd.DataFrame(
        {"query_id": judgments.query_ids[judgments.doc_query], "doc_id": judgments.doc_ids, "score": -rank}
    )
    values = ir_measures.calc_aggregate([ir_measures.parse_measure("nwppref@5")], judgments, ideal_run)
    assert list(values.values())[0] == pytest.approx(1.0)


def test_explicit_counts_in_blocks_of_queries_equal_one_block(monkeypatch):
    from ir_pref_measures.measures import pair_counts as module

    rng = np.random.default_rng(5)
    prefs, run = random_preferences(rng, n_queries=8)
    measures_ = [ir_measures.parse_measure(m) for m in ("ppref@5", "rpref@5", "APpref", "pprefMax", "num_pref_total")]
    whole = list(ir_measures.iter_calc(measures_, Judgments.from_preferences(prefs), run))
    monkeypatch.setattr(module, "CHUNK_PAIRS", 3)
    blocks = list(ir_measures.iter_calc(measures_, Judgments.from_preferences(prefs), run))
    assert blocks == whole
