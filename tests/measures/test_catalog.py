"""The catalog's declarations of the measures between two runs: complete, consistent, and apart from the names of
the measures of one run."""

from __future__ import annotations

import ir_measures
import pytest

import ir_pref_measures  # noqa: F401  (registers our measures with ir_measures)
from ir_pref_measures.measures.catalog import DEFAULT_PAIRWISE, PAIRWISE, PAIRWISE_ALIASES, PARAMS, SPECS
from ir_pref_measures.measures.names import BETWEEN_RUNS, pairwise_measures, pairwise_names

# pref_eval's default measures, in its output order (specs/pref_eval.md)
PREF_EVAL_DEFAULTS = "rpp invrpp dcgrpp lexirecall lexiprecision rrlexiprecision ap rbp rr ndcg rp p@1 p@10 r@1 r@10"


def test_pref_eval_defaults_in_its_order():
    assert " ".join(DEFAULT_PAIRWISE) == PREF_EVAL_DEFAULTS
    assert [m.name for m in pairwise_measures(DEFAULT_PAIRWISE)] == list(DEFAULT_PAIRWISE)


@pytest.mark.parametrize("spec", PAIRWISE.values(), ids=list(PAIRWISE))
def test_each_declaration_is_complete(spec):
    assert spec.kind in BETWEEN_RUNS
    assert (spec.kernel is not None) == (spec.kind == "difference")  # the others are computed pairwise
    for name in (*spec.at, *spec.variants, *spec.needs, *spec.defaults):
        assert name in PARAMS
        assert name in spec.at or name in spec.variants
    for name, value in spec.defaults.items():
        assert PARAMS[name].test(value)
    assert spec.definition and spec.citation


def test_names_and_aliases_are_unique_and_apart_from_the_measures_of_one_run():
    """A name between two runs is never a name of ir_measures (ours or theirs), so an experiment table reads it one
    way whatever the order of its rules."""
    names = pairwise_names()
    assert len(names) == len(set(names)) == len(PAIRWISE) + len(PAIRWISE_ALIASES)
    assert not set(names) & set(SPECS)
    for name in names:
        with pytest.raises((NameError, ValueError, SyntaxError)):
            ir_measures.parse_measure(name)


def test_new_parameters_have_their_ranges():
    assert PARAMS["persistence"].test(0.5) and not PARAMS["persistence"].test(1.0)
    assert not PARAMS["persistence"].test(0) and not PARAMS["persistence"].test(True)
    assert [t for t in "wabc" if PARAMS["ties"].test(t)] == list("wab")
    assert [s for s in ("ext", "min", "max", "res", "avg") if PARAMS["score"].test(s)] == ["ext", "min", "max", "res"]
