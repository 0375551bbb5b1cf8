"""The simulator: its table, and what a perfect judge at the full budget must give."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles.graded_systems import GRADES, runs, truth, write_files

from ir_pref_measures.commands import main
from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import AllPairs, Pair, SimulatedJudge, TopK, Verdict, random_pairs, simulate_effort
from ir_pref_measures.judging.simulation import COLUMNS, judged_depth_pools, preference_frame, simulate, summary


def test_preference_frame_states_wins_and_ties():
    verdicts = [Verdict(Pair("q", "a", "b"), "second"), Verdict(Pair("q", "a", "c"), "tie")]
    verdicts += [Verdict(Pair("q", "b", "c"), "bad-first"), Verdict(Pair("q", "c", "d"), None)]
    frame = preference_frame(verdicts)
    assert frame.values.tolist() == [["q", "b", "a", -1], ["q", "a", "c", 0], ["q", "c", "b", -1]]


def test_a_perfect_judge_at_the_full_budget_orders_the_systems_as_the_truth():
    pools = {q: sorted(g) for q, g in GRADES.items()}
    selectors = {"all": lambda seed: AllPairs(pools, seed), "random": lambda seed: random_pairs(pools, seed, 5)}
    table = simulate(
        selectors, lambda seed: SimulatedJudge(GRADES, seed), runs(), truth(), pools=pools, budgets=[0.2, 1.0],
        seeds=[0, 1],
    )  # fmt: skip
    assert list(table.columns) == COLUMNS and len(table) == 8
    full = table[table["budget"] == 1.0]
    assert full["tau"].tolist() == pytest.approx([1.0] * 4) and full["tau_ap"].tolist() == pytest.approx([1.0] * 4)
    assert (full["judgments"] == 264).all()
    assert (table[table["budget"] == 0.2]["tau"] < 1.0).any()  # a fifth of the pairs: some systems swap
    assert (table[table["budget"] == 0.2]["judgments"] == 4 * 14).all()  # ceil(0.2 * 66) a query
    assert list(summary(table).index.names) == ["selector", "budget"]


def test_the_simulate_command(tmp_path, capsys):
    qrels, names = write_files(tmp_path)
    out = tmp_path / "table.csv"
    code = main(["judge", "simulate", "--qrels", qrels, "--runs", *names, "--selectors", "topk", "random"]
                + ["--budgets", "0.5", "--seeds", "2", "-o", str(out)])  # fmt: skip
    assert code == 0
    table = pd.read_csv(out)
    assert sorted(set(table["selector"])) == ["random", "topk"] and len(table) == 4
    assert "tau_ap" in capsys.readouterr().out
    assert TopK(GRADES).pools  # the candidates the command judges


def test_fewer_than_two_runs_is_an_input_error():
    from ir_pref_measures.errors import InputError

    with pytest.raises(InputError, match="at least 2 runs"):
        simulate({}, None, {"a": None}, None, pools={})


def test_the_simulate_command_replays_with_the_qrels_fallback(tmp_path, capsys):
    qrels, names = write_files(tmp_path)
    recorded = tmp_path / "recorded.txt"
    recorded.write_text("q0 d1 d2\n")  # one recorded pair (as the grades say); the others: the fallback
    pools = TopK(GRADES).pools  # the command judges the top-k candidates: the truth is the grades over them
    implied = truth()[["query_id", "doc_id_a", "doc_id_b"]].values
    graded = tmp_path / "truth.txt"
    graded.write_text("".join(f"{q} {a} {b}\n" for q, a, b in implied if {a, b} <= set(pools[q])))
    arguments = ["judge", "simulate", "--qrels", qrels, "--runs", *names, "--selectors", "random", "rating"]
    arguments += ["--judge", "replay", "--judgments", str(recorded), "--prefs-format", "pairs", "--budgets", "0.99"]
    arguments += ["--truth", str(graded), "--seeds", "2"]
    taus = {}
    for fallback in ("qrels", "coin"):
        out = tmp_path / f"{fallback}.csv"
        assert main([*arguments, "--fallback", fallback, "-o", str(out)]) == 0
        taus[fallback] = pd.read_csv(out)["tau"].tolist()
    assert taus["qrels"] == pytest.approx([1.0] * 4)  # ceil(0.99 n) = n: every pair, answered as the grades say
    assert max(taus["coin"]) < 1.0  # coin flips for every pair never recorded


def test_the_fallback_qrels_of_judge_run_needs_qrels(tmp_path, capsys):
    qrels, _ = write_files(tmp_path)
    main(["judge", "plan", str(tmp_path / "e.sqlite"), "--selector", "random", "--qrels", qrels])
    arguments = ["judge", "run", str(tmp_path / "e.sqlite"), "--judge", "replay", "--judgments", qrels]
    assert main([*arguments, "--fallback", "qrels"]) == 2
    assert "--fallback qrels needs --qrels" in capsys.readouterr().err


def test_judged_depth_pools_keep_the_graded_topics_and_grade_the_rest_zero():
    ranked = pd.DataFrame(
        [("q0", "d1", 3.0), ("q0", "x", 2.0), ("q0", "d2", 1.0), ("other", "d1", 1.0)],
        columns=["query_id", "doc_id", "score"],
    )
    pools, grades = judged_depth_pools({"a": ranked}, GRADES, 2)
    assert pools == {"q0": ["d1", "x"]}
    assert grades == {"q0": {"d1": GRADES["q0"]["d1"], "x": 0.0}}


def test_the_simulate_command_judges_the_depth_pools_of_the_runs(tmp_path):
    qrels, names = write_files(tmp_path)
    out = tmp_path / "table.csv"
    arguments = ["judge", "simulate", "--qrels", qrels, "--runs", *names, "--selectors", "random", "rating", "topk"]
    assert main([*arguments, "--depth", "3", "--budgets", "0.99", "--seeds", "1", "-o", str(out)]) == 0
    table = pd.read_csv(out).set_index("selector")
    pools, _ = judged_depth_pools(runs(), GRADES, 3)
    assert table.loc["random", "judgments"] == sum(len(p) * (len(p) - 1) // 2 for p in pools.values())
    assert table.loc["random", "tau"] == pytest.approx(1.0) == table.loc["rating", "tau"]


def test_the_summary_spread_is_the_standard_deviation_over_the_seeds():
    table = pd.DataFrame(
        [("r", 0.1, seed, 10 + seed, tau, tau / 2) for seed, tau in enumerate([0.2, 0.5, 0.9])], columns=COLUMNS
    )
    row = summary(table, spread=True).loc[("r", 0.1)]
    assert row["judgments"] == 11 and row["tau"] == pytest.approx(1.6 / 3)
    assert row["tau_sd"] == pytest.approx(np.std([0.2, 0.5, 0.9], ddof=1))
    assert row["tau_ap_sd"] == pytest.approx(np.std([0.1, 0.25, 0.45], ddof=1))


def test_simulate_effort_from_files_orders_the_systems_as_the_truth_at_the_full_budget(tmp_path):
    """The command's work from Python: a noise-free judge asking every pair of the runs' pools (depth 10) orders
    the systems as every judgment does."""
    qrels, names = write_files(tmp_path)
    found = simulate_effort(qrels, names, ["all"], depth=10, budgets=[1.0], seeds=2)
    assert found.table["tau"].tolist() == pytest.approx([1.0, 1.0])
    assert found.table["tau_ap"].tolist() == pytest.approx([1.0, 1.0])
    assert "tau_ap_sd" in found.text


def test_simulate_effort_takes_budgets_or_judgments_per_topic_not_both(tmp_path):
    qrels, names = write_files(tmp_path)
    with pytest.raises(InputError, match="not both"):
        simulate_effort(qrels, names, ["random"], budgets=[0.5], per_topic=[2, 4, 8])
    found = simulate_effort(qrels, names, ["random"], per_topic=[2, 4, 8])
    assert "knee random:" in found.text and sorted(set(found.table["budget"])) == [2, 4, 8]
