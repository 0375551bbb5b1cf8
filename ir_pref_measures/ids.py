"""Interning of query and doc ids: strings become integer codes in string order, once.

Each part is dictionary-encoded by Arrow (hashing, no sort of the part); only the small dictionaries are
unified and sorted. Every sort and join of the library then works on integers (pairs of codes combined
into one int64 key), never on Python strings.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ir_pref_measures.errors import InputError


def is_pandas(value, *classes: str) -> bool:
    """True when ``value`` is an instance of one of pandas' ``classes`` (by name, subclasses too), found without
    importing pandas: none exists before pandas is imported, and another thread may be importing it, half done,
    while this one reads a file."""
    return any(c.__name__ in classes and c.__module__.partition(".")[0] == "pandas" for c in type(value).__mro__)


def as_text(values) -> pa.Array:
    """Ids as an Arrow string array (numbers, as ir_datasets or users may give them, become text)."""
    if is_pandas(values, "Series", "Index"):
        values = values.array
    array = values if isinstance(values, pa.Array | pa.ChunkedArray) else None
    if array is None and isinstance(values, np.ndarray) and values.dtype.kind in "OU":
        try:  # strings, built from buffers (pa.array would import pandas)
            array = arrow(values)
        except AttributeError:  # not every value is a string: pa.array below says what they are
            pass
    if array is None:
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


def arrow(values: np.ndarray) -> pa.Array:
    """A numpy array (numbers, booleans, or strings) as an Arrow array, built from buffers: ``pa.array`` imports
    pandas, which a run of the command line needs nowhere else."""
    values = np.ascontiguousarray(values)
    n = len(values)
    if values.dtype.kind == "b":
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), n, [None, pa.py_buffer(bits)])
    if values.dtype.kind in "iuf":
        return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), n, [None, pa.py_buffer(values)])
    encoded = [text.encode("utf-8") for text in values.tolist()]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=n), out=offsets[1:])
    large = offsets[-1] >= 2**31
    buffers = [None, pa.py_buffer(offsets if large else offsets.astype(np.int32)), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.large_string() if large else pa.string(), n, buffers)


def as_numpy(array, null=None) -> np.ndarray:
    """A numeric or boolean Arrow array as numpy, read from its buffers (pyarrow's own conversion imports pandas,
    which a run of the command line needs nowhere else); nulls become ``null``, which must then be given."""
    if isinstance(array, pa.ChunkedArray):
        chunks = [as_numpy(chunk, null) for chunk in array.chunks]
        return np.concatenate(chunks) if chunks else np.zeros(0, array.type.to_pandas_dtype())
    validity, data = array.buffers()[:2]
    if array.null_count and null is None:
        raise ValueError("as_numpy of an array with nulls needs a value for them")
    if pa.types.is_boolean(array.type):
        values = _bits(data, array.offset, len(array))
    else:
        dtype = np.dtype(array.type.to_pandas_dtype())
        values = np.frombuffer(data, dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)
    if array.null_count:
        values = np.where(_bits(validity, array.offset, len(array)), values, null)
    return values


def _bits(buffer, offset: int, n: int) -> np.ndarray:
    """The bits ``offset:offset + n`` of an Arrow bitmap, as booleans."""
    packed = np.frombuffer(buffer, dtype=np.uint8) if buffer is not None else np.zeros(0, np.uint8)
    return np.unpackbits(packed, bitorder="little", count=offset + n)[offset:].astype(bool)


def as_objects(array: pa.Array) -> np.ndarray:
    """Arrow strings as a numpy object array of Python strings (without pyarrow's pandas-importing conversion)."""
    out = np.empty(len(array), dtype=object)
    out[:] = array.to_pylist()
    return out


def encode(*parts) -> tuple[list[np.ndarray], pa.Array]:
    """Codes (int32) for each part over the sorted vocabulary of all parts, and that vocabulary (Arrow)."""
    encoded = [pc.dictionary_encode(as_text(p)) for p in parts]
    dictionaries = [e.dictionary.cast(pa.string()) for e in encoded]
    if len(encoded) == 1:  # one part: its dictionary sorted, each code moved to its place (no hash look-up)
        order = as_numpy(pc.array_sort_indices(dictionaries[0]))
        place = np.empty(len(order), dtype=np.int32)
        place[order] = np.arange(len(order), dtype=np.int32)
        return [place[as_numpy(encoded[0].indices)]], dictionaries[0].take(arrow(order))
    vocabulary = pc.unique(pa.concat_arrays(dictionaries)) if dictionaries else arrow(np.array([], dtype=str))
    vocabulary = vocabulary.take(pc.array_sort_indices(vocabulary))
    codes = []
    for part, dictionary in zip(encoded, dictionaries, strict=True):
        position = as_numpy(pc.index_in(dictionary, value_set=vocabulary)).astype(np.int32)
        codes.append(position[as_numpy(part.indices)])
    return codes, vocabulary


def intern(*parts) -> tuple[list[np.ndarray], np.ndarray]:
    """Codes (int32) for each part over the sorted vocabulary of all parts, and that vocabulary (object array)."""
    codes, vocabulary = encode(*parts)
    return codes, as_objects(vocabulary)


def lookup(values, vocabulary: pa.Array) -> np.ndarray:
    """Position of each value in ``vocabulary`` (int64), -1 where it is absent; by hashing."""
    found = pc.index_in(as_text(values), value_set=vocabulary)
    return as_numpy(found, null=-1).astype(np.int64)


def ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The integers of ``starts[k]:ends[k]`` for each k, concatenated (int64)."""
    starts, sizes = np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64) - starts
    return np.arange(int(sizes.sum()), dtype=np.int64) + np.repeat(starts - (np.cumsum(sizes) - sizes), sizes)


def pair_keys(first: np.ndarray, second: np.ndarray, n_second: int) -> np.ndarray:
    """One sortable int64 key per (first, second) code pair, ordered by first, then second."""
    return first.astype(np.int64) * np.int64(max(n_second, 1)) + second.astype(np.int64)


_HASH_ROWS = 1 << 15  # ids hashed at a time: the temporary arrays (256 KB) stay in cache and are reused
_PAD = 0x20  # ids are padded with spaces to whole 8-byte words; the length, hashed first, tells the padding apart


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser, in place on ``z`` (returned): a bijection of uint64 that spreads every input bit
    over the output."""
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return z


def _hash_words(words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The hash of ids given as rows of 8-byte words (space-padded) and their byte lengths."""
    h = _mix(lengths.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15))
    n_words = (lengths + 7) // 8
    for k in range(words.shape[1]):
        np.copyto(h, _mix(h ^ words[:, k]), where=k < n_words)
    return h


def string_hashes(values) -> np.ndarray:
    """A 64-bit hash (uint64) of each id: its byte length, then its UTF-8 bytes in 8-byte words, each mixed into
    the hash by SplitMix64's finaliser (the same on every machine); computed with numpy over Arrow buffers, no
    Python object per id.

    Equal ids get equal hashes; different ids collide with a tiny probability, so a caller that matches by hash
    compares the ids themselves before it trusts a match (:meth:`ir_pref_measures.model.rankings.Ranking.rank_of`).
    """
    array = as_text(values)
    if pa.types.is_large_string(array.type):
        array = array.cast(pa.string())
    out = np.empty(len(array), dtype=np.uint64)
    for lo in range(0, len(array), _HASH_ROWS):
        part = array.slice(lo, _HASH_ROWS)
        lengths = as_numpy(pc.binary_length(part)).astype(np.int64)
        width = max(8, -(-int(lengths.max()) // 8) * 8)
        out[lo : lo + len(part)] = _hash_words(_padded(part, lengths, width).view("<u8"), lengths)
    return out


def _padded(part: pa.Array, lengths: np.ndarray, width: int) -> np.ndarray:
    """The ids of ``part`` as a (n, width) uint8 matrix, each padded with spaces: by Arrow's ``ascii_rpad`` when
    every id is ASCII, else byte by byte."""
    n = len(part)
    padded = pc.ascii_rpad(part, width=width, padding=" ") if pc.all(pc.string_is_ascii(part)).as_py() else None
    if padded is not None:
        _, offsets, data = padded.buffers()
        first = np.frombuffer(offsets, dtype=np.int32)[padded.offset]
        return np.frombuffer(data, dtype=np.uint8, count=n * width, offset=int(first)).reshape(n, width)
    _, offsets, data = part.buffers()
    offsets = np.frombuffer(offsets, dtype=np.int32)[part.offset : part.offset + n + 1].astype(np.int64)
    matrix = np.full((n, width), _PAD, dtype=np.uint8)
    start = offsets[0]
    row = np.repeat(np.arange(n), lengths)
    column = np.arange(offsets[-1] - start) - np.repeat(offsets[:-1] - start, lengths)
    matrix[row, column] = np.frombuffer(data, dtype=np.uint8)[start : offsets[-1]]
    return matrix


def first_repeat(keys: np.ndarray) -> int | None:
    """The first row whose key an earlier row holds already (``None`` when every key is distinct)."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    later = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1]) + 1
    return int(order[later].min()) if len(later) else None


def unique_sorted(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted: by a sort (numpy 2's hash-based ``np.unique`` is several times slower on
    large integer arrays)."""
    ordered = np.sort(values, kind="stable")
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if len(ordered) else ordered
