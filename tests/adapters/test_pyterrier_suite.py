"""PyTerrier's own Experiment tests, reproduced: each behaviour of ``pt.Experiment`` that its tests check
(measure strings, mrt, its keywords, dict names, NaN rows for unjudged topics and the warning, the no-overlap
error, save_dir's files, perquery="both") on a small input, with ``pt.Experiment`` itself as the reference.

PyTerrier's test files cannot be committed here (another project's code); with ``IPM_PYTERRIER_CHECKOUT`` set to a
folder holding PyTerrier's ``tests/`` at the installed version's tag, :func:`test_pyterrier_own_tests` also runs them
against ours (tests/pyterrier_suite/run.py; docs/experiments.md, "PyTerrier's own tests")."""

from __future__ import annotations

import os
import pickle
import re
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

from ir_pref_measures import Experiment

pt = pytest.importorskip("pyterrier")

TOPICS = pd.DataFrame({"qid": ["q1", "q2", "q3"], "query": ["a b", "c d", "e f"]})
QRELS = pd.DataFrame(
    {"qid": ["q1", "q1", "q1", "q2", "q2"], "docno": ["d1", "d2", "d5", "d3", "d4"], "label": [2, 1, 0, 1, 2]}
)
RES1 = pd.DataFrame(
    {
        "qid": ["q1"] * 4 + ["q2"] * 4 + ["q3"] * 2,
        "docno": ["d1", "d9", "d2", "d5", "d4", "d8", "d3", "d7", "d1", "d2"],
        "score": [4.0, 3, 2, 1, 4, 3, 2, 1, 2, 1],
    }
)
RES2 = RES1.assign(score=[1.0, 4, 3, 2, 1, 2, 3, 4, 1, 2])


def systems():
    return [pt.Transformer.from_df(pt.model.add_ranks(RES1)), pt.Transformer.from_df(pt.model.add_ranks(RES2))]


def both(*args, **kwargs):
    """pt.Experiment's and ours on the same call (fresh Transformers each)."""
    theirs = pt.Experiment(*[systems() if isinstance(a, str) and a == "S" else a for a in args], **kwargs)
    ours = Experiment(*[systems() if isinstance(a, str) and a == "S" else a for a in args], **kwargs)
    return theirs, ours


@pytest.mark.parametrize(
    "measures",
    [["map", "ndcg_cut_10", "P_10"], ["map", "ndcg", "num_q"], ["P"], ["official"], ["recall_5", "recip_rank"]],
)
def test_trec_eval_measure_strings(measures):
    theirs, ours = both("S", TOPICS, QRELS, measures, names=["a", "b"])
    assert set(ours.columns) == set(theirs.columns)  # ours in the order given, PyTerrier's in ir_measures' order
    # PyTerrier sums the counts it names (num_q, NumRet, ...) but averages NumRet(rel=1); ours sum every count
    columns = [c for c in ours.columns if c != "NumRet(rel=1)"]
    pd.testing.assert_frame_equal(ours[columns], theirs[columns], check_dtype=False, rtol=1e-12)


def test_trec_eval_strings_with_baseline_and_perquery():
    theirs, ours = both("S", TOPICS, QRELS, ["map", "P_10"], names=["a", "b"], baseline=0)
    pd.testing.assert_frame_equal(ours, theirs[ours.columns], check_dtype=False, rtol=1e-12)
    theirs, ours = both("S", TOPICS, QRELS, ["map", "P_10"], names=["a", "b"], perquery=True)
    pd.testing.assert_frame_equal(ours.reset_index(drop=True), theirs.reset_index(drop=True), rtol=1e-12)


def test_our_names_still_parse_and_trec_names_come_first():
    table = Experiment(systems(), TOPICS, QRELS, ["nDCG@10", "APpref", "map"], names=["a", "b"])
    assert list(table.columns) == ["name", "nDCG@10", "APpref", "map"]


def test_mrt_column():
    theirs, ours = both("S", TOPICS, QRELS, ["map", "mrt"], names=["a", "b"], baseline=0)
    assert list(ours.columns) == list(theirs.columns) == ["name", "map", "mrt", "map +", "map -", "map p-value"]
    assert (ours["mrt"] >= 0).all()
    measures = ["map", "mrt"]
    Experiment(systems(), TOPICS, QRELS, measures)
    assert measures == ["map", "mrt"]  # the caller's list is left alone


@pytest.mark.parametrize("keywords", [{"plan": "tree"}, {"plan": "linear"}, {"validate": "ignore"}])
def test_pyterrier_keywords(keywords):
    theirs, ours = both("S", TOPICS, QRELS, ["map"], names=["a", "b"], **keywords)
    pd.testing.assert_frame_equal(ours, theirs, check_dtype=False, rtol=1e-12)


def test_precompute_prefix_is_deprecated():
    with pytest.warns(DeprecationWarning, match="precompute_prefix"):
        Experiment(systems(), TOPICS, QRELS, ["map"], names=["a", "b"], precompute_prefix=True)
    with pytest.raises(TypeError):
        Experiment(systems(), TOPICS, QRELS, ["map"], filter_qrels=True)


def test_dict_ignores_names_and_duplicate_transformer_names():
    runs = {"bm25": pt.Transformer.from_df(RES1), "dph": pt.Transformer.from_df(RES2)}
    theirs = pt.Experiment(runs, TOPICS, QRELS, ["map"], baseline="bm25", names=["ignored"])
    ours = Experiment(runs, TOPICS, QRELS, ["map"], baseline="bm25", names=["ignored"])
    pd.testing.assert_frame_equal(ours, theirs[ours.columns], check_dtype=False, rtol=1e-12)
    same = pt.Transformer.from_df(RES1)
    twice = Experiment([same, same], TOPICS, QRELS, ["map"])  # PyTerrier: two rows named str(same)
    assert list(twice["name"]) == [str(same), f"{str(same)} (2)"]


@pytest.mark.parametrize("filter_by_qrels", [False, True])
@pytest.mark.parametrize("filter_by_topics", [False, True])
@pytest.mark.parametrize(("qrel_qids", "topic_qids"), [(["q1", "q2"], ["q1", "q3"]), (["q1"], ["q2", "q3"])])
def test_unjudged_topics_are_nan_rows_with_a_warning(qrel_qids, topic_qids, filter_by_qrels, filter_by_topics):
    topics, qrels = TOPICS[TOPICS.qid.isin(topic_qids)], QRELS[QRELS.qid.isin(qrel_qids)]
    kwargs = {"filter_by_qrels": filter_by_qrels, "filter_by_topics": filter_by_topics, "names": ["a", "b"]}
    outcomes = []
    for experiment in (pt.Experiment, Experiment):
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                long = experiment(systems(), topics, qrels, ["map", "P_10"], perquery=True, **kwargs)
            mean = experiment(systems(), topics, qrels, ["map", "P_10"], **kwargs)
            said = [str(w.message) for w in caught if "topic(s) not found in qrels" in str(w.message)]
            outcomes.append((long.reset_index(drop=True), mean, said))
        except ValueError as error:
            outcomes.append(error.args)
    theirs, ours = outcomes
    if isinstance(theirs, tuple) and not isinstance(theirs[0], pd.DataFrame):
        assert ours == theirs  # the same ValueError, word for word
        return
    pd.testing.assert_frame_equal(ours[0], theirs[0], rtol=1e-12)
    pd.testing.assert_frame_equal(ours[1], theirs[1], check_dtype=False, rtol=1e-12)
    assert ours[2] == theirs[2]


def test_save_dir_files(tmp_path):
    mine, theirs_dir = tmp_path / "ours", tmp_path / "theirs"
    mine.mkdir(), theirs_dir.mkdir()
    kwargs = {"names": ["a", "b"]}
    pt.Experiment(systems(), TOPICS, QRELS, ["map", "P_10"], save_dir=str(theirs_dir), **kwargs)
    Experiment(systems(), TOPICS, QRELS, ["map", "P_10"], save_dir=str(mine), **kwargs)
    assert sorted(p.name for p in mine.iterdir()) == sorted(p.name for p in theirs_dir.iterdir())
    for name in ("aggregated.csv", "perquery.csv"):
        pd.testing.assert_frame_equal(pd.read_csv(mine / name), pd.read_csv(theirs_dir / name), rtol=1e-12)
    one = [systems()[0]]
    for experiment, folder in ((pt.Experiment, theirs_dir), (Experiment, mine)):
        experiment(one, TOPICS, QRELS, ["map", "P_10"], save_dir=str(folder), names=["c"])
    for name in ("aggregated.csv", "perquery.csv"):  # rows of other runs kept
        pd.testing.assert_frame_equal(pd.read_csv(mine / name), pd.read_csv(theirs_dir / name), rtol=1e-12)
    for experiment, folder in ((pt.Experiment, theirs_dir), (Experiment, mine)):
        experiment(one, TOPICS, QRELS, ["map"], save_dir=str(folder), names=["d"], save_format=pickle)
    assert (mine / "d.mod").exists() and (theirs_dir / "d.mod").exists()
    reused = Experiment(
        [pt.Transformer.from_df(RES2)], TOPICS, QRELS, ["map"], save_dir=str(mine), names=["d"],
        save_format=pickle, save_mode="reuse",
    )  # fmt: skip
    assert reused["map"].iloc[0] == pt.Experiment([RES1], TOPICS, QRELS, ["map"])["map"].iloc[0]


def test_perquery_both():
    theirs, ours = both("S", TOPICS, QRELS, ["map"], names=["a", "b"], perquery="both")
    # PyTerrier's means count the NaN of the unjudged topic q3 in this mode (NaN means); ours leave it out
    assert theirs.averages["map"].isna().all() and not ours.averages["map"].isna().any()
    judged = TOPICS[TOPICS.qid != "q3"]
    theirs, ours = both("S", judged, QRELS, ["map"], names=["a", "b"], perquery="both")
    assert isinstance(ours, tuple) and hasattr(ours, "_repr_html_")
    pd.testing.assert_frame_equal(ours.averages, theirs.averages, check_dtype=False, rtol=1e-12)
    pd.testing.assert_frame_equal(ours.perquery, theirs.perquery.reset_index(drop=True), rtol=1e-12)
    theirs, ours = both("S", judged, QRELS, ["map"], names=["a", "b"], perquery="both", dataframe=False)
    assert type(ours) is tuple and not hasattr(ours, "_repr_html_")
    assert ours[0].keys() == theirs[0].keys()
    assert all(ours[0][name] == pytest.approx(theirs[0][name]) for name in ours[0])
    assert {i: {q: pytest.approx(v) for q, v in run.items()} for i, run in ours[1].items()} == theirs[1]
    theirs, ours = both("S", TOPICS, QRELS, ["map"], names=["a", "b"], perquery=True, dataframe=False)
    assert not isinstance(ours, pd.DataFrame) and ours.keys() == theirs.keys()


def test_a_measure_of_another_type_is_a_key_error():
    for experiment in (pt.Experiment, Experiment):
        with pytest.raises(KeyError):
            experiment(systems(), TOPICS, QRELS, [map])


@pytest.mark.skipif(not os.environ.get("IPM_PYTERRIER_CHECKOUT"), reason="IPM_PYTERRIER_CHECKOUT not set")
def test_pyterrier_own_tests():
    sys.path.insert(0, str(Path(__file__).parent / "pyterrier_suite"))
    from run import run

    _, theirs, _ = run(os.environ["IPM_PYTERRIER_CHECKOUT"], "pyterrier")
    status, ours, output = run(os.environ["IPM_PYTERRIER_CHECKOUT"], "ours")
    failed = set(re.findall(r"^FAILED \S+::(\w+)", output, flags=re.M))
    assert not failed and status == 0, output[-3000:]
    assert ours.get("passed", 0) == theirs.get("passed", -1) > 0


CONTEXT = pd.DataFrame([{"qid": "q1", "query": "a b", "context": "here"}])


def context_length():
    import ir_measures

    return ir_measures.define_byquery(
        lambda qrels, run: len(run.iloc[0]["context"]), run_inputs=["context"], name="context_length"
    )


def test_validate_error_when_a_pipeline_lacks_the_columns_of_its_measures():
    no_ranking = pt.Transformer.from_df(CONTEXT, uniform=True)
    no_context = pt.Transformer.from_df(CONTEXT[["qid", "query"]], uniform=True)
    for experiment in (pt.Experiment, Experiment):
        with pytest.raises(ValueError):
            experiment([no_ranking], TOPICS, QRELS, ["map"], validate="error")
        with pytest.raises(ValueError):
            experiment([no_context], TOPICS, QRELS, [context_length()], validate="error")
        with pytest.raises(ValueError):  # the rename's input lacks "context": the pipeline does not fit
            experiment([no_context >> pt.apply.rename({"context": "prompt"})], TOPICS, QRELS, [context_length()],
                       validate="error")  # fmt: skip
    with pytest.warns(UserWarning, match=r"missing \['docno', 'score'\]"):
        with pytest.raises(ValueError):  # "warn" (the default) warns, then the run cannot be read as a ranking
            Experiment([no_ranking], TOPICS, QRELS, ["map"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="doc_id"):
            Experiment([no_ranking], TOPICS, QRELS, ["map"], validate="ignore")


def test_a_measure_defined_at_run_time_reads_the_results_as_given():
    systems = [pt.Transformer.from_df(CONTEXT, uniform=True)]
    theirs = pt.Experiment(systems, TOPICS, QRELS, [context_length()], validate="error")
    ours = Experiment(systems, TOPICS, QRELS, [context_length()], validate="error")
    pd.testing.assert_frame_equal(ours, theirs, check_dtype=False)
    assert ours["context_length"].tolist() == [4 / 2]  # "here" for q1, 0 for q2: the mean over the 2 judged topics


def test_results_without_docno_saved_with_pickle(tmp_path):
    import ir_measures

    for experiment, folder in ((pt.Experiment, tmp_path / "pt"), (Experiment, tmp_path / "ours")):
        folder.mkdir()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # validate="warn": the measure's default inputs are missing
            zero = ir_measures.define_byquery(lambda q, r: 0)
            table = experiment([pt.Transformer.from_df(CONTEXT)], TOPICS, QRELS, [zero], save_dir=folder, names=["t"],
                               save_format=pickle)  # fmt: skip
        assert table.iloc[0, 1] == 0
        with open(folder / "t.mod", "rb") as f:
            pd.testing.assert_frame_equal(pickle.load(f), CONTEXT.assign(qid=CONTEXT["qid"]), check_dtype=False)


def test_tree_plan_is_drawn_when_verbose(capsys):
    Experiment(systems(), TOPICS, QRELS, ["map"], plan="tree", verbose=True, names=["a", "b"])
    drawn = capsys.readouterr().out.splitlines()
    assert drawn[0] == "Root" and len(drawn) == 3 and drawn[1].startswith("├─ ") and drawn[2].startswith("└─ ")
    Experiment(systems(), TOPICS, QRELS, ["map"], plan="linear", verbose=True, names=["a", "b"])
    assert "Root" not in capsys.readouterr().out
