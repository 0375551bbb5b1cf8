"""Id interning: :func:`ir_pref_measures.model.ids.intern_blocks` (codes from the blocks of a column) against its
definition, :func:`ir_pref_measures.model.ids.intern` (hashing every value), on seeded random columns of every
layout."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from ir_pref_measures.model.ids import intern, intern_blocks, ranges


def _column(rng: np.random.Generator, layout: str) -> list[str]:
    """Query ids of a run: each in one block (in or out of order), interleaved, repeated in a second block, one
    block, or every line its own id."""
    names = [f"q{k}" for k in rng.permutation(int(rng.integers(1, 40)))]
    sizes = rng.integers(1, 30, size=len(names))
    blocks = [name for name, size in zip(names, sizes, strict=True) for _ in range(size)]
    if layout == "blocks":
        return blocks
    if layout == "interleaved":
        return [names[k] for k in rng.integers(0, len(names), size=len(blocks))]
    if layout == "a block twice":
        return blocks + blocks[: int(sizes[0])]
    if layout == "one block":
        return [names[0]] * int(sizes.sum())
    return [f"d{k}" for k in rng.permutation(len(blocks))]


@pytest.mark.parametrize("layout", ["blocks", "interleaved", "a block twice", "one block", "distinct"])
def test_intern_blocks_gives_the_codes_and_vocabulary_of_intern(layout):
    rng = np.random.default_rng(20261126)
    for _ in range(50):
        column = _column(rng, layout)
        (want,), vocabulary = intern(column)
        for form in (column, pa.array(column), np.array(column, dtype=object)):
            codes, got = intern_blocks(form)
            assert codes.dtype == want.dtype
            np.testing.assert_array_equal(codes, want)
            assert got.tolist() == vocabulary.tolist()


@pytest.mark.parametrize("column", [[], ["q1"], ["q1", "q1"], ["b", "a", "b"]])
def test_intern_blocks_of_short_columns(column):
    (want,), vocabulary = intern(column)
    codes, got = intern_blocks(column)
    np.testing.assert_array_equal(codes, want)
    assert got.tolist() == vocabulary.tolist()


@pytest.mark.parametrize("seed", range(20))
def test_ranges_concatenates_the_integers_of_each_range(seed):
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, 50, size=rng.integers(0, 8))
    ends = starts + rng.integers(-2, 6, size=len(starts))  # empty and reversed ranges give nothing
    expected = [i for lo, hi in zip(starts.tolist(), ends.tolist(), strict=True) for i in range(lo, hi)]
    got = ranges(starts, ends)
    assert got.dtype == np.int64
    assert got.tolist() == expected
