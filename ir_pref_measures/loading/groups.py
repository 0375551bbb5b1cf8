"""trec_eval's judgment group files (``-R prefs``: ``qid jg jsg doc level``; ``-R qrels_prefs``: ``qid jg doc
level``), read and checked as trec_eval checks its judgment groups (trec_eval 9.x, ``form_prefs_counts.c``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ir_pref_measures.measures.trec_groups import find_inconsistency
from ir_pref_measures.parsing.files import RawFile, load
from ir_pref_measures.parsing.preferences import read_qrels_prefs, read_trec_prefs

READERS = {"prefs": read_trec_prefs, "qrels_prefs": read_qrels_prefs}


def codes(values: pd.Series) -> np.ndarray:
    """Int codes of strings in ``strcmp`` order (code point order is UTF-8 byte order)."""
    return np.unique(values.to_numpy(dtype=str), return_inverse=True)[1].astype(np.int64)


def read_judgments(source, format: str, *, allow_cycles: bool = True) -> pd.DataFrame:
    """Judgments in trec_eval's ``format`` (``prefs`` or ``qrels_prefs``) as ``query_id, jg, jsg, doc_id, level,
    line``, their judgment groups checked as trec_eval checks them (:func:`check_groups`); ``allow_cycles=False``
    (the drop-in) refuses a cycle too, which the library condenses."""
    raw = load(source)
    return check_groups(READERS[format](raw), raw, allow_cycles=allow_cycles)


def check_groups(table: pd.DataFrame, raw: RawFile, *, allow_cycles: bool) -> pd.DataFrame:
    """``table`` if trec_eval accepts its judgment groups, else :class:`InputError` naming both lines.

    One-sub-group jg: a doc at two levels. Several sub-groups: a doc at level 0 and at a positive level
    (checked along jsg, level descending, as trec_eval), or, unless ``allow_cycles``, a cycle after transitive
    closure.
    """
    query, group, subgroup, doc = (codes(table[c]) for c in ("query_id", "jg", "jsg", "doc_id"))
    found = find_inconsistency(
        query,
        group,
        subgroup,
        doc,
        table["level"].to_numpy(),
        cycles=not allow_cycles,
    )
    if found is None:
        return table
    first, second = (table.iloc[row] for row in found.rows)
    raw.fail(
        f"{found.message}: query {first['query_id']}, jg {first['jg']}, docs {first['doc_id']} and {second['doc_id']} "
        f"(the other line is line {second['line']}: {raw.line(int(second['line'])).strip()!r})",
        line_no=int(first["line"]),
        expected="consistent preferences within a judgment group (trec_eval: Pref inconsistency)",
    )
