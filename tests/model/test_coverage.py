"""No silent wrong numbers: a run of another collection (none of its retrieved documents judged) and a run file with
its rank and score columns swapped are each named in a warning, by the API and the commands."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import data_path

import ir_pref_measures as ipm
from ir_pref_measures.model.coverage import unjudged_queries

DL = "dl_llm_prefs_arabzadeh"


def _run(rows) -> ipm.Ranking:
    return ipm.as_ranking(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))


def _qrels(rows) -> ipm.Judgments:
    return ipm.load_judgments(pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"]))


@pytest.mark.parametrize("seed", range(20))
def test_unjudged_queries_is_the_direct_count(seed):
    """The number of judged queries on which no retrieved doc is judged, counted the naive way."""
    rng = np.random.default_rng(seed)
    queries = [f"q{k}" for k in range(rng.integers(1, 8))]
    judged = {(q, f"d{d}") for q in queries for d in rng.choice(20, rng.integers(1, 6), replace=False)}
    run_queries = [q for q in [*queries, "other"] if rng.random() < 0.7] or ["other"]
    retrieved = {(q, f"d{d}") for q in run_queries for d in rng.choice(20, rng.integers(1, 8), replace=False)}
    run = _run([(q, d, float(rng.random())) for q, d in sorted(retrieved)])
    judgments = _qrels([(q, d, int(rng.integers(0, 3))) for q, d in sorted(judged)])
    expected = sum(not any((q, d) in judged for (r, d) in retrieved if r == q) for q in queries)
    assert unjudged_queries(run, judgments) == expected


def test_a_run_of_another_collection_is_named_with_its_share_of_queries():
    judgments = _qrels([("q1", "a", 1), ("q2", "b", 2), ("q3", "c", 0)])
    other = _run([("q1", "x", 2.0), ("q2", "y", 1.0), ("q3", "c", 1.0)])  # judged docs on one query of three
    with pytest.warns(UserWarning, match=r"run other: none of its retrieved documents is judged on 2 of the 3 .*67%"):
        ipm.Experiment({"other": other}, judgments, ["nDCG@10"])
    same = _run([("q1", "a", 2.0), ("q2", "y", 1.0), ("q3", "c", 1.0)])  # one query of three: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ipm.Experiment({"same": same}, judgments, ["nDCG@10"])
    with pytest.warns(UserWarning, match="run other: none of its retrieved documents is judged on 2 of the 3"):
        ipm.compare({"other": other, "same": same}, judgments, ["rpp"])


def test_a_run_file_with_rank_and_score_swapped_is_named(tmp_path):
    swapped = tmp_path / "swapped.run"
    swapped.write_text("".join(f"q{q} Q0 d{k} 0.{9 - k} {k + 1} x\n" for q in range(3) for k in range(5)))
    with pytest.warns(UserWarning, match=r"swapped\.run: the scores increase down the lines of every query"):
        ipm.as_ranking(str(swapped))
    interleaved = tmp_path / "interleaved.run"  # the queries' lines mixed: the same check, after a sort by query
    interleaved.write_text("".join(f"q{q} Q0 d{k} 0.{9 - k} {k + 1} x\n" for k in range(5) for q in range(3)))
    with pytest.warns(UserWarning, match=r"interleaved\.run: the scores increase down the lines of every query"):
        ipm.as_ranking(str(interleaved))
    fine = tmp_path / "fine.run"
    fine.write_text("".join(f"q{q} Q0 d{k} {k + 1} {9 - k} x\n" for q in range(3) for k in range(5)))
    tied = tmp_path / "tied.run"  # equal scores: nothing increases
    tied.write_text("".join(f"q{q} Q0 d{k} {k + 1} 1 x\n" for q in range(3) for k in range(5)))
    one_up = tmp_path / "mixed.run"  # one query increasing, one decreasing: not every query
    one_up.write_text("q1 Q0 a 1 1 x\nq1 Q0 b 2 2 x\nq2 Q0 a 1 2 x\nq2 Q0 b 2 1 x\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for path in (fine, tied, one_up):
            ipm.as_ranking(str(path))


def test_dl21_runs_on_dl19_qrels_are_refused_and_swapped_columns_warn_on_the_command_line(tmp_path, capsys):
    """A run of another year retrieves no judged document at all: no scores from nothing, in ``experiment`` as in
    ``eval`` (the one rule of every interface)."""
    import gzip

    from ir_pref_measures.commands import main

    qrels = str(data_path(DL, "qrels.dl19-passage.txt"))
    dl21, dl19 = (str(data_path(DL, "runs", f"input.{name}.txt.gz")) for name in ("p_bm25", "ICT-BERT2"))
    assert main(["experiment", qrels, dl21, dl19, "-m", "nDCG@10", "--topk", "20"]) == 2
    captured = capsys.readouterr()
    expected = "run 'p_bm25': none of its retrieved documents is judged on 100% of queries"
    assert captured.out == "" and captured.err.count(expected) == 1 and "ICT-BERT2" not in captured.err, captured.err
    lines = gzip.decompress(open(dl19, "rb").read()).decode().splitlines()
    swapped = tmp_path / "input.swapped.txt"  # rank and score exchanged, as some tools write them
    swapped.write_text("".join(" ".join([*f[:3], f[4], f[3], *f[5:]]) + "\n" for f in map(str.split, lines)))
    assert main(["eval", qrels, str(swapped), "nDCG@10"]) == 0
    out, err = capsys.readouterr()
    assert err.count("the scores increase down the lines of every query") == 1 and str(swapped) in err, err
