"""Issue 13's study on TREC DL 2019 (three ICT runs, the NIST qrels by ir_datasets ID, GPT-4o preferences): judgment
sets, the union of --prefs files, --topk, the depth warning, --names, LaTeX/HTML output, pt.Experiment."""

from __future__ import annotations

import gzip
import io
import re
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_pref_measures as ipm
from ir_pref_measures import Experiment
from ir_pref_measures.commands import main
from ir_pref_measures.experiment import DepthWarning
from ir_pref_measures.loading import sources
from ir_pref_measures.model.judgments import combine

DL19 = "msmarco-passage/trec-dl-2019/judged"
RUNS = {
    "BERT2": "input.ICT-BERT2.txt.gz",
    "CKNRM_B": "input.ICT-CKNRM_B.txt.gz",
    "CKNRM_B50": "input.ICT-CKNRM_B50.txt.gz",
}


@pytest.fixture
def study(irds_home, data):
    runs = {name: str(data("dl_llm_prefs_arabzadeh", "runs", file)) for name, file in RUNS.items()}
    judges = [f"pairs:{data('dl_llm_prefs_arabzadeh', 'llm_pref_judgments', 'DL2019', f'judge.0{i}')}" for i in (0, 1)]
    return runs, judges


def cli(capsys, *argv) -> tuple[str, str]:
    assert main(list(argv)) == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    return captured.out, captured.err


def study_command(runs, judge, *options) -> list[str]:
    return [
        "experiment",
        DL19,
        *runs.values(),
        "-j",
        f"gpt={judge}",
        "-m",
        "nDCG@10",
        "gpt:PGC",
        "gpt:APpref",
        "--names",
        *runs,
        "--baseline",
        "BERT2",
        "--correction",
        "holm",
        "--test",
        "permutation",
        *options,
    ]


def test_one_command_with_a_judgment_set_in_csv_latex_and_html(capsys, study, on_real_data):
    runs, (judge, _) = study
    out, err = cli(capsys, *study_command(runs, judge, "--format", "csv"))
    table = pd.read_csv(io.StringIO(out))
    assert list(table["name"]) == list(RUNS)  # --names
    assert [c for c in table.columns if not c.endswith((" +", " -", "p-value", "reject", "corrected"))] == [
        "name",
        "nDCG@10",
        "PGC [gpt]",
        "APpref [gpt]",
    ]
    assert "the runs retrieve different numbers of documents per query" in err and "CKNRM_B50 50" in err
    expected = Experiment(
        runs,
        {"nist": "irds:" + DL19, "gpt": judge},
        {"nist": ["nDCG@10"], "gpt": ["PGC", "APpref"]},
        baseline="BERT2",
        correction="holm",
        test="permutation",
    )
    assert list(expected.columns)[1:4] == ["nDCG@10 [nist]", "PGC [gpt]", "APpref [gpt]"]
    np.testing.assert_allclose(table["nDCG@10"], expected["nDCG@10 [nist]"], rtol=1e-12)
    for column in ("PGC [gpt]", "APpref [gpt]", "APpref [gpt] p-value", "APpref [gpt] p-value corrected"):
        np.testing.assert_allclose(table[column], expected[column], rtol=1e-12, equal_nan=True)
    if on_real_data:
        assert table["nDCG@10 +"].dropna().tolist() == [16, 14]  # counts print as integers
    assert "16.0" not in out

    latex, _ = cli(capsys, *study_command(runs, judge, "--format", "latex", "--round", "3"))
    rows = [line for line in latex.splitlines() if line.endswith("\\\\") and not line.startswith("Run")]
    assert [row.split(" & ")[0] for row in rows] == ["BERT2", "CKNRM\\_B", "CKNRM\\_B50"]
    cells = {name: row.rstrip(" \\").split(" & ")[1:] for name, row in zip(RUNS, rows, strict=True)}
    best = table["nDCG@10"].idxmax()
    assert cells[table["name"][best]][0] == f"\\textbf{{{table['nDCG@10'][best]:.3f}}}"
    for run, (ndcg, p) in zip(RUNS, table[["nDCG@10", "nDCG@10 p-value corrected"]].to_numpy(), strict=True):
        marked = "$^{" in cells[run][0]
        assert marked == (p < 0.05), (run, p)
        assert re.sub(r"\\textbf\{|\}|\$\^\{.*", "", cells[run][0]) == f"{ndcg:.3f}"
    assert "significantly better/worse than the baseline BERT2 (corrected p-value $<$ 0.05)" in latex

    html, _ = cli(capsys, *study_command(runs, judge, "--format", "html"))
    assert html.count("<tr><td>") == 3 and "<caption>" in html and "<b>" in html


def test_gpt_pgc_equals_eval_with_prefs(capsys, study):
    runs, (judge, _) = study
    out, _ = cli(capsys, *study_command(runs, judge, "--format", "csv", "--round", "16"))
    table = pd.read_csv(io.StringIO(out)).set_index("name")
    for name, path in runs.items():
        evaluated, _ = cli(capsys, "eval", "-", path, "PGC", "--prefs", judge, "--places", "16")
        assert float(evaluated.split()[-1]) == pytest.approx(table.loc[name, "PGC [gpt]"], abs=1e-15)


def test_two_prefs_files_give_their_union(capsys, study):
    runs, (judge0, judge1) = study
    arguments = ["-m", "ppref@10", "APpref", "--names", *runs, "--format", "csv"]
    both, _ = cli(capsys, "experiment", judge0, *runs.values(), "--prefs", judge1, *arguments)
    union = Experiment(runs, combine(ipm.load_judgments(judge0), ipm.load_judgments(judge1)), ["ppref@10", "APpref"])
    both = pd.read_csv(io.StringIO(both))
    np.testing.assert_allclose(both[["ppref@10", "APpref"]], union[["ppref@10", "APpref"]], rtol=1e-12)
    for alone in (judge0, judge1):  # neither file alone gives the union (no "last one wins")
        single = Experiment(runs, alone, ["ppref@10", "APpref"])
        assert not np.allclose(single[["ppref@10", "APpref"]], union[["ppref@10", "APpref"]])
    plus = Experiment(runs, {"gpt": f"{judge0}+{judge1}"}, ["ppref@10", "APpref"])
    pd.testing.assert_frame_equal(plus, union)


def _truncated(path: str, folder, k: int) -> str:
    frame = sources.ranking(path).frame()  # in the library's rank order
    kept = frame[frame["rank"] <= k]
    out = folder / path.rsplit("/", 1)[-1].replace(".gz", "")
    with open(out, "w") as handle:
        for row in kept.itertuples():
            handle.write(f"{row.query_id} Q0 {row.doc_id} {row.rank} {row.score!r} cut\n")
    return str(out)


def test_topk_equals_evaluating_the_truncated_runs_and_silences_the_warning(capsys, study, tmp_path):
    runs, (judge, _) = study
    measures = ["-m", "nDCG@10", "APpref", "rpp", "gpt:PGC", "gpt:APpref"]
    options = ["-j", f"gpt={judge}", *measures, "--names", *runs, "--baseline", "BERT2", "--format", "csv"]
    cut, err = cli(capsys, "experiment", DL19, *runs.values(), *options, "--topk", "20")
    assert "different numbers of documents" not in err
    truncated = [_truncated(path, tmp_path, 20) for path in runs.values()]
    with gzip.open(runs["CKNRM_B50"], "rt") as handle:
        assert sum(1 for _ in handle) > sum(1 for _ in open(truncated[2]))
    plain, err = cli(capsys, "experiment", DL19, *truncated, *options)
    # GPT-4o's judgments hold cycles in a few queries, which the closure's warning names; nothing else is said
    assert [line for line in err.splitlines() if "contradict each other" not in line] == []
    assert cut == plain
    full, err = cli(capsys, "experiment", DL19, *runs.values(), *options)
    assert "at most: CKNRM_B50 50, BERT2 20, CKNRM_B 20; 30 more" in err and "APpref" in err
    assert full != cut


def test_depth_warning_in_the_api(study):
    runs, _ = study
    with pytest.warns(DepthWarning, match="CKNRM_B50 50.*favour the deeper runs.*topk=20"):
        Experiment(runs, "irds:" + DL19, ["APpref"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DepthWarning)
        Experiment(runs, "irds:" + DL19, ["APpref"], topk=20)


def test_pt_experiment_with_preference_tables_and_judgments_equals_ours(study):
    pt = pytest.importorskip("pyterrier")
    from ir_pref_measures.adapters import pyterrier as adapter

    runs, (judge, _) = study
    judgments = ipm.load_judgments(judge)
    results = [
        pd.DataFrame(ir_measures.read_trec_run(path)).rename(columns={"query_id": "qid", "doc_id": "docno"})
        for path in runs.values()
    ]
    topics = pt.get_dataset("irds:" + DL19).get_topics()
    measures = adapter.measures(["ppref@10", "PGC"])
    ours = Experiment(runs, judgments, ["ppref@10", "PGC"])
    table = pd.read_csv(judge.split(":", 1)[1], sep=r"\s+", header=None, names=["query_id", "a", "b"], dtype=str)
    query_id_table = pd.DataFrame(  # the documented preference table: query_id, doc_id_a, doc_id_b, preference
        {"query_id": table["query_id"], "doc_id_a": table["a"], "doc_id_b": table["b"], "preference": -1}
    )
    given = {
        "Judgments": adapter.qrels(judgments),
        "query_id table": adapter.qrels(query_id_table),
        "qid table": query_id_table.rename(columns={"query_id": "qid"}),
    }
    for how, qrels in given.items():
        theirs = pt.Experiment(results, topics, qrels, measures, names=list(runs))
        pd.testing.assert_frame_equal(theirs[ours.columns], ours, check_dtype=False, rtol=1e-12, obj=how)
    theirs = pt.Experiment(results, topics, query_id_table, measures, names=list(runs), filter_by_topics=False)
    pd.testing.assert_frame_equal(theirs[ours.columns], ours, check_dtype=False, rtol=1e-12)  # pt: columns unordered
    assert not pt.java.started()


def test_perquery_has_no_paper_form(capsys, study):
    runs, _ = study
    assert main(["experiment", DL19, *runs.values(), "-m", "nDCG@10", "--perquery", "--format", "latex"]) == 2
    assert "--perquery gives the long table" in capsys.readouterr().err


def test_resampling_columns_depend_on_the_seed_only(study):
    runs, _ = study
    options = {"baseline": "BERT2", "test": "permutation", "samples": 2000, "ci": 0.9, "effect_size": True, "topk": 20}
    first = Experiment(runs, "irds:" + DL19, ["nDCG@10", "APpref"], seed=1, **options)
    again = Experiment(dict(reversed(runs.items())), "irds:" + DL19, ["nDCG@10", "APpref"], seed=1, **options)
    pd.testing.assert_frame_equal(first, again.iloc[::-1].reset_index(drop=True))
    other = Experiment(runs, "irds:" + DL19, ["nDCG@10", "APpref"], seed=2, **options)
    assert not np.allclose(first["APpref p-value"].iloc[1:], other["APpref p-value"].iloc[1:])
    np.testing.assert_allclose(first["APpref effect size"], other["APpref effect size"], equal_nan=True)
    assert (first["APpref ci low"] < first["APpref"]).all() and (first["APpref"] < first["APpref ci high"]).all()
