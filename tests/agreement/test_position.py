"""Position consistency and preference fairness equal Shi et al.'s own code ("Judging the judges", 2024) on the
choices it scored (recorded by tests/data/position_shi/make_reference.py), unreadable answers included; and the
worked cases of the definition."""

from __future__ import annotations

import json
import math
from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import given

from ir_pref_measures.agreement import position_consistency, preference_fairness

REFERENCE = json.loads((Path(__file__).parent.parent / "data" / "position_shi" / "reference.json").read_text())
VERDICT = {"A": "first", "B": "second", "C": "tie", "N": "unusable"}


def shown(choices: list[str]) -> list[tuple[str, str, str, str]]:
    """Each question ``q{k}`` asked with doc ``m`` shown first, then with ``ref`` shown first."""
    answers = []
    for k, (m_first, ref_first) in enumerate(choices):
        answers += [(f"q{k}", "m", "ref", VERDICT[m_first]), (f"q{k}", "ref", "m", VERDICT[ref_first])]
    return answers


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=lambda case: f"seed{case['seed']}")
def test_equal_to_shi_et_al_code(case):
    answers = shown(case["choices"])
    assert position_consistency(answers) == pytest.approx(case["position consistency"], abs=1e-12)
    assert preference_fairness(answers) == pytest.approx(case["preference fairness"], abs=1e-12)


def test_a_tie_in_one_order_leans_to_the_doc_chosen_in_the_other():
    assert preference_fairness(shown(["AC", "CA"])) == -1.0 and position_consistency(shown(["AC"])) == 0.0
    assert preference_fairness(shown(["BC", "CB", "CC", "AB"])) == 0.5


def test_an_unreadable_answer_counts_in_fairness_only():
    assert position_consistency(shown(["AB", "NA"])) == 1.0 and preference_fairness(shown(["AB", "NA"])) == 0.0
    assert preference_fairness(shown(["AA", "NN"])) == -0.5
    assert math.isnan(position_consistency(shown(["NB"]))) and preference_fairness(shown(["NB"])) == 0.0
    assert math.isnan(preference_fairness([("q", "a", "b", "first")]))  # one order only: no instance


@given(st.lists(st.sampled_from([a + b for a in "ABCN" for b in "ABCN"]), min_size=1, max_size=40))
def test_in_range_and_mirrored_by_swapping_the_positions(choices):
    mirrored = [c.translate(str.maketrans("AB", "BA")) for c in choices]
    fairness = preference_fairness(shown(choices))
    assert -1.0 <= fairness <= 1.0 and preference_fairness(shown(mirrored)) == pytest.approx(-fairness)
    consistency = position_consistency(shown(choices))
    assert math.isnan(consistency) or 0.0 <= consistency <= 1.0
