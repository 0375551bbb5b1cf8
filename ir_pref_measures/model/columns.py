"""The columns of a file's data lines, as the model receives them from a reader, and the rules of their values.

A reader of :mod:`~ir_pref_measures.parsing` gives :class:`Columns` (the fields of a file's data lines, with their
line numbers), from which :mod:`~ir_pref_measures.model` builds judgments and rankings; a message names a bad line
and quotes it through :class:`FileText`, which the reader hands over with the columns: the model reads no file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pyarrow as pa

from ir_pref_measures.errors import InputError


class FileText(Protocol):
    """A file's name and the text of its lines, for messages (a reader's
    :class:`~ir_pref_measures.parsing.files.RawFile` or :class:`~ir_pref_measures.parsing.files.FileLines`)."""

    @property
    def name(self) -> str: ...

    def line(self, line_no: int) -> str: ...


def is_number(value: str) -> bool:
    """A finite number as the readers accept it: ASCII, no ``_`` (``1_0``), no NaN or infinity."""
    if "_" in value or not value.isascii():
        return False
    try:
        return math.isfinite(float(value))
    except ValueError:
        return False


@dataclass(frozen=True)
class Columns:
    """The fields of a file's data lines: ids as Arrow strings, numbers as float64 arrays (``fields``), and the
    line number of each row (``lines``; ``None`` when row i is line i + 1, as in a file without blank or comment
    lines). ``name`` is the file, for messages; ``raw`` its text, which quotes a line in a message (:class:`FileText`;
    ``None`` for a table). ``hashes``: per id field, the hash of each id (:func:`~ir_pref_measures.model.ids.
    string_hashes`) when the reader computed it on the way."""

    name: str
    fields: dict[str, Any]  # a pa.Array (ids) or a float64 np.ndarray (numbers); pyarrow has no types: Any
    lines: np.ndarray | None
    raw: FileText | None = None
    hashes: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(next(iter(self.fields.values())))

    def line_no(self, row: int) -> int:
        """The line number (1-based) of row ``row``."""
        return int(row) + 1 if self.lines is None else int(self.lines[row])

    def line(self, line_no: int) -> str | None:
        """The text of line ``line_no``, for messages (``None`` for a table)."""
        return None if self.raw is None else self.raw.line(line_no)

    def frame(self):
        """A DataFrame of the fields (ids as pandas' Arrow-backed strings) and ``line``."""
        import pandas as pd

        mapper = {pa.string(): pd.StringDtype("pyarrow")}.get
        columns = {
            name: values.to_pandas(types_mapper=mapper) if isinstance(values, pa.Array) else values
            for name, values in self.fields.items()
        }
        frame = pd.DataFrame(columns, copy=False)
        frame["line"] = np.arange(1, len(frame) + 1, dtype=np.int64) if self.lines is None else self.lines
        return frame


def repeated_grade(query_id: str, doc_id: str, source, row: int, line_no: int | None) -> InputError:
    """The error for a (query, doc) graded twice: naming its second line (``line_no``, quoted from ``source``, the
    :class:`Columns` or :class:`FileText` of a file) or row (a table: ``line_no`` is ``None``)."""
    message = (
        f"doc {doc_id!r} is judged twice in query {query_id!r} "
        "(diversity qrels with subtopic lines are not preference judgments)"
    )
    expected = "one grade per (query, doc)"
    if line_no is None:
        return InputError(f"row {row}: {message}", expected=expected)
    return InputError(message, path=source.name, line_no=line_no, line=source.line(line_no), expected=expected)


def integer_grades(grades: np.ndarray) -> np.ndarray:
    """``grades`` (float64) as int64 when every one is an integer that int64 holds (as pytrec_eval wants them),
    else unchanged: a grade of 1e308 or 2**63 stays a float rather than becoming a wrong integer."""
    grades = np.asarray(grades)
    if grades.dtype.kind in "iu":
        return grades.astype(np.int64) if not len(grades) or grades.max() < 2**63 else grades.astype(np.float64)
    in_range = (grades >= -(2.0**63)) & (grades < 2.0**63)
    return grades.astype(np.int64) if np.all(in_range & (grades == np.round(grades))) else grades
