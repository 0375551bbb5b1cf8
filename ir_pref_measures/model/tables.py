"""Validated in-memory tables: the one converter of DataFrames (ir_measures' or PyTerrier's columns), dicts
``{query_id: {doc_id: value}}`` and namedtuples into ``query_id, doc_id, value`` (or preference) tables.

The rules are those of the file readers (:mod:`ir_pref_measures.parsing.formats`): ids are text, never missing,
without control characters; grades, scores and preference values are finite numbers; a (query, doc) graded
twice is an error. Every mistake is an :class:`~ir_pref_measures.errors.InputError` naming the row.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from itertools import chain
from operator import itemgetter

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ir_pref_measures.errors import InputError
from ir_pref_measures.model.columns import FileText, is_number, repeated_grade
from ir_pref_measures.model.ids import as_text, first_repeat, intern, pair_keys
from ir_pref_measures.model.pairs import CARTERETTE_NOTE, CARTERETTE_NUMBERS, NA

PREFERENCE_COLUMNS = ("query_id", "doc_id_a", "doc_id_b", "preference")
PYTERRIER_COLUMNS = {"qid": "query_id", "docno": "doc_id", "label": "relevance"}
ID_COLUMNS = ("query_id", "doc_id", "doc_id_a", "doc_id_b")
CONTROL_PATTERN = r"[\x00-\x1f\x7f-\x9f]"  # C0, DEL and C1: files are checked byte by byte when read; tables here
CONTROL_BYTES = bytes([*range(0x20), 0x7F])  # C0 and DEL: single bytes in UTF-8
C1_BYTES = re.compile(rb"\xc2[\x80-\x9f]")  # C1 (U+0080-U+009F) in UTF-8


def qrels(source, *, repeated: str = "error") -> pd.DataFrame:
    """Graded qrels ``query_id, doc_id, relevance`` from a DataFrame, dict of dicts or ``Qrel`` namedtuples.
    A (query, doc) graded twice is an error, or with ``repeated="keep"`` left to the caller."""
    table = frame(source, ("query_id", "doc_id", "relevance"), "qrels")
    table["relevance"] = numbers(table, "relevance", "grade", exact=True, label=label(source, "relevance"))
    if repeated == "error":
        reject_repeated(table)
    return table


def run(source) -> pd.DataFrame:
    """A run ``query_id, doc_id, score`` from a DataFrame (PyTerrier's ``qid, docno, score`` too), a dict
    ``{query_id: {doc_id: score}}`` or ``ScoredDoc`` namedtuples."""
    table = frame(source, ("query_id", "doc_id", "score"), "run")
    table["score"] = numbers(table, "score", "score", label=label(source, "score"))
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


TREC_PREFS_COLUMNS = ("query_id", "jg", "jsg", "doc_id", "level")


def trec_prefs(source) -> pd.DataFrame:
    """trec_eval's judgment rows ``query_id, jg, jsg, doc_id, level`` from a DataFrame or namedtuples: the judgment
    group and sub-group are ids too; the level a grade."""
    table = frame(source, TREC_PREFS_COLUMNS, "trec_eval prefs")
    for column in ("jg", "jsg"):
        table[column] = ids(table[column], label(source, column))
    table["level"] = numbers(table, "level", "level", exact=True)
    return table


def reject_repeated(table: pd.DataFrame, raw: FileText | None = None) -> None:
    """A (query, doc) graded twice is an error naming its second line (quoted from the file's ``raw`` text), or
    row."""
    (q,), queries = intern(table["query_id"])
    (d,), docs = intern(table["doc_id"])
    row = first_repeat(pair_keys(q, d, len(docs)))
    if row is not None:
        line_no = int(table["line"].iloc[row]) if raw is not None else None
        raise repeated_grade(queries[q[row]], docs[d[row]], raw, row, line_no)


def label(source, column: str) -> str:
    """The name of ``column`` in ``source`` as the user wrote it: PyTerrier's (``qid``, ``docno``, ``label``) where
    a DataFrame has that one, else ir_measures' (for messages)."""
    if isinstance(source, pd.DataFrame) and column not in source.columns:
        return next((k for k, v in PYTERRIER_COLUMNS.items() if v == column and k in source.columns), column)
    return column


def standard_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """ir_measures' column names for PyTerrier's (``qid``, ``docno``, ``label``): the one rename."""
    renames = {k: v for k, v in PYTERRIER_COLUMNS.items() if k in frame.columns and v not in frame.columns}
    return frame.rename(columns=renames) if renames else frame


def frame(source, columns: tuple[str, ...], what: str) -> pd.DataFrame:
    """``columns`` of a DataFrame, a dict ``{query_id: {doc_id: value}}`` or namedtuples, ids validated.

    A DataFrame may hold other columns (ignored); it needs each of ``columns`` once (ir_measures' names, or
    PyTerrier's ``qid, docno, label`` where ir_measures' are absent), flat column labels (not a MultiIndex), and
    at least one row. Rows are named by their position (0-based), whatever the index."""
    if isinstance(source, pd.DataFrame):
        if isinstance(source.columns, pd.MultiIndex):
            raise InputError(
                f"the {what} {'has' if what == 'run' else 'have'} MultiIndex columns ({_short(list(source.columns))}): "
                "flatten them",
                expected=f"the columns {', '.join(columns)}",
            )
        table = standard_columns(source)
        twice = [c for c in columns if int((table.columns == c).sum()) > 1]
        if twice:
            raise InputError(
                f"the {what} {'has' if what == 'run' else 'have'} {int((table.columns == twice[0]).sum())} columns "
                f"named {twice[0]!r}",
                expected=f"each of the columns {', '.join(columns)} once",
            )
    elif isinstance(source, Mapping):
        value = columns[-1]
        try:
            inner = [(q, docs.keys(), docs.values()) for q, docs in source.items()]
        except AttributeError:
            raise InputError(f"{what} as a dict must map query_id -> {{doc_id: {value}}}") from None
        doc_ids = list(chain.from_iterable(keys for _, keys, _ in inner))
        values = list(chain.from_iterable(values for _, _, values in inner))
        table = _columns({"doc_id": doc_ids, value: values})
        sizes = np.fromiter((len(keys) for _, keys, _ in inner), dtype=np.int64, count=len(inner))
        queries = _column([q for q, _, _ in inner])  # each query id converted once, then repeated for its docs
        table.insert(0, "query_id", queries.take(np.repeat(np.arange(len(inner)), sizes)).reset_index(drop=True))
    elif isinstance(source, Iterable) and not isinstance(source, str | bytes):
        items = source if isinstance(source, list | tuple) else list(source)
        data = _namedtuple_columns(items, columns)
        table = _columns(data if data is not None else _attribute_columns(items, columns, what))
    else:
        raise InputError(f"cannot read {what} from {type(source).__name__}")
    missing = [c for c in columns if c not in table.columns]
    have, are = ("has", "is") if what == "run" else ("have", "are")
    if missing:
        raise InputError(f"the {what} {have} no column(s) {missing} (found {list(table.columns)})")
    if table.empty:
        raise InputError(f"the {what} {are} empty")
    table = table[list(columns)].reset_index(drop=True)
    for column in columns:
        if column in ID_COLUMNS:
            table[column] = ids(table[column], label(source, column))
    return table


def _namedtuple_columns(items: Sequence, columns: tuple[str, ...]) -> dict[str, Sequence] | None:
    """The ``columns`` of ``items`` when every one is a namedtuple of one class with each of ``columns``, transposed at
    C speed (an item getter mapped over them, no attribute look-up per item); ``None`` otherwise."""
    kinds = set(map(type, items))
    if len(kinds) != 1:
        return None
    (kind,) = kinds
    fields = getattr(kind, "_fields", None)
    if not issubclass(kind, tuple) or not isinstance(fields, tuple) or not set(columns) <= set(fields):
        return None
    return {c: list(map(itemgetter(fields.index(c)), items)) for c in columns}


def _attribute_columns(items: Sequence, columns: tuple[str, ...], what: str) -> dict[str, Sequence]:
    """``columns`` of ``items`` read attribute by attribute (items of mixed classes)."""
    rows = []
    for row, item in enumerate(items):
        try:
            rows.append(tuple(getattr(item, c) for c in columns))
        except AttributeError:
            raise InputError(
                f"row {row}: {what} items need the fields {', '.join(columns)}; got {_short(item)}"
            ) from None
    data = list(zip(*rows, strict=True)) if rows else [() for _ in columns]
    return dict(zip(columns, data, strict=True))


def _columns(data: Mapping[str, Sequence]) -> pd.DataFrame:
    """A table of Python values: a column of text alone becomes Arrow strings, of floats alone (or of int64
    integers alone) a numpy array, each converted at once; any other column is kept as objects, since pandas
    would make floats of integers mixed with floats (rounding those above 2**53) and NaN of ``None``:
    :func:`ids` and :func:`numbers` read those value by value, by the rule."""
    return pd.DataFrame({c: _column(values) for c, values in data.items()})


def _column(values: Sequence) -> pd.Series:
    try:
        if len(values) and type(values[0]) is str:  # text: Arrow infers it at once (a value not text fails, below)
            array = pa.array(values)
            if pa.types.is_string(array.type) and not array.null_count:
                return pd.Series(pd.arrays.ArrowStringArray(array), copy=False)
        kinds = set(map(type, values))
        if kinds == {float}:
            return pd.Series(np.array(values, dtype=np.float64), copy=False)
        if kinds == {int}:
            return pd.Series(np.array(values, dtype=np.int64), copy=False)
    except (OverflowError, pa.ArrowException, UnicodeEncodeError):  # beyond int64, lone surrogates: by the rule
        pass
    return pd.Series(list(values), dtype=object)


def ids(values: pd.Series, what: str) -> pd.Series:
    """Ids as text (Arrow-backed) by the rule of :func:`~ir_pref_measures.model.ids.as_text` (text as it is, integers of
    any size as their decimal string, ...): none missing, no control character (C0, DEL, C1)."""
    array = as_text(values, what)
    if not _holds_control(array):
        return pd.Series(pd.arrays.ArrowStringArray(array), index=values.index, copy=False)
    bad = pc.match_substring_regex(array, CONTROL_PATTERN).to_numpy(zero_copy_only=False)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"row {row}: {what} {_short(array[row].as_py())} holds a control character",
            expected="ids without control characters (U+0000-U+001F, U+007F-U+009F)",
        )
    return pd.Series(pd.arrays.ArrowStringArray(array), index=values.index, copy=False)


def _holds_control(array: pa.Array) -> bool:
    """True when the UTF-8 bytes of the strings ``array`` hold a control character: one search of the bytes (C0 and
    DEL are single bytes, C1 the pairs C2 80 to C2 9F), no regular expression per string."""
    _, offsets, data = array.buffers()
    if data is None:
        return False
    bounds = np.frombuffer(offsets, dtype=np.int64 if pa.types.is_large_string(array.type) else np.int32)
    text = memoryview(data)[int(bounds[array.offset]) : int(bounds[array.offset + len(array)])].tobytes()
    return len(text.translate(None, CONTROL_BYTES)) != len(text) or (b"\xc2" in text and bool(C1_BYTES.search(text)))


def numbers(
    table: pd.DataFrame, column: str, what: str, *, exact: bool = False, label: str | None = None
) -> np.ndarray:
    """A column as finite numbers: int64 when every value is an integer that int64 holds, else float64.

    The rule, for every column type: integers (numpy, pandas nullable, Python ``int``) and floats are taken as
    they are, booleans count 1 and 0, text must be a number as in a file (:func:`~ir_pref_measures.model.columns.
    is_number`), ``Decimal`` and ``Fraction`` become floats; a missing value (``None``, NaN, ``pd.NA``), an
    infinite or too large number, and any other type (dates, complex numbers, ...) are an :class:`InputError`
    naming the column (``label``, default ``column``) and the row. With ``exact`` (grades, kept as float64 by the
    judgments), an integer that float64 cannot hold exactly (above 2**53 in size, such as 2**53 + 1) is an error
    too."""
    values = table[column]
    column = label or column
    missing = values.isna().to_numpy()
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        value = values.iloc[row]
        if isinstance(value, float | np.floating):  # NaN: as in a file
            raise InputError(f"row {row}: {what} nan is not a finite number (column {column!r})")
        raise InputError(f"row {row}: {what} is missing ({_short(value)}; column {column!r})")
    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return numbers(pd.DataFrame({column: np.asarray(values)}), column, what, exact=exact)
    if pd.api.types.is_object_dtype(dtype):  # Python objects: numpy converts a column of one type at once
        kinds = set(map(type, values.to_numpy()))
        if kinds <= {float, np.float64}:
            return _finite(values.to_numpy(dtype=np.float64), column, what)
        if kinds <= {int, np.int64}:
            try:
                array = values.to_numpy().astype(np.int64)
            except OverflowError:  # beyond int64: one by one, below
                pass
            else:
                return _exact(array, column, what) if exact else array
    if pd.api.types.is_bool_dtype(dtype):
        return values.to_numpy(dtype=np.int64)
    if pd.api.types.is_integer_dtype(dtype):
        array = values.to_numpy()
        if array.dtype.kind == "u" and len(array) and array.max() > np.iinfo(np.int64).max:
            return _numbers_of(array.tolist(), column, what, exact)
        return _exact(array.astype(np.int64), column, what) if exact else array.astype(np.int64)
    if pd.api.types.is_float_dtype(dtype):
        return _finite(values.to_numpy(dtype=np.float64), column, what)
    if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
        return _numbers_of(values.to_numpy(dtype=object).tolist(), column, what, exact)
    raise InputError(
        f"row 0: {what} {_short(values.iloc[0])} is not a number (column {column!r} holds {dtype})",
        expected="numbers: integers, floats or booleans",
    )


def _numbers_of(values: list, column: str, what: str, exact: bool) -> np.ndarray:
    """The numbers of a list of Python values, by the rule of :func:`numbers`."""
    out: list[int | float] = []
    for row, value in enumerate(values):
        number: int | float
        if isinstance(value, bool | np.bool_ | int | np.integer):
            number = int(value)
        elif isinstance(value, float | np.floating | Decimal | Fraction):
            number = float(value)
        elif isinstance(value, str) and is_number(value):
            number = int(value) if value.strip(" \t").lstrip("+-").isdigit() else float(value)
        else:
            raise InputError(f"row {row}: {what} {_short(value)} is not a number (column {column!r})")
        out.append(number)
    if all(isinstance(n, int) and -(2**63) <= n < 2**63 for n in out):
        array = np.asarray(out, dtype=np.int64)
        return _exact(array, column, what) if exact else array
    floats = np.empty(len(out))
    for row, number in enumerate(out):
        try:
            floats[row] = number
        except OverflowError:
            raise InputError(
                f"row {row}: {what} {_short(number)} is not a finite number: too large (column {column!r})"
            ) from None
        if exact and isinstance(number, int) and int(floats[row]) != number:
            raise _inexact(row, number, column, what)
    return _finite(floats, column, what)


def _exact(array: np.ndarray, column: str, what: str) -> np.ndarray:
    """``array`` (int64) if float64 holds every value exactly, else an error naming the first row that it does not."""
    large = np.flatnonzero((array > 2**53) | (array < -(2**53)))
    for row in large.tolist():
        if int(float(array[row])) != int(array[row]):
            raise _inexact(row, int(array[row]), column, what)
    return array


def _inexact(row: int, number: int, column: str, what: str) -> InputError:
    return InputError(
        f"row {row}: {what} {number} cannot be represented exactly (column {column!r})",
        expected=f"{what}s that float64 holds exactly (integers up to 2**53 = 9007199254740992 in size, or floats)",
    )


def _finite(floats: np.ndarray, column: str, what: str) -> np.ndarray:
    bad = ~np.isfinite(floats)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(f"row {row}: {what} {floats[row]} is not a finite number (column {column!r})")
    return floats


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
