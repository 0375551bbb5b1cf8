"""The compiled fast path of :func:`~ir_pref_measures.parsing.formats.read_columns`: a file of plain lines split into
the Arrow columns :func:`~ir_pref_measures.parsing.arrow.arrow_table` would give, in one pass over its bytes in C
(``_fields.c``: read a megabyte at a time, 64 bytes classified at once), with the interpreter's lock released.

It takes the file only when every line is ``n`` fields of printable ASCII without ``#``, one space between two
fields, each line ending with a line feed (the last one may not), and every number field a decimal
``-?D+(.D+)?([eE][-+]?D+)?`` of at most 15 significant digits whose power of ten is within 10^+-22 (each then the
correctly rounded double, as Arrow's parser gives it: W. D. Clinger, *How to read floating point numbers accurately*,
PLDI 1990). Any other file (a byte-order mark, gzip, a comment, a tab or CR, two spaces, a blank line, non-ASCII
text, a score such as ``0.8771364092826843`` with 16 digits, ...) is left to Arrow's parser and the checks that name
a bad line: the result is then the same, only slower. Without a C compiler at install time the package has no
compiled path and reads every file that way.
"""

from __future__ import annotations

import os
from collections.abc import Collection

import numpy as np
import pyarrow as pa

try:
    from ir_pref_measures.parsing import _fields
except ImportError:  # installed without a C compiler
    _fields = None  # type: ignore[assignment]  # no module: AVAILABLE is False, split_file never called

AVAILABLE = _fields is not None


def compiled_table(
    path: str | os.PathLike, names: list[str], used: dict[str, pa.DataType], hashed: Collection[str] = ()
) -> tuple[pa.Table, dict[str, np.ndarray]] | None:
    """The ``used`` fields (``names`` in line order; text or float64) of every line of the file at ``path``, as
    :func:`~ir_pref_measures.parsing.arrow.arrow_table` gives them, and for each text field of ``hashed`` the hash of
    each id (:func:`~ir_pref_measures.model.ids.string_hashes`, computed as the ids are copied); ``None`` when the
    file is not one the compiled path takes (or there is none)."""
    if _fields is None:
        return None
    text = tuple(i for i, name in enumerate(names) if name in used and used[name] == pa.string())
    numbers = tuple(i for i, name in enumerate(names) if name in used and used[name] == pa.float64())
    if len(text) + len(numbers) != len(used) or len(names) > 16:
        return None
    found = _fields.split_file(path, len(names), text, numbers, tuple(names.index(name) for name in hashed))
    if found is None:
        return None
    rows, text_parts, values = found
    texts = dict(zip(text, text_parts, strict=True))
    columns = {names[i]: _array(pa.string(), rows, offsets, data) for i, (offsets, data, _) in texts.items()}
    columns |= {names[i]: _array(pa.float64(), rows, part) for i, part in zip(numbers, values, strict=True)}
    hashes = {names[i]: np.frombuffer(found, np.uint64) for i, (_, _, found) in texts.items() if found is not None}
    return pa.table({name: columns[name] for name in used}), hashes


def _array(kind: pa.DataType, rows: int, *buffers: bytes) -> pa.Array:
    """An Arrow array over the bytes the compiled path filled (no copy; ``pa.array`` would import pandas)."""
    return pa.Array.from_buffers(kind, rows, [None, *map(pa.py_buffer, buffers)])
