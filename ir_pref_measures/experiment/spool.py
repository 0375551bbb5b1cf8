"""Arrays of float64 that wait in an unnamed temporary file until they are read back: the per-query values of an
experiment's runs, written as each run is evaluated and read once into the table's arrays. The memory of a stream
of runs then holds the runs in flight and nothing that grows with their number (100 runs x 7 measures x 1,000
queries: 5.6 MB that would otherwise be held until the end), and the table's arrays are filled straight from the file
(one copy of the values at the end, not two). Where no temporary file can be made, or it can take no more (a full
disk), the values stay in memory."""

from __future__ import annotations

import io
import tempfile
import weakref
from typing import NamedTuple

import numpy as np


class Spooled(NamedTuple):
    """Where :meth:`Spool.put` wrote an array: its first byte in the file and its length."""

    offset: int
    size: int


class Spool:
    """The temporary file of one table's values (made at the first :meth:`put`, closed with the spool)."""

    def __init__(self) -> None:
        self._file: io.RawIOBase | io.BytesIO | None = None
        self._end = 0

    def put(self, values: np.ndarray) -> Spooled:
        """Write ``values`` (as float64) at the end of the file."""
        values = np.ascontiguousarray(values, dtype=np.float64)
        if self._file is None:
            self._file = _temporary_file()
            weakref.finalize(self, self._file.close)
        self._file.seek(self._end)
        try:
            written = self._file.write(values.data.cast("B"))
        except OSError:  # a full disk, a quota
            written = None
        if written != values.nbytes:  # the values so far move to memory, and the rest stay there
            self._file = _in_memory(self._file, self._end)
            self._file.seek(self._end)
            self._file.write(values.data.cast("B"))
        spooled = Spooled(self._end, len(values))
        self._end += values.nbytes
        return spooled

    def get(self, spooled: Spooled, out: np.ndarray | None = None) -> np.ndarray:
        """The array written at ``spooled``, read into ``out`` (a contiguous float64 array of its length) if given."""
        out = np.empty(spooled.size, dtype=np.float64) if out is None else out
        assert self._file is not None, "a Spooled comes from put, which made the file"
        self._file.seek(spooled.offset)
        if self._file.readinto(out.data.cast("B")) != out.nbytes:
            raise OSError("the temporary file of the per-query values was cut short")
        return out


def _in_memory(file, end: int) -> io.BytesIO:
    """The first ``end`` bytes of ``file`` in memory (where the temporary file can take no more), ``file`` closed."""
    if isinstance(file, io.BytesIO):
        return file
    file.seek(0)
    held = io.BytesIO()
    while held.tell() < end and (chunk := file.read(min(end - held.tell(), 1 << 20))):
        held.write(chunk)
    if held.tell() != end:
        raise OSError("the temporary file of the per-query values was cut short")
    file.close()
    return held


def _temporary_file() -> io.RawIOBase | io.BytesIO:
    """An unnamed temporary file, unbuffered (each write one system call: the arrays are kilobytes); in memory when
    the system has none to give (no writable temporary directory)."""
    try:
        return tempfile.TemporaryFile(prefix="ir_pref_measures_values_", buffering=0)
    except OSError:
        return io.BytesIO()
