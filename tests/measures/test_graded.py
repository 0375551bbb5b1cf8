"""The columnar trec_eval kernels (measures/graded.py) against the providers ir_measures uses for those measures
(pytrec_eval; judged for Judged; msmarco for RR@k), per query, on the same ranks (the reference gets score = -rank,
exact in pytrec_eval's 32-bit floats), on real runs and on random ones with ties, negative grades and cutoffs larger
than the run."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_measures import AP, RR, Bpref, Judged, NumRel, NumRet, P, R, Rprec, Success, nDCG

import ir_pref_measures
from ir_pref_measures import engine
from ir_pref_measures.commands import main
from ir_pref_measures.measures import graded
from ir_pref_measures.measures.catalog import TREC_EVAL, graded_spec

MEASURES = [
    nDCG,
    nDCG @ 10,
    nDCG(judged_only=True) @ 10,
    nDCG(gains={0: 0, 1: 1, 2: 5, 3: 10}) @ 5,
    AP,
    AP @ 100,
    AP(rel=2),
    P @ 10,
    P(rel=2) @ 5,
    P(judged_only=True) @ 10,
    R @ 100,
    R(rel=2) @ 1000,
    RR,
    RR(rel=2),
    RR @ 10,
    Rprec,
    Rprec(rel=2),
    Bpref,
    Bpref(rel=2),
    Success @ 1,
    Success(rel=3) @ 10,
    Judged @ 10,
    Judged,
    NumRet,
    NumRet(rel=1),
    NumRet(rel=2),
    NumRel,
]


def default_provider(measure) -> str:
    """The provider ir_measures' default pipeline takes for ``measure`` (ours never answers these)."""
    return next(p.NAME for p in ir_measures.DefaultPipeline.providers if p.supports(measure))


def reference(measures, qrels: pd.DataFrame, ranking) -> dict:
    """(query id, measure) -> value from each measure's default ir_measures provider, on score = -rank. One call per
    provider and ``judged_only``: ir_measures' pytrec_eval provider adds NumRet to the first pytrec_eval call of a
    batch, with that call's ``judged_only`` (a quirk the kernels do not copy: NumRet is the run's length)."""
    run = engine.ranked_frame(ranking)
    batches: dict[tuple, list] = {}
    for measure in measures:
        batches.setdefault((default_provider(measure), measure.params.get("judged_only") is True), []).append(measure)
    values = {}
    for (name, _), some in batches.items():
        for metric in ir_measures.providers.registry[name].iter_calc(some, qrels, run):
            values[metric.query_id, metric.measure] = metric.value
    return values


def assert_parity(measures, qrels: pd.DataFrame, run) -> None:
    assert all(graded_spec(m) is not None for m in measures), "every measure goes to the columnar kernels"
    ranking = ir_pref_measures.as_ranking(run)
    got = {(m.query_id, m.measure): m.value for m in engine.evaluate(measures, ranking, qrels=qrels)}
    expected = reference(measures, qrels, ranking)
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert abs(got[key] - value) <= 1e-12, (key, got[key], value)


def test_the_providers_ir_measures_takes_for_these_measures():
    chosen = {str(m): default_provider(m) for m in (nDCG @ 10, AP, RR, RR @ 10, Judged @ 10, Bpref, NumRel)}
    assert chosen == {
        "nDCG@10": "pytrec_eval",
        "AP": "pytrec_eval",
        "RR": "pytrec_eval",
        "RR@10": "msmarco",
        "Judged@10": "judged",
        "Bpref": "pytrec_eval",
        "NumRel": "pytrec_eval",
    }


@pytest.mark.parametrize("run", ["input.ICT-BERT2.txt.gz", "input.ICT-CKNRM_B.txt.gz"])
def test_dl19_parity(data, run):
    qrels = ir_pref_measures.read_qrels(data("dl_llm_prefs_arabzadeh", "qrels.dl19-passage.txt"))
    assert_parity(MEASURES, qrels, ir_pref_measures.read_run(data("dl_llm_prefs_arabzadeh", "runs", run)))


@pytest.mark.parametrize("run", ["decaf_exp1.run.gz", "decaf_exp7.run.gz"])
def test_cast2019_parity(data, run):
    qrels = ir_pref_measures.read_qrels(data("cast2019_qrels", "2019qrels.txt"))
    assert_parity(MEASURES, qrels, ir_pref_measures.read_run(data("cast2019_runs_decaf", run)))


# -- random runs and qrels ---------------------------------------------------------------------------------------


@st.composite
def cases(draw):
    """Qrels and a run over 4 queries x 8 docs: grades -2..4, scores with ties, some queries only judged and some
    only retrieved. Each judged query has a grade >= 0: pytrec_eval reads a query whose grades are all negative
    with the values of the query before (undefined; it may crash)."""
    qrels, run = [], []
    for q in range(4):
        docs = [f"d{i}" for i in range(8)]
        if draw(st.booleans()) or q == 0:
            judged = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1))
            grades = [draw(st.integers(0, 4)), *(draw(st.integers(-2, 4)) for _ in judged[1:])]
            qrels += [(f"q{q}", d, grade) for d, grade in zip(judged, grades, strict=True)]
        if draw(st.booleans()) or q == 0:
            retrieved = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1))
            run += [(f"q{q}", d, float(draw(st.integers(0, 3)))) for d in retrieved]
    return (
        pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
        pd.DataFrame(run, columns=["query_id", "doc_id", "score"]),
    )


CUTOFF = st.integers(1, 12)  # the run holds at most 8 docs
REL = st.integers(1, 3)  # pytrec_eval refuses rel=0 (the kernels leave it to ir_measures)
ONLY = st.booleans()
GAINS = st.dictionaries(st.integers(-2, 4), st.integers(0, 9), max_size=3)


@st.composite
def measure_lists(draw):
    k, rel, only = draw(CUTOFF), draw(REL), draw(ONLY)
    return [
        nDCG(judged_only=only),
        nDCG(judged_only=only) @ k,
        nDCG(gains=draw(GAINS), judged_only=draw(ONLY)) @ draw(CUTOFF),
        nDCG(gains=draw(GAINS)),
        AP(rel=rel, judged_only=only),
        AP(rel=rel, judged_only=only) @ k,
        P(rel=rel, judged_only=only) @ k,
        R(rel=rel, judged_only=only) @ k,
        RR(rel=rel, judged_only=only),
        RR(rel=rel) @ k,
        Rprec(rel=rel, judged_only=only),
        Bpref(rel=rel),
        Success(rel=rel, judged_only=only) @ k,
        Judged @ k,
        Judged,
        NumRet,
        NumRet(rel=rel),
        NumRel,
    ]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), measure_lists())
def test_random_parity(case, measures):
    qrels, run = case
    assert_parity(measures, qrels, run)


# -- the kernels on their own -------------------------------------------------------------------------------------


def test_judged_only_removes_unjudged_docs_and_keeps_the_order():
    ranked = graded.Ranked.of(
        np.array([0, 0, 0, 0]), np.array([1.0, 2.0, 4.0, np.inf]), np.array([-1.0, 2.0, 0.0, 1.0]), np.array([5])
    )
    view = ranked.judged_only()
    assert view.rank.tolist() == [1.0, 2.0, np.inf, np.inf] and view.retrieved.tolist() == [2.0]
    assert view.grade[:2].tolist() == [2.0, 0.0]


def test_precision_divides_by_k_even_past_the_run():
    ranked = graded.Ranked.of(np.array([0, 1]), np.array([1.0, 1.0]), np.array([1.0, 0.0]), np.array([1, 1]))
    assert graded.precision(ranked, 10).tolist() == [0.1, 0.0]


# -- the fall back and the engine's callers -----------------------------------------------------------------------


def test_parameters_the_kernels_do_not_take_go_to_ir_measures():
    for measure in (
        P,
        AP(rel=0),
        RR(rel=0) @ 10,
        RR(judged_only=True) @ 10,
        NumRel(rel=2),
        nDCG(dcg="exp-log2") @ 10,
        AP(rel=1.5),
    ):
        assert graded_spec(measure) is None, measure
    assert graded_spec(ir_measures.parse_measure("infAP")) is None
    assert set(TREC_EVAL) >= {"nDCG", "AP", "P", "R", "RR", "Rprec", "Bpref", "Judged", "NumRet", "NumRel", "Success"}


def test_a_fallback_measure_mixes_with_columnar_ones():
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["b", "a"], "score": [2.0, 1.0]})
    inf_ap = ir_measures.parse_measure("infAP")
    got = engine.evaluate([nDCG @ 2, inf_ap, ir_pref_measures.ppref @ 2], run, qrels=qrels)
    assert [str(m.measure) for m in got] == ["nDCG@2", "infAP", "ppref@2"]
    (expected,) = ir_measures.iter_calc([inf_ap], qrels, run)
    assert got[0].value == pytest.approx(1 / np.log2(3)) and got[1].value == expected.value and got[2].value == 0.0


def test_eval_command_equals_pytrec_eval(data, capsys):
    qrels_path = data("dl_llm_prefs_arabzadeh", "qrels.dl19-passage.txt")
    run_path = data("dl_llm_prefs_arabzadeh", "runs", "input.ICT-BERT2.txt.gz")
    assert main(["eval", "-q", str(qrels_path), str(run_path), "nDCG@10", "AP", "Judged@10"]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    got = {(query, name): float(value) for query, name, value in lines if query != "all"}
    qrels = ir_pref_measures.read_qrels(qrels_path)
    expected = reference(
        [nDCG @ 10, AP, Judged @ 10], qrels, ir_pref_measures.as_ranking(ir_pref_measures.read_run(run_path))
    )
    assert len(got) == len(expected)
    for (query, measure), value in expected.items():
        assert got[query, str(measure)] == pytest.approx(value, abs=1e-4)  # eval prints 4 decimals
