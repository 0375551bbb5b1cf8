"""RBP and its residual in the columnar kernels against cwl_eval, ir_measures' provider of ``RBP``, per query to
1e-12: ``RBP(p, rel)`` through ir_measures' own cwl_eval provider; ``RBP@k`` and ``RBPResidual`` through cwl_eval's
API (``RankingMaker``, ``RBPCWLMetric`` with residuals on, as its ``-r`` option), the run cut at k for a cutoff;
on DL19, CAsT 2019 and random runs with ties, grades -2..4, unjudged docs and cutoffs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_measures import RBP
from measures.test_graded import assert_parity, cases, default_provider

import ir_pref_measures
from ir_pref_measures import RBPResidual, engine
from ir_pref_measures.measures import graded
from ir_pref_measures.measures.catalog import graded_spec

pytest.importorskip("cwl")
from cwl.ruler.measures.cwl_rbp import RBPCWLMetric  # noqa: E402
from cwl.ruler.ranking import RankingMaker  # noqa: E402
from ir_measures.providers.cwl_eval import IrmQrelHandler  # noqa: E402


def cwl_rbp(qrels: pd.DataFrame, ranking, p: float, rel: int = 1, k: int | None = None) -> dict:
    """query id -> (RBP, its residual) by cwl_eval's API, as ir_measures' provider calls it (grades clipped at 0,
    gain 1 at grade >= rel, depth 1000), with residuals on, on the run's ranks cut at ``k``; a judged query the run
    lacks gets the empty ranking."""
    handler = IrmQrelHandler(rel, None, None)
    for query, doc, grade in qrels[["query_id", "doc_id", "relevance"]].itertuples(index=False):
        handler.put_value(query, doc, max(grade, 0))
    frame = ranking.frame().sort_values(["query_id", "rank"])
    docs = {query: group["doc_id"].tolist()[:k] for query, group in frame.groupby("query_id", sort=False)}
    out = {}
    for query in qrels["query_id"].unique().tolist():
        maker = RankingMaker(query, handler, cost_dict=None, max_gain=1.0, min_cost=1.0, max_cost=1.0, max_n=1000)
        for doc in docs.get(query, []):
            maker.add(doc, "_")
        metric = RBPCWLMetric(p)
        metric.residuals = True
        value = metric.measure(maker.get_ranking())
        out[query] = (value, metric.residual_expected_utility)
    return out


def assert_cwl(qrels: pd.DataFrame, run, p: float, rel: int, k: int | None = None) -> None:
    """RBP(p, rel)@k and RBPResidual(p)@k of the engine equal cwl_eval's (:func:`cwl_rbp`), per query."""
    ranking = ir_pref_measures.as_ranking(run)
    cut = {} if k is None else {"cutoff": k}
    measures = [RBP(p=p, rel=rel, **cut), RBPResidual(p=p, **cut)]
    got = {(m.query_id, str(m.measure)): m.value for m in engine.evaluate(measures, ranking, qrels=qrels)}
    expected = cwl_rbp(qrels, ranking, p, rel, k)
    assert len(got) == 2 * len(expected)
    for query, (value, residual) in expected.items():
        assert abs(got[query, str(measures[0])] - value) <= 1e-12, (query, measures[0])
        assert abs(got[query, str(measures[1])] - residual) <= 1e-12, (query, measures[1])


RBPS = [RBP(rel=1), RBP(rel=2), RBP(rel=1, p=0.5), RBP(rel=3, p=0.95), RBP(rel=1, p=0.999), RBP(rel=1, p=1.0)]


def test_cwl_eval_is_ir_measures_provider_of_rbp():
    assert {default_provider(m) for m in RBPS} == {"cwl_eval"}
    assert graded_spec(RBP(rel=1)) is not None and graded_spec(RBP(rel=1) @ 10) is not None


@pytest.mark.parametrize("run", ["input.ICT-BERT2.txt.gz", "input.ICT-CKNRM_B.txt.gz"])
def test_dl19_parity(data, run):
    qrels = ir_pref_measures.read_qrels(data("dl_llm_prefs_arabzadeh", "qrels.dl19-passage.txt"))
    run = ir_pref_measures.read_run(data("dl_llm_prefs_arabzadeh", "runs", run))
    assert_parity(RBPS, qrels, run)
    assert_cwl(qrels, run, 0.8, 2)
    assert_cwl(qrels, run, 0.95, 1, k=10)


@pytest.mark.parametrize("run", ["decaf_exp1.run.gz", "decaf_exp7.run.gz"])
def test_cast2019_parity(data, run):
    qrels = ir_pref_measures.read_qrels(data("cast2019_qrels", "2019qrels.txt"))
    run = ir_pref_measures.read_run(data("cast2019_runs_decaf", run))
    assert_parity(RBPS, qrels, run)
    assert_cwl(qrels, run, 0.8, 1)
    assert_cwl(qrels, run, 0.5, 3, k=5)


P = st.sampled_from([0.1, 0.5, 0.8, 0.95, 1.0]) | st.floats(0.01, 1.0)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), P, st.integers(1, 3))
def test_random_parity_with_ir_measures(case, p, rel):
    qrels, run = case
    assert_parity([RBP(p=p, rel=rel)], qrels, run)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), P, st.integers(1, 3), st.none() | st.integers(1, 12))
def test_random_parity_with_cwl_eval_residuals_and_cutoffs(case, p, rel, k):
    qrels, run = case
    assert_cwl(qrels, run, p, rel, k)


# -- the kernels on their own -------------------------------------------------------------------------------------


def direct_rbp(ranks: list[float], gains: list[float], p: float, depth: float) -> float:
    """Moffat and Zobel's sum, rank by rank, its weights normalised over ``depth`` ranks."""
    total = sum(p**i for i in range(int(depth))) if np.isfinite(depth) else 1 / (1 - p)
    return sum(g * p ** (r - 1) / total for r, g in zip(ranks, gains, strict=True) if r <= depth)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 40), st.integers(-1, 3)), unique_by=lambda t: t[0], max_size=20),
    st.floats(0.05, 0.99),
    st.sampled_from([np.inf, 1000.0, 30.0]),
)
def test_kernel_equals_the_direct_sum(docs, p, depth):
    ranks = [float(r) for r, _ in docs]
    grades = [float(g) for _, g in docs]
    ranked = graded.Ranked.of(np.zeros(len(docs), np.int64), np.array(ranks), np.array(grades), np.array([40]))
    got = graded.rank_biased_precision(ranked, p, 1, np.inf, depth)[0]
    assert got == pytest.approx(direct_rbp(ranks, [float(g >= 1) for g in grades], p, depth), abs=1e-12)
    if np.isfinite(depth):  # the residual: every rank to depth, less those holding a judged doc
        residual = graded.rbp_residual(ranked, p, np.inf, depth)[0]
        assert residual == pytest.approx(1 - direct_rbp(ranks, [1.0] * len(ranks), p, depth), abs=1e-12)


def test_moffat_zobel_residual_is_p_to_the_depth_when_every_doc_is_judged():
    ranked = graded.Ranked.of(np.zeros(3, np.int64), np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, -1.0]), [3])
    assert graded.rbp_residual(ranked, 0.8)[0] == pytest.approx(0.8**3, abs=1e-15)
    assert graded.rbp_residual(ranked, 0.8, k=2)[0] == pytest.approx(0.8**2, abs=1e-15)


def test_a_query_the_run_lacks_has_everything_left():
    qrels = pd.DataFrame({"query_id": ["q", "r"], "doc_id": ["a", "a"], "relevance": [1, 1]})
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    got = [m.value for m in engine.evaluate([RBP(rel=1), RBPResidual], run, qrels=qrels)]
    assert got == pytest.approx([0.2, 0.8, 0.0, 1.0], abs=1e-15)


def test_parameters_the_kernels_do_not_take_go_to_ir_measures():
    for measure in (RBP, RBP(rel=0), RBP(rel=1, p=0.0), RBP(rel=1, p=1.5)):
        assert graded_spec(measure) is None, measure
