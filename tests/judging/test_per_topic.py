"""Judgments per topic: the Kneedle knee against curves whose knee is known and against the paper's direct
construction, and the curve the simulator gives over per-topic budgets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import kneedle
from oracles.graded_systems import GRADES, runs, truth, write_files

from ir_pref_measures.commands import main
from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import AllPairs, SimulatedJudge, random_pairs, simulate_effort
from ir_pref_measures.judging.per_topic import CURVE_COLUMNS, judgments_per_topic, knee, knees


def test_the_knee_of_a_broken_line_is_its_corner():
    x = np.arange(11.0)
    assert knee(x, np.minimum(x, 4.0)) == 4.0
    assert knee(x, np.maximum(x - 7.0, 0.0), curve="convex") == 7.0


def test_the_knee_of_the_square_root_is_a_quarter_whatever_the_units():
    """sqrt(x) on [0, 1] is its own normalisation; its distance from the chord y = x, sqrt(x) - x, peaks at 1/4."""
    x = np.linspace(0, 1, 401)
    assert knee(x, np.sqrt(x)) == pytest.approx(0.25)
    assert knee(3 + 10 * x, 2 + 5 * np.sqrt(x)) == pytest.approx(5.5)  # the same curve in other units
    assert knee(x, 1 - np.sqrt(x), curve="convex") == pytest.approx(0.25)  # decreasing, below its chord
    assert knee(x, x**2, curve="convex") == pytest.approx(0.5)  # x - x^2 peaks at 1/2


def test_a_curve_without_a_bend_on_that_side_has_no_knee():
    x = np.arange(5.0)
    assert knee(x, 2 * x + 1) is None
    assert knee(x, np.ones(5)) is None
    assert knee(x, x**2) is None  # convex: every point below the chord


@pytest.mark.parametrize("seed", range(20))
def test_the_knee_equals_the_papers_direct_construction_on_random_curves(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 30))
    x = np.cumsum(rng.uniform(0.1, 5, n))
    y = rng.normal(size=n) if seed % 2 else np.cumsum(np.sort(rng.uniform(0, 1, n))[::-1])
    for curve in ("concave", "convex"):
        assert knee(x, y, curve=curve) == kneedle.knee(list(x), list(y), curve)


def test_a_knee_refuses_too_few_points_unordered_x_and_an_unknown_curve():
    with pytest.raises(InputError, match="at least 3 points"):
        knee([1, 2], [1, 2])
    with pytest.raises(InputError, match="strictly increasing"):
        knee([1, 3, 2], [1, 2, 3])
    with pytest.raises(InputError, match="concave"):
        knee([1, 2, 3], [1, 2, 3], curve="s")


def test_the_curve_over_judgments_per_topic():
    pools = {q: sorted(g) for q, g in GRADES.items()}  # 12 docs a query: 66 pairs
    selectors = {"all": lambda seed: AllPairs(pools, seed), "random": lambda seed: random_pairs(pools, seed, 5)}
    table, curve = judgments_per_topic(
        selectors, lambda seed: SimulatedJudge(GRADES, seed), runs(), truth(), pools=pools, per_topic=[66, 3, 10],
        seeds=[0, 1, 2],
    )  # fmt: skip
    assert len(table) == 2 * 3 * 3 and list(curve.columns) == CURVE_COLUMNS
    assert curve["per_topic"].tolist() == [3, 10, 66] * 2
    assert curve["judgments"].tolist() == [3, 10, 66] * 2  # every query asked exactly its budget
    full = curve[curve["per_topic"] == 66]
    assert full["tau"].tolist() == pytest.approx([1, 1]) and full["tau_sd"].tolist() == pytest.approx([0, 0])
    seeds = table[(table["selector"] == "random") & (table["budget"] == 3)]["tau"]
    assert curve.loc[(curve["selector"] == "random") & (curve["per_topic"] == 3), "tau_sd"].item() == pytest.approx(
        seeds.std()
    )
    for name, rows in curve.groupby("selector"):
        assert knees(curve)[name] == knee(rows["per_topic"], rows["tau"])
        assert rows["knee"].sum() == (knees(curve)[name] is not None)


def test_judgments_per_topic_needs_three_distinct_budgets():
    with pytest.raises(InputError, match="at least 3 distinct"):
        judgments_per_topic({}, None, runs(), None, pools={}, per_topic=[5, 5, 10])


def test_the_simulate_command_with_judgments_per_topic(tmp_path, capsys):
    qrels, names = write_files(tmp_path)
    out = tmp_path / "table.csv"
    args = ["judge", "simulate", "--qrels", qrels, "--runs", *names, "--selectors", "random", "--seeds", "2"]
    assert main([*args, "--per-topic", "1", "4", "16", "-o", str(out)]) == 0
    assert len(pd.read_csv(out)) == 3 * 2
    printed = capsys.readouterr().out
    assert "tau_sd" in printed and "knee random: " in printed
    assert main([*args, "--per-topic", "1", "4", "16", "--budgets", "0.5"]) != 0
    assert "not both" in capsys.readouterr().err


def test_budgets_and_judgments_per_topic_together_are_refused_before_anything_is_read(tmp_path):
    missing = str(tmp_path / "absent.txt")  # read first, it would be the error
    with pytest.raises(InputError, match="not both"):
        simulate_effort(missing, [missing, missing], ["random"], budgets=[0.5], per_topic=[1, 4, 16])
