"""Experiment's judgment sets (a mapping, A+B, lists), measures per set, and topk on Rankings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_pref_measures import Experiment
from ir_pref_measures.errors import InputError
from ir_pref_measures.experiment.runs import truncate
from ir_pref_measures.loading import sources
from ir_pref_measures.model.judgments import combine
from ir_pref_measures.model.rankings import Ranking

RUNS = {
    "a": pd.DataFrame({"query_id": ["1"] * 4 + ["2"] * 3, "doc_id": list("wxyzxyz"), "score": [4, 3, 2, 1, 3, 2, 1]}),
    "b": pd.DataFrame({"query_id": ["1"] * 4 + ["2"] * 3, "doc_id": list("zyxwzyx"), "score": [4, 3, 2, 1, 3, 2, 1]}),
}
QRELS = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": ["w", "x", "y", "z"], "relevance": [2, 1, 1, 0]})
PREFS_1 = pd.DataFrame({"query_id": ["1", "2"], "doc_id_a": ["z", "z"], "doc_id_b": ["w", "x"], "preference": [-1, -1]})
PREFS_2 = pd.DataFrame({"query_id": ["1", "2"], "doc_id_a": ["y", "x"], "doc_id_b": ["x", "y"], "preference": [-1, -1]})


def test_measures_on_named_sets_equal_separate_experiments():
    sets = {"graded": QRELS, "judge": PREFS_1}
    table = Experiment(RUNS, sets, ["nDCG@10", "judge:ppref@10", "graded:ppref@10"])
    assert list(table.columns) == ["name", "nDCG@10", "ppref@10 [judge]", "ppref@10 [graded]"]
    np.testing.assert_allclose(table["nDCG@10"], Experiment(RUNS, QRELS, ["nDCG@10"])["nDCG@10"])
    np.testing.assert_allclose(table["ppref@10 [judge]"], Experiment(RUNS, PREFS_1, ["ppref@10"])["ppref@10"])
    by_mapping = Experiment(RUNS, sets, {"graded": ["nDCG@10"], "judge": ["ppref@10"]})
    np.testing.assert_allclose(by_mapping["ppref@10 [judge]"], table["ppref@10 [judge]"])


def test_a_list_of_sources_is_their_union(tmp_path):
    union = Experiment(RUNS, [PREFS_1, PREFS_2], ["ppref@10", "APpref"])
    combined = Experiment(RUNS, combine(sources.judgments(PREFS_1), sources.judgments(PREFS_2)), ["ppref@10", "APpref"])
    pd.testing.assert_frame_equal(union, combined)
    for name, frame in (("one", PREFS_1), ("two", PREFS_2)):
        lines = [f"{r.query_id} {r.doc_id_a} {r.doc_id_b}\n" for r in frame.itertuples()]
        (tmp_path / name).write_text("".join(lines))
    plus = Experiment(RUNS, {"both": f"pairs:{tmp_path / 'one'}+pairs:{tmp_path / 'two'}"}, ["ppref@10", "APpref"])
    np.testing.assert_allclose(plus[["ppref@10", "APpref"]], union[["ppref@10", "APpref"]])


def test_unknown_sets_and_bad_names_are_input_errors():
    with pytest.raises(InputError, match="unknown judgment set or group 'nope'"):
        Experiment(RUNS, {"graded": QRELS, "judge": PREFS_1}, ["nope:ppref@10"])
    with pytest.raises(InputError, match="judgment set name"):
        Experiment(RUNS, {"a b": QRELS}, ["nDCG@10"])
    with pytest.raises(InputError, match="no judgment sets"):
        Experiment(RUNS, {}, ["nDCG@10"])


rankings = st.lists(
    st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.integers(0, 30), st.integers(-3, 3)), min_size=1, max_size=40
)


@settings(max_examples=60, deadline=None)
@given(rows=rankings, k=st.integers(1, 12))
def test_truncate_keeps_the_first_k_of_each_query(rows, k):
    frame = pd.DataFrame(rows, columns=["query_id", "doc", "score"]).drop_duplicates(["query_id", "doc"])
    frame = frame.assign(doc_id="d" + frame["doc"].astype(str), score=frame["score"].astype(float))
    ranking = Ranking.from_frame(frame[["query_id", "doc_id", "score"]])
    full = ranking.frame()
    expected = full[full["rank"] <= k].reset_index(drop=True)
    pd.testing.assert_frame_equal(truncate(ranking, k).frame(), expected)


def test_topk_is_checked():
    with pytest.raises(InputError, match="topk must be a positive integer"):
        Experiment(RUNS, QRELS, ["nDCG@10"], topk=0)


def test_a_pairwise_measure_on_a_named_set_is_tested_as_a_pairwise_measure():
    """``rpp`` on set y is a preference over the baseline like ``rpp``: the same test (the sign test under the
    default ``t``), so the same p-values on the same judgments."""
    runs = {**RUNS, "c": RUNS["b"].assign(score=RUNS["b"]["score"][::-1].to_numpy())}
    table = Experiment(runs, {"x": QRELS, "y": QRELS}, ["rpp", "y:rpp"], baseline="a")
    np.testing.assert_array_equal(table["rpp p-value"], table["rpp [y] p-value"])


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "permutation", "bootstrap"])
def test_a_run_identical_to_the_baseline_has_no_p_value_under_any_test(test):
    table = Experiment({**RUNS, "same": RUNS["a"]}, QRELS, ["nDCG@10"], baseline="a", test=test, correction="holm")
    row = table.set_index("name").loc["same"]
    assert np.isnan(row["nDCG@10 p-value"]) and np.isnan(row["nDCG@10 p-value corrected"])


def test_a_file_with_a_plus_in_its_name_is_one_source_on_the_command_line_too(tmp_path):
    path = tmp_path / "qrels+v2.txt"
    path.write_text("".join(f"{r.query_id} 0 {r.doc_id} {r.relevance}\n" for r in QRELS.itertuples()))
    one = sources.judgment_sets([f"graded={path}"])["graded"]
    assert one.n_docs == len(QRELS) and sources.joined(str(path)).n_docs == len(QRELS)
