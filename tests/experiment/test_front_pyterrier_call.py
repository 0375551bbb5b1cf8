"""Experiment called as pt.Experiment: Transformers with topics, auto names, perquery="both", dataframe, highlight,
filter_by_qrels / filter_by_topics, save_dir / save_mode, batch_size, baseline lists; checked against PyTerrier."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_pref_measures as ipm
from ir_pref_measures import Experiment
from ir_pref_measures.errors import InputError

pt = pytest.importorskip("pyterrier")

DL19 = "msmarco-passage/trec-dl-2019/judged"
FILES = ("input.ICT-BERT2.txt.gz", "input.ICT-CKNRM_B.txt.gz")
MEASURES = [ir_measures.nDCG @ 10, ipm.ppref @ 10, ipm.APpref]


@pytest.fixture
def dl19(irds_home, data):
    dataset = pt.get_dataset("irds:" + DL19)
    frames = [
        pd.DataFrame(ir_measures.read_trec_run(str(data("dl_llm_prefs_arabzadeh", "runs", f)))).rename(
            columns={"query_id": "qid", "doc_id": "docno"}
        )
        for f in FILES
    ]
    return dataset.get_topics(), dataset.get_qrels(), frames


def systems(frames):
    return [pt.Transformer.from_df(frame) for frame in frames]


def test_transformers_with_topics_equal_pt_experiment(dl19):
    topics, qrels, frames = dl19
    transformers = systems(frames)
    theirs = pt.Experiment(transformers, topics, qrels, MEASURES, baseline=0, correction="holm")
    ours = Experiment(transformers, topics, qrels, MEASURES, baseline=0, correction="holm")
    assert list(ours["name"]) == list(theirs["name"])  # PyTerrier's automatic names: str(transformer)
    pd.testing.assert_frame_equal(theirs[ours.columns], ours, check_dtype=False, rtol=1e-12)
    by_keyword = Experiment(systems(frames), topics=topics, qrels=qrels, eval_metrics=MEASURES, names=["a", "b"])
    positional = Experiment(systems(frames), topics, qrels, MEASURES, ["a", "b"])
    pd.testing.assert_frame_equal(by_keyword, positional)
    assert list(positional["name"]) == ["a", "b"]


def test_batches_and_frames_give_the_same_table(dl19):
    topics, qrels, frames = dl19
    whole = Experiment(frames, topics, qrels, MEASURES, names=["a", "b"])
    batched = Experiment(systems(frames), topics, qrels, MEASURES, names=["a", "b"], batch_size=7, verbose=True)
    pd.testing.assert_frame_equal(whole, batched)
    assert list(Experiment(frames, qrels, MEASURES)["name"]) == ["run1", "run2"]


def test_perquery_both_dataframe_and_highlight(dl19):
    topics, qrels, frames = dl19
    theirs_mean, theirs_long = pt.Experiment(frames, topics, qrels, MEASURES, names=["a", "b"], perquery="both")
    mean, long = Experiment(frames, topics, qrels, MEASURES, names=["a", "b"], perquery="both")
    pd.testing.assert_frame_equal(theirs_mean[mean.columns], mean, check_dtype=False, rtol=1e-12)
    key = ["name", "qid", "measure"]
    pd.testing.assert_frame_equal(
        theirs_long.sort_values(key, ignore_index=True), long.sort_values(key, ignore_index=True), rtol=1e-12
    )
    as_dict = Experiment(frames, topics, qrels, MEASURES, names=["a", "b"], dataframe=False)
    assert as_dict == {row["name"]: {str(m): row[str(m)] for m in MEASURES} for _, row in mean.iterrows()}
    styled = Experiment(frames, topics, qrels, MEASURES, names=["a", "b"], highlight="bold")
    html = styled.to_html()
    best = mean.set_index("name")["nDCG@10"].idxmax()
    assert "font-weight: bold" in html and best in html
    with pytest.raises(InputError, match="unknown highlight"):
        Experiment(frames, topics, qrels, MEASURES, highlight="blink")


def test_filter_by_qrels_and_topics(dl19):
    topics, qrels, frames = dl19
    few = topics.iloc[:5]
    theirs = pt.Experiment(frames, few, qrels, MEASURES, names=["a", "b"])
    ours = Experiment(frames, few, qrels, MEASURES, names=["a", "b"])
    pd.testing.assert_frame_equal(theirs[ours.columns], ours, check_dtype=False, rtol=1e-12)
    unfiltered = Experiment(frames, few, qrels, MEASURES, names=["a", "b"], filter_by_topics=False)
    pd.testing.assert_frame_equal(unfiltered, Experiment(frames, qrels, MEASURES, names=["a", "b"]))
    extra = pd.concat([few, pd.DataFrame({"qid": ["no-such-query"], "query": ["nothing"]})], ignore_index=True)
    fixed = pt.Transformer.from_df(frames[0])
    kept = Experiment([fixed], extra, qrels, MEASURES, names=["a"], filter_by_qrels=True)
    pd.testing.assert_frame_equal(kept, ours.iloc[:1])


def test_save_dir_modes(dl19, tmp_path):
    topics, qrels, frames = dl19
    first = Experiment(systems(frames), topics, qrels, MEASURES, names=["a", "b"], save_dir=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.res.gz", "aggregated.csv", "b.res.gz", "perquery.csv"]
    saved = pt.io.read_results(str(tmp_path / "a.res.gz"))
    assert len(saved) == frames[0]["qid"].isin(topics["qid"]).sum()  # the Transformer ran on the topics
    empty = [pt.Transformer.from_df(frames[0].iloc[:0]), pt.Transformer.from_df(frames[1].iloc[:0])]
    reused = Experiment(empty, topics, qrels, MEASURES, names=["a", "b"], save_dir=tmp_path, save_mode="reuse")
    pd.testing.assert_frame_equal(first, reused)
    with pytest.raises(InputError, match="exists"):
        Experiment(systems(frames), topics, qrels, MEASURES, names=["a", "b"], save_dir=tmp_path, save_mode="error")
    with pytest.warns(UserWarning, match="exists and is replaced"):
        Experiment(systems(frames), topics, qrels, MEASURES, names=["a", "b"], save_dir=tmp_path)


def test_baseline_by_name_index_or_list(dl19):
    topics, qrels, frames = dl19
    by_index = Experiment(frames, topics, qrels, MEASURES, names=["a", "b"], baseline=0)
    pd.testing.assert_frame_equal(by_index, Experiment(frames, topics, qrels, MEASURES, names=["a", "b"], baseline="a"))
    pd.testing.assert_frame_equal(by_index, Experiment(frames, topics, qrels, MEASURES, names=["a", "b"], baseline=[0]))
    both = Experiment(frames, topics, qrels, MEASURES, names=["a", "b"], baseline=["a", "b"], correction="holm")
    np.testing.assert_array_equal(both["nDCG@10 p-value vs a"], by_index["nDCG@10 p-value"])
    assert both["nDCG@10 + vs b"].tolist()[0] == by_index["nDCG@10 -"].tolist()[1]
    np.testing.assert_allclose(both["nDCG@10 p-value vs b"].iloc[0], by_index["nDCG@10 p-value"].iloc[1])


def test_transformers_need_topics(dl19):
    _, qrels, frames = dl19
    with pytest.raises(InputError, match="is a Transformer: give the topics"):
        Experiment(systems(frames), qrels, MEASURES)
