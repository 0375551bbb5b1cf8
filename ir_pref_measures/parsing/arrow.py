"""Whitespace-separated text to an Arrow table, fast: the byte-level steps of :func:`~ir_pref_measures.parsing.formats.
read_columns`.

A *regular* text (single spaces between fields, LF line ends, no blank or comment line) is parsed as it is by Arrow's
CSV reader with a space as the delimiter (:func:`arrow_table`); :func:`empty_field`, :func:`loose_separators` and
:func:`has_c1` are the numpy checks that tell a regular text from another. Any other text is first made regular by
:func:`canonical` (every byte classified at once with numpy, no Python loop over lines), which also gives each kept
line's number. The memory a parse frees is managed by :mod:`~ir_pref_measures.parsing.memory`.
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
from pyarrow import csv as pa_csv

NEWLINE, SPACE, HASH = ord("\n"), ord(" "), ord("#")
C1_LEAD = 0xC2  # the first byte of U+0080-U+00BF in UTF-8; C1 when the next byte is 0x80-0x9F
THREADED_BYTES = 256 << 20  # larger files are parsed on every core (smaller ones: more memory, little gain)


def canonical(data: bytes) -> tuple[bytes, np.ndarray]:
    """The data lines of ``data`` (LF line ends, tabs made spaces) with single spaces between fields, and the
    line number of each: blank and comment lines dropped, leading, trailing and repeated separators removed.
    Every byte is classified at once with numpy: no Python loop over lines."""
    byte = np.frombuffer(data, dtype=np.uint8)
    n = len(byte)
    ends = np.flatnonzero(byte == NEWLINE)  # the line end of each line; an unterminated last line ends at n
    if not data.endswith(b"\n"):
        ends = np.append(ends, n)
    starts = np.r_[0, ends[:-1] + 1]
    is_space = byte == SPACE
    run_start = np.flatnonzero(is_space & ~np.r_[False, is_space[:-1]])  # runs of spaces, [start, end)
    run_end = np.flatnonzero(is_space & ~np.r_[is_space[1:], False]) + 1
    at = np.minimum(np.searchsorted(run_start, starts), max(len(run_start) - 1, 0))
    indented = len(run_start) > 0
    first = np.where(indented & (run_start[at] == starts), run_end[at], starts) if indented else starts
    first_byte = np.append(byte, NEWLINE)[first]
    kept_line = (first < ends) & (first_byte != NEWLINE) & (first_byte != HASH)
    keep = np.repeat(kept_line, np.diff(np.r_[0, np.minimum(ends + 1, n)]))
    inner = (run_start > 0) & (run_end < n)  # a run between two field bytes is one separator
    inner[inner] = (byte[run_start[inner] - 1] != NEWLINE) & (byte[run_end[inner]] != NEWLINE)
    keep &= ~is_space
    keep[run_start[inner]] = kept_line[np.searchsorted(ends, run_start[inner])]
    return byte[keep].tobytes(), np.flatnonzero(kept_line).astype(np.int64) + 1


def arrow_table(data: bytes | str | os.PathLike, names: list[str], used: dict[str, pa.DataType]) -> pa.Table | None:
    """The ``used`` fields of every line of ``data`` (bytes, or a file's path) split at single spaces into
    ``names``, as text or numbers (``used`` maps a name to its type); ``None`` if a line has another number of
    fields or a number does not parse."""
    size = len(data) if isinstance(data, bytes) else os.path.getsize(data)
    try:
        return pa_csv.read_csv(
            pa.BufferReader(data)
            if isinstance(data, bytes)
            else pa.OSFile(os.fspath(data)),  # no decompression by name
            read_options=pa_csv.ReadOptions(column_names=names, use_threads=size > THREADED_BYTES),
            parse_options=pa_csv.ParseOptions(delimiter=" ", quote_char=False, ignore_empty_lines=True),
            convert_options=pa_csv.ConvertOptions(
                column_types=used,
                null_values=[],
                strings_can_be_null=False,
                include_columns=list(used),
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def loose_separators(data: bytes, chunk: int = 1 << 22) -> bool:
    """True when two spaces meet or a line starts or ends with one (an empty field): checked with numpy in
    chunks of ``chunk`` bytes, so that memory stays small."""
    if data.startswith(b" ") or data.endswith(b" "):
        return True
    byte = np.frombuffer(data, dtype=np.uint8)
    for lo in range(0, len(byte), chunk):
        part = byte[lo : lo + chunk + 1]
        if empty_field(part == SPACE, part == NEWLINE):
            return True
    return False


def empty_field(space: np.ndarray, newline: np.ndarray) -> bool:
    """True when, in a stretch of bytes (``space`` and ``newline`` mark those bytes), two spaces meet or a line
    starts or ends with a space: an empty field."""
    return bool((space[1:] & (space[:-1] | newline[:-1])).any() or (space[:-1] & newline[1:]).any())


def has_c1(part: np.ndarray) -> bool:
    """True when the bytes ``part`` hold a C1 control character in UTF-8 (0xC2 followed by 0x80-0x9F)."""
    lead = np.flatnonzero(part[:-1] == C1_LEAD)
    return bool(len(lead) and ((part[lead + 1] >= 0x80) & (part[lead + 1] <= 0x9F)).any())
