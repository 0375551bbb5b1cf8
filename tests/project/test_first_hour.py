"""What stopped a new user in the first hour: each case gives the result a user expects or one clear error."""

from __future__ import annotations

import ir_measures
import pandas as pd
import pytest
from conftest import data_path, testdata_path

import ir_pref_measures as ipm
from ir_pref_measures import InputError

DL19 = "dl_llm_prefs_arabzadeh"


@pytest.fixture(scope="module")
def dl19():
    qrels = str(data_path(DL19, "qrels.dl19-passage.txt"))
    prefs = str(data_path(DL19, "llm_pref_judgments", "DL2019", "judge.00"))
    run = ipm.read_run(str(data_path(DL19, "runs", "input.ICT-BERT2.txt.gz")))[["query_id", "doc_id", "score"]]
    return qrels, prefs, run


def test_load_judgments_takes_a_list_and_a_plus_as_experiment_does(dl19):
    qrels, prefs, run = dl19
    measures = [ipm.APpref, ipm.PGC, ipm.ppref @ 10]
    expected = ir_measures.calc_aggregate(measures, ipm.load_combined(qrels, prefs, format="pairs"), run)
    for source in ([qrels, f"pairs:{prefs}"], (qrels, f"pairs:{prefs}"), f"{qrels}+pairs:{prefs}"):
        assert ir_measures.calc_aggregate(measures, ipm.load_judgments(source), run) == expected


def test_a_qrels_path_given_to_ir_measures_is_one_clear_error(dl19):
    qrels, _, run = dl19
    with pytest.raises(InputError, match="(?s)not as a string .a path.*load_judgments"):
        ir_measures.calc_aggregate([ipm.ppref @ 10], qrels, run)
    frame = ipm.read_qrels(qrels)
    assert ir_measures.calc_aggregate([ipm.ppref @ 10], frame, run)[ipm.ppref @ 10] > 0


def test_pyterrier_columns_work_for_the_preference_measures(dl19):
    qrels, _, run = dl19
    graded = ipm.read_qrels(qrels)
    pt_qrels = graded.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    measures = [ipm.ppref @ 10, ipm.APpref]
    assert ir_measures.calc_aggregate(measures, pt_qrels[["qid", "docno", "label"]], run) == (
        ir_measures.calc_aggregate(measures, graded, run)
    )


def test_compare_on_preferences_alone_says_it_needs_grades(dl19):
    _, prefs, run = dl19
    judgments = ipm.load_judgments(prefs, format="pairs")
    runs = {"a": run, "b": run.assign(score=-run["score"])}
    with pytest.raises(InputError, match="need graded judgments .qrels., and these judgments hold only preferences"):
        ipm.compare(runs, judgments)
    graded = ipm.load_judgments(pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [0]}))
    with pytest.raises(InputError, match="no query has a relevant document"):
        ipm.compare(runs, graded)


def test_meta_warns_about_depths_once_and_takes_the_topk_it_advises(capsys):
    from ir_pref_measures.commands import main

    runs = _dl19_runs()
    qrels = str(data_path(DL19, "qrels.dl19-passage.txt"))
    prefs = str(data_path(DL19, "llm_pref_judgments", "DL2019", "judge.00"))
    argv = ["meta", "runs", *runs, "-j", f"g={qrels}", "-j", f"p=pairs:{prefs}", "-m", "g:nDCG@10", "p:APpref"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.count("warning: the runs retrieve different numbers of documents") == 1, err
    assert "Warning" not in err and "give topk=20 (--topk 20)" in err
    assert main([*argv, "--topk", "20"]) == 0
    assert "different numbers of documents" not in capsys.readouterr().err


def _dl19_runs() -> list[str]:
    return [str(data_path(DL19, "runs", f"input.ICT-{name}.txt.gz")) for name in ("BERT2", "CKNRM_B", "CKNRM_B50")]


def test_leaderboard_warns_about_depth_and_takes_topk(capsys, on_real_data):
    """CKNRM_B50 returns 50 docs per query, the others 20: without --topk it rates first under rpp by its depth (on
    the real data), and the output says so; cut to 20, BERT2 rates first (the stand-ins' best run too). Runs are
    named as experiment names them."""
    from ir_pref_measures.commands import main

    qrels = str(data_path(DL19, "qrels.dl19-passage.txt"))
    argv = ["leaderboard", "--qrels", qrels, *_dl19_runs(), "--rounds", "0", "--format", "csv"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    names = [line.split(",")[0] for line in out.splitlines()[1:]]
    assert sorted(names) == ["ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50"]  # named as experiment names them
    assert names[0] == "ICT-CKNRM_B50" or not on_real_data  # the stand-ins' deeper run finds few more relevant docs
    assert err.count("warning: the runs retrieve different numbers of documents") == 1 and "--topk 20" in err
    assert main([*argv, "--topk", "20"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1].startswith("ICT-BERT2,") and "different numbers" not in err


def test_aggregate_shows_the_tie_pref_aggregate_hides(tmp_path, capsys):
    """On DL19, lexiprecision is a three-way tie in pref_aggregate's MC4 and Borda: the drop-in keeps its bytes and
    says so on stderr; --method scores gives each run's score and place (the real data's tie)."""
    import json

    from ir_pref_measures.commands import main

    qrels = str(testdata_path(DL19, "qrels.dl19-passage.txt"))
    assert main(["compare", "-R", qrels, "-q", "-m", "lexiprecision", "--topk", "20", *_dl19_runs()]) == 0
    lines = tmp_path / "prefs.jsonl"
    lines.write_text(capsys.readouterr().out)
    assert main(["aggregate", "-P", str(lines)]) == 0
    out, err = capsys.readouterr()
    summary = json.loads(out.splitlines()[-1])["lexiprecision"]
    assert summary["mc4"] == ["ICT-CKNRM_B50.txt", "ICT-CKNRM_B.txt", "ICT-BERT2.txt"]  # names, descending
    tie = "runs ICT-BERT2.txt, ICT-CKNRM_B.txt, ICT-CKNRM_B50.txt tie"
    assert f"warning: lexiprecision mc4: {tie}" in err and f"warning: lexiprecision borda: {tie}" in err, err
    assert main(["aggregate", "-P", str(lines), "--method", "scores"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {"measure", "method", "place", "run", "score", "tied"} <= set(records[0])
    borda = [r for r in records if r["method"] == "borda"]
    assert [r["place"] for r in borda] == sorted(r["place"] for r in borda) and len(borda) == 3


def test_the_docs_say_what_the_dl19_judge_files_are():
    """judge.00..06 are the rounds of one GPT-4o judge (self-consistency), its ties written as wins of the
    shorter passage; differences.md documents NumRel and the seventh field of a run line."""
    from conftest import ROOT

    judges = (ROOT / "docs" / "agreement.md").read_text()
    assert "seven GPT-4o judges" not in judges
    assert "self-consistency" in judges and "win of the shorter passage" in judges and "**one** judge" in judges
    differences = (ROOT / "docs" / "differences.md").read_text()
    assert "`NumRel`" in differences and "more than six fields" in differences
