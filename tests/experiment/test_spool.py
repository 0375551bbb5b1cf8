"""The per-query values of an experiment's runs wait in a temporary file (``Spool``) until the table is made."""

from __future__ import annotations

import gc
import io
import tempfile
import warnings

import numpy as np
import pytest

from ir_pref_measures.experiment.spool import Spool


@pytest.mark.parametrize("in_memory", [False, True])
def test_arrays_come_back_as_written_in_any_order(monkeypatch, in_memory):
    if in_memory:  # no temporary file to be had: the values stay in memory

        def refuse(*args, **kwargs):
            raise OSError("no space left on device")

        monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    rng = np.random.default_rng(3)
    arrays = [rng.normal(size=n) for n in (0, 1, 1000, 7, 4096)] + [np.arange(5), np.array([-0.0, np.nan, np.inf])]
    spool = Spool()
    spooled = [spool.put(a) for a in arrays]
    for i in [3, 0, 6, 1, 5, 2, 4]:
        found = spool.get(spooled[i])
        assert found.dtype == np.float64
        np.testing.assert_array_equal(found, np.asarray(arrays[i], dtype=np.float64), strict=True)
        assert np.signbit(found).tolist() == np.signbit(arrays[i]).tolist()
    rows = np.full((2, 1000), -1.0)
    spool.get(spooled[2], rows[1])  # into a row of a table's array
    np.testing.assert_array_equal(rows[1], arrays[2])
    assert (rows[0] == -1).all()


def test_the_file_is_closed_with_the_spool():
    spool = Spool()
    spool.put(np.ones(3))
    file = spool._file
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        del spool
        gc.collect()
    assert file.closed


@pytest.mark.parametrize("failure", ["raises", "short"])
def test_a_full_disk_moves_the_values_to_memory(monkeypatch, failure):
    """The temporary file takes 3 arrays, then no more (an error, or a short write): every value comes back."""
    made = tempfile.TemporaryFile

    class Full:
        def __init__(self, *args, **kwargs):
            self.file, self.writes = made(*args, **kwargs), 0

        def write(self, data):
            self.writes += 1
            if self.writes <= 3:
                return self.file.write(data)
            if failure == "raises":
                raise OSError(28, "No space left on device")
            return self.file.write(bytes(data)[: len(data) // 2])

        def __getattr__(self, name):
            return getattr(self.file, name)

    monkeypatch.setattr(tempfile, "TemporaryFile", Full)
    rng = np.random.default_rng(5)
    arrays = [rng.normal(size=n) for n in (10, 300, 1, 4000, 17)]
    spool = Spool()
    spooled = [spool.put(a) for a in arrays]
    assert isinstance(spool._file, io.BytesIO)
    for a, where in zip(arrays, spooled, strict=True):
        np.testing.assert_array_equal(spool.get(where), a)
