"""Judgments and topics by ir_datasets ID, on the seeded cache (real TREC DL 2019/2020 and CAsT 2019 qrels)."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_pref_measures
from ir_pref_measures.errors import InputError
from ir_pref_measures.loading.sources import judgments as load_judgments
from ir_pref_measures.loading.sources import load_combined
from ir_pref_measures.parsing import datasets as irds

DL19 = "msmarco-passage/trec-dl-2019/judged"
# (dataset ID, cached qrels file, queries, lines) as the seeded cache's README states them
QRELS = [
    (DL19, "msmarco-passage/trec-dl-2019/qrels", 43, 9260),
    ("msmarco-passage/trec-dl-2020/judged", "msmarco-passage/trec-dl-2020/qrels", 54, 11386),
    ("trec-cast/v1/2019/judged", "trec-cast/2019/2019qrels.txt", 173, 29350),
]


@pytest.mark.parametrize(("dataset_id", "path", "n_queries", "n_lines"), QRELS)
def test_qrels_by_id_equal_the_cached_file(irds_home, on_real_data, dataset_id, path, n_queries, n_lines):
    frame = irds.qrels("irds:" + dataset_id)
    if on_real_data:
        assert len(frame) == n_lines and frame["query_id"].nunique() == n_queries
    expected = pd.DataFrame(ir_measures.read_trec_qrels(str(irds_home / path)))
    pd.testing.assert_frame_equal(
        frame.reset_index(drop=True),
        expected[["query_id", "doc_id", "relevance"]].astype({"query_id": str, "doc_id": str}),
        check_dtype=False,
    )


def test_topics_by_id(irds_home, on_real_data):
    dl19 = irds.topics("irds:" + DL19)
    assert list(dl19.columns) == ["qid", "query"]
    assert set(dl19["qid"]) == set(irds.qrels(DL19)["query_id"])
    dl20, dl20_judged = irds.topics("msmarco-passage/trec-dl-2020"), irds.topics("msmarco-passage/trec-dl-2020/judged")
    assert set(dl20_judged["qid"]) == set(irds.qrels("msmarco-passage/trec-dl-2020")["query_id"]) < set(dl20["qid"])
    if on_real_data:
        assert (len(dl19), len(dl20), len(dl20_judged)) == (43, 200, 54)
    assert dl19["query"].str.len().gt(0).all()


def test_load_judgments_by_id(irds_home):
    by_id = load_judgments("irds:" + DL19)
    from_file = load_judgments(str(irds_home / "msmarco-passage/trec-dl-2019/qrels"), format="qrels")
    for field in ("query_ids", "doc_offsets", "doc_ids", "grades"):
        np.testing.assert_array_equal(getattr(by_id, field), getattr(from_file, field))
    # one rule everywhere: a string that is no existing file is an ir_datasets ID
    cached = irds_home / "msmarco-passage/trec-dl-2019/qrels"
    assert len(load_judgments(DL19)) == len({qrel.query_id for qrel in ir_measures.read_trec_qrels(str(cached))})


def test_ids_combine_with_preference_files(irds_home, testdata):
    prefs = testdata("cast2019_toppref", "TREC-CAsT-2019.pref")
    combined = load_combined("irds:trec-cast/v1/2019/judged", prefs, format="winner")
    assert int(combined.graded.sum()) == 29350 and len(combined.edge_src) == 14573


def test_ir_measures_calls_take_a_dataset_by_id(irds_home, testdata):
    """ir_measures turns a string into an iterator of characters before any provider sees it, so in its calls
    a dataset is ``ir_datasets.load(id).qrels_iter()`` (every measure) or ``load_judgments("irds:<id>")``
    (our measures)."""
    import ir_datasets

    run = list(ir_measures.read_trec_run(str(testdata("dl_llm_prefs_arabzadeh", "runs", "input.ICT-BERT2.txt.gz"))))
    measures = [ir_pref_measures.APpref, ir_measures.nDCG @ 10]
    by_frame = ir_measures.calc_aggregate(measures, irds.qrels(DL19), run)
    assert ir_measures.calc_aggregate(measures, ir_datasets.load(DL19).qrels_iter(), run) == by_frame
    by_judgments = ir_measures.calc_aggregate([ir_pref_measures.APpref], load_judgments("irds:" + DL19), run)
    assert by_judgments == {ir_pref_measures.APpref: by_frame[ir_pref_measures.APpref]}


def test_unknown_id_names_the_closest_ones(irds_home):
    with pytest.raises(InputError, match=r"unknown ir_datasets ID 'msmarco-passage/trec-dl-2019/judgd'.*did you mean"):
        irds.qrels("irds:msmarco-passage/trec-dl-2019/judgd")
    with pytest.raises(InputError, match="neither an existing file nor a known ir_datasets ID"):
        load_judgments("no-such-file-or-dataset")


def test_dataset_without_qrels(irds_home):
    with pytest.raises(InputError, match="'msmarco-passage' provides no qrels"):
        irds.qrels("irds:msmarco-passage")


def test_missing_cache_file_names_dataset_file_and_remedy(irds_home, missing_dataset_id):
    with pytest.raises(InputError) as error:
        irds.qrels("irds:" + missing_dataset_id)
    message = str(error.value)
    assert f"'{missing_dataset_id}'" in message
    assert str(irds_home / "missing" / "qrels") in message
    assert "IR_DATASETS_HOME" in message and "copy the dataset's files" in message


def test_missing_queries_file_of_a_seeded_dataset(irds_home):
    """CAsT 2019's queries are not seeded: the error names the file ir_datasets looked for."""
    expected = irds_home / "trec-cast/2019/evaluation_topics_v1.0.json"
    assert not expected.exists()
    dataset = irds.load("trec-cast/v1/2019/judged")
    assert irds.cache_files(dataset.queries_handler()) == [str(expected)]
    assert irds.cache_files(dataset.qrels_handler()) == [str(irds_home / "trec-cast/2019/2019qrels.txt")]
