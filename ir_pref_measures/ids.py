"""Interning of query and doc ids: strings become integer codes in string order, once.

Each part is dictionary-encoded by Arrow (hashing, no sort of the part); only the small dictionaries are
unified and sorted. Every sort and join of the library then works on integers (pairs of codes combined
into one int64 key), never on Python strings.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ir_pref_measures.errors import InputError


def as_text(values) -> pa.Array:
    """Ids as an Arrow string array (numbers, as ir_datasets or users may give them, become text)."""
    if isinstance(values, pd.Series | pd.Index):
        values = values.array
    if isinstance(values, pa.Array | pa.ChunkedArray):
        array = values
    else:
        try:
            array = pa.array(values, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed types: text of each
            array = pa.array([str(v) for v in values], pa.string())
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        array = pc.cast(array, pa.string()) if not pa.types.is_null(array.type) else array.cast(pa.string())
    if array.null_count:
        raise InputError(f"{array.null_count} id(s) are missing (null)")
    return array


def encode(*parts) -> tuple[list[np.ndarray], pa.Array]:
    """Codes (int32) for each part over the sorted vocabulary of all parts, and that vocabulary (Arrow)."""
    encoded = [pc.dictionary_encode(as_text(p)) for p in parts]
    dictionaries = [e.dictionary.cast(pa.string()) for e in encoded]
    vocabulary = pc.unique(pa.concat_arrays(dictionaries)) if dictionaries else pa.array([], pa.string())
    vocabulary = vocabulary.take(pc.array_sort_indices(vocabulary))
    codes = []
    for part, dictionary in zip(encoded, dictionaries, strict=True):
        position = pc.index_in(dictionary, value_set=vocabulary).to_numpy(zero_copy_only=False).astype(np.int32)
        codes.append(position[part.indices.to_numpy(zero_copy_only=False)])
    return codes, vocabulary


def intern(*parts) -> tuple[list[np.ndarray], np.ndarray]:
    """Codes (int32) for each part over the sorted vocabulary of all parts, and that vocabulary (object array)."""
    codes, vocabulary = encode(*parts)
    return codes, vocabulary.to_numpy(zero_copy_only=False).astype(object)


def lookup(values, vocabulary: pa.Array) -> np.ndarray:
    """Position of each value in ``vocabulary`` (int64), -1 where it is absent; by hashing."""
    found = pc.index_in(as_text(values), value_set=vocabulary)
    return found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def pair_keys(first: np.ndarray, second: np.ndarray, n_second: int) -> np.ndarray:
    """One sortable int64 key per (first, second) code pair, ordered by first, then second."""
    return first.astype(np.int64) * np.int64(max(n_second, 1)) + second.astype(np.int64)
