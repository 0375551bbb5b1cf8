"""``ir-pref-measures judge``: plan, run (resumed), status and export on the command line; bad input in words."""

from __future__ import annotations

import pytest

from ir_pref_measures.commands import main
from ir_pref_measures.parsing.preferences import read_judging_log


def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {(d + q) % 4}\n" for q in range(3) for d in range(8)))
    run = tmp_path / "a.run"
    run.write_text("".join(f"q{q} Q0 d{d} 0 {8 - d} a\n" for q in range(3) for d in range(8)))
    return qrels, run


def test_plan_run_resume_status_export(tmp_path, capsys):
    qrels, run = files(tmp_path)
    store = str(tmp_path / "e.sqlite")
    assert main(["judge", "plan", store, "--selector", "insertion", "--runs", str(run), "--depth", "5"]) == 0
    assert capsys.readouterr().out == f"{store}: 3 queries, 15 docs, 30 pairs\n"
    judge = ["--judge", "simulated", "--qrels", str(qrels), "--noise", "0.2", "--judge-seed", "4"]
    assert main(["judge", "run", store, *judge, "--budget", "5"]) == 0
    assert capsys.readouterr().out.startswith("asked 5, answered 5, already stored 0\n")
    assert main(["judge", "run", store, *judge]) == 0
    asked = int(capsys.readouterr().out.split()[1].rstrip(","))
    assert main(["judge", "status", store]) == 0
    status = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert status["selector"] == "insertion" and int(status["answers"]) == 5 + asked == int(status["requests"])
    log = tmp_path / "judgments.log"
    assert main(["judge", "export", store, "--format", "log", "-o", str(log)]) == 0
    assert len(read_judging_log(log)) == 5 + asked


def test_bad_input_in_words(tmp_path, capsys):
    qrels, run = files(tmp_path)
    store = str(tmp_path / "e.sqlite")
    assert main(["judge", "plan", store, "--selector", "random"]) == 2
    assert "name the docs to judge" in capsys.readouterr().err
    assert main(["judge", "plan", store, "--selector", "topk", "--runs", str(run)]) == 2
    assert "topk selector starts from graded qrels" in capsys.readouterr().err
    assert main(["judge", "run", str(tmp_path / "none.sqlite"), "--judge", "simulated", "--qrels", str(qrels)]) == 2
    assert "no such judging store" in capsys.readouterr().err
    assert main(["judge", "plan", store, "--qrels", str(qrels), "--rule", "loudest"]) == 2
    assert "unknown combination rule 'loudest'" in capsys.readouterr().err
    assert main(["judge", "plan", store, "--qrels", str(qrels), "--selector", "all"]) == 0
    assert main(["judge", "run", store, "--judge", "oracle"]) == 2
    assert "unknown judge 'oracle'" in capsys.readouterr().err


def test_an_option_of_another_judge_is_refused(tmp_path, capsys):
    """An option of one judge given to another would be ignored: it is an error naming the option and its judge."""
    qrels, run = files(tmp_path)
    store = str(tmp_path / "e.sqlite")
    assert main(["judge", "plan", store, "--qrels", str(qrels), "--selector", "all"]) == 0
    capsys.readouterr()
    replay = ["--judge", "replay", "--judgments", str(qrels)]
    assert main(["judge", "run", store, *replay, "--noise", "0.1"]) == 2
    assert "--noise is an option of the simulated judge, not of --judge replay" in capsys.readouterr().err
    simulated = ["--judge", "simulated", "--qrels", str(qrels)]
    assert main(["judge", "run", store, *simulated, "--fallback", "qrels"]) == 2
    assert "--fallback is an option of the replay judge, not of --judge simulated" in capsys.readouterr().err
    common = ["judge", "simulate", "--qrels", str(qrels), "--runs", str(run), "--seeds", "1", "--budgets", "0.5"]
    assert main([*common, "--fallback", "qrels"]) == 2
    assert "--fallback is an option of the replay judge" in capsys.readouterr().err
    assert main([*common, "--judgments", str(qrels)]) == 2
    assert "--judgments is an option of the replay judge" in capsys.readouterr().err
    assert main([*common, "--judge", "replay", "--judgments", str(qrels), "--noise", "0.1"]) == 2
    assert "--noise is an option of the simulated judge" in capsys.readouterr().err


def test_an_option_of_another_selector_is_refused(tmp_path, capsys):
    """--uniform (rating's) or --k (topk's) given to another selector would be ignored: refused, nothing stored."""
    qrels, _ = files(tmp_path)
    store = tmp_path / "e.sqlite"
    assert main(["judge", "plan", str(store), "--qrels", str(qrels), "--selector", "topk", "--uniform", "0.3"]) == 2
    assert "--uniform is an option of the rating and topk+rating selectors, not of --selector topk" in (
        capsys.readouterr().err
    )
    assert main(["judge", "plan", str(store), "--qrels", str(qrels), "--selector", "random", "--k", "3"]) == 2
    assert "--k is an option of the topk and topk+rating selectors, not of --selector random" in capsys.readouterr().err
    assert not store.exists()


def test_a_failed_plan_stores_nothing_so_the_corrected_plan_goes_through(tmp_path, capsys):
    qrels, _ = files(tmp_path)
    store = str(tmp_path / "e.sqlite")
    assert main(["judge", "plan", store, "--qrels", f"qrels:{tmp_path / 'missing.txt'}", "--selector", "all"]) == 2
    assert "missing.txt" in capsys.readouterr().err
    assert main(["judge", "plan", store, "--qrels", str(qrels), "--selector", "all"]) == 0
    assert main(["judge", "plan", store, "--qrels", str(qrels), "--selector", "random"]) == 2
    assert "the store was made with other settings (selector: stored 'all', given 'random')" in capsys.readouterr().err
    assert main(["judge", "status", store]) == 0
    status = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert status["selector"] == "all" and "batch" in status


def test_topk_with_rating_beyond_it_spends_the_budget_and_records_its_share(tmp_path, capsys):
    qrels, _ = files(tmp_path)
    store = str(tmp_path / "e.sqlite")
    assert main(["judge", "plan", store, "--selector", "topk+rating", "--qrels", str(qrels), "--uniform", "1"]) == 0
    assert capsys.readouterr().out == f"{store}: 3 queries, 18 docs, 45 pairs\n"  # every doc graded above 0
    judge = ["--judge", "simulated", "--qrels", str(qrels), "--judge-seed", "4"]
    assert main(["judge", "run", store, *judge]) == 0  # no budget: the process, then every other pair
    assert capsys.readouterr().out.startswith("asked 45, answered 45")
    assert main(["judge", "status", store]) == 0
    status = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert status["selector"] == "topk+rating" and status["uniform"] == "1.0"
    with pytest.raises(SystemExit):
        main(["judge", "plan", str(tmp_path / "f.sqlite"), "--qrels", str(qrels), "--uniform", "1.5"])
    assert "'1.5' must lie between 0 and 1" in capsys.readouterr().err


def test_plan_keeps_a_relative_qrels_file_by_its_absolute_path(tmp_path, capsys, monkeypatch):
    qrels, _ = files(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["judge", "plan", "e.sqlite", "--selector", "all", "--qrels", "qrels:qrels.txt"]) == 0
    capsys.readouterr()
    monkeypatch.chdir(tmp_path.parent)  # a run from another folder finds the qrels
    store = str(tmp_path / "e.sqlite")
    assert main(["judge", "run", store, "--judge", "simulated", "--qrels", str(qrels), "--budget", "3"]) == 0
    assert capsys.readouterr().out.startswith("asked 3, answered 3")
    assert main(["judge", "status", store]) == 0
    status = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert status["qrels"] == f"qrels:{qrels}"


def test_plan_accepts_an_ir_datasets_id_and_keeps_it(tmp_path, capsys, irds_home, on_real_data):
    import ir_datasets

    store = str(tmp_path / "e.sqlite")
    dl19 = "msmarco-passage/trec-dl-2019/judged"
    # the queries of the cached qrels (the real tier's 43 judged DL 2019 queries, or the stand-ins' own)
    queries = len({qrel.query_id for qrel in ir_datasets.load(dl19).qrels_iter()})
    assert queries == 43 or not on_real_data
    assert main(["judge", "plan", store, "--selector", "topk", "--qrels", dl19]) == 0
    assert capsys.readouterr().out.startswith(f"{store}: {queries} queries,")
    assert main(["judge", "status", store]) == 0
    status = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert status["qrels"] == f"irds:{dl19}"
    assert main(["judge", "plan", store, "--selector", "topk", "--qrels", f"irds:{dl19}"]) == 0  # the same effort
