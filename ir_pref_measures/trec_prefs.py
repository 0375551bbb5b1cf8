"""Readers for trec_eval's preference judgments (``-R prefs``, ``-R qrels_prefs``) and its runs.

* ``prefs``: lines ``qid jg jsg docno rel_level`` (trec_eval 9.0+, C. Buckley 2008, ``get_prefs.c``);
* ``qrels_prefs``: a TREC qrels file read as ``qid jg docno rel_level``, every line in jsg ``0``
  (``get_qrels_prefs.c``): the second column of a qrels file is the judgment group;
* the run, as trec_eval reads it: ``qid iter docno rank sim runid`` and any further fields ignored.

Judgment lines have exactly 5 (4) fields; a line starting with ``#`` is a comment; a blank line is an
error, as in trec_eval ("Malformed line"). The tables have the columns ``query_id, jg, jsg, doc_id,
level, line``. The judgment groups are checked as trec_eval checks them (:func:`check_groups`), with
one difference: where trec_eval aborts (``abort()``, exit 134) on a cycle in a several-sub-group group,
this raises :class:`~ir_pref_measures.errors.InputError`. Other differences, all on input trec_eval
accepts silently: a level or score that is not a number is an error here (trec_eval's ``atof`` reads 0),
and every line starting with ``#`` is a comment (trec_eval parses the second of two consecutive ones).
"""

from __future__ import annotations

import gzip
import os

import numpy as np
import pandas as pd

from ir_pref_measures.errors import InputError
from ir_pref_measures.formats import Source, _Layout, read_table
from ir_pref_measures.measures.trec_prefs import find_inconsistency

PREFS = ("query_id", "jg", "jsg", "doc_id", "level")
QRELS_PREFS = ("query_id", "jg", "doc_id", "level")
RUN = ("query_id", None, "doc_id", None, "score", "run_id")
_RUN_LAYOUT = _Layout("TREC run (trec_eval)", RUN, ("score",))
TABLE_COLUMNS = ("query_id", "jg", "jsg", "doc_id", "level", "line")


def _name(source: Source) -> str:
    return str(source) if isinstance(source, str | os.PathLike) else getattr(source, "name", "<stream>")


def _text(source: Source) -> str:
    if not isinstance(source, str | os.PathLike):
        source.seek(0)
        return source.read()
    try:
        opener = gzip.open if str(source).endswith(".gz") else open
        with opener(source, "rt", encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the file ({error})", path=_name(source)) from None


def _expected(fields: tuple[str | None, ...], extra: bool) -> str:
    shown = " ".join(f or "_" for f in fields)
    return f"{'at least ' if extra else ''}{len(fields)} whitespace-separated fields: {shown}"


def read_fields(source: Source, fields: tuple[str | None, ...], *, blank_ok: bool, extra_ok: bool) -> pd.DataFrame:
    """A minimal line reader with trec_eval's rules: ``#`` lines are comments, fields split on whitespace.

    ``fields`` names the columns (``None``: read, not kept); ``blank_ok``: blank lines are skipped (runs)
    rather than errors (judgments); ``extra_ok``: fields past the last are ignored (runs).
    """
    lines = _text(source).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    parts = [line.split() for line in lines]
    width = len(fields)
    count = np.fromiter(map(len, parts), np.int64, len(parts))
    comment = np.fromiter((line.startswith("#") for line in lines), bool, len(lines))
    skip = comment | ((count == 0) & blank_ok)
    bad = ~skip & ((count < width) | ((count > width) & (not extra_ok)))
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        problem = "blank line" if count[at] == 0 else f"{count[at]} fields instead of {width}"
        raise InputError(
            f"Malformed line: {problem}",
            path=_name(source),
            line_no=at + 1,
            line=lines[at],
            expected=_expected(fields, extra_ok),
        )
    keep = np.flatnonzero(~skip)
    if not len(keep):
        raise InputError("the file has no data lines", path=_name(source), expected=_expected(fields, extra_ok))
    columns = list(zip(*(parts[i][:width] for i in keep), strict=True))
    frame = pd.DataFrame({f: np.asarray(c, dtype=object) for f, c in zip(fields, columns, strict=True) if f})
    frame["line"] = keep + 1
    return frame


def _numbers(frame: pd.DataFrame, column: str, source: Source, fields) -> np.ndarray:
    """``frame[column]`` as finite float64, or :class:`InputError` at the first value that is not."""
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        line_no = int(frame["line"].iloc[row])
        raise InputError(
            f"{column} {frame[column].iloc[row]!r} is not a finite number",
            path=_name(source),
            line_no=line_no,
            line=_text(source).split("\n")[line_no - 1],
            expected=_expected(fields, False),
        )
    return values


def read_prefs(source: Source) -> pd.DataFrame:
    """A trec_eval ``prefs`` file -> ``query_id, jg, jsg, doc_id, level, line``, checked (:func:`check_groups`)."""
    frame = read_fields(source, PREFS, blank_ok=False, extra_ok=False)
    frame["level"] = _numbers(frame, "level", source, PREFS)
    return check_groups(frame[list(TABLE_COLUMNS)], source)


def read_qrels_prefs(source: Source) -> pd.DataFrame:
    """A TREC qrels file read as trec_eval's ``qrels_prefs``: the second column is the jg, the jsg is ``0``."""
    frame = read_fields(source, QRELS_PREFS, blank_ok=False, extra_ok=False)
    frame["level"] = _numbers(frame, "level", source, QRELS_PREFS)
    frame["jsg"] = "0"
    return check_groups(frame[list(TABLE_COLUMNS)], source)


def codes(values: pd.Series) -> np.ndarray:
    """Int codes of strings in ``strcmp`` order (code point order is UTF-8 byte order)."""
    return np.unique(values.to_numpy(dtype=str), return_inverse=True)[1].astype(np.int64)


def check_groups(table: pd.DataFrame, source: Source) -> pd.DataFrame:
    """``table`` if trec_eval accepts its judgment groups, else :class:`InputError` naming both lines.

    One-sub-group jg: a doc at two levels. Several sub-groups: a doc at level 0 and at a positive level
    (checked along jsg, level descending, as trec_eval), or a cycle after transitive closure.
    """
    found = find_inconsistency(
        *(codes(table[c]) for c in ("query_id", "jg", "jsg", "doc_id")), table["level"].to_numpy()
    )
    if found is None:
        return table
    first, second = (table.iloc[row] for row in found.rows)
    text = _text(source).split("\n")
    raise InputError(
        f"{found.message}: query {first['query_id']}, jg {first['jg']}, docs {first['doc_id']} and {second['doc_id']}"
        f" (the other line is line {second['line']}: {text[second['line'] - 1].strip()!r})",
        path=_name(source),
        line_no=int(first["line"]),
        line=text[first["line"] - 1],
        expected="consistent preferences within a judgment group (trec_eval: Pref inconsistency)",
    )


def read_run(source: Source) -> tuple[pd.DataFrame, str]:
    """A run as trec_eval reads it -> (``query_id, doc_id, score, line``, the run id of its last line)."""
    try:
        frame = read_table(source, _RUN_LAYOUT)
        if frame["query_id"].astype(str).str.startswith("#").any():
            raise InputError("comment lines")
        frame["score"] = frame["score"].to_numpy(np.float64)
    except InputError:
        frame = read_fields(source, RUN, blank_ok=True, extra_ok=True)
        frame["score"] = _numbers(frame, "score", source, RUN)
    return frame[["query_id", "doc_id", "score", "line"]], str(frame["run_id"].iloc[-1])
