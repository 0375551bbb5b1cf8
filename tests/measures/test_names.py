"""One parser of measure names: the measures between two runs as the catalog declares them (every spelling of the
original grammar means the same), ir_measures' and trec_eval's names, and "did you mean" on a typo."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import pref_eval_names

import ir_pref_measures  # noqa: F401  (registers our measures with ir_measures)
from ir_pref_measures.errors import InputError
from ir_pref_measures.measures.names import (
    BETWEEN_RUNS,
    PREFERENCES,
    UnknownMeasureError,
    measure_columns,
    pairwise_measures,
    parse_measure,
    parse_pairwise,
    suggestions,
)

BASES = ["rpp", "invrpp", "dcgrpp", "lexirecall", "lexiprecision", "rrlexiprecision", "LR", "sgnLR", "sgnLP", "rrLP"]
BASES += ["ap", "rbp", "rr", "ndcg", "rp", "p", "r", "P", "nDCG", "rbo", "rbo_a", "rbo_w", "rbo_b", "rbo_ext"]
BASES += ["rbo_min", "rbo_a_max", "rbo_b_res", "rbo_w_ext", "rbo_x", "rbo_ext_a", "rbo_a_a", "LR_a", "rpp_ext"]
VALUES = ["10", "0", "010", "1", "2", "100", "0.8", ".5", "0.95", "1.5", "5e-1", "5E-1", "00.5", "", "x", "-1"]


@st.composite
def names(draw) -> str:
    name = draw(st.sampled_from(BASES))
    if draw(st.booleans()):
        name += "@" + draw(st.sampled_from(VALUES))
        if draw(st.booleans()):
            name += "," + draw(st.sampled_from(VALUES))
    return name


def _same(new, old: dict) -> bool:
    if new.family != old["family"]:
        return False
    if new.family == "rbo":
        return (new.persistence, new.depth, new.ties, new.score) == (old["gamma"], old["k"], old["ties"], old["score"])
    if new.family == "rbp" and new.persistence != old["gamma"]:
        return False
    return new.cutoff == old["k"]


@settings(max_examples=600, deadline=None)
@given(names())
def test_every_name_of_the_original_grammar_means_the_same(name):
    """The oracle is the grammar as first written (one regex per form). The catalog reads every name it read, with
    the same parameters, and nothing more except RBO's persistence in RBP's number syntax (``rbo@5e-1``)."""
    old, new = pref_eval_names.parse(name), parse_pairwise(name)
    if old is not None:
        assert new is not None and _same(new, old), name
    elif new is not None:
        assert new.family == "rbo" and not re.search(r"@0?\.\d+(,|$)", name), name


@pytest.mark.parametrize(
    ("name", "family", "cutoff", "persistence"),
    [("ap@10", "ap", 10, None), ("rbp@0.8,100", "rbp", 100, 0.8), ("rbp@0.8,0", "rbp", np.inf, 0.8)]
    + [("rbp", "rbp", np.inf, 0.5), ("LR", "lexirecall", np.inf, None), ("p@3", "p", 3, None)],
)
def test_parameters_of_a_name(name, family, cutoff, persistence):
    (measure,) = pairwise_measures(name)
    assert (measure.name, measure.family, measure.cutoff, measure.persistence) == (name, family, cutoff, persistence)


def test_kinds_of_measures_between_runs():
    kinds = {m.name: m.kind for m in pairwise_measures(["rpp", "sgnLP", "ndcg@5", "rbo_b_min@0.8"])}
    assert kinds == {"rpp": "preference", "sgnLP": "preference", "ndcg@5": "difference", "rbo_b_min@0.8": "similarity"}
    assert [m.name for m in pairwise_measures(["rpp", "ap", "rpp"])] == ["rpp", "ap"]  # a name twice counts once


@pytest.mark.parametrize(("trec", "name"), [("map", "AP"), ("ndcg_cut_10", "nDCG@10"), ("P_10", "P@10")])
def test_trec_eval_names_of_one_measure(trec, name):
    assert str(parse_measure(trec)) == name
    assert [(column, str(m)) for column, m in measure_columns([trec])] == [(trec, name)]


def test_ir_measures_names_ours_and_theirs_are_validated():
    assert str(parse_measure("ppref@10")) == "ppref@10"
    assert str(parse_measure("nDCG@10")) == "nDCG@10"
    with pytest.raises(InputError, match=r"invalid measure ppref@0"):
        parse_measure("ppref@0")


@pytest.mark.parametrize(
    ("typo", "meant", "context"),
    [
        ("nDGC@10", "nDCG@10", {}),
        ("pprf@10", "ppref@10", {}),
        ("ndcg_cut10", "ndcg_cut_10", {}),
        ("recip_rnk", "recip_rank", {}),
        ("APprf", "APpref", {"between_runs": PREFERENCES}),
        ("rpq", "rpp", {"between_runs": PREFERENCES}),
        ("P@10", "p@10", {"per_run": False, "between_runs": BETWEEN_RUNS}),
        ("rbo_a_exr@0.9", "rbo_a_ext@0.9", {"per_run": False, "between_runs": BETWEEN_RUNS}),
        ("lexirecal", "lexirecall", {"per_run": False, "between_runs": BETWEEN_RUNS}),
    ],
)
def test_a_typo_suggests_the_closest_names(typo, meant, context):
    with pytest.raises(UnknownMeasureError) as error:
        parse_measure(typo, **context)
    assert error.value.suggestions[0] == meant
    assert f"unknown measure {typo!r}; did you mean {meant!r}" in str(error.value)
    assert len(str(error.value)) < 1000  # the closest names, not the ~100 known ones


def test_a_name_of_another_context_is_unknown_there():
    """A metric difference is a name of compare, not of an experiment table (where nDCG@10 is the measure); a
    measure of one run is not a name of compare."""
    with pytest.raises(UnknownMeasureError, match="did you mean 'AP@10'"):
        parse_measure("ap@10", between_runs=PREFERENCES)
    with pytest.raises(UnknownMeasureError, match="a measure between two runs"):
        pairwise_measures(["nDCG@10"])
    assert parse_measure("rpp", between_runs=PREFERENCES).family == "rpp"
    with pytest.raises(UnknownMeasureError):
        parse_measure("rpp")  # a measure of one run only


@pytest.mark.parametrize(
    ("typo", "meant", "context"),
    [
        ("ppref10", "ppref@10", {}),
        ("ppref_10", "ppref@10", {}),
        ("ppref@", "ppref@10", {}),
        ("ppref@k", "ppref@10", {}),
        ("APpref@10x", None, {}),
        ("nDGC@10", "nDCG@10", {}),
        ("nDCG@10x", "nDCG@10", {}),
        ("ndcg_cut10", "ndcg_cut_10", {}),
        ("APprf", "APpref", {"between_runs": PREFERENCES}),
        ("rbo_a_exr@0.9", "rbo_a_ext@0.9", {"per_run": False, "between_runs": BETWEEN_RUNS}),
    ],
)
def test_every_suggestion_parses(typo, meant, context):
    """ "Did you mean" proposes only names that parse in the same context, ranked by the edit distance over the full
    name with its parameters (``ppref10`` -> ``ppref@10``, not ``ppref_10``, which is itself unknown)."""
    with pytest.raises(UnknownMeasureError) as error:
        parse_measure(typo, **context)
    close = error.value.suggestions
    assert close, typo
    for name in close:
        parse_measure(name, **context)  # raises if it does not parse
    assert meant is None or meant in close, close
    distances = [suggestions_distance(name, typo) for name in close]
    assert distances == sorted(distances), close


def suggestions_distance(a: str, b: str) -> int:
    """The edit distance the suggestions are ranked by (case ignored)."""
    from ir_pref_measures.measures.names import _edits

    return _edits(a.lower(), b.lower())


def test_suggestions_keep_what_follows_the_name():
    assert suggestions("nDGC(judged_only=True)@5", ["nDCG", "AP"]) == ["nDCG(judged_only=True)@5"]
    assert suggestions("zzzz", ["nDCG", "AP"]) == []
