"""The column-at-once conversion of in-memory forms gives what the value-by-value rule gives."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pandas as pd
import pytest
from ir_measures import Qrel, ScoredDoc

from ir_pref_measures.errors import InputError
from ir_pref_measures.model import tables

Row = namedtuple("Row", "score doc_id query_id")  # fields in another order than ScoredDoc's


class Item:
    """A run item that is not a namedtuple: read attribute by attribute."""

    def __init__(self, query_id, doc_id, score):
        self.query_id, self.doc_id, self.score = query_id, doc_id, score


def random_run(seed: int) -> list[tuple]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    queries = rng.integers(0, 5, n).tolist()
    docs = rng.integers(0, 50, n).tolist()
    scores = rng.normal(size=n).round(3).tolist()
    return [(str(q), f"d{d}", s) for q, d, s in zip(queries, docs, scores, strict=True)]


@pytest.mark.parametrize("seed", range(20))
def test_every_form_gives_the_table_of_the_frame(seed):
    rows = random_run(seed)
    expected = tables.run(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    nested: dict = {}
    for q, d, s in rows:
        nested.setdefault(q, {})[d] = s
    forms = {
        "namedtuples": [ScoredDoc(*r) for r in rows],
        "iterator": iter([ScoredDoc(*r) for r in rows]),
        "other field order": [Row(s, d, q) for q, d, s in rows],
        "objects": [Item(*r) for r in rows],
    }
    for form, source in forms.items():
        got = tables.run(source)
        assert got["query_id"].tolist() == expected["query_id"].tolist(), form
        assert got["doc_id"].tolist() == expected["doc_id"].tolist(), form
        np.testing.assert_array_equal(got["score"].to_numpy(), expected["score"].to_numpy(), err_msg=form)
    got = tables.run(nested)  # one score per (query, doc): the last of the rows
    by_pair = {(q, d): s for q, d, s in rows}
    assert dict(zip(zip(got["query_id"], got["doc_id"], strict=True), got["score"], strict=True)) == by_pair


def test_mixed_and_large_values_keep_the_rule():
    table = tables.qrels([Qrel(7, "a", 1), Qrel(2**70, "b", 2), Qrel("x", 5, 0)])
    assert table["query_id"].tolist() == ["7", str(2**70), "x"]
    assert table["doc_id"].tolist() == ["a", "b", "5"]
    assert tables.run([ScoredDoc("q", "a", 1), ScoredDoc("q", "b", 2.5)])["score"].tolist() == [1.0, 2.5]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([ScoredDoc("q", "a", 1.0), ScoredDoc("q", "b", "high")], "row 1: score .high. is not a number"),
        ([ScoredDoc("q", "a", 1.0), ScoredDoc("q", "b", float("nan"))], "row 1: score nan is not a finite number"),
        ([ScoredDoc("q", None, 1.0)], "row 0: doc_id is missing"),
        ([ScoredDoc("q", "a\x07", 1.0)], "holds a control character"),
        ([ScoredDoc("q", "a\ud800", 1.0)], "lone surrogate"),
    ],
)
def test_bad_values_are_named_by_row(rows, message):
    with pytest.raises(InputError, match=message):
        tables.run(rows)


ALPHABET = [
    "a",
    "Z",
    "7",
    " ",
    "\t",
    "\x00",
    "\x1f",
    "\x7f",
    "\x80",
    "\x85",
    "\x9f",
    "\xa0",
    "\xc2",
    "é",
    "Ā",
    "\u2028",
    "😀",
]


@pytest.mark.parametrize("seed", range(30))
def test_a_control_character_is_found_wherever_it_is_as_the_rule_finds_it(seed):
    """The byte-level search of the ids' text finds a control character exactly where the per-id regular expression
    of the rule does, in whole and in sliced arrays, and names the row of the first."""
    import re

    import pyarrow as pa

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    rare = rng.random() < 0.5  # half the cases: at most one id with a non-ASCII or control character
    ids = [
        "".join(rng.choice(ALPHABET[:3] if rare and i != n // 2 else ALPHABET, int(rng.integers(1, 6))))
        for i in range(n)
    ]
    start = int(rng.integers(0, n))
    array = pa.array(["x\x00"] * 3 + ids + ["\x85"], pa.large_string() if seed % 2 else pa.string())
    part = array.slice(3 + start, n - start)
    expected = [i for i, text in enumerate(ids[start:]) if re.search(tables.CONTROL_PATTERN, text)]
    assert tables._holds_control(part) == bool(expected)
    series = pd.Series(pd.arrays.ArrowStringArray(part.cast(pa.large_string())))
    if not expected:
        assert tables.ids(series, "doc_id").tolist() == ids[start:]
    else:
        with pytest.raises(InputError, match=f"row {expected[0]}: doc_id .* holds a control character"):
            tables.ids(series, "doc_id")
