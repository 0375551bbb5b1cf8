"""Validated in-memory tables: the one converter of DataFrames (ir_measures' or PyTerrier's columns), dicts
``{query_id: {doc_id: value}}`` and namedtuples into ``query_id, doc_id, value`` (or preference) tables.

The rules are those of the file readers (:mod:`ir_pref_measures.readers.formats`): ids are text, never missing,
without control characters; grades, scores and preference values are finite numbers; a (query, doc) graded
twice is an error. Every mistake is an :class:`~ir_pref_measures.errors.InputError` naming the row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from ir_pref_measures.errors import InputError
from ir_pref_measures.ids import as_text, first_repeat, intern, pair_keys
from ir_pref_measures.readers.formats import CARTERETTE_NOTE, CARTERETTE_NUMBERS, NA, RawFile, repeated_grade

PREFERENCE_COLUMNS = ("query_id", "doc_id_a", "doc_id_b", "preference")
PYTERRIER_COLUMNS = {"qid": "query_id", "docno": "doc_id", "label": "relevance"}
ID_COLUMNS = ("query_id", "doc_id", "doc_id_a", "doc_id_b")
CONTROL_PATTERN = r"[\x00-\x1f\x7f]"  # files are checked byte by byte when read; tables here


def qrels(source, *, repeated: str = "error") -> pd.DataFrame:
    """Graded qrels ``query_id, doc_id, relevance`` from a DataFrame, dict of dicts or ``Qrel`` namedtuples.
    A (query, doc) graded twice is an error, or with ``repeated="keep"`` left to the caller."""
    table = frame(source, ("query_id", "doc_id", "relevance"), "qrels")
    table["relevance"] = numbers(table, "relevance", "grade")
    if repeated == "error":
        reject_repeated(table)
    return table


def run(source) -> pd.DataFrame:
    """A run ``query_id, doc_id, score`` from a DataFrame (PyTerrier's ``qid, docno, score`` too), a dict
    ``{query_id: {doc_id: score}}`` or ``ScoredDoc`` namedtuples."""
    table = frame(source, ("query_id", "doc_id", "score"), "run")
    table["score"] = numbers(table, "score", "score")
    return table


def preferences(source) -> pd.DataFrame:
    """A preference table ``query_id, doc_id_a, doc_id_b, preference`` (values as in the ``carterette``
    format), validated, from a DataFrame or namedtuples with those fields."""
    table = frame(source, PREFERENCE_COLUMNS, "preferences")
    values = numbers(table, "preference", "preference value")
    known = np.isin(values, CARTERETTE_NUMBERS)
    if not known.all():
        row = int(np.flatnonzero(~known)[0])
        raise InputError(
            f"row {row}: unknown preference value {table['preference'].iloc[row]!r}", expected=CARTERETTE_NOTE
        )
    table["preference"] = values.astype(np.int8)
    for value, column in ((-2, "doc_id_b"), (2, "doc_id_a")):
        marked = np.flatnonzero(table["preference"].to_numpy() == value)
        not_na = table[column].iloc[marked].astype(str).str.upper().to_numpy() != NA
        if not_na.any():
            row = int(marked[np.flatnonzero(not_na)[0]])
            raise InputError(f"row {row}: preference {value} marks a doc bad, so {column} must be NA")
    return table


def reject_repeated(table: pd.DataFrame, raw: RawFile | None = None) -> None:
    """A (query, doc) graded twice is an error naming its second line (or row)."""
    (q,), queries = intern(table["query_id"])
    (d,), docs = intern(table["doc_id"])
    row = first_repeat(pair_keys(q, d, len(docs)))
    if row is not None:
        line_no = int(table["line"].iloc[row]) if raw is not None else None
        raise repeated_grade(queries[q[row]], docs[d[row]], raw, row, line_no)


def standard_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """ir_measures' column names for PyTerrier's (``qid``, ``docno``, ``label``): the one rename."""
    renames = {k: v for k, v in PYTERRIER_COLUMNS.items() if k in frame.columns and v not in frame.columns}
    return frame.rename(columns=renames) if renames else frame


def frame(source, columns: tuple[str, ...], what: str) -> pd.DataFrame:
    """``columns`` of a DataFrame, a dict ``{query_id: {doc_id: value}}`` or namedtuples, ids validated."""
    if isinstance(source, pd.DataFrame):
        table = standard_columns(source)
    elif isinstance(source, Mapping):
        value = columns[-1]
        try:
            rows = [(q, d, v) for q, docs in source.items() for d, v in docs.items()]
        except AttributeError:
            raise InputError(f"{what} as a dict must map query_id -> {{doc_id: {value}}}") from None
        table = pd.DataFrame(rows, columns=["query_id", "doc_id", value])
    elif isinstance(source, Iterable) and not isinstance(source, str | bytes):
        rows = list(source)
        if rows and not all(hasattr(rows[0], c) for c in columns):
            raise InputError(f"{what} items need the fields {', '.join(columns)}; got {_short(rows[0])}")
        table = pd.DataFrame({c: [getattr(r, c) for r in rows] for c in columns})
    else:
        raise InputError(f"cannot read {what} from {type(source).__name__}")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise InputError(f"the {what} have no column(s) {missing} (found {list(table.columns)})")
    if table.empty:
        raise InputError(f"the {what} are empty")
    table = table[list(columns)].copy()
    for column in columns:
        if column in ID_COLUMNS:
            table[column] = ids(table[column], column)
    return table


def ids(values: pd.Series, what: str) -> pd.Series:
    """Ids as text (Arrow-backed): none missing, no control character."""
    missing = values.isna().to_numpy()
    if missing.any():
        raise InputError(f"row {int(np.flatnonzero(missing)[0])}: {what} is missing")
    array = as_text(values)
    bad = pc.match_substring_regex(array, CONTROL_PATTERN).to_numpy(zero_copy_only=False)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(f"row {row}: {what} {_short(array[row].as_py())} holds a control character")
    return pd.Series(pd.arrays.ArrowStringArray(array), index=values.index, copy=False)


def numbers(table: pd.DataFrame, column: str, what: str) -> np.ndarray:
    """A column as finite float64 (int64 when the column holds integers)."""
    values = table[column]
    if pd.api.types.is_bool_dtype(values.dtype) or not pd.api.types.is_numeric_dtype(values.dtype):
        converted = pd.to_numeric(values, errors="coerce")
        bad = converted.isna().to_numpy() & ~pd.isna(values).to_numpy()
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(f"row {row}: {what} {_short(values.iloc[row])} is not a number")
        values = converted
    if pd.api.types.is_integer_dtype(values.dtype):
        return values.to_numpy(dtype=np.int64)
    floats = values.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(floats)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(f"row {row}: {what} {floats[row]} is not a finite number")
    return floats


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
