"""The ``ir-pref-measures experiment`` command."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import ir_datasets
import ir_measures
import numpy as np
import pandas as pd
import pytest

from ir_pref_measures import Experiment
from ir_pref_measures.commands import main
from ir_pref_measures.loading.sources import load_combined

DL19 = "msmarco-passage/trec-dl-2019/judged"
DL19_RUNS = ("input.ICT-BERT2.txt.gz", "input.ICT-CKNRM_B.txt.gz", "input.ICT-CKNRM_B50.txt.gz")
MEASURES = ["nDCG@10", "APpref", "PGC(p=0.9)", "rpp"]


@pytest.fixture
def dl19_runs(irds_home, data) -> list[str]:
    return [str(data("dl_llm_prefs_arabzadeh", "runs", name)) for name in DL19_RUNS]


def run_command(capsys, *argv) -> str:
    assert main(["experiment", *argv]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_csv_by_bare_id_equals_the_python_table(capsys, dl19_runs):
    out = run_command(
        capsys, DL19, *dl19_runs, "-m", *MEASURES, "--baseline", dl19_runs[0], "--correction", "holm", "--format", "csv"
    )
    table = pd.read_csv(io.StringIO(out))
    expected = Experiment(dl19_runs, "irds:" + DL19, MEASURES, baseline="ICT-BERT2", correction="holm")
    assert list(table["name"]) == ["ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50"]
    pd.testing.assert_frame_equal(table, expected, check_dtype=False, rtol=1e-12)


def test_json_markdown_table_and_output_file(capsys, tmp_path, dl19_runs):
    arguments = [DL19, *dl19_runs, "-m", "nDCG@10", "rpp", "--baseline", "ICT-BERT2"]
    records = json.loads(run_command(capsys, *arguments, "--format", "json"))
    assert [r["name"] for r in records] == ["ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50"]
    assert records[0]["nDCG@10 p-value"] is None and records[1]["rpp +"] > 0
    markdown = run_command(capsys, *arguments, "--format", "markdown").split("\n\n")  # the aligned form's blocks
    assert [block.splitlines()[0].split(" | ")[0] for block in markdown] == ["| name", "| nDCG@10", "| rpp"]
    assert all(len(block.splitlines()) == 5 for block in markdown)
    assert markdown[0].startswith("| name | nDCG@10 | rpp |\n") and "| ICT-BERT2 |  |  |  |" in markdown[1]
    blocks = run_command(capsys, *arguments).split("\n\n")
    assert [block.split()[0] for block in blocks] == ["name", "nDCG@10", "rpp"]
    target = tmp_path / "table.csv"
    assert run_command(capsys, *arguments, "--format", "csv", "--output", str(target)) == ""
    assert len(pd.read_csv(target)) == 3


def test_perquery_and_topics(capsys, dl19_runs):
    out = run_command(capsys, DL19, *dl19_runs, "-m", "nDCG@10", "--perquery", "--topics", DL19, "--format", "csv")
    table = pd.read_csv(io.StringIO(out), dtype={"qid": str})
    judged = {qrel.query_id for qrel in ir_datasets.load(DL19).qrels_iter()}  # 43 on the real data
    assert list(table.columns) == ["name", "qid", "measure", "value"] and len(table) == 3 * len(judged)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([DL19, "RUN", "-m", "nDGC@10"], "unknown measure 'nDGC@10'"),
        (["msmarco-passage/trec-dl-2019/judgd", "RUN", "-m", "nDCG@10"], "did you mean msmarco-passage/trec-dl-2019"),
        ([DL19, "RUN", "-m", "nDCG@10", "--baseline", "BM25"], "unknown baseline 'BM25'"),
    ],
)
def test_errors_exit_2_with_a_message(capsys, dl19_runs, arguments, message):
    arguments = [dl19_runs[0] if a == "RUN" else a for a in arguments]
    assert main(["experiment", *arguments]) == 2
    assert message in capsys.readouterr().err


def test_a_run_with_no_query_in_common_and_a_missing_file(capsys, tmp_path, dl19_runs, missing_dataset_id):
    stranger = tmp_path / "stranger.run"
    stranger.write_text("x1 Q0 d1 1 2.0 r\n")
    assert main(["experiment", DL19, dl19_runs[0], str(stranger), "-m", "nDCG@10"]) == 2
    assert "run 'stranger' has no query in common with the judgments" in capsys.readouterr().err
    assert main(["experiment", missing_dataset_id, dl19_runs[0], "-m", "nDCG@10"]) == 2
    assert "not in the local cache" in capsys.readouterr().err


def test_cast2019_sixteen_runs_with_crowd_preferences_from_the_command_line(irds_home, testdata, tmp_path):
    """16 CAsT 2019 runs on the qrels (by ID) combined with the crowd preferences, from the console."""
    runs = [str(testdata("cast2019_runs_decaf", f"decaf_exp{n}.run.gz")) for n in range(1, 17)]
    prefs = str(testdata("cast2019_toppref", "TREC-CAsT-2019.pref"))
    command = [sys.executable, "-m", "ir_pref_measures", "experiment", "trec-cast/v1/2019/judged", *runs]
    command += ["--prefs", prefs, "-m", *MEASURES, "--baseline", "decaf_exp1", "--correction", "holm"]
    done = subprocess.run([*command, "--format", "csv"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(io.StringIO(done.stdout)).set_index("name")
    assert list(table.index) == [f"decaf_exp{n}" for n in range(1, 17)]
    assert table.loc["decaf_exp1", "rpp"] == 0.0 and table["rpp p-value corrected"].iloc[1:].notna().all()
    # graded measures on the qrels alone (read independently), preference measures on the combined judgments
    qrels = list(ir_measures.read_trec_qrels(str(testdata("cast2019_qrels", "2019qrels.txt"))))
    for n, run in enumerate(runs, start=1):
        expected = ir_measures.calc_aggregate([ir_measures.nDCG @ 10], qrels, ir_measures.read_trec_run(run))
        assert table.loc[f"decaf_exp{n}", "nDCG@10"] == pytest.approx(expected[ir_measures.nDCG @ 10], rel=1e-12)
    appref = ir_measures.parse_measure("APpref")
    combined = load_combined(pd.DataFrame(qrels), prefs, format="winner")
    run = list(ir_measures.read_trec_run(runs[0]))
    with_prefs = ir_measures.calc_aggregate([appref], combined, run)[appref]
    assert table.loc["decaf_exp1", "APpref"] == pytest.approx(with_prefs, rel=1e-12)
    assert not np.isclose(with_prefs, ir_measures.calc_aggregate([appref], qrels, run)[appref])


def test_experiment_draws_the_per_query_differences_to_the_baseline(tmp_path, capsys):
    """--plot FILE: one panel per (run, measure), one bar per query, the run's value minus the baseline's, sorted;
    the bars are the per-query table's differences."""
    pytest.importorskip("matplotlib")
    from ir_pref_measures.meta.plots import query_differences

    qrels, prefs, runs = __import__("ir_pref_measures.experiment.demo", fromlist=["example"]).example()
    long = Experiment(runs, load_combined(qrels, prefs), ["nDCG@10", "APpref"], perquery=True)
    figure = query_differences(long, "weak")
    panels = [axes for axes in figure.axes if axes.get_visible()]
    assert len(panels) == 3 * 2 and figure._suptitle.get_text() == "per-query differences against weak"
    wide = long.pivot_table(index=["measure", "qid"], columns="name", values="value")
    (panel,) = [axes for axes in panels if axes.get_title().startswith("tuned - weak: APpref")]
    heights = [bar.get_height() for bar in panel.patches]
    expected = sorted((wide.loc["APpref", "tuned"] - wide.loc["APpref", "weak"]).tolist(), reverse=True)
    np.testing.assert_allclose(heights, expected)
    better = sum(h > 0 for h in heights)
    assert panel.get_title() == f"tuned - weak: APpref\n{better} better, {sum(h < 0 for h in heights)} worse"
    with pytest.raises(Exception, match="the baseline 'none' is not a run"):
        query_differences(long, "none")
    path = tmp_path / "runs"
    path.mkdir()
    for name, run in runs.items():
        run.assign(q0="Q0", rank=1, tag="t")[["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(
            path / f"{name}.txt", sep=" ", header=False, index=False
        )
    qrels.assign(it=0)[["query_id", "it", "doc_id", "relevance"]].to_csv(
        path / "qrels.txt", sep=" ", header=False, index=False
    )
    files = [str(path / f"{name}.txt") for name in runs]
    plot = tmp_path / "diff.png"
    argv = ["experiment", str(path / "qrels.txt"), *files, "-m", "nDCG@10", "--baseline", "weak", "--plot", str(plot)]
    assert main(argv) == 0
    assert plot.stat().st_size > 0 and f"wrote {plot}" in capsys.readouterr().err
    assert main(argv[:-4] + ["--plot", str(plot)]) == 2  # no baseline: nothing to draw against
    assert "give one --baseline" in capsys.readouterr().err


def test_the_ratings_plot_has_a_title():
    pytest.importorskip("matplotlib")
    from ir_pref_measures.meta.plots import rating_forest

    table = pd.DataFrame({"system": ["a", "b"], "rating": [1010.0, 990.0], "ci low": [1000.0, 980.0]})
    table["ci high"] = table["rating"] + 10
    assert rating_forest(table).axes[0].get_title() == "ratings of 2 systems (Elo scale) with bootstrap intervals"
    assert rating_forest(table, title="BT").axes[0].get_title() == "BT"
