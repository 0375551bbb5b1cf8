"""The measures inside ir_measures: names, registration, judgment forms, mixing with ordinary measures."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections import namedtuple

import ir_measures
import pandas as pd
import pytest
from ir_measures import parse_measure
from ir_pref_measures.adapters import ir_measures as adapter

import ir_pref_measures as ipm
from ir_pref_measures import engine
from ir_pref_measures.errors import InputError

QRELS = pd.DataFrame(
    {
        "query_id": ["q1"] * 4 + ["q2"] * 3 + ["q3"] * 2,
        "doc_id": ["a", "b", "c", "d", "a", "b", "c", "x", "y"],
        "relevance": [2, 1, 0, 1, 1, 0, 0, 1, 0],
    }
)
RUN = pd.DataFrame(
    {
        "query_id": ["q1"] * 4 + ["q2"] * 2,
        "doc_id": ["b", "a", "z", "c", "c", "a"],
        "score": [4.0, 3.0, 2.0, 1.0, 2.0, 1.0],
    }
)
NAMES = [
    "ppref@10",
    "rpref@5",
    "fpref(beta=2.0)@5",
    "wpref@5",
    "nwpref@5",
    "wppref@5",
    "nwppref@5",
    "rrpref",
    "pprefMax",
    "rprefMax",
    "APpref",
    "ppref(transitive=False)@5",
    "num_pref_ranked",
    "num_pref_total",
    "num_preferred",
    "num_preferred_unrk",
    "num_bad",
]


def test_every_name_parses_and_prints_back():
    for name in NAMES:
        assert str(parse_measure(name)) == name
    assert parse_measure("ppref(transitive=True)@5") == ipm.ppref @ 5
    assert parse_measure("fpref(beta=1)@5") == ipm.fpref @ 5


def test_registration_is_idempotent():
    # in a process of its own: reloading the adapter makes new measure classes, which would leave this process's
    # measure objects (ipm.ppref, ...) of classes no longer registered
    code = (
        "import importlib, ir_measures, ir_pref_measures\n"
        "from ir_pref_measures.adapters import ir_measures as adapter\n"
        "importlib.reload(adapter)\n"
        "adapter.register()\n"
        "adapter.register()\n"
        "ours = [p for p in ir_measures.DefaultPipeline.providers if p.NAME == adapter.PreferenceProvider.NAME]\n"
        "assert len(ours) == 1, ours\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tempfile.gettempdir())
    assert done.returncode == 0, done.stderr


def test_mixed_with_ordinary_measures_in_one_call():
    measures = [parse_measure(m) for m in ("nDCG@10", "ppref@10", "AP", "APpref")]
    mixed = ir_measures.calc_aggregate(measures, QRELS, RUN)
    alone = ir_measures.calc_aggregate([parse_measure("nDCG@10"), parse_measure("AP")], QRELS, RUN)
    assert mixed[parse_measure("nDCG@10")] == alone[parse_measure("nDCG@10")]
    assert mixed[parse_measure("AP")] == alone[parse_measure("AP")]
    assert mixed[parse_measure("ppref@10")] == ir_measures.calc_aggregate([ipm.ppref @ 10], QRELS, RUN)[ipm.ppref @ 10]


def test_per_query_values_against_a_hand_count():
    """q1: grades a2 b1 d1 c0, run b a z c: ranks b1 a2 c4, d unretrieved.
    Pairs (f, t): a>b (2,1) a>c (2,4) a>d (2,inf) b>c (1,4) d>c (inf,4) -> N = 5."""
    values = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.iter_calc([parse_measure(n) for n in NAMES], QRELS, RUN)
    }
    assert values[("q1", "num_pref_total")] == 5
    assert values[("q1", "ppref@10")] == pytest.approx(3 / 5)  # correct: (2,4) (2,inf) (1,4)
    assert values[("q1", "rpref@5")] == pytest.approx(3 / 5)
    assert values[("q1", "ppref(transitive=False)@5")] == pytest.approx(3 / 5)
    assert values[("q1", "rrpref")] == 1.0
    assert values[("q1", "num_preferred")] == 3  # a, b retrieved; d unretrieved
    assert values[("q1", "num_preferred_unrk")] == 1
    # APpref: PR = {1, 2}: ppref@1 = 1/2 (b>c correct, a>b touches 1), ppref@2 = 3/4; PU = 1: rprefMax 3/5
    assert values[("q1", "APpref")] == pytest.approx((1 / 2 + 3 / 4 + 3 / 5) / 3)
    assert values[("q3", "ppref@10")] == 0.0  # judged, missing from the run: the default


def test_judged_queries_missing_from_the_run_get_the_default():
    result = list(ir_measures.iter_calc([ipm.APpref], QRELS, RUN))
    assert {m.query_id for m in result} == {"q1", "q2", "q3"}
    assert [m.value for m in result if m.query_id == "q3"] == [0.0]


def test_every_judgment_form_gives_the_same_values(tmp_path):
    path = tmp_path / "qrels"
    path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS.itertuples(index=False)))
    Qrel = namedtuple("Qrel", "query_id doc_id relevance")
    dict_of_dict = {q: dict(zip(g.doc_id, g.relevance, strict=True)) for q, g in QRELS.groupby("query_id")}
    forms = [
        QRELS,
        QRELS.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"}),
        [Qrel(*row) for row in QRELS.itertuples(index=False)],
        dict_of_dict,
        ipm.load_judgments(path, format="qrels"),  # ir_measures turns a bare str into an iterator
        ipm.Judgments.from_qrels(QRELS),
    ]
    measures = [parse_measure(n) for n in NAMES]
    results = [ir_measures.calc_aggregate(measures, form, RUN) for form in forms]
    assert all(r == results[0] for r in results)


def test_preference_tables_as_judgments():
    Pref = namedtuple("Pref", "query_id doc_id_a doc_id_b preference")
    rows = [("q1", "a", "b", "-1"), ("q1", "c", "b", "1"), ("q1", "e", "NA", "-2")]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id_a", "doc_id_b", "preference"])
    measures = [ipm.ppref @ 5, ipm.num_bad, ipm.num_pref_total]
    from_frame = ir_measures.calc_aggregate(measures, frame, RUN)
    from_tuples = ir_measures.calc_aggregate(measures, [Pref(*r) for r in rows], RUN)
    assert from_frame == from_tuples
    assert from_frame[ipm.num_bad] == 1
    # a>b, b>c, closure a>c; bad e against each retrieved preferred doc (a, b): 3 + 2 pairs
    assert from_frame[ipm.num_pref_total] == 5


def test_evaluator_can_be_reused():
    evaluator = ir_measures.evaluator([ipm.ppref @ 5, ipm.nwppref @ 5, parse_measure("nDCG@5")], QRELS)
    first = evaluator.calc_aggregate(RUN)
    other = evaluator.calc_aggregate(RUN.assign(score=-RUN.score))
    assert evaluator.calc_aggregate(RUN) == first
    assert other != first


def test_run_forms():
    dict_run = {q: dict(zip(g.doc_id, g.score, strict=True)) for q, g in RUN.groupby("query_id")}
    scored = [ir_measures.ScoredDoc(*row) for row in RUN.itertuples(index=False)]
    pyterrier = RUN.rename(columns={"query_id": "qid", "doc_id": "docno"})
    expected = ir_measures.calc_aggregate([ipm.APpref], QRELS, RUN)
    for run in (dict_run, scored, ipm.as_ranking(pyterrier)):
        assert ir_measures.calc_aggregate([ipm.APpref], QRELS, run) == expected


def test_provider_rejects_foreign_measures():
    with pytest.raises(ValueError, match="unsupported measure nDCG@10"):
        adapter.PreferenceProvider().evaluator([parse_measure("nDCG@10")], QRELS)


def test_a_run_with_no_query_in_common_warns():
    run = RUN[RUN.query_id == "q1"].assign(query_id="other")
    with pytest.warns(UserWarning, match="no query in common"):
        values = ir_measures.calc_aggregate([ipm.ppref @ 5], QRELS, run)
    assert values[ipm.ppref @ 5] == 0.0


def test_ordinary_measures_need_qrels():
    judgments = ipm.Judgments.from_preferences(
        pd.DataFrame({"query_id": ["q1"], "doc_id_a": ["a"], "doc_id_b": ["b"], "preference": [-1]})
    )
    with pytest.raises(ValueError, match="nDCG@10 needs graded qrels"):
        engine.evaluate([parse_measure("nDCG@10")], RUN, judgments=judgments)


def test_judgments_from_any_source_go_to_ir_measures_own_measures_too(tmp_path):
    """``ir_measures.calc_aggregate([APpref, nDCG@10], ipm.load_judgments(...), run)``: the standard measures read
    the graded part of the Judgments (read as a table: its rows as Qrel-like tuples), the preference ones all of it;
    values equal those of the qrels given in ir_measures' own form."""
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in QRELS.itertuples(index=False)))
    prefs = tmp_path / "prefs.txt"
    prefs.write_text("q1 c a\nq2 b a\n")  # against the grades: they change APpref, not nDCG
    ndcg, ap = parse_measure("nDCG@10"), parse_measure("AP")
    expected = ir_measures.calc_aggregate([ndcg, ap, ipm.APpref], QRELS, RUN)
    for source in (str(path), "qrels:" + str(path), QRELS):
        assert ir_measures.calc_aggregate([ipm.APpref, ndcg, ap], ipm.load_judgments(source), RUN) == expected
    union = ipm.load_judgments(f"{path}+pairs:{prefs}")
    values = ir_measures.calc_aggregate([ipm.APpref, ndcg], union, RUN)
    assert values[ndcg] == expected[ndcg] and values[ipm.APpref] != expected[ipm.APpref]
    rows = sorted(ipm.load_judgments(str(path)).itertuples())
    assert rows == sorted((q, d, g) for q, d, g in QRELS.itertuples(index=False))  # grades as integers
    preferences = ipm.load_judgments("pairs:" + str(prefs))
    assert ir_measures.calc_aggregate([ipm.APpref], preferences, RUN)  # the preference measures alone: fine
    with pytest.raises(InputError, match="hold preferences only"):
        ir_measures.calc_aggregate([ipm.APpref, ndcg], preferences, RUN)


def test_judgments_of_an_ir_datasets_id_in_ir_measures(irds_home):
    """docs/input.md's call: a Judgments loaded by ir_datasets ID, next to nDCG@10."""
    judgments = ipm.load_judgments("irds:msmarco-passage/trec-dl-2019/judged")
    qrels = judgments.qrels()
    run = qrels.assign(score=qrels["relevance"] * 1.0 + 0.5).drop(columns="relevance")  # the ideal ranking
    values = ir_measures.calc_aggregate([ipm.APpref, parse_measure("nDCG@10")], judgments, run)
    assert values[parse_measure("nDCG@10")] == pytest.approx(1.0) and values[ipm.APpref] == pytest.approx(1.0)
