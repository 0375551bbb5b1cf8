"""A file's bytes and its data lines, read under the rules that do not depend on its format.

:func:`load` reads a file (gunzipped by content, the UTF-8 byte-order mark removed, CRLF and CR line ends made LF)
into a :class:`RawFile`; :func:`check_text` and :func:`check_control` hold it to UTF-8 text without control
characters; :func:`text_lines` and :func:`fields` give its data lines and their fields. The readers of
:mod:`~ir_pref_measures.parsing` turn it into :class:`~ir_pref_measures.model.columns.Columns`, which quote a bad
line through the :class:`RawFile` (or the :class:`FileLines` of a file parsed from its path, read again only when a
message quotes it).
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
import re
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, NoReturn

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
def opened(path: str | os.PathLike) -> Iterator[io.BufferedReader]:
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
        read = source.read()
        data = read.encode("utf-8") if isinstance(read, str) else bytes(read)
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


@dataclass(frozen=True)
class FileLines:
    """A file parsed from its path and not held in memory, quoted for messages: read again (:func:`load`) when a
    message asks for a line."""

    name: str

    def line(self, line_no: int) -> str:
        """The text of physical line ``line_no`` (1-based), for messages."""
        return load(self.name).line(line_no)
