"""Planning prediction-powered inference: parity with ppi_py's power analysis (its GitHub HEAD, recorded), a Monte
Carlo check that planned sizes reach the target power, the people-only sizes of a width or power, and bad input."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from ir_pref_measures.errors import InputError
from ir_pref_measures.stats import (
    labels_for_power,
    labels_for_width,
    ppi_correlation,
    ppi_mean,
    ppi_mean_power,
    ppi_power,
)

REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "ppi_py" / "reference.json").read_text())
FIELDS = ("n", "N", "cost", "effective_n", "ppi_corr")


def _assert_plan(plan, expected: dict) -> None:
    for name in FIELDS:
        assert getattr(plan, name) == pytest.approx(expected[name], rel=0, abs=1e-9), name


@pytest.mark.parametrize("case", REFERENCE["ppi_power"], ids=lambda case: f"corr{case['ppi_corr']}")
def test_ppi_power_equals_recorded_ppi_py(case):
    target = {key: case[key] for key in ("budget", "effective_n") if key in case}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plan = ppi_power(
            case["ppi_corr"],
            case["cost_Y"],
            case["cost_Yhat"],
            cost_unit=case["cost_X"],
            n_max=case["n_max"],
            **target,
        )
    _assert_plan(plan, case["result"])
    assert bool(caught) == case["warned"]


def test_the_grid_reaches_every_branch():
    """The recorded grid holds PPI plans, people-only plans and plans cut by n_max (with and without a warning)."""
    results = [case["result"] for case in REFERENCE["ppi_power"]]
    assert any(r["N"] > 0 for r in results) and any(r["N"] == 0 for r in results)
    assert any(case["warned"] for case in REFERENCE["ppi_power"])
    capped = [c for c in REFERENCE["ppi_power"] if c["n_max"] and c["result"]["n"] + c["result"]["N"] == c["n_max"]]
    assert any(c["result"]["N"] > 0 for c in capped)


@pytest.mark.parametrize("case", REFERENCE["ppi_mean_power"])
def test_ppi_mean_power_equals_recorded_ppi_py(case):
    target = {key: case[key] for key in ("budget", "effective_n") if key in case}
    w = None if case["w"] is None else np.array(case["w"])
    plan = ppi_mean_power(
        np.array(case["y"]),
        np.array(case["yhat"]),
        case["cost_Y"],
        case["cost_Yhat"],
        n_max=case["n_max"],
        w=w,
        **target,
    )
    _assert_plan(plan, case["result"])


def test_correlation_is_pearsons_capped_at_one_minus_one_over_n():
    rng = np.random.default_rng(5)
    y = rng.normal(size=30)
    yhat = 0.5 * y + rng.normal(size=30)
    assert ppi_correlation(y, yhat) == pytest.approx(np.corrcoef(y, yhat)[0, 1], abs=1e-12)
    assert ppi_correlation(y, 2 * y + 1) == pytest.approx(1 - 1 / 30, abs=1e-15)


def test_effective_n_formula_and_cheaper_than_people_alone():
    """The plan's effective size is n (n + N) / (n + (1 - rho^2) N), and costs less than as many people's labels."""
    for corr in (0.5, 0.8, 0.95):
        plan = ppi_power(corr, 1.0, 0.05, effective_n=400)
        assert plan.N > 0
        assert plan.effective_n == round(plan.n * (plan.n + plan.N) / (plan.n + (1 - corr**2) * plan.N))
        assert abs(plan.effective_n - 400) <= 2
        assert plan.cost == pytest.approx(plan.n * 1.0 + (plan.n + plan.N) * 0.05)
        assert plan.cost < 400 * 1.0


def test_people_only_sizes_of_a_width_and_a_power():
    z975, z80 = 1.959963984540054, 0.8416212335729143
    assert labels_for_width(0.1, 0.04) == math.ceil((2 * z975 * 0.2 / 0.1) ** 2)
    assert labels_for_power(0.05, 0.02, power=0.8) == math.ceil(((z975 + z80) / 0.05) ** 2 * 0.02)
    assert labels_for_width(10.0, 0.01) == 2  # never fewer than an interval needs


def test_planned_sizes_reach_the_target_power():
    """Monte Carlo: people's values N(delta, 1), the LLM's correlated rho with them; the plan for a z-test of
    delta at power 0.8 draws n people's and N LLM-only units; the PPI++ test at 5% rejects delta = 0 in 80% of
    the replications, within 3 standard errors."""
    rho, delta, power, reps = 0.8, 0.15, 0.8, 2000
    plan = ppi_power(rho, 1.0, 0.05, effective_n=labels_for_power(delta, 1.0, power=power))
    assert 0 < plan.n < plan.effective_n and plan.N > 0
    rng = np.random.default_rng(2024)
    truth = rng.normal(delta, 1.0, size=(plan.n + plan.N, reps))
    llm = rho * truth + np.sqrt(1 - rho**2) * rng.normal(size=truth.shape) + 0.3  # biased, correlated rho
    got = ppi_mean(truth[: plan.n], llm[: plan.n], llm[plan.n :], confidence=0.95)
    rejected = (got.lower > 0) | (got.upper < 0)
    se = math.sqrt(power * (1 - power) / reps)
    assert abs(rejected.mean() - power) <= 3 * se, rejected.mean()
    people = truth[: plan.effective_n]  # the people-only design of the same effective size, for scale
    assert abs(np.mean(people.mean(0) / people.std(0) * math.sqrt(plan.effective_n) > 1.96) - power) <= 3 * se


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ppi_power(1.0, 1, 0.1, effective_n=10), "strictly between -1 and 1"),
        (lambda: ppi_power(0.5, 1, 0.1), "a budget or a target"),
        (lambda: ppi_power(0.5, 0, 0.1, budget=10), "cost_people must be positive"),
        (lambda: ppi_power(0.5, 1, -0.1, budget=10), "cost_llm must be a finite non-negative"),
        (lambda: ppi_power(0.5, 1, 0.0, budget=10), "free LLM-judged units"),
        (lambda: ppi_power(0.5, 1, 0.1, budget=-3), "budget must be positive"),
        (lambda: ppi_correlation([1, 1, 1], [1, 2, 3]), "do not vary"),
        (lambda: ppi_correlation([1.0], [2.0]), "at least 2 units"),
        (lambda: ppi_correlation([1, 2], [1, 2, 3]), "one people's and one LLM value per unit"),
        (lambda: labels_for_width(0, 1), "positive width"),
        (lambda: labels_for_power(0, 1), "non-zero difference"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(InputError, match=message):
        call()
