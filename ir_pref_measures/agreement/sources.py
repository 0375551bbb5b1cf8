"""Judgment sources read as judges: each judge's votes on pairs, or the grades that imply them.

A judge is a preference file (``carterette``, ``winner``, ``pairs``, or Clarke's judging log ``@ topic docA docB
J``), a preference table, graded qrels (a file, an ir_datasets ID or a table), the union ``A+B`` of such sources
(read as :func:`~ir_pref_measures.loading.sources.judgments` reads it: the order shown is lost), or one judgment
group of a :class:`~ir_pref_measures.model.judgments.Judgments` (:func:`judges` gives each group a judge). A file's
format is named (``FORMAT:PATH``, ``log:PATH`` for a judging log) or detected. Votes keep the order in which a pair
was shown where the format records it (``carterette``, ``winner``: the first doc listed is taken as the one shown
first); ``pairs`` lines, the judging log (which lists the winner first) and judgment groups do not. Bad marks of
``carterette`` files (``-2`` / ``2``) are not pair judgments: they are counted, never used; the judging log's ``?``
(no usable answer) likewise.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow.compute as pc

from ir_pref_measures.errors import InputError
from ir_pref_measures.loading import sources
from ir_pref_measures.loading.locations import judgment_file
from ir_pref_measures.model.ids import arrow, as_numpy
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.parsing import formats, preferences


@dataclass(frozen=True)
class Votes:
    """One judge's judgments, one row each: ``query_id, doc_a, doc_b`` (Arrow strings or object arrays), ``label``
    (int8: 1 = a preferred, 0 = a tie, -1 = b preferred), ``shown`` (True where a was shown first, so that the
    order is known); ``unusable``: lines without a usable judgment (a log's ``?``, a bad mark), not in the rows."""

    query_id: np.ndarray
    doc_a: np.ndarray
    doc_b: np.ndarray
    label: np.ndarray
    shown: np.ndarray
    unusable: int = 0


@dataclass(frozen=True)
class Grades:
    """A graded judge: ``query_id, doc_id`` (object arrays) and ``grade`` (float); a pair of graded docs of one
    query is judged ``a > b`` iff grade(a) > grade(b), equal grades a tie."""

    query_id: np.ndarray
    doc_id: np.ndarray
    grade: np.ndarray


Labels = Votes | Grades


def judges(named: Mapping[str, object], *, format: str | None = None) -> dict[str, Labels]:
    """Each source of ``{name: source}`` read as a judge (module docstring); a :class:`Judgments` with several
    groups gives one judge per group, named ``name/group``. ``format``: the preference files' format where
    detection cannot tell."""
    if not isinstance(named, Mapping) or not named:
        raise InputError("give the judges as a mapping {name: source} with at least one source")
    out: dict[str, Labels] = {}
    for name, source in named.items():
        if not isinstance(name, str) or not name or any(c.isspace() for c in name):
            raise InputError(f"a judge name must be a non-empty string without spaces, not {name!r}")
        found = _read(source, format)
        if isinstance(found, Judgments):
            found = _group_judges(name, found)
        else:
            found = {name: found}
        for key, judge in found.items():
            if key in out:
                raise InputError(f"the judge {key!r} is named twice")
            out[key] = judge
    return out


def _read(source, format: str | None):
    if isinstance(source, Judgments):
        return source
    if sources.is_frame(source):
        if "doc_id_a" in source.columns:
            from ir_pref_measures.model import tables

            frame = tables.preferences(source)
            return _votes({c: frame[c].to_numpy() for c in frame.columns}, shown=True)
        return _grades(sources.qrels_table(source))
    if not isinstance(source, str | os.PathLike):
        return sources.judgments(source)
    if sources.is_union(source):  # their union, as every judgment source (the order shown is lost)
        return sources.judgments(source, preference_format=format)
    found = judgment_file(source, None, format)
    if found.kind in ("dataset", "qrels"):  # a detected file from the bytes read to detect it
        return _grades(sources.qrels_table(found.raw if isinstance(found.raw, formats.RawFile) else found.location))
    if found.kind in sources.TREC_EVAL_FORMATS:
        return sources.judgments(source)
    if found.kind == "log":
        return _log(found.read_from)
    columns = preferences.preference_columns(found.read_from, found.kind)
    _check_distinct_docs(columns, LAYOUTS[found.kind])
    return _votes(columns.fields, shown=found.kind != "pairs")


LAYOUTS = {"carterette": preferences.CARTERETTE, "winner": preferences.WINNER, "pairs": preferences.PAIRS}


def _check_distinct_docs(columns: formats.Columns, layout: formats.Layout) -> None:
    """An :class:`InputError` naming the file and line of the first pair of a doc with itself."""
    a, b = columns.fields["doc_id_a"], columns.fields["doc_id_b"]
    same = as_numpy(pc.equal(a, b))
    formats.fail_at(columns, same, lambda r: f"doc {a[r].as_py()!r} is compared with itself", layout)


def _log(raw: str | formats.RawFile) -> Votes:
    columns = preferences.judging_log_columns(raw)
    _check_distinct_docs(columns, preferences.JUDGING_LOG)
    verdict = columns.fields["verdict"]
    usable = verdict != preferences.UNUSABLE
    query_id, doc_a, doc_b = (_kept(columns.fields[c], usable) for c in ("query_id", "doc_id_a", "doc_id_b"))
    label = verdict[usable].astype(np.int8)
    return Votes(query_id, doc_a, doc_b, label, np.zeros(len(label), dtype=bool), int((~usable).sum()))


def _kept(values, rows: np.ndarray):
    """``values`` (Arrow strings or an array) at the rows where ``rows`` is True."""
    return values.filter(arrow(rows)) if hasattr(values, "filter") else np.asarray(values, dtype=object)[rows]


def _votes(fields, shown: bool) -> Votes:
    """Votes from preference columns in carterette values (-1 a preferred, 1 b preferred, 0 a tie, +-2 bad)."""
    value = np.asarray(fields["preference"]).astype(np.int8)
    usable = np.abs(value) < 2
    query_id, doc_a, doc_b = (_kept(fields[c], usable) for c in ("query_id", "doc_id_a", "doc_id_b"))
    label = (-value[usable]).astype(np.int8)
    return Votes(query_id, doc_a, doc_b, label, np.full(len(label), shown), int((~usable).sum()))


def _grades(table) -> Grades:
    return Grades(
        table["query_id"].to_numpy(dtype=object),
        table["doc_id"].to_numpy(dtype=object),
        table["relevance"].to_numpy(dtype=np.float64),
    )


def _group_judges(name: str, found: Judgments) -> dict[str, Labels]:
    """One judge per judgment group: its explicit preferences and ties as votes (order unknown), and its grades
    as a graded judge when it has no explicit judgment."""
    groups = found.groups
    out: dict[str, Labels] = {}
    for group in groups:
        part = found.group(group) if len(groups) > 1 else found
        key = name if len(groups) == 1 else f"{name}/{group}"
        if part.only_graded:
            out[key] = _grades(part.qrels())
            continue
        if part.graded.any():
            raise InputError(f"the judge {key!r} holds both grades and preferences: give them as two judges")
        doc_ids, queries = part.doc_ids, part.query_ids[part.doc_query]
        a = np.concatenate([part.edge_src, part.tie_a])
        b = np.concatenate([part.edge_dst, part.tie_b])
        label = np.r_[np.ones(len(part.edge_src)), np.zeros(len(part.tie_a))].astype(np.int8)
        out[key] = Votes(queries[a], doc_ids[a], doc_ids[b], label, np.zeros(len(a), dtype=bool), int(part.bad.sum()))
    return out


def judgments_of(judge: Labels) -> Judgments:
    """A judge's judgments as :class:`Judgments`, for the measures: votes as explicit preferences and ties
    (every vote kept, multiplicity included), grades as graded qrels."""
    import pandas as pd

    if isinstance(judge, Grades):
        return Judgments.from_qrels(
            pd.DataFrame({"query_id": judge.query_id, "doc_id": judge.doc_id, "relevance": judge.grade})
        )
    texts = {
        column: values.to_pandas() if hasattr(values, "to_pandas") else values
        for column, values in (("query_id", judge.query_id), ("doc_id_a", judge.doc_a), ("doc_id_b", judge.doc_b))
    }
    frame = pd.DataFrame({**texts, "preference": -judge.label})
    return Judgments.from_preferences(frame)
