"""The reading rules of every file, and the readers of TREC qrels and TREC runs.

Every file is read under one set of rules (docs/input.md, "Input rules"): UTF-8 with an optional byte-order mark;
gzip recognised by its content, whatever the name; LF, CRLF or CR line ends; blank lines and lines whose
first non-blank character is ``#`` skipped; fields separated by ASCII tabs and runs of ASCII spaces (any other
Unicode space, such as a no-break space, U+2028 or U+3000, is an ordinary character of an id); no control
characters (C0 but tab and line ends, DEL, C1: U+0000-U+001F, U+007F-U+009F); numeric fields finite numbers.
Files are parsed by Arrow's CSV reader on a canonical form (single spaces, data lines only) made with numpy; when
anything does not fit, a line-by-line scan finds the first bad line and raises :class:`InputError` naming the file,
the line number, the line and what was expected. A missing, unreadable or corrupt file is an :class:`InputError` too.

This module holds those rules (:func:`load`, :func:`text_lines`, :func:`read_columns` and :class:`Columns`) and the
readers of TREC qrels and runs (:data:`QRELS`, :data:`RUN`). The preference formats are in
:mod:`ir_pref_measures.parsing.preferences`, Xie et al.'s image-study files in :mod:`ir_pref_measures.parsing.images`,
the byte-level parse with numpy and Arrow in :mod:`ir_pref_measures.parsing.arrow`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from ir_pref_measures.errors import InputError
from ir_pref_measures.model.columns import Columns, FileText, integer_grades, is_number
from ir_pref_measures.model.ids import as_numpy
from ir_pref_measures.parsing.arrow import (
    NEWLINE,
    SPACE,
    arrow_table,
    canonical,
    has_c1,
    loose_separators,
)
from ir_pref_measures.parsing.compiled import compiled_table
from ir_pref_measures.parsing.files import (
    BOM_STARTS,
    GZIP_MAGIC,
    FileLines,
    RawFile,
    Source,
    check_control,
    fields,
    load,
    opened,
    text_lines,
)
from ir_pref_measures.parsing.memory import release_parser_memory

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made: reading a run or qrels file needs none
    import pandas as pd

_SCAN_CHUNK = 1 << 18  # bytes of a file checked at a time by the fast path of read_columns (its masks stay in cache)


@dataclass(frozen=True)
class Layout:
    """A whitespace-separated line layout: field names (``None`` = read but unused) and numeric fields."""

    name: str
    fields: tuple[str | None, ...]
    numeric: tuple[str, ...] = ()
    note: str = ""
    exact: tuple[str, ...] = ()  # numeric fields whose integers must be held exactly (grades: see integer_grades)

    @property
    def expected(self) -> str:
        shown = " ".join(f or "_" for f in self.fields)
        return f"{len(self.fields)} whitespace-separated fields ({self.name}: {shown}){self.note}"


QRELS = Layout("TREC qrels", ("query_id", "iteration", "doc_id", "relevance"), ("relevance",), exact=("relevance",))
RUN = Layout(
    "TREC run",
    ("query_id", None, "doc_id", "rank", "score", None),
    ("score",),
    "; fields after the sixth, which trec_eval ignores, are refused: cut them off (cut -d ' ' -f 1-6)",
)


def line_text(source: Source | RawFile, line_no: int) -> str:
    """The text of line ``line_no`` (1-based) of ``source``, for error messages."""
    return load(source).line(line_no)


def swapped(parts: list[str], layout: Layout | None = None) -> str:
    """A hint for a line of the other kind: a TREC run line read as judgments (``layout`` None or :data:`QRELS`), or
    a line of 3 or 4 fields (qrels or preferences) read as a run (:data:`RUN`): the two arguments may be swapped.
    Empty otherwise."""
    if layout is not RUN and len(parts) == 6 and is_number(parts[3]) and is_number(parts[4]):
        return (
            "; it looks like a line of a TREC run (qid Q0 doc rank score tag): are the judgments and the run "
            "swapped? (the judgments come first)"
        )
    if layout is RUN and len(parts) in (3, 4):
        return (
            "; it looks like a line of judgments (qrels 'qid 0 doc grade' or preferences): are the judgments and the "
            "run swapped? (the judgments come first)"
        )
    return ""


def _locate(raw: RawFile, layout: Layout) -> None:
    """Raise for the first line that does not fit ``layout`` (the slow path, run only after a failure)."""
    width = len(layout.fields)
    for line_no, line in text_lines(raw):
        parts = fields(line)
        if len(parts) != width:
            hint = swapped(parts, layout) if layout in (QRELS, RUN) else ""
            raw.fail(f"{len(parts)} fields instead of {width}{hint}", line_no=line_no, expected=layout.expected)
        for field, value in zip(layout.fields, parts, strict=True):
            if field in layout.numeric and not is_number(value):
                raw.fail(f"{field} {_cut(value)!r} is not a number", line_no=line_no, expected=layout.expected)


def _cut(value: str, limit: int = 60) -> str:
    return value if len(value) <= limit else value[:limit] + "..."


def read_columns(
    source: Source | RawFile, layout: Layout, skip: tuple[str, ...] = (), hashed: tuple[str, ...] = ()
) -> Columns:
    """Read ``source`` with ``layout`` into one column per named field (``skip``: named fields not needed; ``hashed``:
    id fields whose hashes the compiled path gives on the way, in :attr:`Columns.hashes`, for a caller that hashes
    them next).

    A file of plain ASCII lines is split by the compiled path (:mod:`~ir_pref_measures.parsing.compiled`); another
    regular file (single spaces, LF line ends, no blank or comment line, no byte-order mark, no gzip) is checked in
    chunks and parsed by Arrow's CSV reader from the path, never held whole in memory. Anything
    else is loaded (:func:`load`) and parsed as it is when it is regular, otherwise on its canonical form
    (:func:`~ir_pref_measures.parsing.arrow.canonical`); when that fails too, a line-by-line scan names the first
    bad line. Numeric fields must be finite numbers. An empty file (no data line) is an error.
    """
    names = [f"f{i}" for i in range(len(layout.fields))]
    wanted = [(n, f) for n, f in zip(names, layout.fields, strict=True) if f is not None and f not in skip]
    used = {n: pa.float64() if f in layout.numeric else pa.string() for n, f in wanted}
    if isinstance(source, str | os.PathLike):
        ids = {n: f for n, f in wanted if f in hashed}
        table, hashes = compiled_table(source, names, used, ids) or (_regular_file_table(source, names, used), {})
        if table is not None:
            columns = _columns(table, wanted, layout, os.fspath(source), None, FileLines(os.fspath(source)))
            columns.hashes.update({ids[n]: values for n, values in hashes.items()})
            del table
            release_parser_memory(os.path.getsize(source))
            return columns
    raw = load(source)
    check_control(raw)  # UTF-8 is checked by Arrow; a failure is located by the line-by-line scan
    data = raw.data.replace(b"\t", b" ") if b"\t" in raw.data else raw.data
    regular = b"#" not in data and not loose_separators(data)
    table = arrow_table(data, names, used) if regular else None
    lines = None
    if table is None or table.num_rows != data.count(b"\n") + (0 if data.endswith(b"\n") else 1):
        data, lines = canonical(data)
        if not len(lines):
            raw.fail("the file has no data lines", expected=layout.expected)
        table = arrow_table(data, names, used)
        if table is None:
            _locate(raw, layout)
            raw.fail("the file does not fit its format", expected=layout.expected)
    size = len(data)
    del data
    text = FileLines(raw.name) if isinstance(source, str | os.PathLike) else raw  # a path's bytes are not kept
    columns = _columns(table, wanted, layout, raw.name, lines, text)
    del table
    release_parser_memory(size)
    return columns


def _columns(
    table: pa.Table, wanted: list, layout: Layout, name: str, lines: np.ndarray | None, raw: FileText
) -> Columns:
    """The :class:`Columns` of a parsed ``table``, numeric fields checked to be finite."""
    columns = Columns(name, {}, lines, raw)
    for column_name, field in wanted:
        column = table.column(column_name)
        table = table.drop_columns([column_name])  # each column freed as soon as it is converted
        if field in layout.numeric:
            values = as_numpy(column)
            bad = ~np.isfinite(values)
            if bad.any():
                line_no = columns.line_no(int(np.flatnonzero(bad)[0]))
                raise InputError(
                    f"{field} {values[bad][0]:g} is not a finite number",
                    path=name,
                    line_no=line_no,
                    line=columns.line(line_no),
                    expected=layout.expected,
                )
            if field in layout.exact:
                _check_exact(columns, values, layout.fields.index(field), field, layout)
            columns.fields[field] = values
        else:
            columns.fields[field] = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    return columns


EXACT_LIMIT = 2.0**53  # float64 holds every integer up to this size exactly
_INTEGER = re.compile(r"[+-]?[0-9]+")


def _check_exact(columns: Columns, values: np.ndarray, index: int, field: str, layout: Layout) -> None:
    """An integer written in field ``index`` that float64 cannot hold exactly (above 2**53 in size, such as
    2**53 + 1 or 2**63 - 1) is an error naming its line; only values from 2**53 in size are looked at, in their text."""
    large = np.flatnonzero(np.abs(values) >= EXACT_LIMIT)
    if not len(large):
        return
    raw = columns.raw if isinstance(columns.raw, RawFile) else load(columns.name)
    lines = raw.data.split(b"\n")
    for row in large.tolist():
        line_no = columns.line_no(row)
        text = fields(lines[line_no - 1].decode("utf-8"))[index]
        if _INTEGER.fullmatch(text) and int(text) != int(values[row]):
            raw.fail(
                f"{field} {_cut(text)} cannot be represented exactly (numbers are float64 values)",
                line_no=line_no,
                expected=f"integers up to 2**53 = 9007199254740992 in size, or decimals ({layout.expected})",
            )


def _regular_file_table(path: str | os.PathLike, names: list[str], used: dict[str, pa.DataType]) -> pa.Table | None:
    """The table of a regular file, parsed by Arrow from ``path``: ``None`` when the file is not regular (its
    checks, made chunk by chunk with three passes of numpy, find a byte-order mark, gzip, a control character, a tab
    or CR, a ``#``, an empty field (two separators meet, or a line starts or ends with one) or a blank line) or does
    not parse; the caller then loads it."""
    lines = 0
    with opened(path) as handle:
        buffer = bytearray(_SCAN_CHUNK + 1)  # one byte carried over from the chunk before; read into, never copied
        view = memoryview(buffer)
        carried = 0
        while size := handle.readinto(view[carried:]):
            end = carried + size
            if not carried and bytes(buffer[: min(end, 2)]) in (GZIP_MAGIC, *BOM_STARTS):
                return None
            if buffer.find(b"#", 0, end) >= 0 or buffer.find(b"\x7f", 0, end) >= 0:  # memchr: no pass of numpy
                return None
            part = np.frombuffer(buffer, dtype=np.uint8, count=end)
            newlines = int(np.count_nonzero(part[carried:] == NEWLINE))
            separator = part <= SPACE  # a space or a line end, once no control character is left
            if (
                np.count_nonzero(part[carried:] < SPACE) != newlines  # a tab, CR or control character
                or (separator[1:] & separator[:-1]).any()  # an empty field or a blank line
                or (not carried and part[0] <= SPACE)
                or (buffer.find(b"\xc2", 0, end) >= 0 and has_c1(part))
            ):
                return None
            del part, separator  # the buffer is read into again
            lines += newlines
            buffer[0] = buffer[end - 1]
            carried = 1
    if not carried or buffer[0] == SPACE:  # an empty file, or one that ends with an empty field
        return None
    table = arrow_table(path, names, used)
    return table if table is not None and table.num_rows == lines + (buffer[0] != NEWLINE) else None


def read_table(source: Source | RawFile, layout: Layout) -> pd.DataFrame:
    """:func:`read_columns` as a DataFrame: one column per named field and ``line`` (the line number)."""
    return read_columns(source, layout).frame()


def fail_at(columns: Columns, bad: np.ndarray, message, layout: Layout) -> None:
    """Raise for the first row flagged in ``bad`` (a boolean mask over the rows of ``columns``); ``message``
    makes the text from the row's index."""
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        line_no = columns.line_no(row)
        raise InputError(
            message(row), path=columns.name, line_no=line_no, line=columns.line(line_no), expected=layout.expected
        )


def read_qrels(source: Source | RawFile) -> pd.DataFrame:
    """TREC qrels ``qid iteration doc value`` -> ``query_id, iteration, doc_id, relevance, line``.

    ``relevance`` is int64 when every value is an integer that int64 holds, else float64 (:func:`integer_grades`);
    an integer grade that float64 cannot hold exactly (2**53 + 1) is an error. The second column (the
    iteration, or a subtopic id in diversity qrels) is kept as text.

    Parameters
    ----------
    source
        A path (gzip or not) or an open text or binary file.

    Returns
    -------
    pandas.DataFrame
        ``query_id, iteration, doc_id, relevance, line`` (``line``: the line number in the file).
    """
    frame = read_table(source, QRELS)
    frame["relevance"] = integer_grades(frame["relevance"].to_numpy())
    return frame


def read_run(source: Source | RawFile, *, keep_rank: bool = False) -> pd.DataFrame:
    """TREC run ``qid Q0 doc rank score tag`` -> ``query_id, doc_id, score, line`` (and ``rank``).

    The rank column is not used by the library (the order is score descending, ties by doc id
    descending) and is returned only with ``keep_rank=True``, as text.

    Parameters
    ----------
    source
        A path (gzip or not) or an open text or binary file.
    keep_rank : bool
        Also return the rank column, as text.

    Returns
    -------
    pandas.DataFrame
        ``query_id, doc_id, score, line`` (and ``rank``).
    """
    frame = read_table(source, RUN)
    return frame if keep_rank else frame.drop(columns="rank")
