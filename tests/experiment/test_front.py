"""Experiment tables: every number against ir_measures, compare, scipy and statsmodels on the same data."""

from __future__ import annotations

import json

import ir_measures
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import ir_pref_measures  # noqa: F401 (registers the measures)
from ir_pref_measures import compare
from ir_pref_measures.errors import InputError
from ir_pref_measures.experiment import render
from ir_pref_measures.experiment.front import Experiment
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.stats import sign_test

DL19 = "msmarco-passage/trec-dl-2019/judged"
RUNS = {
    "BERT2": "input.ICT-BERT2.txt.gz",
    "CKNRM_B": "input.ICT-CKNRM_B.txt.gz",
    "CKNRM_B50": "input.ICT-CKNRM_B50.txt.gz",
}
MEASURES = ["nDCG@10", "APpref", "PGC(p=0.9)"]
SUFFIXES = ("+", "-", "p-value", "reject", "p-value corrected")


@pytest.fixture
def runs(data) -> dict[str, str]:
    return {name: str(data("dl_llm_prefs_arabzadeh", "runs", file)) for name, file in RUNS.items()}


@pytest.fixture
def qrels(irds_home) -> list:
    """The DL 2019 qrels as ir_datasets yields them (not through our adapter)."""
    import ir_datasets

    return list(ir_datasets.load(DL19).qrels_iter())


def qrels_frame(qrels) -> pd.DataFrame:
    return pd.DataFrame({f: [getattr(q, f) for q in qrels] for f in ("query_id", "doc_id", "relevance")})


def run_frame(path: str) -> pd.DataFrame:
    return pd.DataFrame(ir_measures.read_trec_run(path))


def per_query(measure: str, qrels, run) -> pd.Series:
    """ir_measures' own per-query values, by query id."""
    metrics = ir_measures.iter_calc([ir_measures.parse_measure(measure)], qrels, run)
    return pd.Series({m.query_id: m.value for m in metrics}).sort_index()


def pairwise_per_query(runs, qrels, measure: str, baseline: str) -> pd.DataFrame:
    """compare's per-query values of every run over ``baseline``: queries x runs."""
    rows = compare(runs, qrels_frame(qrels), [measure], baseline=baseline, perquery=True)
    rows = rows[rows["query_id"] != "all"]
    return rows.pivot(index="query_id", columns="run_i", values=measure).sort_index()


def test_dl19_by_id_equals_ir_measures_scipy_and_statsmodels(runs, qrels):
    table = Experiment(runs, "irds:" + DL19, [*MEASURES, "rpp"], baseline="BERT2", correction="holm")
    columns = [*MEASURES, "rpp"]
    assert list(table.columns) == ["name", *columns, *(f"{m} {s}" for m in columns for s in SUFFIXES)]
    assert list(table["name"]) == list(runs)
    for r, path in enumerate(runs.values()):
        expected = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in MEASURES], qrels, run_frame(path))
        for measure in MEASURES:
            assert table.loc[r, measure] == pytest.approx(expected[ir_measures.parse_measure(measure)], rel=1e-12)
    base = table["name"] == "BERT2"
    for measure in columns:
        tests = [f"{measure} {s}" for s in ("+", "-", "p-value", "p-value corrected")]
        assert table.loc[base, tests].isna().all(axis=None)
        assert not table.loc[base, f"{measure} reject"].item()
    for measure in MEASURES:
        baseline = per_query(measure, qrels, run_frame(runs["BERT2"]))
        p_values = []
        for name in ("CKNRM_B", "CKNRM_B50"):
            values = per_query(measure, qrels, run_frame(runs[name]))
            row = table[table["name"] == name].iloc[0]
            assert row[f"{measure} +"] == (values > baseline).sum()
            assert row[f"{measure} -"] == (values < baseline).sum()
            assert row[f"{measure} p-value"] == pytest.approx(stats.ttest_rel(values, baseline).pvalue, rel=1e-12)
            p_values.append(row[f"{measure} p-value"])
        reject, corrected, _, _ = multipletests(p_values, alpha=0.05, method="holm")
        np.testing.assert_allclose(table.loc[~base, f"{measure} p-value corrected"], corrected, rtol=1e-12)
        np.testing.assert_array_equal(table.loc[~base, f"{measure} reject"], reject)
    # rpp: the mean preference over the baseline, tested with the sign test
    rpp = pairwise_per_query(runs, qrels, "rpp", "BERT2")
    assert table.loc[base, "rpp"].item() == 0.0
    for name in ("CKNRM_B", "CKNRM_B50"):
        row = table[table["name"] == name].iloc[0]
        values = rpp[name]
        wins, losses = int((values > 0).sum()), int((values < 0).sum())
        assert row["rpp"] == pytest.approx(values.mean(), rel=1e-12)
        assert (row["rpp +"], row["rpp -"]) == (wins, losses)
        assert row["rpp p-value"] == pytest.approx(stats.binomtest(wins, wins + losses).pvalue, rel=1e-12)


@pytest.mark.parametrize("test", ["wilcoxon", "sign"])
def test_other_tests_equal_scipy(runs, qrels, test):
    table = Experiment(runs, "irds:" + DL19, ["nDCG@10"], baseline="BERT2", test=test)
    baseline = per_query("nDCG@10", qrels, run_frame(runs["BERT2"]))
    for name in ("CKNRM_B", "CKNRM_B50"):
        values = per_query("nDCG@10", qrels, run_frame(runs[name]))
        if test == "wilcoxon":
            expected = stats.wilcoxon(values, baseline).pvalue
        else:
            wins, losses = int((values > baseline).sum()), int((values < baseline).sum())
            expected = stats.binomtest(wins, wins + losses, 0.5).pvalue
        assert table.loc[table["name"] == name, "nDCG@10 p-value"].item() == pytest.approx(expected, rel=1e-12)


def test_a_callable_test_gets_run_then_baseline(runs):
    seen = []

    def test(run, baseline):
        seen.append((float(np.mean(run)), float(np.mean(baseline))))
        return 0.0, 0.5

    table = Experiment(runs, "irds:" + DL19, ["nDCG@10"], baseline="BERT2", test=test)
    assert (table["nDCG@10 p-value"].iloc[1:] == 0.5).all()
    means = table.set_index("name")["nDCG@10"]
    assert seen == [pytest.approx((means[name], means["BERT2"])) for name in ("CKNRM_B", "CKNRM_B50")]


def test_perquery_long_table(runs, qrels):
    table = Experiment(runs, "irds:" + DL19, ["nDCG@10", "rpp"], baseline="BERT2", perquery=True)
    assert list(table.columns) == ["name", "qid", "measure", "value"]
    assert table.equals(table.sort_values(["name", "qid"], kind="stable", ignore_index=True))
    rpp = pairwise_per_query(runs, qrels, "rpp", "BERT2")
    for name, path in runs.items():
        mine = table[table["name"] == name].pivot(index="qid", columns="measure", values="value")
        pd.testing.assert_series_equal(
            mine["nDCG@10"], per_query("nDCG@10", qrels, run_frame(path)), check_names=False, rtol=1e-12
        )
        expected = rpp[name] if name in rpp else pd.Series(0.0, index=rpp.index)
        pd.testing.assert_series_equal(mine["rpp"], expected, check_names=False, check_index_type=False)


def test_without_baseline_a_pairwise_value_is_the_mean_over_the_other_runs(runs, qrels):
    table = Experiment(runs, "irds:" + DL19, ["rpp", "lexiprecision"]).set_index("name")
    perquery = Experiment(runs, "irds:" + DL19, ["rpp", "lexiprecision"], perquery=True)
    for measure in ("rpp", "lexiprecision"):
        against = {other: pairwise_per_query(runs, qrels, measure, other) for other in runs}
        for name in runs:
            expected = pd.concat([against[other][name] for other in runs if other != name], axis=1).mean(axis=1)
            mine = perquery[(perquery["name"] == name) & (perquery["measure"] == measure)].set_index("qid")["value"]
            np.testing.assert_allclose(mine.to_numpy(), expected.to_numpy(), rtol=1e-12, atol=1e-15)
            assert table.loc[name, measure] == pytest.approx(expected.mean(), rel=1e-12, abs=1e-15)


def test_judged_queries_a_run_lacks_score_the_default(runs, qrels):
    full = run_frame(runs["BERT2"])
    dropped = sorted({q.query_id for q in qrels})[:5]
    partial = full[~full["query_id"].isin(dropped)]
    measures = ["nDCG@10", "APpref"]
    perquery = Experiment({"full": full, "partial": partial}, qrels_frame(qrels), measures, perquery=True)
    lacking = perquery[(perquery["name"] == "partial") & perquery["qid"].isin(dropped)]
    assert len(lacking) == 2 * len(dropped) and (lacking["value"] == 0.0).all()
    table = Experiment({"full": full, "partial": partial}, qrels_frame(qrels), measures)
    expected = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in measures], qrels, partial)
    for measure in measures:
        assert table.loc[1, measure] == pytest.approx(expected[ir_measures.parse_measure(measure)], rel=1e-12)


def test_topics_restrict_the_queries(runs, qrels):
    topics = sorted({q.query_id for q in qrels})[:10]
    table = Experiment(runs, "irds:" + DL19, ["nDCG@10", "APpref"], topics=pd.DataFrame({"qid": topics}))
    subset = [q for q in qrels if q.query_id in topics]
    for r, path in enumerate(runs.values()):
        expected = ir_measures.calc_aggregate([ir_measures.nDCG @ 10, ir_pref_measures.APpref], subset, run_frame(path))
        assert table.loc[r, "nDCG@10"] == pytest.approx(expected[ir_measures.nDCG @ 10], rel=1e-12)
        assert table.loc[r, "APpref"] == pytest.approx(expected[ir_pref_measures.APpref], rel=1e-12)
    # the dataset's own topics (its judged queries) change nothing
    by_id = Experiment(runs, "irds:" + DL19, ["nDCG@10", "rpp"], topics="irds:" + DL19)
    pd.testing.assert_frame_equal(by_id, Experiment(runs, "irds:" + DL19, ["nDCG@10", "rpp"]))


def test_correction_leaves_out_nan_p_values(runs):
    base = run_frame(runs["BERT2"])
    table = Experiment(
        {"base": base, "same": base.copy(), "other": runs["CKNRM_B50"]},
        "irds:" + DL19,
        ["nDCG@10"],
        baseline="base",
        correction="bonferroni",
    ).set_index("name")
    assert np.isnan(table.loc["same", "nDCG@10 p-value"]) and np.isnan(table.loc["same", "nDCG@10 p-value corrected"])
    assert not table.loc["same", "nDCG@10 reject"]
    assert table.loc["other", "nDCG@10 p-value corrected"] == table.loc["other", "nDCG@10 p-value"]  # one test


def test_round_and_names(runs):
    table = Experiment(list(runs.values()), "irds:" + DL19, ["nDCG@10", "APpref"], names=["a", "b", "c"], round=2)
    assert list(table["name"]) == ["a", "b", "c"]
    assert (table[["nDCG@10", "APpref"]] == table[["nDCG@10", "APpref"]].round(2)).all(axis=None)
    per_measure = Experiment(runs, "irds:" + DL19, ["nDCG@10", "APpref"], round={"APpref": 1})
    assert (per_measure["APpref"] == per_measure["APpref"].round(1)).all()
    assert (per_measure["nDCG@10"] != per_measure["nDCG@10"].round(4)).any()
    long = Experiment(runs, "irds:" + DL19, ["nDCG@10", "APpref"], perquery=True, round={"APpref": 1})
    appref, ndcg = (long.loc[long["measure"] == m, "value"] for m in ("APpref", "nDCG@10"))
    assert (appref == appref.round(1)).all() and (ndcg != ndcg.round(4)).any()


def test_measure_objects_and_names_give_one_column_each(runs):
    table = Experiment(runs, "irds:" + DL19, [ir_measures.nDCG @ 10, "nDCG@10", ir_pref_measures.PGC(p=0.9)])
    assert list(table.columns) == ["name", "nDCG@10", "PGC(p=0.9)"]


def test_sign_test():
    assert sign_test([1, 2, 3, 0], [0, 0, 0, 0]) == (3.0, pytest.approx(stats.binomtest(3, 3).pvalue))
    assert sign_test([1, 0, 2], [0, 0, 3]) == (1.0, 1.0)
    assert np.isnan(sign_test([1, 2], [1, 2])[1])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"measures": ["nDGC@10"]}, r"unknown measure 'nDGC@10'[\s\S]*nDCG[\s\S]*rpp"),
        ({"judgments": "irds:msmarco-passage/trec-dl-2019/judgd"}, r"unknown ir_datasets ID.*did you mean"),
        ({"judgments": "no/such/file.qrels"}, "neither an existing file nor a known ir_datasets ID"),
        ({"baseline": "BM25"}, r"unknown baseline 'BM25'[\s\S]*BERT2, CKNRM_B, CKNRM_B50"),
        ({"correction": "holm"}, "correction needs a baseline"),
        ({"baseline": "BERT2", "correction": "holmes"}, "unknown correction 'holmes'"),
        ({"baseline": "BERT2", "test": "z"}, "unknown test 'z'"),
        ({"topics": ["no-such-query"]}, "topics and the judgments have no query in common"),
        ({"names": ["a"]}, "1 names for 3 runs"),
        ({"round": -1}, "round must be"),
    ],
)
def test_bad_input_says_what_is_wrong(runs, kwargs, message):
    arguments = {"runs": runs, "judgments": "irds:" + DL19, "measures": ["nDCG@10", "rpp"]} | kwargs
    with pytest.raises(InputError, match=message):
        Experiment(**arguments)


def test_a_run_with_no_query_in_common(runs):
    stranger = pd.DataFrame({"query_id": ["x1", "x2"], "doc_id": ["d1", "d2"], "score": [2.0, 1.0]})
    with pytest.raises(InputError, match=r"run 'stranger' has no query in common with the judgments.*x1, x2"):
        Experiment({"BERT2": runs["BERT2"], "stranger": stranger}, "irds:" + DL19, ["nDCG@10"])


def test_a_missing_dataset_file(runs, missing_dataset_id, irds_home):
    with pytest.raises(InputError, match=f"'{missing_dataset_id}'.*{irds_home / 'missing' / 'qrels'}"):
        Experiment(runs, "irds:" + missing_dataset_id, ["nDCG@10"])


def test_preference_only_judgments_refuse_graded_and_pairwise_measures(runs):
    a, b = list(ir_measures.read_trec_run(runs["BERT2"]))[:2]  # one preference between two docs of a run's query
    prefs = pd.DataFrame({"query_id": [a.query_id], "doc_id_a": [a.doc_id], "doc_id_b": [b.doc_id], "preference": [-1]})
    with pytest.raises(InputError, match="nDCG@10, rpp need graded judgments"):
        Experiment(runs, Judgments.from_preferences(prefs), ["nDCG@10", "APpref", "rpp"])
    assert len(Experiment(runs, Judgments.from_preferences(prefs), ["APpref"])) == 3


def test_pairwise_needs_two_runs(runs):
    with pytest.raises(InputError, match="at least two runs"):
        Experiment({"BERT2": runs["BERT2"]}, "irds:" + DL19, ["rpp"])


def test_render_formats():
    table = pd.DataFrame(
        {"name": ["a", "b"], "m": [0.5, 0.25], "m +": [np.nan, 3.0], "m -": [np.nan, 1.0], "m p-value": [np.nan, 2e-5]}
    )
    assert pd.read_csv(__import__("io").StringIO(render(table, "csv"))).equals(table)
    assert json.loads(render(table, "json"))[1] == {"name": "b", "m": 0.25, "m +": 3.0, "m -": 1.0, "m p-value": 2e-5}
    assert render(table, "markdown").splitlines() == [  # the blocks of the aligned form
        "| name | m |",
        "|:---|---:|",
        "| a | 0.5000 |",
        "| b | 0.2500 |",
        "",
        "| m | + | - | p-value |",
        "|:---|---:|---:|---:|",
        "| a |  |  |  |",
        "| b | 3 | 1 | 2.0e-05 |",
    ]
    text = render(table, "table").split("\n\n")
    assert text[0].split() == ["name", "m", "a", "0.5000", "b", "0.2500"]
    assert text[1].split() == ["m", "+", "-", "p-value", "a", "b", "3", "1", "2.0e-05"]
    with pytest.raises(InputError, match="unknown output format"):
        render(table, "xml")


def test_docs_worked_example_runs_as_written(runs, irds_home, testdata, tmp_path, monkeypatch):
    """The first Python block of docs/experiments.md, verbatim, on the runs named as in it: the page shows the real
    data's numbers."""
    import re

    testdata("dl_llm_prefs_arabzadeh")

    from conftest import ROOT

    for path in runs.values():
        (tmp_path / path.rsplit("/", 1)[-1]).symlink_to(path)
    readme = (ROOT / "docs" / "experiments.md").read_text()
    text = readme[readme.index("## Experiments") :]
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code, "docs/experiments.md", "exec"), namespace)
    table = namespace["table"]
    assert list(table["name"]) == ["BERT2", "CKNRM_B", "CKNRM_B50"]
    shown = re.search(r"```\n( +name +nDCG@10.*?)```", text, re.S).group(1).splitlines()[1:4]
    for line, (_, row) in zip(shown, table.iterrows(), strict=True):
        assert line.split()[1:] == [row["name"], *(f"{row[m]:.6f}" for m in ("nDCG@10", "APpref", "PGC(p=0.9)", "rpp"))]


def _small_experiment_inputs():
    qrels = pd.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 3, "doc_id": list("abcabc"), "relevance": [2, 1, 0] * 2})
    deep = pd.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 3, "doc_id": list("abccba"), "score": [3.0, 2, 1] * 2})
    shallow = deep.groupby("query_id").head(2)
    return {"deep": deep, "shallow": shallow}, qrels


def test_the_per_query_computation_is_a_parameter():
    """``per_query`` is called once per judgment set with the local computation's arguments; its values make the
    table."""
    from ir_pref_measures.experiment.values import per_query_frames as local

    runs, qrels = _small_experiment_inputs()
    calls = []

    def recorded(*args, **kwargs):
        calls.append(sorted(args[0]))
        return local(*args, **kwargs)

    with pytest.warns(UserWarning):
        expected = Experiment(runs, qrels, ["nDCG@10", "APpref"])
        found = Experiment(runs, qrels, ["nDCG@10", "APpref"], per_query=recorded)
    pd.testing.assert_frame_equal(found, expected)
    assert calls == [["deep", "shallow"]]


def test_a_client_and_a_per_query_computation_are_not_both_taken():
    runs, qrels = _small_experiment_inputs()
    with pytest.raises(TypeError, match="client or a per_query"):
        ir_pref_measures.Experiment(runs, qrels, ["nDCG@10"], client="tcp://127.0.0.1:1", per_query=lambda: None)


def test_a_warning_of_experiment_names_the_callers_line():
    runs, qrels = _small_experiment_inputs()
    with pytest.warns(UserWarning, match="different numbers of documents") as caught:
        ir_pref_measures.Experiment(runs, qrels, ["nDCG@10"])
    assert {warning.filename for warning in caught} == {__file__}


def test_runs_before_and_after_the_baseline_equal_compare(tmp_path):
    """The pairwise preferences over a baseline are computed one run at a time, as the runs come (those before the
    baseline once it comes): each run's per-query values are compare's (all runs at once)."""
    rng = np.random.default_rng(3)
    qrels = pd.DataFrame(
        [(f"q{q}", f"d{d}", int(rng.choice(4, p=[0.4, 0.3, 0.2, 0.1]))) for q in range(15) for d in range(25)],
        columns=["query_id", "doc_id", "relevance"],
    )
    runs = {
        f"r{r}": pd.DataFrame(
            [
                (f"q{q}", f"d{d}", float(s))
                for q in range(15)
                for d, s in zip(rng.permutation(30)[:20], rng.integers(0, 5, 20), strict=True)
            ],
            columns=["query_id", "doc_id", "score"],
        )
        for r in range(9)  # the baseline r4 comes after some runs
    }
    measures = ["rpp", "lexiprecision", "dcgrpp"]
    mine = Experiment(runs, qrels, measures, baseline="r4", perquery=True)
    for measure in measures:
        rows = compare(runs, qrels, [measure], baseline="r4", perquery=True)
        rows = rows[rows["query_id"] != "all"]
        expected = rows.pivot(index="query_id", columns="run_i", values=measure).sort_index()
        for name in runs:
            got = mine[(mine["name"] == name) & (mine["measure"] == measure)].set_index("qid")["value"]
            want = expected[name] if name in expected else pd.Series(0.0, index=expected.index)
            np.testing.assert_array_equal(got.to_numpy(), want.to_numpy().astype(np.float64))


@pytest.mark.parametrize("baseline", [None, []])
def test_a_correction_without_a_baseline_is_refused_before_the_runs_are_read(tmp_path, baseline):
    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "relevance": [1, 0]})
    missing = [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]  # never read: the options are checked first
    with pytest.raises(InputError, match="correction needs a baseline"):
        Experiment(missing, qrels, ["nDCG@10"], baseline=baseline, correction="holm")
