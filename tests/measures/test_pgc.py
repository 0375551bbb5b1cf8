"""Greedy PGC: the FAS kernel against Algorithm 2, the thesis example, and the CAsT 2019 reference outputs."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from functools import cache

import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import FIXTURES, data_path, testdata_path
from ir_pref_measures.adapters.ir_measures import MEASURES, PreferenceEvaluator

import ir_pref_measures as ipm
from ir_pref_measures.dropins.greedy_pgc import greedy_pgc_report
from ir_pref_measures.dropins.script_output import ordered_ranking
from ir_pref_measures.errors import InputError
from ir_pref_measures.measures.compatibility import compatibility
from ir_pref_measures.measures.greedy_fas import greedy_fas_order
from ir_pref_measures.measures.pgc import ideal_order, pgc, positions_in, rbo_of_positions
from ir_pref_measures.measures.rbo import rbo
from ir_pref_measures.model.judgments import Judgments, combine
from ir_pref_measures.model.rankings import Ranking
from ir_pref_measures.parsing.formats import read_run

RUNS = [f"decaf_exp{i}" for i in range(1, 17)]
SAMPLED_RUNS = ["decaf_exp1", "decaf_exp7", "decaf_exp12"]
PGC = MEASURES["PGC"]


def naive_greedy_pgc(n: int, edges: list[tuple[int, int]], priority: list[int]) -> list[int]:
    """Algorithm 2 of the thesis, line by line, rescanning the graph at every step (the reference's way)."""
    alive, edges, s1, s2 = set(range(n)), list(edges), [], []

    def degree(v, side):
        return sum(1 for e in edges if e[side] == v)

    def drop(v):
        alive.discard(v)
        edges[:] = [e for e in edges if v not in e]

    while alive:
        while sinks := [v for v in alive if degree(v, 0) == 0]:
            u = max(sinks, key=lambda v: priority[v])
            s2.insert(0, u)
            drop(u)
        while sources := [v for v in alive if degree(v, 1) == 0]:
            u = min(sources, key=lambda v: priority[v])
            s1.append(u)
            drop(u)
        if alive:
            best = max(degree(v, 0) - degree(v, 1) for v in alive)
            u = min((v for v in alive if degree(v, 0) - degree(v, 1) == best), key=lambda v: priority[v])
            s1.append(u)
            drop(u)
    return s1 + s2


def test_fas_hand_made_cases():
    none = np.zeros(0, np.int64)
    assert greedy_fas_order(4, none, none, np.array([2, 0, 3, 1])).tolist() == [1, 3, 0, 2]
    # a 2-cycle with equal deltas: the smaller priority goes first; parallel edges break the tie otherwise
    assert greedy_fas_order(2, np.array([0, 1]), np.array([1, 0]), np.array([1, 0])).tolist() == [1, 0]
    assert greedy_fas_order(2, np.array([0, 0, 1]), np.array([1, 1, 0]), np.array([1, 0])).tolist() == [0, 1]
    # a self-loop keeps its vertex from being a sink or source
    assert greedy_fas_order(2, np.array([0, 0]), np.array([0, 1]), np.array([1, 0])).tolist() == [0, 1]


@pytest.mark.parametrize("seed", range(40))
def test_fas_equals_algorithm_2_on_random_multigraphs(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    m = int(rng.integers(0, 3 * n))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    priority = rng.permutation(n)
    expected = naive_greedy_pgc(n, list(zip(src.tolist(), dst.tolist(), strict=True)), priority.tolist())
    assert greedy_fas_order(n, src, dst, priority).tolist() == expected


def thesis_example() -> tuple[Judgments, Ranking]:
    prefs = testdata_path("toy_examples", "thesis_fig3_2.prefs")
    judgments = ipm.load_judgments(prefs, format="pairs")
    frame = read_run(testdata_path("toy_examples", "thesis_fig3_5.run"), keep_rank=True)
    return judgments, ordered_ranking(frame, frame["rank"].astype(float).to_numpy())


def test_thesis_example_figures_3_2_and_3_5():
    expected = json.loads(testdata_path("toy_examples", "expected.json").read_text())["greedy_pgc"]
    judgments, ranking = thesis_example()
    rank = ranking.rank_of(judgments.query_ids[judgments.doc_query], judgments.doc_ids)
    order = ideal_order(judgments, rank, np.array([0]))
    assert judgments.doc_ids[order].tolist() == expected["ideal_ranking"]
    for key, value in expected["reference_code_rbo_depth1000"].items():
        assert pgc(judgments, rank, np.array([0]), p=float(key[1:]))[0] == pytest.approx(value, abs=1e-15)
    # the thesis' own figure truncates RBO at depth 7 and scales by (1 - p)
    at_7 = rbo(expected["ideal_ranking"], list("BAxDGyz"), 0.95, depth=7) * (1 - 0.95**7)
    assert at_7 == pytest.approx(expected["thesis_style_exact_(1-p)*sum_d<=7_p0.95"], abs=1e-15)


@cache
def cast_graphs() -> dict[str, Judgments]:
    real = ipm.load_judgments(testdata_path("cast2019_toppref", "TREC-CAsT-2019.pref"), format="winner")
    derived = ipm.load_judgments(testdata_path("cast2019_qrels", "2019qrels.txt"), format="qrels")
    return {"real": real, "derived": derived, "combined": combine(derived, real)}


@cache
def rank_column_run(run: str) -> Ranking:
    frame = read_run(testdata_path("cast2019_runs_decaf", f"{run}.run.gz"), keep_rank=True)
    return ordered_ranking(frame, frame["rank"].astype(float).to_numpy())


@cache
def pgc_reference() -> pd.DataFrame:
    path = testdata_path("cast2019_reference_outputs", "pgc_reference.csv.gz")
    return pd.read_csv(path, dtype={"topic": str})


def check_cast_run(graph: str, run: str) -> int:
    judgments = cast_graphs()[graph]
    reference = pgc_reference()
    rows = reference[(reference["graph"] == graph) & (reference["run"] == run)]
    queries = np.searchsorted(judgments.query_ids, rows["topic"].to_numpy(dtype=object))
    assert (judgments.query_ids[queries] == rows["topic"].to_numpy(dtype=object)).all()
    rank = rank_column_run(run).rank_of(judgments.query_ids[judgments.doc_query], judgments.doc_ids)
    ideal = positions_in(ideal_order(judgments, rank, queries), judgments.doc_query, len(rank))

    def score(p, which=slice(None)):  # = pgc(judgments, rank, queries[which], p), one ideal for every p
        return rbo_of_positions(judgments, queries[which], ideal, rank - 1, p, 1000, False)

    for p in (0.8, 0.9, 0.95):
        np.testing.assert_allclose(score(p), rows[f"pgc_p{p}_det"].to_numpy(), rtol=0, atol=1e-12)
    # the unmodified, hash-seed dependent script agrees wherever ties cannot matter
    steady = (rows["tie_status"] != "tie_sensitive").to_numpy()
    np.testing.assert_allclose(score(0.8, steady), rows["ref_p0.8_min"][steady], rtol=0, atol=1e-12)
    return len(rows)


@pytest.mark.parametrize("graph", ["real", "derived", "combined"])
@pytest.mark.parametrize("run", SAMPLED_RUNS)
def test_cast2019_reference_pgc_sampled_runs(graph, run):
    assert check_cast_run(graph, run) > 160


@pytest.mark.slow
def test_cast2019_reference_pgc_every_row():
    assert sum(check_cast_run(graph, run) for graph in ("real", "derived", "combined") for run in RUNS) == 8272


def test_cast2019_reference_ideal_rankings():
    path = testdata_path("cast2019_reference_outputs", "pgc_ideal_rankings_exp1_exp12.jsonl.gz")
    with gzip.open(path, "rt") as handle:
        expected = [json.loads(line) for line in handle]
    got = {}
    for graph, run in {(row["graph"], row["run"]) for row in expected}:
        judgments = cast_graphs()[graph]
        rank = rank_column_run(run).rank_of(judgments.query_ids[judgments.doc_query], judgments.doc_ids)
        order = ideal_order(judgments, rank, np.arange(len(judgments)))
        query = judgments.query_ids[judgments.doc_query[order]]
        for topic in np.unique(query):
            got[graph, run, topic] = judgments.doc_ids[order[query == topic]].tolist()
    assert len(expected) == 1034
    for row in expected:
        assert got[row["graph"], row["run"], row["topic"]] == row["ideal_det"], (row["graph"], row["topic"])


def random_qrels(rng: np.random.Generator, n_queries: int, levels: list) -> pd.DataFrame:
    rows = []
    for q in range(n_queries):
        n = int(rng.integers(2, 25))
        grades = rng.choice(levels, n)
        grades[:2] = rng.choice(levels, 2, replace=False)  # at least two levels: every doc has an edge
        rows += [(f"q{q}", f"d{rng.integers(0, 60)}_{i}", g) for i, g in enumerate(grades)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def random_run(rng: np.random.Generator, qrels: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for q, docs in qrels.groupby("query_id")["doc_id"]:
        pool = list(rng.permutation(docs.tolist())[: int(rng.integers(0, len(docs) + 1))])
        pool += [f"x{i}" for i in range(int(rng.integers(0, 8)))]
        scores = rng.integers(0, 5, len(pool)).astype(float)  # many tied scores
        rows += [(q, d, s) for d, s in zip(pool, scores, strict=True)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def derived_preferences(qrels: pd.DataFrame) -> pd.DataFrame:
    pairs = qrels.merge(qrels, on="query_id")
    pairs = pairs[pairs["relevance_x"] > pairs["relevance_y"]]
    return pd.DataFrame(
        {"query_id": pairs["query_id"], "doc_id_a": pairs["doc_id_x"], "doc_id_b": pairs["doc_id_y"], "preference": -1}
    )


@pytest.mark.parametrize("seed", range(12))
def test_graded_fast_path_equals_edge_path(seed):
    rng = np.random.default_rng(seed)
    qrels = random_qrels(rng, 6, [0, 1, 2, 3, 0.5])
    run = random_run(rng, qrels)
    fast = Judgments.from_qrels(qrels)
    edges = Judgments.from_preferences(derived_preferences(qrels))
    assert fast.only_graded and not edges.only_graded
    ranking = ipm.as_ranking(run)
    for judgments in (fast, edges):
        assert (judgments.query_ids == fast.query_ids).all()
    queries = np.arange(len(fast))
    ranks = [ranking.rank_of(j.query_ids[j.doc_query], j.doc_ids) for j in (fast, edges)]
    assert (
        fast.doc_ids[ideal_order(fast, ranks[0], queries)] == edges.doc_ids[ideal_order(edges, ranks[1], queries)]
    ).all()
    for p in (0.5, 0.9, 1):
        np.testing.assert_array_equal(pgc(fast, ranks[0], queries, p=p), pgc(edges, ranks[1], queries, p=p))


@pytest.mark.parametrize("seed", range(12))
def test_pgc_on_positive_grades_equals_unnormalised_compatibility(seed):
    """Luo 2021 §3.5 / specs/pgc.md §1.3: on preferences derived from positive grades, Greedy PGC is
    compatibility without normalisation, given the same run order."""
    rng = np.random.default_rng(100 + seed)
    qrels = random_qrels(rng, 8, [1, 2, 3, 2.5, 10])
    run = random_run(rng, qrels)
    graph = Judgments.from_preferences(derived_preferences(qrels))
    graded = Judgments.from_qrels(qrels)
    ranking = ipm.as_ranking(run)
    queries = np.arange(len(graded))
    for p in (0.8, 0.95):
        expected = compatibility(
            graded, ranking.rank_of(graded.query_ids[graded.doc_query], graded.doc_ids), queries, p, normalize=False
        )
        got = pgc(graph, ranking.rank_of(graph.query_ids[graph.doc_query], graph.doc_ids), queries, p)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


def shuffled(frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    return frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)


def test_pgc_ignores_input_order():
    rng = np.random.default_rng(7)
    qrels = random_qrels(rng, 5, [0, 1, 2])
    prefs = pd.concat([derived_preferences(qrels).head(40)] * 2)  # parallel edges
    prefs.loc[prefs.index[:5], "preference"] = 1  # and contradictions
    run = random_run(rng, qrels)
    measures = [ir_measures.parse_measure(m) for m in ("PGC", "PGC(p=0.8,normalize=True)", "PGC(cols=3)")]

    def values(q, pr, r):
        judgments = combine(Judgments.from_qrels(q), Judgments.from_preferences(pr))
        return sorted(
            (m.query_id, str(m.measure), m.value) for m in PreferenceEvaluator(measures, judgments).iter_calc(r)
        )

    first = values(qrels, prefs, run)
    for _ in range(3):
        assert values(shuffled(qrels, rng), shuffled(prefs, rng), shuffled(run, rng)) == first


def cast_pairs(folder, sep: str) -> tuple:
    """The CAsT crowd preferences in Greedy PGC's ``topic winner loser`` format, written to ``folder``."""
    prefs = data_path("cast2019_toppref", "TREC-CAsT-2019.pref")
    pairs = pd.read_csv(prefs, sep=" ", header=None, names=["q", "a", "b", "w"], dtype=str)
    pairs["loser"] = np.where(pairs["w"] == pairs["a"], pairs["b"], pairs["a"])
    path = folder / "cast.pairs"
    pairs[["q", "w", "loser"]].to_csv(path, sep=sep, header=False, index=False)
    return path, pairs


@pytest.mark.parametrize("run", ["run1", "run2", "run3"])
def test_greedy_pgc_command_reproduces_the_script_on_generated_inputs(run, monkeypatch):
    """Byte for byte against greedy_pgc.py's output on generated preferences with parallel edges and cycles
    (``tests/data/pgc``; the script's run id is the run path as given)."""
    monkeypatch.chdir(FIXTURES / "pgc")
    expected = (FIXTURES / "pgc" / "greedy_pgc" / f"{run}.csv").read_text()
    assert greedy_pgc_report("prefs.txt", f"{run}.txt") == expected


def test_greedy_pgc_command_ignores_hash_seed(tmp_path):
    path, _ = cast_pairs(tmp_path, " ")
    run = data_path("cast2019_runs_decaf", "decaf_exp3.run.gz")
    outputs = set()
    for seed in ("0", "1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        command = [sys.executable, "-m", "ir_pref_measures", "greedy-pgc", str(path), str(run)]
        # run from tmp_path: from the checkout root, `-m` would import the source tree, not the installed package
        done = subprocess.run(command, env=env, check=True, capture_output=True, text=True, cwd=tmp_path)
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert outputs.pop() == greedy_pgc_report(path, run)


def test_greedy_pgc_command_matches_reference_rows(tmp_path):
    path, pairs = cast_pairs(tmp_path, "\t")
    run = testdata_path("cast2019_runs_decaf", "decaf_exp1.run.gz")
    lines = greedy_pgc_report(path, run).splitlines()
    reference = pgc_reference()
    rows = reference[(reference["graph"] == "real") & (reference["run"] == "decaf_exp1")].set_index("topic")
    topics = pd.unique(pairs["q"]).tolist()
    assert lines[0] == "runid,topic,compatibility"
    assert lines[1:-1] == [f"{run},{t},{float(rows.loc[t, 'pgc_p0.8_det'])!r}" for t in topics]
    means = pd.read_csv(testdata_path("cast2019_reference_outputs", "pgc_reference_means.csv"))
    mean = means[(means["graph"] == "real") & (means["run"] == "decaf_exp1")]["mean_p0.8_det"].iloc[0]
    label, value = lines[-1].rsplit(",", 2)[1:]
    assert label == "amean" and float(value) == pytest.approx(mean, abs=1e-15)


def test_pgc_measures_in_ir_measures():
    qrels = pd.DataFrame({"query_id": ["1"] * 4, "doc_id": list("abcd"), "relevance": [2, 1, 0, 1]})
    run = pd.DataFrame({"query_id": ["1"] * 3, "doc_id": list("bax"), "score": [3.0, 2.0, 1.0]})
    pgc_int, pgc_float = ir_measures.parse_measure("PGC(p=1)"), ir_measures.parse_measure("PGC(p=1.0)")
    results = ir_measures.calc_aggregate([pgc_int, pgc_float, PGC, ir_measures.parse_measure("nDCG@10")], qrels, run)
    assert results[pgc_int] == results[pgc_float]
    # ideal a, b, d, c against run b, a, x: the depth-1000 RBO of the two lists
    assert results[PGC] == pytest.approx(rbo(list("abdc"), list("bax"), 0.95), abs=1e-15)
    assert repr(PGC(p=0.8, cols=4, order="euclidean")) == "PGC(p=0.8,cols=4,order='euclidean')"
    with pytest.raises(ValueError, match="needs a grid"):
        ir_measures.calc_aggregate([PGC(order="euclidean")], qrels, run)
    with pytest.raises(ValueError, match="persistence"):
        ir_measures.calc_aggregate([PGC(p=1.5)], qrels, run)


def test_rbo_by_hand():
    # depth 2, p = 0.5: (1 * 0/1 + 0.5 * 2/2) / 1.5
    assert rbo(["a", "b"], ["b", "a"], 0.5, depth=2) == pytest.approx(1 / 3, abs=1e-15)
    assert rbo(list("abc"), list("abc"), 0.9, depth=50, normalize=True) == 1.0
    assert rbo(list("abc"), [], 0.9, normalize=True) == 0.0
    for p, depth in ((0, 10), (1.5, 10), (0.9, 0)):
        with pytest.raises(ValueError):
            rbo(["a"], ["a"], p, depth)


def test_greedy_pgc_command_rejects_bad_input(tmp_path, capsys):
    from ir_pref_measures.commands import main

    prefs, run = tmp_path / "prefs", tmp_path / "run"
    prefs.write_text("q a b a\n")  # the 4-column winner form, which greedy_pgc.py silently misreads
    run.write_text("q Q0 a 1 2.0 t\n")
    assert main(["greedy-pgc", str(prefs), str(run)]) == 2
    assert "fields" in capsys.readouterr().err
    prefs.write_text("q a b\n")
    run.write_text("q Q0 a first 2.0 t\n")
    with pytest.raises(InputError, match="rank column"):
        greedy_pgc_report(prefs, run)
    run.write_text("q Q0 b 1 2.0 t\n")
    assert greedy_pgc_report(prefs, run, p=0.5).splitlines()[1] == f"{run},q,{rbo(['a', 'b'], ['b'], 0.5)!r}"
