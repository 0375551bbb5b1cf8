"""A file's bytes and its data lines, as every reader and every message that quotes a line shares them.

:func:`load` reads a file under the rules that do not depend on its format (gunzipped by content, the UTF-8
byte-order mark removed, CRLF and CR line ends made LF) into a :class:`RawFile`; a reader of
:mod:`~ir_pref_measures.parsing` turns it into :class:`Columns` (the fields of its data lines, with their line
numbers), from which :mod:`~ir_pref_measures.model` builds judgments and rankings and names a bad line.
"""

from __future__ import annotations

import codecs
import gzip
import math
import os
import re
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, NoReturn

import numpy as np
import pyarrow as pa

from ir_pref_measures.errors import InputError

Source = str | os.PathLike | IO[str] | IO[bytes]
GZIP_MAGIC = b"\x1f\x8b"
BOM_STARTS = (codecs.BOM_UTF8[:2], codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _name(source: Source) -> str:
    return os.fspath(source) if isinstance(source, str | os.PathLike) else getattr(source, "name", "<stream>")


@dataclass(frozen=True)
class RawFile:
    """A file's bytes after the reading rules that do not depend on its format: gunzipped (by content),
    the UTF-8 byte-order mark removed, CRLF and CR line ends made LF. ``name`` is the path, for messages."""

    name: str
    data: bytes

    def line(self, line_no: int) -> str:
        """The text of physical line ``line_no`` (1-based), for messages."""
        lines = self.data.split(b"\n", line_no)
        return lines[line_no - 1].decode("utf-8", "replace") if line_no <= len(lines) else ""

    def fail(self, message: str, *, line_no: int | None = None, expected: str | None = None) -> NoReturn:
        line = self.line(line_no) if line_no is not None else None
        raise InputError(message, path=self.name, line_no=line_no, line=line, expected=expected)


@contextmanager
def opened(path: str | os.PathLike) -> Iterator[IO[bytes]]:
    """``path`` open for reading bytes; a file-system failure (on opening or reading) is an :class:`InputError`
    naming the file."""
    name = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            yield handle
    except FileNotFoundError:
        raise InputError("no such file", path=name) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", path=name) from None
    except PermissionError:
        raise InputError("cannot be read: permission denied", path=name) from None
    except OSError as error:
        raise InputError(f"cannot be read: {error.strerror or error}", path=name) from None


def load(source: Source | RawFile) -> RawFile:
    """Read ``source`` (a path or an open file) under the rules above; file-system and decompression failures
    are :class:`InputError` naming the file."""
    if isinstance(source, RawFile):
        return source
    name = _name(source)
    if isinstance(source, str | os.PathLike):
        with opened(source) as handle:
            data = handle.read()
    else:
        if hasattr(source, "seek"):
            source.seek(0)
        data = source.read()
        data = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise InputError(f"corrupt or truncated gzip data ({error})", path=name) from None
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise InputError("is UTF-16 encoded", path=name, expected="UTF-8 text (save the file as UTF-8)")
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return RawFile(name, data)


# control characters: C0 but tab and line ends, DEL, and C1 (U+0080-U+009F, in UTF-8 the bytes C2 80 to C2 9F)
_CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])
_CONTROL_CHUNK = 1 << 20
_FIELD = re.compile(r"[^ \t]+")  # fields are separated by ASCII tabs and spaces only


def check_control(raw: RawFile) -> None:
    """No control character (other than tab and line ends), else an error naming the line."""
    view = memoryview(raw.data)
    for lo in range(0, len(view), _CONTROL_CHUNK):  # a C loop over chunks that fit a cache; the search names it
        part = bytes(view[lo : lo + _CONTROL_CHUNK + 1])  # one byte more: a C1 pair across two chunks
        if len(part.translate(None, _CONTROL_BYTES)) != len(part) or (b"\xc2" in part and _CONTROL.search(part)):
            break
    else:
        return
    control = _CONTROL.search(raw.data)
    if control is not None:
        line_no = raw.data.count(b"\n", 0, control.start()) + 1
        raw.fail(
            f"control character U+{ord(control.group().decode('utf-8')):04X}",
            line_no=line_no,
            expected="text without control characters (U+0000-U+001F, U+007F-U+009F); tabs and spaces separate fields",
        )


def check_text(raw: RawFile) -> None:
    """UTF-8 text without control characters, else an error naming the line."""
    check_control(raw)
    try:
        raw.data.decode("utf-8")
    except UnicodeDecodeError as error:
        line_no = raw.data.count(b"\n", 0, error.start) + 1
        raw.fail(
            f"not UTF-8: byte 0x{raw.data[error.start]:02x} cannot be decoded", line_no=line_no, expected="UTF-8 text"
        )


def text_lines(source: Source | RawFile) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of every data line of ``source``: blank lines and ``#`` comment lines
    skipped, the line end removed. Checked as every reader checks (UTF-8, no control character)."""
    raw = load(source)
    check_text(raw)
    for line_no, line in enumerate(raw.data.decode("utf-8").split("\n"), start=1):
        stripped = line.strip(" \t")
        if stripped and not stripped.startswith("#"):
            yield line_no, line


def fields(line: str) -> list[str]:
    """The fields of a line: separated by ASCII tabs and spaces only (``str.split()`` would also split at
    no-break spaces, U+2028, U+3000 and other Unicode spaces, which are ordinary characters of an id)."""
    return _FIELD.findall(line)


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
    lines). ``name`` is the file, for messages; ``raw`` its contents when it was read from a stream (a path is
    read again to quote a line in a message)."""

    name: str
    fields: dict[str, pa.Array | np.ndarray]
    lines: np.ndarray | None
    raw: RawFile | None = None

    def __len__(self) -> int:
        return len(next(iter(self.fields.values())))

    def line_no(self, row: int) -> int:
        """The line number (1-based) of row ``row``."""
        return int(row) + 1 if self.lines is None else int(self.lines[row])

    def line(self, line_no: int) -> str:
        """The text of line ``line_no``, for messages."""
        return (self.raw or load(self.name)).line(line_no)

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
    """The error for a (query, doc) graded twice: naming its second line (``source`` a :class:`Columns` of a
    file) or row (a table)."""
    message = (
        f"doc {doc_id!r} is judged twice in query {query_id!r} "
        "(diversity qrels with subtopic lines are not preference judgments)"
    )
    expected = "one grade per (query, doc)"
    if line_no is None or not isinstance(source, Columns | RawFile):
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
