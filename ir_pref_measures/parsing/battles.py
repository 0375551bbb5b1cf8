"""Battle logs: pairwise outcomes between systems, ``qid system_a system_b winner [weight]``.

``winner`` names the winner (``system_a``'s or ``system_b``'s name, or ``a`` / ``b``; FastChat's ``model_a`` /
``model_b`` too) or is ``tie`` (FastChat's ``tie (bothbad)`` in a table). A winner that fits more than one reading
(a system named ``b`` on the other side) is an error, as is a system against itself or a weight that is not a
positive number. An optional fifth field (a column ``weight`` in a table) weighs the battle; every line of a file
has the same number of fields. A table may give ``outcome`` (1, 0 or 0.5) instead of ``winner`` (the form this
module returns). Files are read under the rules of :mod:`ir_pref_measures.parsing.formats`; tables
(DataFrames, namedtuples) under those of :mod:`ir_pref_measures.model.tables`.

The result is one table ``query_id, system_a, system_b, outcome, weight, line``: ``outcome`` is 1 when a won, 0 when
b won, 0.5 for a tie; ``line`` is the line of the file (the row of a table), in input order.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ir_pref_measures.errors import InputError
from ir_pref_measures.model import tables
from ir_pref_measures.model.columns import Columns
from ir_pref_measures.model.ids import as_numpy, as_text
from ir_pref_measures.parsing.files import fields, load
from ir_pref_measures.parsing.formats import Layout, fail_at, read_columns

COLUMNS = ("query_id", "system_a", "system_b", "winner")
BATTLES = Layout("battles", COLUMNS, note="; winner: system_a's or system_b's name, a, b or tie")
WEIGHTED = Layout(
    "weighted battles", (*COLUMNS, "weight"), ("weight",), note="; winner: system_a's or system_b's name, a, b or tie"
)
A_WINS = ("a", "model_a")
B_WINS = ("b", "model_b")
TIES = ("tie", "tie (bothbad)")
OUTCOMES = (0.0, 0.5, 1.0)


def read_battles(source) -> pd.DataFrame:
    """Battles from a file (path or stream; 4 or 5 fields a line) or a table with the columns ``query_id, system_a,
    system_b, winner`` and optionally ``weight`` (see the module docstring).

    Parameters
    ----------
    source
        A path, an open file, or a DataFrame.

    Returns
    -------
    pandas.DataFrame
        ``query_id, system_a, system_b, outcome, weight, line``: outcome 1 (a won), 0 (b won), 0.5 (a tie).
    """
    if isinstance(source, pd.DataFrame) or not isinstance(source, str | bytes | pa.Array) and _is_rows(source):
        return _from_table(source)
    raw = load(source)
    first = _first_data_line(raw.data)
    if first is None:
        raw.fail("the file has no data lines", expected=BATTLES.expected)
    layout = WEIGHTED if len(fields(first)) == 5 else BATTLES
    columns = read_columns(raw, layout)
    query, a, b, winner = (columns.fields[c] for c in COLUMNS)
    weight = columns.fields.get("weight")
    outcome = _outcomes(a, b, winner, weight, lambda bad, message: fail_at(columns, bad, message, layout))
    return _frame(columns, outcome, weight)


def _first_data_line(data: bytes) -> str | None:
    """The first line that is neither blank nor a comment (the number of its fields names the layout)."""
    for line in io.BytesIO(data):
        text = line.decode("utf-8", "replace").strip(" \t\r\n")
        if text and not text.startswith("#"):
            return text
    return None


def _is_rows(source) -> bool:
    return not hasattr(source, "read") and not isinstance(source, str) and hasattr(source, "__iter__")


def _from_table(source) -> pd.DataFrame:
    given = source.columns if isinstance(source, pd.DataFrame) else ()
    scored = "winner" not in given and "outcome" in given  # outcomes given as numbers (a table read before)
    columns = (*COLUMNS[:3], "outcome" if scored else "winner", *(("weight",) if "weight" in given else ()))
    table = tables.frame(source, columns, "battles")
    text = {c: as_text(tables.ids(table[c], c), c) for c in columns[: 3 if scored else 4]}
    weight = tables.numbers(table, "weight", "weight").astype(np.float64) if "weight" in given else None

    def fail(bad: np.ndarray, message) -> None:
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(f"row {row}: {message(row)}", expected=BATTLES.expected)

    if scored:
        outcome = tables.numbers(table, "outcome", "outcome").astype(np.float64)
        fail(
            ~np.isin(outcome, OUTCOMES), lambda r: f"outcome {outcome[r]:g} is not 1 (a won), 0 (b won) or 0.5 (a tie)"
        )
        fail(
            as_numpy(pc.equal(text["system_a"], text["system_b"])),
            lambda r: f"system {text['system_a'][r]} battles itself",
        )
        if weight is not None:
            fail(~(weight > 0), lambda r: f"weight {weight[r]:g} is not a positive number")
    else:
        outcome = _outcomes(text["system_a"], text["system_b"], text["winner"], weight, fail)
    found = Columns("<table>", {c: text[c] for c in COLUMNS[:3]}, np.arange(len(table)))
    return _frame(found, outcome, weight)


def _outcomes(a: pa.Array, b: pa.Array, winner: pa.Array, weight, fail) -> np.ndarray:
    """1 (a won), 0 (b won) or 0.5 (a tie) per battle; ``fail(bad, message)`` reports the first bad row."""
    fail(as_numpy(pc.equal(a, b)), lambda r: f"system {a[r].as_py()!r} battles itself")
    is_a = as_numpy(pc.or_(pc.equal(winner, a), pc.is_in(winner, pa.array(A_WINS))))
    is_b = as_numpy(pc.or_(pc.equal(winner, b), pc.is_in(winner, pa.array(B_WINS))))
    is_tie = as_numpy(pc.is_in(winner, pa.array(TIES)))
    readings = is_a.astype(np.int8) + is_b + is_tie
    fail(
        readings == 0,
        lambda r: f"winner {winner[r].as_py()!r} is neither {a[r].as_py()!r} nor {b[r].as_py()!r} nor a, b or tie",
    )
    fail(
        readings > 1,
        lambda r: (
            f"winner {winner[r].as_py()!r} is ambiguous: it reads as "
            + " and as ".join(w for w, hit in (("a", is_a[r]), ("b", is_b[r]), ("a tie", is_tie[r])) if hit)
        ),
    )
    if weight is not None:
        fail(~(weight > 0), lambda r: f"weight {weight[r]:g} is not a positive number")
    return np.where(is_a, 1.0, np.where(is_b, 0.0, 0.5))


def _frame(columns: Columns, outcome: np.ndarray, weight: np.ndarray | None) -> pd.DataFrame:
    mapper = {pa.string(): pd.StringDtype("pyarrow")}.get
    frame = pd.DataFrame(
        {c: columns.fields[c].to_pandas(types_mapper=mapper) for c in ("query_id", "system_a", "system_b")}
    )
    frame["outcome"] = outcome
    frame["weight"] = np.ones(len(outcome)) if weight is None else weight
    frame["line"] = np.arange(1, len(outcome) + 1) if columns.lines is None else columns.lines
    return frame
