"""Judgments made consistent: majority per pair, tie classes, the Greedy FAS order of the classes; what remains has
no cycle, consistent judgments are kept whole, and the input's order does not matter."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import ir_pref_measures as ipm
from ir_pref_measures.model.cycles import both_ways

COLUMNS = ["query_id", "doc_id_a", "doc_id_b", "preference"]


def prefs(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=COLUMNS)


def kept(rows) -> list[tuple]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [tuple(row) for row in ipm.consistent_preferences(prefs(rows)).itertuples(index=False)]


def test_a_cycle_of_three_loses_one_judgment_with_a_warning():
    rows = [("q", "a", "b", -1), ("q", "b", "c", -1), ("q", "c", "a", -1)]
    with pytest.warns(UserWarning, match="1 of 3 preference judgments contradict"):
        table = ipm.consistent_preferences(prefs(rows))
    assert len(table) == 2 and both_ways(ipm.load_judgments(table)).tolist() == [0]


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        # the majority of a pair's votes wins, whatever order the pair is written in; the outvoted one goes
        ([("q", "a", "b", -1), ("q", "b", "a", 1), ("q", "b", "a", -1)], [0, 1]),
        # a split vote without a tie judgment decides nothing: both go
        ([("q", "a", "b", -1), ("q", "a", "b", 1)], []),
        # a split vote with a tie judgment is a tie: the tie stays
        ([("q", "a", "b", -1), ("q", "a", "b", 1), ("q", "a", "b", 0)], [2]),
        # a tie outvoted by a preference goes
        ([("q", "a", "b", -1), ("q", "a", "b", -1), ("q", "a", "b", 0)], [0, 1]),
        # a preference between two docs of one tie class contradicts the ties
        ([("q", "a", "b", 0), ("q", "b", "c", 0), ("q", "a", "c", -1)], [0, 1]),
        # a tie inside a cycle: the tie class {a, b} and c, one judgment each way; the class of the smaller doc id
        # first, so c's win over a goes
        ([("q", "a", "b", 0), ("q", "b", "c", -1), ("q", "c", "a", -1)], [0, 1]),
        # a bad mark and the judgments of its doc are kept as they are (a bad doc is on no cycle)
        ([("q", "a", "b", -1), ("q", "b", "a", -1), ("q", "b", "NA", -2)], [0, 1, 2]),
    ],
)
def test_rules(rows, expected):
    assert kept(rows) == [rows[i] for i in expected]


def random_judgments(rng, noise: float, queries: int = 3) -> list[tuple]:
    rows = []
    for q in range(queries):
        n = int(rng.integers(3, 15))
        grade = rng.integers(0, 4, size=n)
        for _ in range(int(rng.integers(n, 4 * n))):
            i, j = rng.choice(n, size=2, replace=False)
            if grade[i] == grade[j]:
                rows.append((f"q{q}", f"d{i}", f"d{j}", 0))
            else:
                better = grade[i] > grade[j]
                if rng.random() < noise:
                    better = not better
                rows.append((f"q{q}", f"d{i}", f"d{j}", -1 if better else 1))
    return rows


@pytest.mark.parametrize("seed", range(10))
def test_consistent_judgments_are_kept_whole(seed):
    rows = random_judgments(np.random.default_rng(seed), noise=0.0)
    assert kept(rows) == rows


@pytest.mark.parametrize("seed", range(10))
def test_noisy_judgments_lose_every_cycle_and_the_order_of_lines_does_not_matter(seed):
    rng = np.random.default_rng(seed)
    rows = random_judgments(rng, noise=0.3)
    result = kept(rows)
    assert both_ways(ipm.load_judgments(prefs(result))).sum() == 0
    shuffled = [rows[i] for i in rng.permutation(len(rows))]
    assert sorted(kept(shuffled)) == sorted(result)


def test_a_file_source(tmp_path):
    path = tmp_path / "judgments.log"
    path.write_text("@ q a b !\n@ q b c !\n@ q c a !\n@ q c d =\n")
    with pytest.warns(UserWarning, match="1 of 4"):
        table = ipm.consistent_preferences(f"log:{path}")
    assert table.values.tolist() == [["q", "a", "b", -1], ["q", "b", "c", -1], ["q", "c", "d", 0]]
