"""Interning of query and doc ids: strings become integer codes in string order, once.

Each part is dictionary-encoded by Arrow (hashing, no sort of the part); only the small dictionaries are
unified and sorted. Every sort and join of the library then works on integers (pairs of codes combined
into one int64 key), never on Python strings.
"""

from __future__ import annotations

from typing import NoReturn

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ir_pref_measures.errors import InputError


def is_pandas(value, *classes: str) -> bool:
    """True when ``value`` is an instance of one of pandas' ``classes`` (by name, subclasses too), found without
    importing pandas: none exists before pandas is imported, and another thread may be importing it, half done,
    while this one reads a file."""
    return any(c.__name__ in classes and c.__module__.partition(".")[0] == "pandas" for c in type(value).__mro__)


def as_text(values, what: str = "id") -> pa.Array:
    """Ids as an Arrow string array, by one rule for every in-memory form (a pandas Series or Index, a numpy or
    Arrow array, a list), ``what`` naming the column in messages:

    * text (``str``, numpy, pandas and Arrow strings, categories of text) is taken as it is;
    * an integer (Python ``int`` of any size, numpy and pandas integer types, nullable ones too) becomes its
      decimal string: ``7`` -> ``"7"``, ``2**70`` -> ``"1180591620717411303424"``, whatever the column's type;
    * a float that is an integer becomes that integer's decimal string (``7.0`` -> ``"7"``: a qid column that
      pandas made float matches the file's ``7``); another finite float its shortest round-trip text (``2.5``);
    * ``bytes`` are decoded as UTF-8;
    * a missing id (``None``, NaN, ``pd.NA``), a boolean, an infinite float, bytes that are not UTF-8 and any
      other type (dates, ``Decimal``, tuples, ...) are an :class:`InputError` naming ``what`` and the row
      (0-based position).
    """
    if is_pandas(values, "Series", "Index"):
        if type(values.dtype).__name__ == "CategoricalDtype":
            categories = as_text(values.cat.categories if hasattr(values, "cat") else values.categories, what)
            codes = np.asarray(values.cat.codes if hasattr(values, "cat") else values.codes, dtype=np.int64)
            _refuse_missing(codes < 0, what)
            return categories.take(arrow(codes))
        if isinstance(values.dtype, np.dtype):  # numpy-backed (object, numbers, ...)
            values = values.to_numpy()
        else:  # an extension array: Arrow-backed or nullable (masked) values
            try:
                values = pa.array(values.array, from_pandas=True)
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
                values = np.asarray(values, dtype=object)
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(values, pa.Array):
        return _arrow_text(values, what)
    if not isinstance(values, np.ndarray):
        items = list(values)
        values = np.empty(len(items), dtype=object)
        values[:] = items
    kind = values.dtype.kind
    if kind in "iu":
        return pc.cast(arrow(values), pa.string())
    if kind == "f":
        return _float_text(values.astype(np.float64), what)
    if kind == "S":
        return _arrow_text(pa.array(values, pa.binary()), what)
    if kind not in "UO":
        reason = "a boolean, not an id" if kind == "b" else f"of type {values.dtype}, not an id"
        _refuse(0, values[0].item() if len(values) else None, reason, what)
    try:  # strings, built from buffers (pa.array would import pandas)
        return arrow(values)
    except (AttributeError, TypeError, UnicodeEncodeError):  # not every value is a string: each by the rule
        return pa.array([_text_of(v, row, what) for row, v in enumerate(values.tolist())], pa.string())


def _arrow_text(array: pa.Array, what: str) -> pa.Array:
    """:func:`as_text` of an Arrow array."""
    kind = array.type
    if pa.types.is_dictionary(kind):
        array = array.dictionary_decode()
        kind = array.type
    if array.null_count:
        _refuse_missing(as_numpy(array.is_null()), what)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return array
    if pa.types.is_integer(kind):
        return pc.cast(array, pa.string())
    if pa.types.is_floating(kind):
        return _float_text(as_numpy(array).astype(np.float64), what)
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        try:
            return array.cast(pa.large_string() if pa.types.is_large_binary(kind) else pa.string())
        except pa.ArrowInvalid:  # name the first value that is not UTF-8
            for row, value in enumerate(array.to_pylist()):
                _text_of(value, row, what)
            raise
    reason = "a boolean, not an id" if pa.types.is_boolean(kind) else f"of type {kind}, not an id"
    _refuse(0, array[0].as_py() if len(array) else None, reason, what)


def _float_text(values: np.ndarray, what: str) -> pa.Array:
    """Floats as ids: an integer's decimal string, else the shortest round-trip text (:func:`as_text`)."""
    finite = np.isfinite(values)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        value = float(values[row])
        _refuse(row, value, "missing (NaN)" if np.isnan(value) else "not a finite number", what)
    exact = (values == np.floor(values)) & (np.abs(values) < 2.0**63)
    if exact.all():
        return pc.cast(arrow(values.astype(np.int64)), pa.string())
    return pa.array([_text_of(v, row, what) for row, v in enumerate(values.tolist())], pa.string())


def _text_of(value, row: int, what: str) -> str:
    """One id of an object column by the rule of :func:`as_text`."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            _refuse(row, value, "not valid Unicode text (it holds a lone surrogate)", what)
        return value
    if isinstance(value, bool | np.bool_):
        _refuse(row, value, "a boolean, not an id", what)
    if isinstance(value, int | np.integer):
        return integer_text(int(value))
    if isinstance(value, float | np.floating):
        value = float(value)
        if value != value:
            _refuse(row, value, "missing (NaN)", what)
        if not np.isfinite(value):
            _refuse(row, value, "not a finite number", what)
        return integer_text(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            _refuse(row, value, "bytes that are not UTF-8", what)
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        _refuse(row, value, "missing", what)
    _refuse(row, value, f"a {type(value).__name__}, not an id", what)


def integer_text(number: int) -> str:
    """The decimal string of an integer of any size (``str`` refuses more than ``sys.get_int_max_str_digits()``
    digits)."""
    try:
        return str(number)
    except ValueError:  # longer than the interpreter's limit: in blocks of 1000 digits
        sign, number = ("-", -number) if number < 0 else ("", number)
        blocks = []
        while number:
            number, block = divmod(number, 10**1000)
            blocks.append(block)
        return sign + str(blocks[-1]) + "".join(f"{block:01000d}" for block in reversed(blocks[:-1]))


def _refuse_missing(missing: np.ndarray, what: str) -> None:
    if missing.any():
        _refuse(int(np.flatnonzero(missing)[0]), None, "missing", what)


def _refuse(row: int, value, reason: str, what: str) -> NoReturn:
    """Raise the :class:`InputError` of an id that breaks the rule of :func:`as_text`."""
    shown = "" if value is None else f" {_short(value)}"
    raise InputError(
        f"row {row}: {what}{shown} is {reason}",
        expected="ids as text or integers (an integer becomes its decimal string), none missing",
    )


def _short(value, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters."""
    if isinstance(value, int) and value.bit_length() > 1000:
        return f"<an integer of {value.bit_length()} bits>"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


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


def intern_blocks(values) -> tuple[np.ndarray, np.ndarray]:
    """:func:`intern` of one column whose equal values come in one block each, as the query ids of a run file: the
    blocks found by one comparison of neighbours, the vocabulary sorted from their first values, the codes repeated
    over the blocks (no hash of every value); any other column (a value in two blocks, nulls) by :func:`intern`."""
    text = as_text(values)
    if len(text) > 1 and not text.null_count:
        change = as_numpy(pc.not_equal(text.slice(1), text.slice(0, len(text) - 1)))
        starts = np.flatnonzero(np.r_[True, change])
        if len(starts) <= len(text) // 4:  # few blocks; many (a column of distinct values): hashing is faster
            firsts = text.take(arrow(starts))
            order = as_numpy(pc.array_sort_indices(firsts))
            vocabulary = firsts.take(arrow(order))
            if not pc.any(pc.equal(vocabulary.slice(1), vocabulary.slice(0, len(order) - 1))).as_py():
                place = np.empty(len(order), dtype=np.int32)
                place[order] = np.arange(len(order), dtype=np.int32)
                return np.repeat(place, np.diff(np.r_[starts, len(text)])), as_objects(vocabulary)
    (codes,), vocabulary = intern(text)
    return codes, vocabulary


def lookup(values, vocabulary: pa.Array) -> np.ndarray:
    """Position of each value in ``vocabulary`` (int64), -1 where it is absent; by hashing."""
    found = pc.index_in(as_text(values), value_set=vocabulary)
    return as_numpy(found, null=-1).astype(np.int64)


def ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The integers of ``starts[k]:ends[k]`` for each k, concatenated (int64): the cumulative sum of steps of 1,
    with a jump to each range's start (a ufunc, which lets other threads run, where ``np.repeat`` holds the GIL)."""
    starts, ends = np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64)
    kept = ends > starts
    starts, sizes = starts[kept], ends[kept] - starts[kept]
    step = np.ones(int(sizes.sum()), dtype=np.int64)
    if len(starts):
        step[np.cumsum(sizes[:-1])] = starts[1:] - (starts[:-1] + sizes[:-1] - 1)
        step[0] = starts[0]
    return np.cumsum(step)


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
