"""PyTerrier interop: pt.Experiment and pt.Evaluate take our Measure objects on result frames, without Java,
and agree with our Experiment."""

from __future__ import annotations

import ir_measures
import pandas as pd
import pytest

import ir_pref_measures
from ir_pref_measures import Experiment

pt = pytest.importorskip("pyterrier")

DL19 = "msmarco-passage/trec-dl-2019/judged"
RUNS = {
    "BERT2": "input.ICT-BERT2.txt.gz",
    "CKNRM_B": "input.ICT-CKNRM_B.txt.gz",
    "CKNRM_B50": "input.ICT-CKNRM_B50.txt.gz",
}
MEASURES = [ir_measures.nDCG @ 10, ir_pref_measures.APpref, ir_pref_measures.PGC(p=0.9), ir_pref_measures.ppref @ 10]


@pytest.fixture
def dl19(irds_home, data):
    """PyTerrier's own view of the dataset (through ir_datasets) and the runs as result frames."""
    dataset = pt.get_dataset("irds:" + DL19)
    results = {}
    for name, file in RUNS.items():
        run = pd.DataFrame(ir_measures.read_trec_run(str(data("dl_llm_prefs_arabzadeh", "runs", file))))
        results[name] = run.rename(columns={"query_id": "qid", "doc_id": "docno"})
    return dataset.get_topics(), dataset.get_qrels(), results


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_pt_experiment_equals_ours(dl19, test):
    topics, qrels, results = dl19
    theirs = pt.Experiment(
        list(results.values()),
        topics,
        qrels,
        MEASURES,
        names=list(results),
        baseline=0,
        test=test,
        correction="holm",
    )
    ours = Experiment(results, "irds:" + DL19, MEASURES, baseline="BERT2", test=test, correction="holm")
    assert sorted(theirs.columns) == sorted(ours.columns)
    pd.testing.assert_frame_equal(theirs[ours.columns], ours, check_dtype=False, rtol=1e-12)
    assert not pt.java.started()


def test_pt_experiment_perquery_equals_ours(dl19):
    topics, qrels, results = dl19
    theirs = pt.Experiment(list(results.values()), topics, qrels, MEASURES, names=list(results), perquery=True)
    ours = Experiment(results, qrels, MEASURES, perquery=True)
    key = ["name", "qid", "measure"]
    theirs = theirs.sort_values(key, ignore_index=True)
    pd.testing.assert_frame_equal(theirs, ours.sort_values(key, ignore_index=True), check_dtype=False, rtol=1e-12)


def test_pt_evaluate_equals_ours(dl19):
    _, qrels, results = dl19
    ours = Experiment(results, qrels, MEASURES).set_index("name")
    for name, result in results.items():
        theirs = pt.Evaluate(result, qrels, metrics=MEASURES)
        assert theirs == pytest.approx({str(m): ours.loc[name, str(m)] for m in MEASURES}, rel=1e-12)


def test_pt_parses_measure_strings_as_trec_eval_names(dl19):
    """Documented: PyTerrier reads strings with trec_eval names; pass objects or ir_measures.parse_measure."""
    topics, qrels, results = dl19
    with pytest.raises(Exception, match="APpref"):
        pt.Experiment([results["BERT2"]], topics, qrels, ["APpref"])
    parsed = pt.Experiment([results["BERT2"]], topics, qrels, [ir_measures.parse_measure("APpref")])
    assert parsed.columns.tolist() == ["name", "APpref"]
