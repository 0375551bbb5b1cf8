"""Tie-aware RBO (:mod:`ir_pref_measures.measures.tied_rbo`): the reference values of Corsi and Urbano's code, a
direct per-depth definition, the plain RBO without ties, and the bounds' properties."""

from __future__ import annotations

import csv
import gzip
import math
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.tied_rbo import direct

from ir_pref_measures.measures import tied_rbo as kernel
from ir_pref_measures.measures.rbo import rbo as plain_rbo
from ir_pref_measures.measures.tied_rbo import SCORES, TIES, TiedLists, rbo, rbo_of_scores, tied_rbo

FIXTURE = Path(__file__).parents[1] / "data" / "rbo" / "reference.csv.gz"


def parse(text: str) -> list:
    """The reference's string form, ``"a (b c) d"``, as a list of items and sets of tied items."""
    out, group = [], None
    for token in text.split():
        if token.startswith("("):
            group = [token[1:]]
        elif group is not None:
            group.append(token.rstrip(")"))
            if token.endswith(")"):
                out.append(set(group))
                group = None
        else:
            out.append(token)
    return out


def check_rows(rows) -> int:
    checked = 0
    for row in rows:
        x, y, p = parse(row["x"]), parse(row["y"]), float(row["p"])
        for ties in TIES:
            got = rbo(x, y, p, ties)
            for score in SCORES:
                expected = float(row[f"{ties}.{score}"])
                assert abs(got[score] - expected) <= 1e-9, (row["x"], row["y"], p, ties, score, got[score], expected)
                checked += 1
    return checked


def test_recorded_reference_values():
    """1,500 seeded tied pairs (lengths 1-40, uneven, p 0.5-0.99) recorded from the reference rbo.py."""
    with gzip.open(FIXTURE, "rt") as lines:
        rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    assert len(rows) == 1500
    assert check_rows(rows) == 12 * len(rows)


def test_corsi_urbano_test_file():
    """All 120,000 values of the reference repository's ``rbo/test.csv`` (path in ``IPM_RBO_TESTCSV``)."""
    path = os.environ.get("IPM_RBO_TESTCSV")
    if not path or not Path(path).is_file():
        pytest.skip("IPM_RBO_TESTCSV does not name rbo/test.csv of github.com/julian-urbano/sigir2024-rbo")
    with open(path, newline="") as lines:
        rows = list(csv.DictReader(lines))
    assert check_rows(rows) == 12 * len(rows) == 120_000


# -- a direct definition: contributions per item and depth, the sections summed term by term --


@st.composite
def rankings(draw, max_items: int = 14, tied: bool = True):
    """Two rankings over a shared pool of items, with tie groups, each of its own length (at least 1)."""
    pool = [f"i{k}" for k in range(draw(st.integers(1, max_items)))]
    out = []
    for _ in range(2):
        items = draw(st.permutations(pool))[: draw(st.integers(1, len(pool)))]
        cuts = draw(st.lists(st.booleans(), min_size=len(items), max_size=len(items))) if tied else [True] * len(items)
        ranking: list = []
        for item, new in zip(items, cuts, strict=True):
            if new or not ranking:
                ranking.append({item})
            else:
                ranking[-1].add(item)
        out.append([next(iter(g)) if len(g) == 1 else g for g in ranking])
    return out


persistence = st.floats(0.05, 0.99)


@settings(max_examples=300, deadline=None)
@given(rankings(), persistence, st.sampled_from(TIES))
def test_kernel_equals_direct_definition(pair, p, ties):
    x, y = pair
    got, expected = rbo(x, y, p, ties), direct(x, y, p, ties)
    for score in SCORES:
        assert got[score] == pytest.approx(expected[score], abs=1e-12), score


@settings(max_examples=200, deadline=None)
@given(rankings(max_items=30, tied=False), st.floats(0.05, 0.95))
def test_without_ties_the_variants_agree_and_min_is_the_plain_rbo(pair, p):
    """Without ties RBO^w = RBO^a = RBO^b, and ``min`` is :func:`.rbo.rbo` (depth 1000, whose tail past 1000
    is below 1e-22 for p <= 0.95)."""
    x, y = pair
    values = {ties: rbo(x, y, p, ties) for ties in TIES}
    for score in SCORES:
        assert values["a"][score] == pytest.approx(values["w"][score], abs=1e-12)
        assert values["b"][score] == pytest.approx(values["w"][score], abs=1e-12)
    assert values["w"]["min"] == pytest.approx(plain_rbo(x, y, p, depth=1000), abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(rankings(), persistence, st.sampled_from(TIES))
def test_bounds_order_residual_and_symmetry(pair, p, ties):
    x, y = pair
    value, swapped = rbo(x, y, p, ties), rbo(y, x, p, ties)
    tol = 1e-12
    assert -tol <= value["min"] <= value["ext"] + tol
    assert value["ext"] <= value["max"] + tol <= 1 + 2 * tol
    assert value["res"] == value["max"] - value["min"]
    for score in SCORES:
        assert swapped[score] == pytest.approx(value[score], abs=tol)


def test_identical_and_disjoint_rankings():
    x = ["a", {"b", "c"}, "d"]
    same = rbo(x, x, 0.9, "w")
    assert same["ext"] == pytest.approx(1.0) and same["max"] == pytest.approx(1.0)
    seen = sum(0.9**d for d in range(1, 5)) + 4 * (math.log(10) - sum(0.9**d / d for d in range(1, 5)))
    assert same["min"] == pytest.approx(0.1 / 0.9 * seen)
    apart = rbo(["a", "b"], ["c", "d", "e"], 0.9)
    assert apart["min"] == apart["ext"] == 0.0
    nothing = {"ext": 0.0, "min": 0.0, "max": pytest.approx(1.0), "res": pytest.approx(1.0)}
    assert rbo(["a"], [], 0.9) == nothing
    assert rbo([], [], 0.9) == nothing


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.one_of(rankings(), st.just([[], []])), min_size=1, max_size=8),
    st.floats(0.1, 0.99),
    st.sampled_from(TIES),
)
def test_many_queries_at_once_equal_one_at_a_time(pairs, p, ties):
    """The batched kernel (in blocks of a few cells, to cross block edges; queries with no item) equals one
    call per pair."""
    flat = []
    for x, y in pairs:
        flat.append([kernel._flat(x), kernel._flat(y)])
    lists, shared = [], []
    for side in range(2):
        starts = np.concatenate([np.array(f[side][1], bool) for f in flat])
        lengths = np.array([len(f[side][0]) for f in flat])
        lists.append(TiedLists.from_starts(starts, lengths))
    for q, (fx, fy) in enumerate(flat):
        where_y = {item: j for j, item in enumerate(fy[0])}
        shared += [(q, i, where_y[item]) for i, item in enumerate(fx[0]) if item in where_y]
    shared = np.array(shared, np.int64).reshape(-1, 3)[::-1]  # any order of the shared items
    old, kernel.CHUNK_CELLS = kernel.CHUNK_CELLS, 7
    try:
        batch = tied_rbo(lists[0], lists[1], shared[:, 0], shared[:, 1], shared[:, 2], p, ties)
    finally:
        kernel.CHUNK_CELLS = old
    for q, (x, y) in enumerate(pairs):
        one = rbo(x, y, p, ties)
        for score in SCORES:
            assert batch[score][q] == pytest.approx(one[score], abs=1e-13)


def test_scores_tie_equal_values_and_depth_keeps_straddling_groups():
    by_scores = rbo_of_scores(["a", "b", "c", "d"], [3, 2, 2, 1], ["b", "e", "a"], [5, 5, 1], 0.8, "b")
    assert by_scores == rbo(["a", {"b", "c"}, "d"], [{"b", "e"}, "a"], 0.8, "b")
    assert rbo_of_scores([], [], ["a", "b"], [1, 0], 0.8, "w") == rbo([], ["a", "b"], 0.8, "w")
    cut = rbo(["a", {"b", "c"}, "d"], ["c", "a", "b", "d"], 0.8, depth=2)
    assert cut == rbo(["a", {"b", "c"}], ["c", "a"], 0.8)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((["a"], ["a"], 1.0), "p=1.0"),
        ((["a"], ["a"], 0.0), "p=0.0"),
        ((["a"], ["a"], 0.5, "c"), "ties='c'"),
        ((["a", "a"], ["a"], 0.5), "twice"),
        ((["a", {"a", "b"}], ["a"], 0.5), "twice"),
        ((["a"], ["a"], 0.5, "a", 0), "depth=0"),
    ],
)
def test_bad_arguments(args, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        rbo(*args)
