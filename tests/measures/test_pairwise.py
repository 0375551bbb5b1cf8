"""Properties of the compare kernels on random inputs, and agreement with direct (loop and sort) definitions."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ir_pref_measures.comparison import compare
from ir_pref_measures.comparison.pairwise import DEFAULT_MEASURES
from ir_pref_measures.errors import InputError

INF = math.inf
MEASURES = [*DEFAULT_MEASURES, "ap@5", "rbp@0.8,7", "rr@3", "ndcg@5", "p@3", "r@3", "LR"]


def random_case(seed: int, n_runs: int = 4, n_queries: int = 6, n_docs: int = 25):
    """Qrels (grades -1..3) and runs with integer scores (many ties), some queries missing from runs."""
    rng = np.random.default_rng(seed)
    qrels = []
    for q in range(n_queries):
        docs = rng.choice(n_docs, size=rng.integers(1, 12), replace=False)
        grades = rng.integers(-1, 4, size=len(docs))
        grades[0] = max(grades[0], 1)  # every query has a relevant doc
        qrels += [(f"q{q}", f"d{d}", int(g)) for d, g in zip(docs, grades, strict=True)]
    runs = {}
    for r in range(n_runs):
        rows = []
        for q in range(n_queries):
            if rng.random() < 0.15:
                continue  # the query is missing from this run
            docs = rng.choice(n_docs + 10, size=rng.integers(1, 20), replace=False)
            rows += [(f"q{q}", f"d{d}", float(rng.integers(0, 6))) for d in docs]
        runs[f"run{r}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]), runs


def direct_positions(run: pd.DataFrame, qrels: pd.DataFrame, qid: str, min_grade: float = 1) -> list[float]:
    """The sorted ranks of the docs with grade >= min_grade, by a plain sort (score desc, doc id desc)."""
    rows = run[run.query_id == qid]
    ranked = [d for _, d in sorted(zip(rows.score, rows.doc_id, strict=True), reverse=True)]
    relevant = qrels[(qrels.query_id == qid) & (qrels.relevance >= min_grade)].doc_id
    return sorted(ranked.index(d) + 1 if d in ranked else INF for d in relevant)


def sgn(a: float, b: float) -> int:
    return (a < b) - (a > b)


def direct_rpp(p, q, omega) -> float:
    weights = [omega(k) for k in range(1, len(p) + 1)]
    return sum(w * sgn(a, b) for w, a, b in zip(weights, p, q, strict=True)) / sum(weights)


OMEGA = {"rpp": lambda k: 1.0, "invrpp": lambda k: 1.0 / k, "dcgrpp": lambda k: 1.0 / math.log2(k + 1)}


def direct_values(p, q) -> dict:
    differ = [k for k in range(len(p)) if p[k] != q[k]]
    first = differ[0] if differ else None
    last = differ[-1] if differ else None
    retrieved = [x for x in p if x < INF], [x for x in q if x < INF]
    recall_tuple = (len(retrieved[0]), [-x for x in reversed(retrieved[0])])
    other = (len(retrieved[1]), [-x for x in reversed(retrieved[1])])
    return {
        "lexiprecision": 0 if first is None else sgn(p[first], q[first]),
        "rrlexiprecision": 0.0 if first is None else 1 / p[first] - 1 / q[first],
        "lexirecall": 0 if last is None else sgn(p[last], q[last]),
        # lexirecall as the paper states it: more retrieved wins, then compare from the last retrieved
        "lexirecall_by_sort": (recall_tuple > other) - (recall_tuple < other),
        **{name: direct_rpp(p, q, omega) for name, omega in OMEGA.items()},
    }


@pytest.mark.parametrize("seed", range(6))
def test_kernels_agree_with_direct_definitions(seed):
    qrels, runs = random_case(seed)
    table = compare(runs, qrels, measures=MEASURES, perquery=True, graded_rpp=False)
    table = table[table.query_id != "all"]
    for row in table.to_dict("records"):
        p = direct_positions(runs[row["run_i"]], qrels, row["query_id"])
        q = direct_positions(runs[row["run_j"]], qrels, row["query_id"])
        want = direct_values(p, q)
        assert row["lexirecall"] == want["lexirecall"] == want["lexirecall_by_sort"] == row["LR"]
        assert row["lexiprecision"] == want["lexiprecision"]
        for name in ("rrlexiprecision", "rpp", "invrpp", "dcgrpp"):
            assert row[name] == pytest.approx(want[name], abs=1e-12)
        m = len(p)
        metrics = {
            "ap": lambda x, m=m: sum((k + 1) / v for k, v in enumerate(x) if v < INF) / m,
            "ap@5": lambda x, m=m: sum((k + 1) / v for k, v in enumerate(x) if v <= 5) / m,
            "rbp": lambda x: 0.5 * sum(0.5 ** (v - 1) for v in x if v < INF),
            "rbp@0.8,7": lambda x: 0.2 * sum(0.8 ** (v - 1) for v in x if v <= 7),
            "rr": lambda x: 1 / x[0],
            "rr@3": lambda x: 1 / x[0] if x[0] <= 3 else 0.0,
            "rp": lambda x, m=m: sum(v <= m for v in x) / m,
            "p@10": lambda x: sum(v <= 10 for v in x) / 10,
            "r@3": lambda x, m=m: sum(v <= 3 for v in x) / m,
        }
        for name, metric in metrics.items():
            assert row[name] == pytest.approx(metric(p) - metric(q), abs=1e-12), name


@pytest.mark.parametrize("seed", range(4))
def test_graded_rpp_agrees_with_direct_definition(seed):
    qrels, runs = random_case(seed)
    table = compare(runs, qrels, measures=["rpp", "invrpp", "dcgrpp"], perquery=True)
    for row in table[table.query_id != "all"].itertuples(index=False):
        grades = sorted({g for g in qrels[qrels.query_id == row.query_id].relevance if g > 0})
        for name, omega in OMEGA.items():
            num = den = 0.0
            for g in grades:
                p = direct_positions(runs[row.run_i], qrels, row.query_id, g)
                q = direct_positions(runs[row.run_j], qrels, row.query_id, g)
                num += len(p) * direct_rpp(p, q, omega)
                den += len(p)
            assert getattr(row, name) == pytest.approx(num / den, abs=1e-12)


def test_ndcg_agrees_with_direct_definition():
    qrels, runs = random_case(11)
    table = compare(runs, qrels, measures=["ndcg", "ndcg@5"], perquery=True)

    def dcg(run, qid, k):
        rows = run[run.query_id == qid]
        ranked = [d for _, d in sorted(zip(rows.score, rows.doc_id, strict=True), reverse=True)][:k]
        grade = dict(zip(qrels[qrels.query_id == qid].doc_id, qrels[qrels.query_id == qid].relevance, strict=True))
        gained = sum(max(grade.get(d, 0), 0) / math.log2(r + 2) for r, d in enumerate(ranked))
        ideal = sorted((g for g in grade.values() if g > 0), reverse=True)[:k]
        return gained / sum(g / math.log2(r + 2) for r, g in enumerate(ideal))

    for row in table[table.query_id != "all"].to_dict("records"):
        for name, k in (("ndcg", 10**6), ("ndcg@5", 5)):
            want = dcg(runs[row["run_i"]], row["query_id"], k) - dcg(runs[row["run_j"]], row["query_id"], k)
            assert row[name] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_ndcg_kernel_equals_trec_eval_kernels_bit_for_bit(seed):
    """The position-array nDCG (ideal DCG computed once) gives the very floats of trec_eval's kernels
    (:func:`graded.ndcg` on every row), at every cutoff, unretrieved docs and float grades included."""
    from ir_pref_measures.measures import graded
    from ir_pref_measures.measures import pairwise as kernels

    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=rng.integers(1, 12))
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    width, rows = int(sizes.sum()), int(rng.integers(1, 6))
    column_grades = rng.choice([0.5, 1.0, 2.0, 3.0, 2.5], size=width)
    ranks = np.array([rng.permutation(3 * width)[:width] + 1.0 for _ in range(rows)])
    ranks[rng.random((rows, width)) < 0.3] = INF
    order = kernels.segment_order(ranks, starts)
    positions, grades = np.take_along_axis(ranks, order, axis=1), column_grades[order]
    for k in (INF, 1, 3, 10):
        want = graded.ndcg(kernels._ranked(positions, starts, grades), k).reshape(rows, len(starts))
        assert np.array_equal(kernels.ndcg(positions, grades, starts, k), want)


@pytest.mark.parametrize("graded", [True, False])
def test_antisymmetry_and_order_invariance(graded):
    qrels, runs = random_case(3, n_runs=5)
    forward = compare(runs, qrels, measures=MEASURES, perquery=True, graded_rpp=graded)
    rng = np.random.default_rng(0)
    shuffled_runs = {name: runs[name].sample(frac=1, random_state=1) for name in reversed(list(runs))}
    shuffled_qrels = qrels.iloc[rng.permutation(len(qrels))]
    backward = compare(shuffled_runs, shuffled_qrels, measures=MEASURES, perquery=True, graded_rpp=graded)
    backward = backward.set_index(["query_id", "run_j", "run_i"])  # swapped: backward holds (j vs i)
    forward = forward.set_index(["query_id", "run_i", "run_j"])
    backward = backward.loc[forward.index]
    assert (forward.to_numpy() == -backward.to_numpy()).all()  # exact, including the means


def test_a_run_compared_with_itself_is_exactly_zero():
    qrels, runs = random_case(5)
    twins = {"a": runs["run0"], "b": runs["run0"].iloc[::-1]}
    for graded in (True, False):
        table = compare(twins, qrels, measures=MEASURES, perquery=True, graded_rpp=graded)
        assert (table[MEASURES].to_numpy() == 0).all()


def test_mathematical_ties_are_exact_zeros():
    """p = (1, 4), q = (2, 3): one level each way, rpp exactly 0 (the tool prints 2.8e-17 noise for such)."""
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["x", "y", "z"], "relevance": [1, 1, 1]})
    run_a = pd.DataFrame({"query_id": "q", "doc_id": ["x", "n1", "n2", "y", "z"], "score": [5.0, 4, 3, 2, -9]})
    run_b = pd.DataFrame({"query_id": "q", "doc_id": ["n1", "x", "y", "n2", "z"], "score": [5.0, 4, 3, 2, -9]})
    table = compare({"a": run_a, "b": run_b}, qrels, measures=["rpp", "lexirecall"], perquery=True)
    assert table["rpp"].tolist() == [0.0, 0.0]
    assert table["lexirecall"].tolist() == [-1.0, -1.0]


def test_baseline_compares_every_run_with_it():
    qrels, runs = random_case(2)
    full = compare(runs, qrels, measures=["rpp", "ap"]).set_index(["run_i", "run_j"])
    against = compare(runs, qrels, measures=["rpp", "ap"], baseline="run1")
    assert list(zip(against.run_i, against.run_j, strict=True)) == [
        ("run0", "run1"),
        ("run2", "run1"),
        ("run3", "run1"),
    ]
    for row in against.itertuples(index=False):
        sign, key = (1, (row.run_i, row.run_j)) if row.run_i < row.run_j else (-1, (row.run_j, row.run_i))
        assert row.rpp == sign * full.loc[key, "rpp"]


def test_topk_cuts_the_rankings():
    qrels, runs = random_case(4)
    cut = {name: run for name, run in runs.items()}
    table = compare(cut, qrels, measures=["ap", "lexirecall"], perquery=True, topk=3)
    for row in table[table.query_id != "all"].itertuples(index=False):
        p = [x if x <= 3 else INF for x in direct_positions(runs[row.run_i], qrels, row.query_id)]
        q = [x if x <= 3 else INF for x in direct_positions(runs[row.run_j], qrels, row.query_id)]
        assert row.lexirecall == direct_values(sorted(p), sorted(q))["lexirecall"]


def test_bad_input_is_a_clear_error():
    qrels, runs = random_case(1)
    with pytest.raises(InputError, match="unknown measure 'P@10'"):
        compare(runs, qrels, measures=["P@10"])
    with pytest.raises(InputError, match="need at least two runs"):
        compare({"a": runs["run0"]}, qrels)
    with pytest.raises(InputError, match="baseline 'nope'"):
        compare(runs, qrels, baseline="nope")
    with pytest.raises(InputError, match="no relevant document|no query has a relevant"):
        compare(runs, qrels.assign(relevance=0))
    stranger = pd.DataFrame({"query_id": ["zz"], "doc_id": ["d1"], "score": [1.0]})
    with pytest.raises(InputError, match="no query in common"):
        compare({"a": runs["run0"], "b": stranger}, qrels)
    twice = pd.concat([runs["run0"], runs["run0"].iloc[:1]])
    with pytest.raises(InputError, match="listed twice"):
        compare({"a": runs["run1"], "b": twice}, qrels)
