"""Per-query preference judgments: one multigraph structure for every measure.

A :class:`Judgments` holds, for every query, interned doc ids, explicit strict preferences ``a -> b``
("a is preferred to b") with multiplicity, duplicate judgments (ties), docs judged bad, and grades. A
graded doc contributes the derived preferences ``a -> b`` for every doc b of its query with a lower grade;
they are computed from the grades where a kernel can count from sorted grades, and materialised only
where a kernel needs edges (:meth:`Judgments.strict_edges`).

Builders: :meth:`Judgments.from_qrels` (derived), :meth:`Judgments.from_preferences` (explicit, values as
in the ``carterette`` format), both from validated tables, and :func:`combine` (a union of both, the
"combined" graphs of Luo 2021). Reading files, ir_datasets IDs and other input forms is
:mod:`ir_pref_measures.inputs.sources`' job.

Rules stated once, here:

* a doc judged bad prefers nothing: explicit or derived preferences *out of* a bad doc are ignored by
  the pair-based kernels (a warning says how many); preferences *into* a bad doc count;
* a qrels source that grades a doc twice in a query is rejected (by :mod:`~ir_pref_measures.inputs.sources`); several
  graded sources each derive their own preferences and :func:`combine` takes the union (a doc may have a grade
  in each source);
* everything is sorted by (query id, doc id), so no result depends on input order.

**Judgment groups** (trec_eval's jg / jsg): every judgment also belongs to a
named group (one assessor, one judge file; default :data:`DEFAULT_GROUP`) and, within it, a sub-group.
:attr:`Judgments.lines` holds them in trec_eval's row form (group, sub-group, doc, level): a graded doc is a
line of its group's one sub-group (level = grade); an explicit strict preference ``a > b`` is a sub-group of
its own with a at level 2 and b at level 1 (not 1 and 0: trec_eval rejects a doc at level 0 in one sub-group
and above 0 in another, which any chain ``a > b > c`` would make); ties and bad marks make no line. The
union over groups (grades, edges, ties, bad marks) is what every other measure uses, as before;
:meth:`Judgments.group` restricts to one group, and :func:`combine` keeps the groups (groups with the same
name merge).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from ir_pref_measures.errors import InputError
from ir_pref_measures.ids import arrow, as_objects, encode, first_repeat, intern, pair_keys, ranges, unique_sorted
from ir_pref_measures.model import reach
from ir_pref_measures.readers.formats import Columns, integer_grades, repeated_grade

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made or read
    import pandas as pd

DEFAULT_GROUP = "judgments"  # the group of judgments loaded without a group name
BIT_QUERY_DOCS = 2048  # queries up to this many docs are closed together, on bit sets (one bit per pair of docs)
BIT_BATCH_BYTES = 1 << 24  # one bit matrix (docs x widest query) of the queries closed together; a few are alive
CLOSURE_BUDGET_BYTES = 3 * 2**30  # most memory one query's listed preference pairs may take; more is refused
BYTES_PER_PAIR = 256  # peak memory per listed pair (measured: 245 B on a closure of 5M pairs, APpref), kernel included


@dataclass(frozen=True)
class PairSet:
    """The strict preference pairs of a judgment set, as the ppref family defines them.

    ``src[i] -> dst[i]`` (global doc indices, unique, sorted) are the pairs with a strict preference:
    the explicit ones, or with ``transitive`` every pair joined by a walk holding at least one strict
    edge (duplicates inherit each other's preferences; ``carterette.md`` §2.2). ``source`` marks the
    docs that prefer anything or are a duplicate of anything (the tool counts both as "preferred").
    """

    src: np.ndarray
    dst: np.ndarray
    source: np.ndarray


@dataclass(frozen=True)
class JudgmentLines:
    """Judgments in trec_eval's row form, one row per (group, sub-group, doc, level) line: ``group`` indexes
    :attr:`Judgments.group_names`, ``subgroup`` is an int code (in sub-group order), ``doc`` a global doc
    index (its query is ``doc_query[doc]``), ``level`` a float. Rows sorted by (doc, group, subgroup, level)."""

    group: np.ndarray
    subgroup: np.ndarray
    doc: np.ndarray
    level: np.ndarray

    def __len__(self) -> int:
        return len(self.doc)

    def take(self, rows: np.ndarray) -> JudgmentLines:
        return JudgmentLines(self.group[rows], self.subgroup[rows], self.doc[rows], self.level[rows])


def _no_lines() -> JudgmentLines:
    empty = np.empty(0, np.int64)
    return JudgmentLines(empty, empty, empty, np.empty(0))


@dataclass(frozen=True, eq=False)
class Judgments:
    """Preference judgments of many queries, flat: query ``q`` owns docs ``doc_offsets[q]:doc_offsets[q+1]``.

    Attributes: ``query_ids`` (sorted), ``doc_text`` (Arrow strings, sorted within each query; ``doc_ids`` the
    same as an object array, made when asked for), ``grades`` (float, NaN for
    an ungraded doc), ``bad`` (bool), ``edge_src -> edge_dst`` explicit strict preferences and
    ``tie_a, tie_b`` duplicates (global doc indices, multiplicity kept, sorted); ``group_names`` (sorted) and
    ``lines``, the judgment groups (:class:`JudgmentLines`; module docstring). The union fields are the union
    over every group; :meth:`group` gives one group's judgments.
    """

    query_ids: np.ndarray
    doc_offsets: np.ndarray
    doc_text: pa.Array
    grades: np.ndarray
    bad: np.ndarray
    edge_src: np.ndarray
    edge_dst: np.ndarray
    tie_a: np.ndarray
    tie_b: np.ndarray
    group_names: np.ndarray = field(default_factory=lambda: np.array([DEFAULT_GROUP], dtype=object))
    lines: JudgmentLines = field(default_factory=_no_lines)
    _groups: dict = field(default_factory=dict, repr=False, compare=False)  # name -> Judgments, if several
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.query_ids)

    def __repr__(self) -> str:
        return (
            f"Judgments({len(self)} queries, {self.n_docs} docs, {int(self.graded.sum())} graded, "
            f"{len(self.edge_src)} preferences, {len(self.tie_a)} ties, {int(self.bad.sum())} bad"
            + (f", groups {', '.join(self.groups)})" if len(self.group_names) > 1 else ")")
        )

    @property
    def groups(self) -> list[str]:
        """The names of the judgment groups, sorted."""
        return [str(name) for name in self.group_names]

    def group(self, name: str) -> Judgments:
        """The judgments of group ``name`` alone (per-assessor evaluation); an unknown name is an
        :class:`InputError` listing the groups."""
        if name not in self.groups:
            raise InputError(f"unknown judgment group {name!r}", expected=f"one of {', '.join(self.groups)}")
        return self._groups.get(name, self)

    def renamed(self, name: str) -> Judgments:
        """These judgments as the one group ``name`` (:class:`InputError` if they hold several groups)."""
        if len(self.group_names) > 1:
            raise InputError(f"judgments with the groups {', '.join(self.groups)} cannot become the one group {name!r}")
        return replace(self, group_names=np.array([name], dtype=object), _groups={}, _cache={})

    def restrict(self, query_ids) -> Judgments:
        """These judgments on ``query_ids`` only (ids not judged are ignored): the same docs, grades, preferences,
        ties, lines and groups for those queries, in arrays the size of their docs (for a partition of queries)."""
        wanted = np.asarray(list(query_ids), dtype=object)
        at = np.minimum(np.searchsorted(self.query_ids, wanted), max(len(self) - 1, 0))
        queries = unique_sorted(at[self.query_ids[at] == wanted]) if len(self) else np.zeros(0, np.int64)
        docs = self.docs_of(queries)

        def kept(index: np.ndarray) -> np.ndarray:  # the rows whose doc is kept
            found = np.minimum(np.searchsorted(docs, index), max(len(docs) - 1, 0))
            return (docs[found] == index) if len(docs) else np.zeros(len(index), bool)

        def local(index: np.ndarray) -> np.ndarray:  # a kept doc's index among the kept docs
            return np.searchsorted(docs, index).astype(index.dtype)

        edges, ties, lines = kept(self.edge_src), kept(self.tie_a), kept(self.lines.doc)
        line_rows = self.lines.take(np.flatnonzero(lines))
        sizes = np.diff(self.doc_offsets)[queries]
        return Judgments(
            query_ids=self.query_ids[queries],
            doc_offsets=np.r_[0, np.cumsum(sizes)].astype(np.int64),
            doc_text=self.doc_text.take(arrow(docs)),
            grades=self.grades[docs],
            bad=self.bad[docs],
            edge_src=local(self.edge_src[edges]),
            edge_dst=local(self.edge_dst[edges]),
            tie_a=local(self.tie_a[ties]),
            tie_b=local(self.tie_b[ties]),
            group_names=self.group_names,
            lines=JudgmentLines(line_rows.group, line_rows.subgroup, local(line_rows.doc), line_rows.level),
            _groups={name: part.restrict(wanted) for name, part in self._groups.items()},
        )

    @cached_property
    def doc_query(self) -> np.ndarray:
        """Query index of every doc."""
        return np.repeat(np.arange(len(self), dtype=np.int64), np.diff(self.doc_offsets))

    @property
    def n_docs(self) -> int:
        """The number of (query, doc) judged."""
        return len(self.grades)

    @cached_property
    def doc_ids(self) -> np.ndarray:
        """``doc_text`` as an object array of Python strings (made once, when asked for)."""
        return as_objects(self.doc_text)

    def docs_of(self, queries: np.ndarray) -> np.ndarray:
        """The global indices of the docs of ``queries`` (query indices), sorted: an array the size of those
        queries' docs, so that a block of queries costs its own size."""
        queries = unique_sorted(np.asarray(queries, dtype=np.int64))
        return ranges(self.doc_offsets[queries], self.doc_offsets[queries + 1])

    @cached_property
    def graded(self) -> np.ndarray:
        return ~np.isnan(self.grades)

    @property
    def only_graded(self) -> bool:
        """True when every judgment is a grade: preferences are then derived, never stored."""
        return not (len(self.edge_src) or len(self.tie_a) or self.bad.any() or not self.graded.all())

    def frame(self) -> pd.DataFrame:
        """One row per doc: ``query_id, doc_id, grade, bad``."""
        import pandas as pd

        return pd.DataFrame(
            {
                "query_id": self.query_ids[self.doc_query],
                "doc_id": self.doc_ids,
                "grade": self.grades,
                "bad": self.bad,
            }
        )

    def qrels(self) -> pd.DataFrame | None:
        """The graded docs as qrels ``query_id, doc_id, relevance`` (int64 when every grade is an integer that int64
        holds, as pytrec_eval needs: :func:`~ir_pref_measures.readers.formats.integer_grades`); ``None`` when no doc is
        graded."""
        if not self.graded.any():
            return None
        import pandas as pd

        frame = self.frame()[self.graded]
        relevance = integer_grades(frame["grade"].to_numpy())
        return pd.DataFrame(
            {"query_id": frame["query_id"].astype(str), "doc_id": frame["doc_id"].astype(str), "relevance": relevance}
        )

    def derived_edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Every ``a -> b`` with grade(a) > grade(b) in one query (global doc indices), materialised."""
        if "derived" not in self._cache:
            self._cache["derived"] = _derived_edges(self.doc_query, self.grades)
        return self._cache["derived"]

    def strict_edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Explicit and derived strict edges together, multiplicity kept, sorted by (src, dst)."""
        derived_src, derived_dst = self.derived_edges()
        if not len(derived_src):  # the explicit edges alone are sorted already
            return self.edge_src, self.edge_dst
        src = np.concatenate([self.edge_src, derived_src])
        dst = np.concatenate([self.edge_dst, derived_dst])
        order = np.lexsort((dst, src))
        return src[order], dst[order]

    def good_edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The strict edges (explicit and derived, multiplicity kept) that do not leave a bad doc, sorted by
        (src, dst), and each query's slice of them: edges of query q are ``bounds[q]:bounds[q+1]`` (cached)."""
        if "good_edges" not in self._cache:
            src, dst = self.strict_edges()
            leaving_bad = self.bad[src]
            if leaving_bad.any():
                src, dst = src[~leaving_bad], dst[~leaving_bad]
            self._cache["good_edges"] = (src, dst, np.searchsorted(src, self.doc_offsets))
        return self._cache["good_edges"]

    def explicit_good_edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The explicit strict edges (multiplicity kept) that do not leave a bad doc, sorted by (src, dst),
        and each query's slice of them, as :meth:`good_edges` but without the derived edges (cached): kernels
        that count the derived edges from the grades (a complete layered DAG) use these."""
        if "explicit_good_edges" not in self._cache:
            src, dst = self.edge_src, self.edge_dst
            leaving_bad = self.bad[src]
            if leaving_bad.any():
                src, dst = src[~leaving_bad], dst[~leaving_bad]
            self._cache["explicit_good_edges"] = (src, dst, np.searchsorted(src, self.doc_offsets))
        return self._cache["explicit_good_edges"]

    def preference_pairs(self, transitive: bool = True, exclude: tuple[int, ...] = ()) -> PairSet:
        """The strict pairs of the ppref family, with or without transitive closure (cached); ``exclude``:
        query indices left out (their docs get no pairs), for kernels that count those queries' pairs
        without listing them. A query whose pairs would take more than ``CLOSURE_BUDGET_BYTES`` is refused
        up front with an :class:`~ir_pref_measures.errors.InputError` (estimated from its sizes)."""
        key = ("pairs", transitive, tuple(sorted(exclude)))
        if key not in self._cache:
            self._cache[key] = _preference_pairs(self, transitive, frozenset(exclude))
        return self._cache[key]

    def query_good_edges(self, q: int) -> tuple[np.ndarray, np.ndarray]:
        """Query ``q``'s slice of :meth:`good_edges` (global doc indices), built for that query alone, after
        checking that its derived edges fit in ``CLOSURE_BUDGET_BYTES``."""
        lo, hi = int(self.doc_offsets[q]), int(self.doc_offsets[q + 1])
        src, dst, bounds = self.explicit_good_edges()
        e_src, e_dst = src[bounds[q] : bounds[q + 1]], dst[bounds[q] : bounds[q + 1]]
        grades, bad = self.grades[lo:hi], self.bad[lo:hi]
        graded = np.sort(grades[~np.isnan(grades)])
        good_grades = grades[~np.isnan(grades) & ~bad]
        n_derived = int(np.searchsorted(graded, good_grades, "left").sum())
        _check_budget(
            self,
            q,
            n_derived + len(e_src),
            "derived and explicit preference pairs (grades plus explicit preferences)",
            "PGC and Compatibility never need this list, and the ppref family counts such a query without it "
            "only when its docs without explicit judgments have few distinct grades (at most "
            "ir_pref_measures.model.closure.BLOCK_LIMIT blocks; nwppref's ideal ranking always needs the list)",
        )
        d_src, d_dst = _derived_edges(self.doc_query[lo:hi], grades)
        keep = ~bad[d_src]
        all_src = np.concatenate([e_src, (d_src[keep] + lo).astype(e_src.dtype)])
        all_dst = np.concatenate([e_dst, (d_dst[keep] + lo).astype(e_dst.dtype)])
        order = np.lexsort((all_dst, all_src))
        return all_src[order], all_dst[order]

    @classmethod
    def from_qrels(
        cls, qrels, *, checked: bool = False, group: str = DEFAULT_GROUP, repeated: str = "error"
    ) -> Judgments:
        """Graded judgments from qrels as a table (DataFrame in ir_measures' or PyTerrier's columns, dict of
        dicts, ``Qrel`` namedtuples; validated by :func:`ir_pref_measures.readers.tables.qrels` unless ``checked``),
        all in judgment group ``group`` (one sub-group); or the :class:`~ir_pref_measures.readers.formats.Columns` of a
        qrels file. A doc graded twice in a query is an error, or with ``repeated="max"`` graded by the largest
        of its grades (pref_eval's rule for diversity qrels with subtopic lines, which ``compare`` follows).
        Files and ir_datasets IDs: :func:`ir_pref_measures.inputs.sources.judgments`."""
        if repeated not in ("error", "max"):
            raise ValueError(f"repeated must be 'error' or 'max', not {repeated!r}")
        if isinstance(qrels, Columns):
            query, doc, grade = (qrels.fields[c] for c in ("query_id", "doc_id", "relevance"))
        else:
            if not checked:
                from ir_pref_measures.readers import tables

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
        lines = _Lines(q, d, zeros, zeros, grade)
        return _assemble(queries, docs, _Docs(q, d, grade, np.zeros(len(grade), bool)), lines=lines, groups=[group])

    @classmethod
    def from_trec_prefs(cls, table: pd.DataFrame, *, checked: bool = False) -> Judgments:
        """Judgments from trec_eval's ``prefs`` / ``qrels_prefs`` rows ``query_id, jg, jsg, doc_id, level``
        (:func:`ir_pref_measures.inputs.groups.read_judgments` reads and checks them; a table is validated by
        :func:`ir_pref_measures.readers.tables.trec_prefs` unless ``checked``), one group per jg. The union: a query
        with one (jg, jsg) gives grades (level = grade); otherwise each jsg gives explicit preferences, a over b for
        every two of its lines with level(a) > level(b)."""
        if not checked:
            from ir_pref_measures.readers import tables

            table = tables.trec_prefs(table)
        (q,), queries = intern(table["query_id"])
        (d,), docs = encode(table["doc_id"])
        (g,), groups = intern(table["jg"])
        (sg,), _ = intern(table["jsg"])
        level = table["level"].to_numpy(dtype=np.float64)
        segment, n_segments = _codes(q, g, sg)
        first = np.full(n_segments, len(q), np.int64)
        np.minimum.at(first, segment, np.arange(len(q)))
        per_query = np.bincount(q[first], minlength=len(queries))
        graded = per_query[q] == 1  # the query has one (jg, jsg): a weak order, as grades
        in_jsgs = np.flatnonzero(~graded)
        src, dst = _derived_edges(segment[in_jsgs], level[in_jsgs])
        src, dst = in_jsgs[src], in_jsgs[dst]
        docs_part = _Docs(q, d, np.where(graded, level, np.nan), np.zeros(len(q), bool))
        lines = _Lines(q, d, g.astype(np.int64), sg.astype(np.int64), level)
        return _assemble(queries, docs, docs_part, _Pairs(q[src], d[src], d[dst]), lines=lines, groups=groups)

    @classmethod
    def from_preferences(cls, prefs, *, checked: bool = False, group: str = DEFAULT_GROUP) -> Judgments:
        """Explicit judgments from a ``query_id, doc_id_a, doc_id_b, preference`` table (DataFrame or
        namedtuples; validated by :func:`ir_pref_measures.readers.tables.preferences` unless ``checked``) or the
        :class:`~ir_pref_measures.readers.formats.Columns` of a preference file
        (:func:`~ir_pref_measures.readers.preferences.preference_columns`, checked as read), values as in
        the ``carterette`` format (-1: a preferred, 1: b preferred, 0: duplicates, -2 / 2: a / b bad), all in
        judgment group ``group``, each strict preference a sub-group of its own (module docstring)."""
        if isinstance(prefs, Columns):
            prefs = prefs.fields
        elif not checked:
            from ir_pref_measures.readers import tables

            prefs = tables.preferences(prefs)
        judgments = _assemble(*_preference_parts(prefs), groups=[group])
        ignored = int(judgments.bad[judgments.edge_src].sum())
        if ignored:
            warnings.warn(
                f"{ignored} preference(s) out of docs also judged bad are ignored (a bad doc prefers nothing)",
                stacklevel=2,
            )
        return judgments

    def query(self, query_id: str) -> QueryGraph:
        """The judgments of one query, with doc indices local to it."""
        q = int(np.searchsorted(self.query_ids, query_id))
        if q >= len(self) or self.query_ids[q] != query_id:
            raise KeyError(query_id)
        lo, hi = int(self.doc_offsets[q]), int(self.doc_offsets[q + 1])
        src, dst = self.strict_edges()
        in_q = (src >= lo) & (src < hi)
        ties = (self.tie_a >= lo) & (self.tie_a < hi)
        return QueryGraph(
            query_id=query_id,
            doc_ids=as_objects(self.doc_text.slice(lo, hi - lo)),
            grades=self.grades[lo:hi],
            bad=self.bad[lo:hi],
            src=src[in_q] - lo,
            dst=dst[in_q] - lo,
            tie_a=self.tie_a[ties] - lo,
            tie_b=self.tie_b[ties] - lo,
        )


@dataclass(frozen=True)
class QueryGraph:
    """One query's judgments: ``src -> dst`` strict edges (explicit and derived, multiplicity kept) and
    ``tie_a, tie_b`` duplicates over ``doc_ids`` (local indices)."""

    query_id: str
    doc_ids: np.ndarray
    grades: np.ndarray
    bad: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    tie_a: np.ndarray
    tie_b: np.ndarray


@dataclass(frozen=True)
class _Docs:
    """Judged docs as codes into a query and a doc vocabulary, with grades (NaN = none) and bad marks."""

    query: np.ndarray
    doc: np.ndarray
    grade: np.ndarray
    bad: np.ndarray


@dataclass(frozen=True)
class _Pairs:
    """Doc pairs (codes) of one query each: strict preferences ``src -> dst``, or ties."""

    query: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    src: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    dst: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))


@dataclass(frozen=True)
class _Lines:
    """Judgment lines as codes: query, doc, group (into a group vocabulary), sub-group, level."""

    query: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    doc: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    group: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    subgroup: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    level: np.ndarray = field(default_factory=lambda: np.empty(0))


def _codes(*columns: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense codes of the row tuples of int ``columns``, in sorted order, and their number."""
    if not len(columns[0]):
        return np.zeros(0, np.int64), 0
    stacked = np.stack([np.asarray(c, np.int64) for c in columns], axis=1)
    unique, inverse = np.unique(stacked, axis=0, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64), len(unique)


def _preference_parts(frame) -> tuple[np.ndarray, np.ndarray, _Docs, _Pairs, _Pairs, _Lines]:
    """The query and doc vocabularies, bad docs, strict preferences and ties of a carterette-form table (a
    DataFrame, or a mapping of columns; a function of its own, so that the per-line codes are freed before
    :func:`_assemble` runs)."""
    (q,), queries = intern(frame["query_id"])
    (a, b), docs = encode(frame["doc_id_a"], frame["doc_id_b"])
    pref = np.asarray(frame["preference"])
    bad_a, bad_b = pref == -2, pref == 2
    bad_q = np.concatenate([q[bad_a], q[bad_b]])
    bad = _Docs(bad_q, np.concatenate([a[bad_a], b[bad_b]]), np.full(len(bad_q), np.nan), np.ones(len(bad_q), bool))
    b_preferred = pref == 1
    strict = b_preferred | (pref == -1)
    tie = pref == 0
    pairs = _Pairs(q[strict], np.where(b_preferred, b, a)[strict], np.where(b_preferred, a, b)[strict])
    n = len(pairs.query)
    line_subgroup = np.tile(np.arange(n, dtype=np.int64), 2)  # each preference is a sub-group of its own
    lines = _Lines(
        np.tile(pairs.query, 2),
        np.concatenate([pairs.src, pairs.dst]),
        np.zeros(2 * n, np.int64),
        line_subgroup,
        np.repeat([2.0, 1.0], n),
    )
    return queries, docs, bad, pairs, _Pairs(q[tie], a[tie], b[tie]), lines


def _assemble(
    query_vocab: np.ndarray,
    doc_vocab: pa.Array,
    docs: _Docs,
    strict: _Pairs = _Pairs(),
    ties: _Pairs = _Pairs(),
    lines: _Lines = _Lines(),
    *,
    groups,
    parts_by_group: dict | None = None,
) -> Judgments:
    """Number every (query, doc) of ``docs``, ``strict``, ``ties`` and ``lines`` in (query id, doc id) order;
    ``groups``: the sorted group names that ``lines.group`` codes; ``parts_by_group``: each group's judgments
    when there are several."""
    n = len(doc_vocab)
    parts = [(docs.query, docs.doc), (strict.query, strict.src), (strict.query, strict.dst)]
    parts += [(ties.query, ties.src), (ties.query, ties.dst), (lines.query, lines.doc)]
    # few distinct docs, many mentions: dedupe each part, then find every mention by binary search
    unique_keys = unique_sorted(np.concatenate([pair_keys(q, d, n) for q, d in parts]))
    index = np.int32 if len(unique_keys) <= np.iinfo(np.int32).max else np.int64  # half the memory of int64
    doc_of = [np.searchsorted(unique_keys, pair_keys(q, d, n)).astype(index) for q, d in parts]
    grades = np.full(len(unique_keys), np.nan)
    lowest = np.full(len(unique_keys), np.nan)
    graded = ~np.isnan(docs.grade)
    np.fmax.at(grades, doc_of[0][graded], docs.grade[graded])
    np.fmin.at(lowest, doc_of[0][graded], docs.grade[graded])
    clash = np.flatnonzero(grades > lowest)
    if len(clash):
        key = unique_keys[clash[0]]
        raise InputError(
            f"doc {doc_vocab[int(key % n)].as_py()!r} of query {query_vocab[key // n]!r} "
            f"has two grades: {lowest[clash[0]]:g} and {grades[clash[0]]:g}"
        )
    bad = np.zeros(len(unique_keys), dtype=bool)
    bad[doc_of[0][docs.bad]] = True
    present, doc_query = np.unique(unique_keys // n, return_inverse=True)
    n_docs = len(unique_keys)
    edge_src, edge_dst = _sorted_pairs(doc_of[1], doc_of[2], n_docs)
    tie_a, tie_b = _sorted_pairs(np.minimum(doc_of[3], doc_of[4]), np.maximum(doc_of[3], doc_of[4]), n_docs)
    line_order = np.lexsort((lines.level, lines.subgroup, lines.group, doc_of[5]))
    judgment_lines = JudgmentLines(
        lines.group[line_order].astype(np.int64),
        lines.subgroup[line_order].astype(np.int64),
        doc_of[5][line_order].astype(np.int64),
        lines.level[line_order].astype(np.float64),
    )
    return Judgments(
        query_ids=query_vocab[present],
        doc_offsets=np.searchsorted(doc_query, np.arange(len(present) + 1)).astype(np.int64),
        doc_text=doc_vocab.take(arrow(unique_keys % n)),
        grades=grades,
        bad=bad,
        edge_src=edge_src,
        edge_dst=edge_dst,
        tie_a=tie_a,
        tie_b=tie_b,
        group_names=np.asarray(list(groups), dtype=object),
        lines=judgment_lines,
        _groups=parts_by_group or {},
    )


def _sorted_pairs(first: np.ndarray, second: np.ndarray, n_second: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(first[i], second[i])`` sorted by (first, second), in the dtype of ``first``."""
    keys = pair_keys(first, second, n_second)
    keys.sort()
    n_second = max(n_second, 1)
    return (keys // n_second).astype(first.dtype), (keys % n_second).astype(first.dtype)


def combine(*parts: Judgments) -> Judgments:
    """The union of several judgment sets: grades, preferences, ties and bad marks together.

    Graded parts each derive their own preferences (a -> b for grade(a) > grade(b) within the part), and the union
    is taken: a doc may have a grade in each part. A query graded by one part keeps its grades; in a query graded
    by several parts, the first of them (in the order given) keeps its grades, and the preferences each later one
    derives join as explicit preferences, each pair once, leaving out the pairs the kept grades derive already
    (``combine(q, q)`` holds the preferences of ``q``). The preference measures see the same pairs whatever the
    order of the parts; those explicit pairs have degree 1 in ``wppref`` (a kept pair, its grade difference), and
    ir_measures' own measures see the kept grades (:meth:`Judgments.qrels`). Judgment groups are kept: groups of
    the same name in several parts become one group (their sub-groups stay apart).
    """
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
                _Docs(q, d_code, part.grades, part.bad),
                _Pairs(q[part.edge_src], d_code[part.edge_src], d_code[part.edge_dst]),
                _Pairs(q[part.tie_a], d_code[part.tie_a], d_code[part.tie_b]),
                _Lines(
                    q[lines.doc], d_code[lines.doc], g_code[lines.group], lines.subgroup + subgroup_base, lines.level
                ),
            )
        )
        subgroup_base += int(lines.subgroup.max()) + 1 if len(lines) else 0

    def joined(kind: int, name: str) -> np.ndarray:
        return np.concatenate([getattr(piece[kind], name) for piece in pieces])

    part_of = np.repeat(np.arange(len(parts)), [len(piece[0].query) for piece in pieces])
    graded_docs, derived = _separate_grades(
        _Docs(*(joined(0, f) for f in ("query", "doc", "grade", "bad"))), part_of, queries
    )
    strict = _Pairs(*(np.concatenate([joined(1, f), getattr(derived, f)]) for f in ("query", "src", "dst")))

    by_group = None
    if len(groups) > 1:
        by_group = {}
        for name in groups.astype(str).tolist():
            holding = [p.group(name) for p in parts if name in p.groups]
            by_group[name] = holding[0] if len(holding) == 1 else combine(*holding)
    return _assemble(
        queries,
        docs,
        graded_docs,
        strict,
        _Pairs(*(joined(2, f) for f in ("query", "src", "dst"))),
        _Lines(*(joined(3, f) for f in ("query", "doc", "group", "subgroup", "level"))),
        groups=groups,
        parts_by_group=by_group,
    )


def _separate_grades(docs: _Docs, part_of: np.ndarray, queries: np.ndarray) -> tuple[_Docs, _Pairs]:
    """The union of the graded parts of :func:`combine`: ``docs`` (every part's, ``part_of`` their part) with the
    grades of each query's first graded part alone, and the pairs the later parts derive that those grades do not,
    as explicit preferences (codes), each once. A query whose pairs would take more than ``CLOSURE_BUDGET_BYTES`` is
    an :class:`InputError`."""
    graded = ~np.isnan(docs.grade)
    keeper = np.full(len(queries), len(part_of), dtype=np.int64)  # each query's first graded part
    np.minimum.at(keeper, docs.query[graded], part_of[graded])
    later = np.flatnonzero(graded & (part_of > keeper[docs.query]))
    if not len(later):
        return docs, _Pairs()
    query, doc, grade = docs.query[later], docs.doc[later], docs.grade[later]
    segment = part_of[later].astype(np.int64) * len(queries) + query  # one (part, query) each
    order = np.lexsort((grade, segment))
    new_run = np.r_[True, (segment[order][1:] != segment[order][:-1]) | (grade[order][1:] != grade[order][:-1])]
    lower = np.flatnonzero(new_run)[np.cumsum(new_run) - 1] - np.searchsorted(segment[order], segment[order])
    listed = np.bincount(query[order], weights=lower, minlength=len(queries))
    if (listed * BYTES_PER_PAIR > CLOSURE_BUDGET_BYTES).any():
        q = int(np.argmax(listed))
        raise InputError(
            f"query {queries[q]!r}: the preferences its graded sources derive apart would take about "
            f"{int(listed[q]):,} pairs (over the budget ir_pref_measures.model.judgments.CLOSURE_BUDGET_BYTES = "
            f"{CLOSURE_BUDGET_BYTES / 2**30:.1f} GB); give one graded source for it, or raise the budget"
        )
    src, dst = _derived_edges(segment, grade)
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
    return _Docs(docs.query, docs.doc, grades, docs.bad), _Pairs(pair_query, pair_src, pair_dst)


def _derived_edges(doc_query: np.ndarray, grades: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a -> b`` for grade(a) > grade(b) within a query, built by sorting, without pair tests."""
    graded = np.flatnonzero(~np.isnan(grades))
    if not len(graded):
        return np.empty(0, np.int64), np.empty(0, np.int64)
    order = graded[np.lexsort((grades[graded], doc_query[graded]))]
    key_q, key_g = doc_query[order], grades[order]
    first_of_query = np.searchsorted(key_q, key_q, side="left")
    # number of docs of the same query with a strictly lower grade: the start of the doc's grade run
    run_start = np.flatnonzero(np.r_[True, (key_q[1:] != key_q[:-1]) | (key_g[1:] != key_g[:-1])])
    run_id = np.cumsum(np.r_[True, (key_q[1:] != key_q[:-1]) | (key_g[1:] != key_g[:-1])]) - 1
    lower = run_start[run_id] - first_of_query
    src = np.repeat(order, lower)
    dst = order[ranges(first_of_query, first_of_query + lower)]
    keep = np.lexsort((dst, src))
    return src[keep], dst[keep]


def _check_budget(judgments: Judgments, q: int, pairs: int, what: str, way_out: str) -> None:
    """Refuse a query whose ``pairs`` listed pairs would take more than ``CLOSURE_BUDGET_BYTES``."""
    need = pairs * BYTES_PER_PAIR
    if need > CLOSURE_BUDGET_BYTES:
        raise InputError(
            f"query {judgments.query_ids[q]!r}: listing its {what} would take about {pairs:,} pairs "
            f"(~{need / 2**30:.1f} GB, over the budget ir_pref_measures.model.judgments.CLOSURE_BUDGET_BYTES = "
            f"{CLOSURE_BUDGET_BYTES / 2**30:.1f} GB); {way_out}, or raise the budget"
        )


def _good_edges_of(judgments: Judgments, exclude: frozenset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:meth:`Judgments.good_edges`, or, when a query has derived edges and explicit ones (a combined
    graph) or some queries are excluded, the same built query by query (budget checked, no global list)."""
    sizes = np.diff(judgments.doc_offsets).astype(np.float64)
    if not exclude and (sizes * sizes / 2 * BYTES_PER_PAIR <= CLOSURE_BUDGET_BYTES).all():
        return judgments.good_edges()  # no query can hold more derived pairs than the budget allows
    parts_src, parts_dst = [], []
    e_src, e_dst, _ = judgments.explicit_good_edges()
    for q in range(len(judgments)):
        if q in exclude:
            continue
        s, d = judgments.query_good_edges(q)
        parts_src.append(s)
        parts_dst.append(d)
    src = np.concatenate(parts_src) if parts_src else e_src[:0]
    dst = np.concatenate(parts_dst) if parts_dst else e_dst[:0]
    return src, dst, np.searchsorted(src, judgments.doc_offsets)


def _preference_pairs(judgments: Judgments, transitive: bool, exclude: frozenset = frozenset()) -> PairSet:
    derived = _derived_sources(judgments)
    if transitive:
        src, dst = _strict_closure(judgments, exclude, derived)
    else:
        src, dst, _ = _good_edges_of(judgments, exclude)
        distinct = np.r_[True, (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])] if len(src) else np.zeros(0, bool)
        src, dst = src[distinct], dst[distinct]
    return PairSet(src=src, dst=dst, source=_sources(judgments, exclude, derived))


def _sources(judgments: Judgments, exclude: frozenset, derived: np.ndarray) -> np.ndarray:
    """The docs that prefer some doc by a good strict edge (explicit, or derived: ``derived``, graded above the
    lowest grade of their query) outside the ``exclude`` queries, or are tied; never a bad doc (the tool's
    "preferred")."""
    source = derived.copy()
    source[judgments.explicit_good_edges()[0]] = True
    for q in exclude:
        source[judgments.doc_offsets[q] : judgments.doc_offsets[q + 1]] = False
    source[judgments.tie_a] = True
    source[judgments.tie_b] = True
    return source & ~judgments.bad  # good edges never leave a bad doc; a bad doc's ties are ignored


def _derived_sources(judgments: Judgments) -> np.ndarray:
    """The graded docs above the lowest grade of their query: the sources of derived edges (bad or not)."""
    starts = judgments.doc_offsets[:-1]
    held = np.diff(judgments.doc_offsets) > 0
    lowest = np.full(len(starts), np.nan)
    if held.any():
        lowest[held] = np.fmin.reduceat(judgments.grades, starts[held])
    return judgments.grades > lowest[judgments.doc_query]


def _strict_closure(judgments: Judgments, exclude: frozenset, derived: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (i, j), i != j, joined by a walk with at least one strict edge (plus explicit self-edges), sorted by
    (i, j), for the queries not in ``exclude`` (:mod:`ir_pref_measures.model.reach`), as doc indices of the judgments'
    index dtype. Small queries are closed together on bit sets, their derived edges never listed; a larger query
    alone, on its listed edges, once the estimate of its closure has been checked against the budget (when even
    all its n^2 pairs might not fit); ``derived``: the sources of derived edges (:func:`_derived_sources`)."""
    e_src, e_dst, e_bounds = judgments.explicit_good_edges()
    tie_bounds = np.searchsorted(judgments.tie_a, judgments.doc_offsets)  # a tie lies within the query of tie_a
    good = derived & ~judgments.bad
    strict = (np.diff(e_bounds) > 0) | (np.diff(np.r_[0, np.cumsum(good)][judgments.doc_offsets]) > 0)
    queries = [q for q in np.flatnonzero(strict).tolist() if q not in exclude]
    out_src, out_dst = [], []
    for together, group in _closure_groups(np.diff(judgments.doc_offsets), queries):
        if together:
            i, j = _batch_closure(judgments, np.asarray(group, dtype=np.int64), e_bounds, tie_bounds)
        else:
            i, j = _query_closure(judgments, group[0], tie_bounds)
        out_src.append(i.astype(e_src.dtype, copy=False))
        out_dst.append(j.astype(e_dst.dtype, copy=False))
    if len(out_src) == 1:
        return out_src[0], out_dst[0]
    return np.concatenate(out_src or [e_src[:0]]), np.concatenate(out_dst or [e_dst[:0]])


def _fits(n: int) -> bool:
    """Even all n^2 pairs of a query of ``n`` docs fit in the budget."""
    return float(n) ** 2 * BYTES_PER_PAIR <= CLOSURE_BUDGET_BYTES


def _closure_groups(sizes: np.ndarray, queries: list[int]) -> Iterator[tuple[bool, list[int]]]:
    """``queries`` in order, in groups: ``(True, batch)`` for consecutive queries of at most ``BIT_QUERY_DOCS``
    docs (whose n^2 pairs fit in the budget) closed together, each batch's bit sets (docs x widest query bits)
    within ``BIT_BATCH_BYTES``; ``(False, [q])`` for a larger query, closed alone."""
    batch: list[int] = []
    docs = widest = 0
    for q in queries:
        n = int(sizes[q])
        alone = n > BIT_QUERY_DOCS or not _fits(n)
        if batch and (alone or (docs + n) * (max(widest, n) + 63) // 8 > BIT_BATCH_BYTES):
            yield True, batch
            batch, docs, widest = [], 0, 0
        if alone:
            yield False, [q]
            continue
        batch.append(q)
        docs, widest = docs + n, max(widest, n)
    if batch:
        yield True, batch


def _batch_closure(judgments: Judgments, queries, edge_bounds, tie_bounds) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~ir_pref_measures.model.reach.batch_closure` of ``queries`` (ascending) on their explicit good edges, ties
    and grades (``edge_bounds``, ``tie_bounds``: each query's slice of the edges and of the ties), in global doc
    indices."""
    e_src, e_dst, _ = judgments.explicit_good_edges()
    docs = judgments.docs_of(queries)  # sorted: a doc's place in it is its index in the batch
    edges = ranges(edge_bounds[queries], edge_bounds[queries + 1])
    ties = ranges(tie_bounds[queries], tie_bounds[queries + 1])
    doc_query = judgments.doc_query[docs]
    return reach.batch_closure(
        doc_query,
        docs - judgments.doc_offsets[doc_query],
        *(np.searchsorted(docs, part) for part in (e_src[edges], e_dst[edges])),
        *(np.searchsorted(docs, part) for part in (judgments.tie_a[ties], judgments.tie_b[ties])),
        judgments.bad[docs],
        judgments.grades[docs],
        ids=docs.astype(e_src.dtype),  # the pairs in the index dtype of the judgments
    )


def _query_closure(judgments: Judgments, q: int, tie_bounds) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~ir_pref_measures.model.reach.query_closure` of query ``q`` on its listed edges, budget checked, in global
    doc indices."""
    base, end = judgments.doc_offsets[q], judgments.doc_offsets[q + 1]
    src, dst = judgments.query_good_edges(q)
    ties = slice(tie_bounds[q], tie_bounds[q + 1])
    graph = (
        src - base,
        dst - base,
        judgments.tie_a[ties] - base,
        judgments.tie_b[ties] - base,
        judgments.bad[base:end],
    )
    if not _fits(int(end - base)):
        _check_budget(
            judgments,
            q,
            reach.closure_estimate(*graph),
            "transitive closure (estimated from its condensation)",
            "evaluate without the closure: transitive=False, e.g. ppref(transitive=False)@10",
        )
    i, j = reach.query_closure(*graph)
    return i + base, j + base
