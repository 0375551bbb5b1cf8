"""The input checks made before anything is computed: integer grades for ir_measures' own measures, runs with
queries in common with the judgments."""

from __future__ import annotations

import pandas as pd
import pytest

from ir_pref_measures.errors import InputError
from ir_pref_measures.model import checks
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.rankings import Ranking

QRELS = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [2.0, 0.5, 1.0]})


def test_integer_grades_name_the_measures_and_the_first_bad_doc():
    with pytest.raises(InputError, match=r"nDCG@10, AP need integer grades.*doc 'b' of query 'q1' has grade 0.5"):
        checks.check_integer_grades(["nDCG@10", "AP"], Judgments.from_qrels(QRELS))
    with pytest.raises(InputError, match=r"has grade 2000000\n"):  # shown as the qrels line has it
        checks.check_integer_grades(["AP"], Judgments.from_qrels(QRELS.assign(relevance=[2e6, 0, 1])))
    checks.check_integer_grades(["AP"], Judgments.from_qrels(QRELS.assign(relevance=[2, 0, 1])))
    checks.check_integer_grades([], Judgments.from_qrels(QRELS))  # no measure of ir_measures: any grade


def test_the_same_check_on_a_table_and_on_judgments():
    for source in (QRELS, Judgments.from_qrels(QRELS)):
        with pytest.raises(InputError, match="doc 'b' of query 'q1' has grade 0.5"):
            if isinstance(source, Judgments):
                checks.check_integer_grades(["P@5"], source)
            else:
                checks.integer_qrels(["P@5"], source)


def test_preferences_alone_are_no_grades():
    prefs = pd.DataFrame({"query_id": ["q1"], "doc_id_a": ["a"], "doc_id_b": ["b"], "preference": [-1]})
    with pytest.raises(InputError, match="P@5 needs graded qrels, but only preference judgments were given"):
        checks.check_integer_grades(["P@5"], Judgments.from_preferences(prefs))


def test_a_run_without_a_judged_query():
    run = Ranking.from_frame(pd.DataFrame({"query_id": ["x"], "doc_id": ["a"], "score": [1.0]}))
    with pytest.raises(InputError, match=r"run 'r' has no query in common.*e\.g\. x; judged: 2, e\.g\. q1, q2"):
        checks.check_overlap(run, Judgments.from_qrels(QRELS), "run 'r'")


def test_check_run_returns_the_judged_ranks_and_warns_of_an_unjudged_run():
    """``check_run`` makes every check once and hands on the ranks it looked up: those of ``judged_ranks``."""
    from ir_pref_measures.model.coverage import judged_ranks

    judgments = Judgments.from_qrels(QRELS.assign(relevance=[2, 0, 1]))
    run = Ranking.from_frame(pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "x"], "score": [2.0, 1.0]}))
    with pytest.warns(UserWarning, match=r"run r\.txt: none of its retrieved documents is judged on 1 of the 2"):
        ranks = checks.check_run(run, judgments, "r.txt", ["AP"])
    assert ranks.tolist() == judged_ranks(run, judgments).tolist() == [float("inf"), 1.0, float("inf")]


def test_check_run_reports_grades_before_a_run_of_another_collection():
    """Two faults: grades that ir_measures' measures cannot take (a fault of the judgments and the measures) are
    reported before a run that shares no judged query, as ``Experiment`` reports them."""
    run = Ranking.from_frame(pd.DataFrame({"query_id": ["x"], "doc_id": ["a"], "score": [1.0]}))
    judgments = Judgments.from_qrels(QRELS)
    with pytest.raises(InputError, match=r"AP needs integer grades"):
        checks.check_run(run, judgments, "r", ["AP"])
    with pytest.raises(InputError, match=r"the run has no query in common"):
        checks.check_run(run, judgments, "r", [])
