"""The per-query values of an experiment's runs wait in a temporary file (``Spool``) until the table is made."""

from __future__ import annotations

import gc
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
