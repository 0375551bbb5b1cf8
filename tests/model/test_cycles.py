"""Pairs that the transitive closure prefers both ways, counted without listing the closure, and the warning that
names the queries they collapse."""

from __future__ import annotations

import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_pref_measures as ipm
from ir_pref_measures.model.cycles import COLLAPSE_SHARE, CycleWarning, both_ways, doc_pairs

COLUMNS = ["query_id", "doc_id_a", "doc_id_b", "preference"]


def prefs(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=COLUMNS)


def listed_both_ways(judgments) -> np.ndarray:
    """The direct definition: the listed closure's pairs (i, j), i != j, whose reverse is listed too, per query."""
    pairs = judgments.preference_pairs(transitive=True)
    listed = set(zip(pairs.src.tolist(), pairs.dst.tolist(), strict=True))
    out = np.zeros(len(judgments.query_ids))
    for i, j in listed:
        if i < j and (j, i) in listed:
            out[judgments.doc_query[i]] += 1
    return out


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ([("q", "a", "b", -1), ("q", "b", "c", -1), ("q", "c", "a", -1)], 3),  # a cycle of 3
        ([("q", "a", "b", -1), ("q", "b", "c", -1), ("q", "a", "c", -1)], 0),  # a chain
        ([("q", "a", "b", 0), ("q", "b", "c", -1), ("q", "c", "a", -1)], 3),  # a tie inside a cycle
        ([("q", "a", "b", 0), ("q", "b", "c", 0), ("q", "a", "c", 0)], 0),  # ties alone are no cycle
        ([("q", "a", "b", -1), ("q", "a", "b", -1), ("q", "b", "a", -1)], 1),  # repeated, contradicting
        ([("q", "a", "b", -1), ("q", "b", "a", -1), ("q", "c", "NA", -2), ("q", "a", "c", -1)], 1),
        ([("q", "a", "b", -1), ("q", "b", "c", -1), ("q", "c", "a", -1), ("q", "a", "NA", -2)], 0),  # a bad doc
    ],
)
def test_small_graphs(rows, expected):
    judgments = ipm.load_judgments(prefs(rows))
    assert both_ways(judgments).tolist() == [expected] == listed_both_ways(judgments).tolist()


def test_a_whole_query_in_one_cycle():
    docs = [f"d{i}" for i in range(30)]
    rows = [("q", docs[i], docs[(i + 1) % 30], -1) for i in range(30)]
    judgments = ipm.load_judgments(prefs(rows))
    assert both_ways(judgments).tolist() == doc_pairs(judgments).tolist() == [435.0]


def test_grades_and_a_reversed_preference():
    """Combined judgments: the derived edges of the grades close a cycle with one explicit preference against them."""
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c", "d"], "relevance": [3, 2, 1, 0]})
    against = prefs([("q", "c", "a", -1)])
    judgments = ipm.combine(ipm.load_judgments(qrels), ipm.load_judgments(against))
    assert both_ways(judgments).tolist() == listed_both_ways(judgments).tolist() == [3.0]  # a, b, c


@pytest.mark.filterwarnings("ignore:.*judged bad are ignored")
@pytest.mark.parametrize("seed", range(12))
def test_the_count_equals_the_listed_closure_on_random_graphs(seed):
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(3):
        n = int(rng.integers(2, 12))
        for _ in range(int(rng.integers(1, 3 * n))):
            a, b = rng.integers(n, size=2)
            value = int(rng.choice([-1, -1, 1, 0, -2]))
            rows.append((f"q{q}", f"d{a}", "NA" if value == -2 else f"d{b}", value))
    judgments = ipm.load_judgments(prefs(rows))
    assert both_ways(judgments).tolist() == listed_both_ways(judgments).tolist()


def noisy(queries=("q1", "q2", "q3"), clean=("q4",)) -> pd.DataFrame:
    """Every pair of 12 docs judged, the higher index preferred, each flipped with probability 0.2 in ``queries``."""
    rng = np.random.default_rng(3)
    rows = []
    for q in (*queries, *clean):
        for i in range(12):
            for j in range(i + 1, 12):
                flipped = q in queries and rng.random() < 0.2
                rows.append((q, f"d{j}", f"d{i}", 1 if flipped else -1))
    return prefs(rows)


def run_of(table: pd.DataFrame) -> pd.DataFrame:
    docs = [(q, f"d{i}", float(i)) for q in table["query_id"].unique() for i in range(12)]
    return pd.DataFrame(docs, columns=["query_id", "doc_id", "score"])


def cycle_warnings(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, CycleWarning)]


def test_the_warning_names_the_queries_once_per_call():
    table = noisy()
    run = run_of(table)
    for call in (
        lambda: ir_measures.calc_aggregate([ipm.ppref @ 5, ipm.APpref], ipm.load_judgments(table), run),
        lambda: ipm.evaluate([ipm.ppref @ 5, ipm.rpref @ 5], run, judgments=table),
        lambda: ipm.Experiment([run, run, run], table, [ipm.ppref @ 5, ipm.APpref], names=["a", "b", "c"]),
    ):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            call()
        found = cycle_warnings(record)
        assert len(found) == 1, found
        assert "3 of the 4 queries (q1, q2, q3)" in found[0] and "consistent_preferences" in found[0]


def test_no_warning_without_the_closure_or_without_cycles():
    table = noisy()
    run = run_of(table)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        ir_measures.calc_aggregate(
            [ir_measures.parse_measure("ppref(transitive=False)@5")], ipm.load_judgments(table), run
        )
        ir_measures.calc_aggregate([ipm.ppref @ 5], ipm.load_judgments(noisy(queries=())), run)
        ir_measures.calc_aggregate([ipm.ppref @ 5], ipm.load_judgments(ipm.consistent_preferences(table)), run)
    assert cycle_warnings(record) == []


def test_a_small_cycle_in_a_large_query_is_not_material():
    """One cycle of 3 among 30 docs (3 of 435 pairs) stays below the share that warns."""
    rows = [("q", f"d{i + 1}", f"d{i}", -1) for i in range(29)] + [("q", "d0", "d2", -1)]
    judgments = ipm.load_judgments(prefs(rows))
    assert both_ways(judgments).tolist() == [3.0] and 3 / 435 < COLLAPSE_SHARE
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        ir_measures.calc_aggregate([ipm.ppref @ 5], judgments, run_of(prefs(rows)))
    assert cycle_warnings(record) == []
