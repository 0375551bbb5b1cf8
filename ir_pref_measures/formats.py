"""Readers for the files of preference-based evaluation: TREC qrels, TREC runs, preference files.

All formats are whitespace-separated, one judgment or result per line; blank lines are ignored and
``.gz`` files are read transparently. Files are parsed by Arrow's CSV reader when every field is separated
by one tab or one space, else by pandas' C parser; when either meets anything unexpected, a line-by-line
scan finds the first bad line and raises :class:`InputError` naming the file, the line number, the line
and what was expected.

Preference formats (the in-memory form is always the ``carterette`` one: columns ``query_id, doc_id_a,
doc_id_b, preference`` with ``-1`` = a preferred, ``1`` = b preferred, ``0`` = duplicates, ``-2`` = a bad
(b is ``NA``), ``2`` = b bad (a is ``NA``)):

============  =============================  ==============================================
name          line                           source
============  =============================  ==============================================
carterette    ``qid src tgt pref``           Carterette et al. 2008; ``pairwise_pref_eval.py``
winner        ``qid docA docB winnerDoc``    CAsT 2019 top-k prefs; dueling bandits DL 2021
pairs         ``qid winner loser``           Greedy PGC input; GPT-4o DL preferences
qrels         ``qid 0 doc value``            float-valued qrels, larger = preferred
============  =============================  ==============================================
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv as pa_csv

from ir_pref_measures.errors import InputError

Source = str | os.PathLike | IO[str]

PREFERENCE_FORMATS = ("carterette", "winner", "pairs", "qrels")
CARTERETTE_VALUES = ("-2", "-1", "0", "1", "2")  # as text, for format detection
NA = "NA"


@dataclass(frozen=True)
class _Layout:
    """A whitespace-separated line layout: field names (``None`` = read but unused) and numeric fields."""

    name: str
    fields: tuple[str | None, ...]
    numeric: tuple[str, ...] = ()
    note: str = ""

    @property
    def expected(self) -> str:
        shown = " ".join(f or "_" for f in self.fields)
        return f"{len(self.fields)} whitespace-separated fields ({self.name}: {shown}){self.note}"


QRELS = _Layout("TREC qrels", ("query_id", "iteration", "doc_id", "relevance"), ("relevance",))
RUN = _Layout("TREC run", ("query_id", None, "doc_id", "rank", "score", None), ("score",))
CARTERETTE = _Layout(
    "carterette preferences",
    ("query_id", "doc_id_a", "doc_id_b", "preference"),
    ("preference",),
    note="; preference -1 (a preferred), 1 (b preferred), 0 (duplicates), -2 (a bad, b NA), 2 (a NA, b bad)",
)
WINNER = _Layout("winner preferences", ("query_id", "doc_id_a", "doc_id_b", "winner"))
PAIRS = _Layout("pairs preferences", ("query_id", "winner", "loser"))


def _name(source: Source) -> str:
    return str(source) if isinstance(source, str | os.PathLike) else getattr(source, "name", "<stream>")


def _open_text(source: Source) -> IO[str]:
    if not isinstance(source, str | os.PathLike):
        source.seek(0)
        return source
    if str(source).endswith(".gz"):
        return gzip.open(source, "rt", encoding="utf-8")
    return open(source, encoding="utf-8")


def _lines(source: Source) -> Iterator[tuple[int, str]]:
    handle = _open_text(source)
    try:
        yield from enumerate(handle, start=1)
    finally:
        if isinstance(source, str | os.PathLike):
            handle.close()


def line_text(source: Source, line_no: int) -> str:
    """The text of line ``line_no`` (1-based) of ``source``, for error messages."""
    for number, line in _lines(source):
        if number == line_no:
            return line
    return ""


def _delimiter(source: Source) -> str | None:
    """The one-character delimiter of a file whose fields are separated by single tabs or single spaces."""
    if not isinstance(source, str | os.PathLike):
        return None
    for _, line in _lines(source):
        line = line.rstrip("\n").rstrip("\r")
        if not line.strip():
            return None
        if "\t" in line and " " not in line:
            return "\t"
        if " " in line and "\t" not in line and "  " not in line and line == line.strip():
            return " "
        return None
    return None


def _arrow_read(source: Source, layout: _Layout) -> pd.DataFrame | None:
    """Read with Arrow's CSV reader (no Python object per field); ``None`` unless every line is regular."""
    delimiter = _delimiter(source)
    if delimiter is None:
        return None
    names = [f"f{i}" for i in range(len(layout.fields))]
    types = {n: pa.float64() if f in layout.numeric else pa.string() for n, f in zip(names, layout.fields, strict=True)}
    try:
        table = pa_csv.read_csv(
            source,
            read_options=pa_csv.ReadOptions(column_names=names, use_threads=False),  # threads: +60% memory
            parse_options=pa_csv.ParseOptions(delimiter=delimiter, quote_char=False, ignore_empty_lines=False),
            convert_options=pa_csv.ConvertOptions(
                column_types=types, null_values=[], strings_can_be_null=False, include_columns=names
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError):
        return None
    for name, field in zip(names, layout.fields, strict=True):
        column = table.column(name)
        if field in layout.numeric:
            if column.null_count:
                return None
        elif pc.any(pc.equal(pc.utf8_length(column), 0)).as_py():
            return None
    frame = table.select([n for n, f in zip(names, layout.fields, strict=True) if f is not None]).to_pandas(
        types_mapper={pa.string(): pd.StringDtype("pyarrow")}.get
    )
    frame.columns = [f for f in layout.fields if f is not None]
    frame["line"] = np.arange(1, len(frame) + 1, dtype=np.int64)
    return frame


def _fast_read(source: Source, layout: _Layout) -> pd.DataFrame | None:
    """Read with the C parser; ``None`` if anything is off (the slow scan then finds it)."""
    width = len(layout.fields)
    numeric = {i for i, f in enumerate(layout.fields) if f in layout.numeric}
    dtype = {i: (np.float64 if i in numeric else str) for i in range(width + 1)}
    if isinstance(source, io.IOBase):
        source.seek(0)
    try:
        frame = pd.read_csv(
            source,
            sep=r"\s+",
            header=None,
            names=list(range(width + 1)),
            dtype=dtype,
            skip_blank_lines=False,
            keep_default_na=False,
            na_filter=False,
            quoting=csv.QUOTE_NONE,
            engine="c",
            compression="infer" if isinstance(source, str | os.PathLike) else None,
        )
    except (ValueError, pd.errors.ParserError):
        return None
    last = frame[width - 1]
    if len(frame) and (frame[width].ne("").any() or (last.dtype != np.float64 and last.eq("").any())):
        return None
    out = frame[[i for i, f in enumerate(layout.fields) if f is not None]]
    out.columns = [f for f in layout.fields if f is not None]
    out.insert(len(out.columns), "line", np.arange(1, len(out) + 1, dtype=np.int64))
    return out.reset_index(drop=True)


def _slow_read(source: Source, layout: _Layout) -> pd.DataFrame:
    """Line-by-line scan: raises on the first bad line, else returns the table (blank lines skipped)."""
    width = len(layout.fields)
    rows: list[list] = []
    numbers: list[int] = []
    for line_no, line in _lines(source):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != width:
            raise InputError(
                f"{len(parts)} fields instead of {width}",
                path=_name(source),
                line_no=line_no,
                line=line,
                expected=layout.expected,
            )
        row = []
        for field, value in zip(layout.fields, parts, strict=True):
            if field is None:
                continue
            if field in layout.numeric:
                try:
                    row.append(float(value))
                except ValueError:
                    raise InputError(
                        f"{field} {value!r} is not a number",
                        path=_name(source),
                        line_no=line_no,
                        line=line,
                        expected=layout.expected,
                    ) from None
            else:
                row.append(value)
        rows.append(row)
        numbers.append(line_no)
    columns = [f for f in layout.fields if f is not None]
    frame = pd.DataFrame(rows, columns=columns)
    for field in columns:
        frame[field] = frame[field].astype(np.float64 if field in layout.numeric else object)
    frame["line"] = np.asarray(numbers, dtype=np.int64)
    return frame


def read_table(source: Source, layout: _Layout) -> pd.DataFrame:
    """Read ``source`` with ``layout``; an empty file (no data line) is an error."""
    frame = _arrow_read(source, layout)
    if frame is None:
        frame = _fast_read(source, layout)
    if frame is None:
        frame = _slow_read(source, layout)
    if frame.empty:
        raise InputError("the file has no data lines", path=_name(source), expected=layout.expected)
    return frame


def _fail_at(source: Source, frame: pd.DataFrame, bad: np.ndarray, message, layout: _Layout) -> None:
    """Raise for the first row flagged in ``bad`` (a boolean mask over ``frame``)."""
    if not bad.any():
        return
    row = int(np.flatnonzero(bad)[0])
    line_no = int(frame["line"].iloc[row])
    raise InputError(
        message(frame.iloc[row]),
        path=_name(source),
        line_no=line_no,
        line=line_text(source, line_no),
        expected=layout.expected,
    )


def read_qrels(source: Source) -> pd.DataFrame:
    """TREC qrels ``qid iteration doc value`` -> ``query_id, iteration, doc_id, relevance, line``.

    ``relevance`` is int64 when every value is integral, else float64. The second column (the
    iteration, or a subtopic id in diversity qrels) is kept as text.
    """
    frame = read_table(source, QRELS)
    _fail_at(
        source,
        frame,
        ~np.isfinite(frame["relevance"].to_numpy()),
        lambda r: f"relevance {r['relevance']!r} is not a finite number",
        QRELS,
    )
    values = frame["relevance"].to_numpy()
    if np.all(values == np.round(values)):
        frame["relevance"] = values.astype(np.int64)
    return frame


def read_run(source: Source, *, keep_rank: bool = False) -> pd.DataFrame:
    """TREC run ``qid Q0 doc rank score tag`` -> ``query_id, doc_id, score, line`` (and ``rank``).

    The rank column is not used by the library (the order is score descending, ties by doc id
    descending) and is returned only with ``keep_rank=True``, as text.
    """
    frame = read_table(source, RUN)
    _fail_at(
        source,
        frame,
        np.isnan(frame["score"].to_numpy()),
        lambda r: "score is NaN",
        RUN,
    )
    if not keep_rank:
        frame = frame.drop(columns="rank")
    return frame


def _detect_one(parts: Sequence[str]) -> set[str]:
    if len(parts) == 3:
        return {"pairs"}
    if len(parts) != 4:
        return set()
    qid, a, b, last = parts
    found = set()
    if last in CARTERETTE_VALUES:
        found.add("carterette")
    if last in (a, b):
        found.add("winner")
    if a in ("0", "Q0"):
        try:
            float(last)
            found.add("qrels")
        except ValueError:
            pass
    return found


def detect_preference_format(source: Source, sample: int = 10_000) -> str:
    """Name the preference format of ``source`` from its first ``sample`` data lines.

    Raises :class:`InputError` asking for ``format=`` when no format or more than one fits every line.
    """
    candidates = set(PREFERENCE_FORMATS)
    seen = 0
    for line_no, line in _lines(source):
        parts = line.split()
        if not parts:
            continue
        fits = _detect_one(parts)
        if not fits & candidates:
            raise InputError(
                "this line fits no preference format"
                + (f" that the lines before it fit ({', '.join(sorted(candidates))})" if seen else ""),
                path=_name(source),
                line_no=line_no,
                line=line,
                expected="one of: carterette 'qid src tgt pref', winner 'qid docA docB winnerDoc', "
                "pairs 'qid winner loser', qrels 'qid 0 doc value'; pass format= to say which",
            )
        candidates &= fits
        seen += 1
        if seen >= sample:
            break
    if not seen:
        raise InputError("the file has no data lines", path=_name(source))
    if len(candidates) > 1:
        raise InputError(
            f"the preference format is ambiguous: the lines fit {', '.join(sorted(candidates))}; "
            "pass format= (or --prefs-format) to say which",
            path=_name(source),
        )
    return candidates.pop()


def read_preferences(source: Source, format: str | None = None) -> pd.DataFrame:
    """Read a preference file into ``query_id, doc_id_a, doc_id_b, preference, line`` (carterette values).

    ``format`` is one of ``carterette``, ``winner``, ``pairs`` (``qrels`` files hold grades, not pairs:
    read them with :func:`read_qrels`). Without ``format`` it is detected when unambiguous.
    """
    if format is None:
        format = detect_preference_format(source)
    if format == "carterette":
        return _carterette(source)
    if format == "winner":
        frame = read_table(source, WINNER)
        a, b, winner = (frame[c].to_numpy() for c in ("doc_id_a", "doc_id_b", "winner"))
        _fail_at(
            source,
            frame,
            (winner != a) & (winner != b),
            lambda r: f"winner {r['winner']!r} is neither {r['doc_id_a']!r} nor {r['doc_id_b']!r}",
            WINNER,
        )
        preference = np.where(winner == a, -1, 1).astype(np.int8)
        return _preference_frame(frame["query_id"], frame["doc_id_a"], frame["doc_id_b"], preference, frame)
    if format == "pairs":
        frame = read_table(source, PAIRS)
        preference = np.full(len(frame), -1, dtype=np.int8)
        return _preference_frame(frame["query_id"], frame["winner"], frame["loser"], preference, frame)
    if format == "qrels":
        raise ValueError("format='qrels' holds grades, not pairs: read it with read_qrels()")
    raise ValueError(f"unknown preference format {format!r}; known: {', '.join(PREFERENCE_FORMATS)}")


def _carterette(source: Source) -> pd.DataFrame:
    frame = read_table(source, CARTERETTE)
    values = frame["preference"].to_numpy()
    _fail_at(
        source,
        frame,
        ~np.isin(values, (-2, -1, 0, 1, 2)),
        lambda r: f"unknown preference value '{r['preference']:g}'",
        CARTERETTE,
    )
    preference = values.astype(np.int8)
    for value, column, message in (
        (-2, "doc_id_b", "preference -2 marks {} bad, so the second doc must be NA"),
        (2, "doc_id_a", "preference 2 marks {} bad, so the first doc must be NA"),
    ):
        marked = np.flatnonzero(preference == value)
        not_na = np.zeros(len(frame), dtype=bool)
        not_na[marked] = frame[column].iloc[marked].str.upper().to_numpy() != NA
        other = "doc_id_a" if column == "doc_id_b" else "doc_id_b"
        _fail_at(source, frame, not_na, lambda r, m=message, o=other: m.format(repr(r[o])), CARTERETTE)
    return _preference_frame(frame["query_id"], frame["doc_id_a"], frame["doc_id_b"], preference, frame)


def _preference_frame(qid, a, b, preference: np.ndarray, frame: pd.DataFrame) -> pd.DataFrame:
    columns = {"query_id": qid, "doc_id_a": a, "doc_id_b": b, "preference": preference, "line": frame["line"]}
    return pd.DataFrame(columns, index=frame.index, copy=False)


IMAGE_TAGS = "query<TAB>engine/query_i.jpg,engine/query_j.jpg<TAB>tag<TAB>tag<TAB>tag, tags in -2..2 (- = left better)"
IMAGE_ENGINES = {"0": "sogou", "1": "baidu"}


def read_image_pairs(source: Source) -> pd.DataFrame:
    """Xie et al.'s image-pair judgments (SIGIR 2020, ``image_pairs_annotation``) -> the carterette table,
    one row per assessor tag: tag -2/-1 (left image better) -> -1, 1/2 (right better) -> 1, 0 (tie) -> 0.

    Tab-separated with one header line: ``query, "left,right", tag, tag, tag``.
    """
    rows: list[tuple] = []
    for line_no, line in _lines(source):
        if line_no == 1 or not line.strip():
            continue
        parts = line.rstrip("\r\n").split("\t")
        pair = parts[1].split(",") if len(parts) == 5 else []
        try:
            tags = [float(tag) for tag in parts[2:]] if len(pair) == 2 else []
        except ValueError:
            tags = []
        if not tags or any(tag not in (-2, -1, 0, 1, 2) for tag in tags):
            raise InputError(
                "not an image-pair judgment", path=_name(source), line_no=line_no, line=line, expected=IMAGE_TAGS
            )
        rows.extend((parts[0], pair[0], pair[1], int(np.sign(tag)), line_no) for tag in tags)
    if not rows:
        raise InputError("the file has no data lines", path=_name(source), expected=IMAGE_TAGS)
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id_a", "doc_id_b", "preference", "line"])
    frame["preference"] = frame["preference"].astype(np.int8)
    return frame


def read_image_positions(source: Source) -> pd.DataFrame:
    """Xie et al.'s ``Image_position.json`` (``{query: {"0" sogou | "1" baidu: {index: [row, col,
    images in row]}}}``) -> ``query_id, engine, doc_id, row, col, width``, doc ids as in the pair file
    (``engine/query_index.jpg``)."""
    handle = _open_text(source)
    try:
        data = json.load(handle)
    except json.JSONDecodeError as error:
        raise InputError(f"not JSON: {error}", path=_name(source)) from None
    finally:
        if isinstance(source, str | os.PathLike):
            handle.close()
    rows = []
    try:
        for query, engines in data.items():
            for code, images in engines.items():
                engine = IMAGE_ENGINES[code]
                for index, (row, col, width) in images.items():
                    rows.append((query, engine, f"{engine}/{query}_{index}.jpg", int(row), int(col), int(width)))
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise InputError(
            f"unexpected image-position entry ({error!r})",
            path=_name(source),
            expected='{query: {"0" (sogou) | "1" (baidu): {image index: [row, col, images in row]}}}',
        ) from None
    return pd.DataFrame(rows, columns=["query_id", "engine", "doc_id", "row", "col", "width"])
