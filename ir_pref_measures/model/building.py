"""The builders of :class:`~ir_pref_measures.model.judgments.Judgments`: validated inputs as codes.

Every builder turns its input into codes into a query vocabulary and a doc vocabulary, its *parts*
(:data:`Parts`): the judged docs with their grades and bad marks (:class:`DocCodes`), strict preferences and ties
(:class:`PairCodes`), and the judgment lines of trec_eval's groups (:class:`LineCodes`). ``Judgments`` then numbers
every (query, doc) in (query id, doc id) order. The rules:

* graded qrels (:func:`qrels_parts`): one grade per (query, doc), or with ``repeated="max"`` the largest; every doc
  a line of its group's one sub-group, level = grade;
* trec_eval's prefs rows (:func:`trec_prefs_parts`): a query with one (jg, jsg) gives grades; otherwise each jsg gives
  explicit preferences, a over b for every two of its lines with level(a) > level(b);
* a carterette-form table (:func:`preference_parts`): strict preferences, ties and bad marks; each strict preference
  ``a > b`` is a sub-group of its own with a at level 2 and b at level 1;
* a union of judgments (:func:`union_parts`, for :func:`~ir_pref_measures.model.judgments.combine`): a query graded by
  several parts keeps the grades of the first of them, and the preferences each later one derives join as explicit
  preferences, each pair once, leaving out those the kept grades derive already.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from ir_pref_measures.errors import InputError
from ir_pref_measures.model import pairs
from ir_pref_measures.model.columns import Columns, repeated_grade
from ir_pref_measures.model.ids import encode, first_repeat, intern, pair_keys

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made or read
    import pandas as pd


@dataclass(frozen=True)
class DocCodes:
    """Judged docs as codes into a query and a doc vocabulary, with grades (NaN = none) and bad marks."""

    query: np.ndarray
    doc: np.ndarray
    grade: np.ndarray
    bad: np.ndarray


@dataclass(frozen=True)
class PairCodes:
    """Doc pairs (codes) of one query each: strict preferences ``src -> dst``, or ties."""

    query: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    src: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    dst: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))


@dataclass(frozen=True)
class LineCodes:
    """Judgment lines as codes: query, doc, group (into a group vocabulary), sub-group, level."""

    query: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    doc: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    group: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    subgroup: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    level: np.ndarray = field(default_factory=lambda: np.empty(0))


# the parts of a builder: query vocabulary, doc vocabulary, docs, strict preferences, ties, lines
Parts = tuple[np.ndarray, pa.Array, DocCodes, PairCodes, PairCodes, LineCodes]


def codes(*columns: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense codes of the row tuples of int ``columns``, in sorted order, and their number."""
    if not len(columns[0]):
        return np.zeros(0, np.int64), 0
    stacked = np.stack([np.asarray(c, np.int64) for c in columns], axis=1)
    unique, inverse = np.unique(stacked, axis=0, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64), len(unique)


def qrels_parts(qrels, *, checked: bool, repeated: str) -> Parts:
    """The parts of graded qrels (a table, or the :class:`~ir_pref_measures.model.columns.Columns` of a qrels file;
    :meth:`~ir_pref_measures.model.judgments.Judgments.from_qrels`): each doc a line of sub-group 0 of group 0."""
    if repeated not in ("error", "max"):
        raise ValueError(f"repeated must be 'error' or 'max', not {repeated!r}")
    if isinstance(qrels, Columns):
        query, doc, grade = (qrels.fields[c] for c in ("query_id", "doc_id", "relevance"))
    else:
        if not checked:
            from ir_pref_measures.model import tables

            qrels = tables.qrels(qrels, repeated="keep")
        query, doc = qrels["query_id"], qrels["doc_id"]
        grade = qrels["relevance"].to_numpy(dtype=np.float64)
    grade = np.asarray(grade, dtype=np.float64)
    (q,), queries = intern(query)
    (d,), docs = encode(doc)
    keys = pair_keys(q, d, len(docs))
    if repeated == "max":  # one row per (query, doc): the one with the largest grade
        order = np.lexsort((grade, keys))
        keep = np.sort(order[np.r_[keys[order][1:] != keys[order][:-1], True]])
        q, d, grade = q[keep], d[keep], grade[keep]
    else:
        repeat = first_repeat(keys)
        if repeat is not None:
            line_no = qrels.line_no(repeat) if isinstance(qrels, Columns) else None
            raise repeated_grade(queries[q[repeat]], docs[int(d[repeat])].as_py(), qrels, repeat, line_no)
    zeros = np.zeros(len(grade), np.int64)
    lines = LineCodes(q, d, zeros, zeros, grade)
    return queries, docs, DocCodes(q, d, grade, np.zeros(len(grade), bool)), PairCodes(), PairCodes(), lines


def trec_prefs_parts(table: pd.DataFrame, *, checked: bool) -> tuple[Parts, np.ndarray]:
    """The parts of trec_eval's ``prefs`` rows and their groups (the sorted jg names;
    :meth:`~ir_pref_measures.model.judgments.Judgments.from_trec_prefs`)."""
    if not checked:
        from ir_pref_measures.model import tables

        table = tables.trec_prefs(table)
    (q,), queries = intern(table["query_id"])
    (d,), docs = encode(table["doc_id"])
    (g,), groups = intern(table["jg"])
    (sg,), _ = intern(table["jsg"])
    level = table["level"].to_numpy(dtype=np.float64)
    segment, n_segments = codes(q, g, sg)
    first = np.full(n_segments, len(q), np.int64)
    np.minimum.at(first, segment, np.arange(len(q)))
    per_query = np.bincount(q[first], minlength=len(queries))
    graded = per_query[q] == 1  # the query has one (jg, jsg): a weak order, as grades
    in_jsgs = np.flatnonzero(~graded)
    src, dst = pairs.derived_edges(segment[in_jsgs], level[in_jsgs])
    src, dst = in_jsgs[src], in_jsgs[dst]
    docs_part = DocCodes(q, d, np.where(graded, level, np.nan), np.zeros(len(q), bool))
    lines = LineCodes(q, d, g.astype(np.int64), sg.astype(np.int64), level)
    return (queries, docs, docs_part, PairCodes(q[src], d[src], d[dst]), PairCodes(), lines), groups


def preference_parts(prefs, *, checked: bool) -> Parts:
    """The parts of a carterette-form table (a DataFrame, namedtuples, or the
    :class:`~ir_pref_measures.model.columns.Columns` of a preference file;
    :meth:`~ir_pref_measures.model.judgments.Judgments.from_preferences`), each strict preference a sub-group of its
    own, in group 0. The per-line codes are freed on return, before the parts are numbered."""
    if isinstance(prefs, Columns):
        prefs = prefs.fields
    elif not checked:
        from ir_pref_measures.model import tables

        prefs = tables.preferences(prefs)
    (q,), queries = intern(prefs["query_id"])
    (a, b), docs = encode(prefs["doc_id_a"], prefs["doc_id_b"])
    pref = np.asarray(prefs["preference"])
    bad_a, bad_b = pref == -2, pref == 2
    bad_q = np.concatenate([q[bad_a], q[bad_b]])
    bad = DocCodes(bad_q, np.concatenate([a[bad_a], b[bad_b]]), np.full(len(bad_q), np.nan), np.ones(len(bad_q), bool))
    b_preferred = pref == 1
    strict = b_preferred | (pref == -1)
    tie = pref == 0
    preferred = PairCodes(q[strict], np.where(b_preferred, b, a)[strict], np.where(b_preferred, a, b)[strict])
    n = len(preferred.query)
    line_subgroup = np.tile(np.arange(n, dtype=np.int64), 2)  # each preference is a sub-group of its own
    lines = LineCodes(
        np.tile(preferred.query, 2),
        np.concatenate([preferred.src, preferred.dst]),
        np.zeros(2 * n, np.int64),
        line_subgroup,
        np.repeat([2.0, 1.0], n),
    )
    return queries, docs, bad, preferred, PairCodes(q[tie], a[tie], b[tie]), lines


def union_parts(parts: Sequence) -> tuple[Parts, np.ndarray, dict[str, list] | None]:
    """The parts of the union of ``parts`` (``Judgments``; :func:`~ir_pref_measures.model.judgments.combine`), the
    sorted group names, and, when there are several groups, the parts that hold each group (each group's judgments are
    their union). ``Judgments`` is not imported here: it calls this module."""
    query_codes, queries = intern(*(p.query_ids for p in parts))
    doc_codes, docs = encode(*(p.doc_text for p in parts))
    group_codes, groups = intern(*(p.group_names.astype(str) for p in parts))
    pieces = []
    subgroup_base = 0
    for part, q_code, d_code, g_code in zip(parts, query_codes, doc_codes, group_codes, strict=True):
        q = q_code[part.doc_query]  # query code of each doc of the part
        lines = part.lines
        pieces.append(
            (
                DocCodes(q, d_code, part.grades, part.bad),
                PairCodes(q[part.edge_src], d_code[part.edge_src], d_code[part.edge_dst]),
                PairCodes(q[part.tie_a], d_code[part.tie_a], d_code[part.tie_b]),
                LineCodes(
                    q[lines.doc], d_code[lines.doc], g_code[lines.group], lines.subgroup + subgroup_base, lines.level
                ),
            )
        )
        subgroup_base += int(lines.subgroup.max()) + 1 if len(lines) else 0

    def joined(kind: int, name: str) -> np.ndarray:
        return np.concatenate([getattr(piece[kind], name) for piece in pieces])

    part_of = np.repeat(np.arange(len(parts)), [len(piece[0].query) for piece in pieces])
    graded_docs, derived = _separate_grades(
        DocCodes(*(joined(0, f) for f in ("query", "doc", "grade", "bad"))), part_of, queries
    )
    strict = PairCodes(*(np.concatenate([joined(1, f), getattr(derived, f)]) for f in ("query", "src", "dst")))
    holding = None
    if len(groups) > 1:
        holding = {name: [p.group(name) for p in parts if name in p.groups] for name in groups.astype(str).tolist()}
    ties = PairCodes(*(joined(2, f) for f in ("query", "src", "dst")))
    lines = LineCodes(*(joined(3, f) for f in ("query", "doc", "group", "subgroup", "level")))
    return (queries, docs, graded_docs, strict, ties, lines), groups, holding


def _separate_grades(docs: DocCodes, part_of: np.ndarray, queries: np.ndarray) -> tuple[DocCodes, PairCodes]:
    """The union of the graded parts of :func:`union_parts`: ``docs`` (every part's, ``part_of`` their part) with the
    grades of each query's first graded part alone, and the pairs the later parts derive that those grades do not,
    as explicit preferences (codes), each once. A query whose pairs would take more than
    :data:`~ir_pref_measures.model.pairs.CLOSURE_BUDGET_BYTES` is an :class:`InputError`."""
    graded = ~np.isnan(docs.grade)
    keeper = np.full(len(queries), len(part_of), dtype=np.int64)  # each query's first graded part
    np.minimum.at(keeper, docs.query[graded], part_of[graded])
    later = np.flatnonzero(graded & (part_of > keeper[docs.query]))
    if not len(later):
        return docs, PairCodes()
    query, doc, grade = docs.query[later], docs.doc[later], docs.grade[later]
    segment = part_of[later].astype(np.int64) * len(queries) + query  # one (part, query) each
    order = np.lexsort((grade, segment))
    new_run = np.r_[True, (segment[order][1:] != segment[order][:-1]) | (grade[order][1:] != grade[order][:-1])]
    lower = np.flatnonzero(new_run)[np.cumsum(new_run) - 1] - np.searchsorted(segment[order], segment[order])
    listed = np.bincount(query[order], weights=lower, minlength=len(queries))
    if (listed * pairs.BYTES_PER_PAIR > pairs.CLOSURE_BUDGET_BYTES).any():
        q = int(np.argmax(listed))
        raise InputError(
            f"query {queries[q]!r}: the preferences its graded sources derive apart would take about "
            f"{int(listed[q]):,} pairs (over the budget ir_pref_measures.model.pairs.CLOSURE_BUDGET_BYTES = "
            f"{pairs.CLOSURE_BUDGET_BYTES / 2**30:.1f} GB); give one graded source for it, or raise the budget"
        )
    src, dst = pairs.derived_edges(segment, grade)
    pair_query, pair_src, pair_dst = query[src], doc[src], doc[dst]
    kept = np.flatnonzero(graded & (part_of == keeper[docs.query]))
    n_docs = int(max(docs.doc.max(initial=0), 0)) + 1
    kept_keys = pair_keys(docs.query[kept], docs.doc[kept], n_docs)
    kept_order = np.argsort(kept_keys, kind="stable")
    kept_keys, kept_grades = kept_keys[kept_order], docs.grade[kept][kept_order]

    def kept_grade(doc_codes: np.ndarray) -> np.ndarray:  # the kept grade of (pair_query, doc), NaN if none
        keys = pair_keys(pair_query, doc_codes, n_docs)
        at = np.minimum(np.searchsorted(kept_keys, keys), max(len(kept_keys) - 1, 0))
        found = (kept_keys[at] == keys) if len(kept_keys) else np.zeros(len(keys), bool)
        return np.where(found, kept_grades[at] if len(kept_keys) else np.nan, np.nan)

    new = ~(kept_grade(pair_src) > kept_grade(pair_dst))
    pair_query, pair_src, pair_dst = pair_query[new], pair_src[new], pair_dst[new]
    if len(pair_query):  # each pair once, whichever later parts derive it
        order = np.lexsort((pair_dst, pair_src, pair_query))
        pair_query, pair_src, pair_dst = pair_query[order], pair_src[order], pair_dst[order]
        first = np.r_[
            True,
            (pair_query[1:] != pair_query[:-1]) | (pair_src[1:] != pair_src[:-1]) | (pair_dst[1:] != pair_dst[:-1]),
        ]
        pair_query, pair_src, pair_dst = pair_query[first], pair_src[first], pair_dst[first]
    grades = docs.grade.copy()
    grades[later] = np.nan
    return DocCodes(docs.query, docs.doc, grades, docs.bad), PairCodes(pair_query, pair_src, pair_dst)
