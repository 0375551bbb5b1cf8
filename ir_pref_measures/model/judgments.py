"""Per-query preference judgments: one multigraph structure for every measure.

A :class:`Judgments` holds, for every query, interned doc ids, explicit strict preferences ``a -> b``
("a is preferred to b") with multiplicity, duplicate judgments (ties), docs judged bad, and grades. A
graded doc contributes the derived preferences ``a -> b`` for every doc b of its query with a lower grade;
they are computed from the grades where a kernel can count from sorted grades, and materialised only
where a kernel needs edges (:meth:`Judgments.strict_edges`).

Builders: :meth:`Judgments.from_qrels` (derived), :meth:`Judgments.from_preferences` (explicit, values as
in the ``carterette`` format), both from validated tables, :meth:`Judgments.from_trec_prefs` (trec_eval's prefs
rows), and :func:`combine` (a union of judgment sets, such as the "combined" graphs of Luo 2021). Their steps from
inputs to codes are in :mod:`ir_pref_measures.model.building`; the pair sets of the ppref family (derived edges, the
strict transitive closure, the memory budget) in :mod:`ir_pref_measures.model.pairs`. Reading files, ir_datasets IDs
and other input forms is :mod:`ir_pref_measures.loading.sources`' job.

Rules stated once, here:

* a doc judged bad prefers nothing: explicit or derived preferences *out of* a bad doc are ignored by
  the pair-based kernels (a warning says how many); preferences *into* a bad doc count;
* a qrels source that grades a doc twice in a query is rejected (by :mod:`~ir_pref_measures.loading.sources`); several
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
from typing import TYPE_CHECKING, ClassVar, NamedTuple

import numpy as np
import pyarrow as pa

from ir_pref_measures.errors import InputError
from ir_pref_measures.model import building, pairs
from ir_pref_measures.model.building import DocCodes, LineCodes, PairCodes
from ir_pref_measures.model.columns import integer_grades
from ir_pref_measures.model.ids import arrow, as_objects, pair_keys, ranges, unique_sorted
from ir_pref_measures.model.pairs import PairSet

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made or read
    import pandas as pd

DEFAULT_GROUP = "judgments"  # the group of judgments loaded without a group name


class GradedDoc(NamedTuple):
    """A graded doc, as ir_measures' ``Qrel`` (whose ``iteration`` field has a default)."""

    query_id: str
    doc_id: str
    relevance: int | float


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
        """True for each doc with a grade."""
        return ~np.isnan(self.grades)

    @cached_property
    def graded_queries(self) -> np.ndarray:
        """True for each query with a graded doc (the queries of :meth:`qrels`)."""
        return np.bincount(self.doc_query[self.graded], minlength=len(self)) > 0

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
        holds, as pytrec_eval needs: :func:`~ir_pref_measures.model.columns.integer_grades`); ``None`` when no doc is
        graded. Made for ir_measures' own computations only: the engine reads the grades themselves."""
        if not self.graded.any():
            return None
        import pandas as pd

        frame = self.frame()[self.graded]
        relevance = integer_grades(frame["grade"].to_numpy())
        return pd.DataFrame(
            {"query_id": frame["query_id"].astype(str), "doc_id": frame["doc_id"].astype(str), "relevance": relevance}
        )

    columns: ClassVar[tuple[str, ...]] = ("query_id", "doc_id", "relevance")  # with itertuples: see there

    def itertuples(self) -> Iterator[GradedDoc]:
        """The graded docs as ``(query_id, doc_id, relevance)`` namedtuples (:meth:`qrels`' rows). With
        :attr:`columns`, this is how ir_measures reads qrels from a table, so a Judgments from any source goes to
        ir_measures' own measures (nDCG@10, AP, ...) next to the preference ones, which read all of it:
        ``ir_measures.calc_aggregate([APpref, nDCG@10], judgments, run)``. Judgments without a grade are an
        :class:`InputError` (those measures need graded qrels)."""
        table = self.qrels()
        if table is None:
            raise InputError(
                "these judgments hold preferences only, and ir_measures' own measures (nDCG, AP, P, ...) need "
                "graded qrels",
                expected="graded qrels with the preferences (load_judgments('QRELS+PREFS')), or preference "
                "measures alone (ppref@k, APpref, PGC, ...)",
            )
        return map(GradedDoc._make, zip(table["query_id"], table["doc_id"], table["relevance"].tolist(), strict=True))

    def derived_edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Every ``a -> b`` with grade(a) > grade(b) in one query (global doc indices), materialised."""
        if "derived" not in self._cache:
            self._cache["derived"] = pairs.derived_edges(self.doc_query, self.grades)
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
        without listing them (:func:`ir_pref_measures.model.pairs.preference_pairs`). A query whose pairs would take
        more than :data:`~ir_pref_measures.model.pairs.CLOSURE_BUDGET_BYTES` is refused up front with an
        :class:`~ir_pref_measures.errors.InputError` (estimated from its sizes)."""
        key = ("pairs", transitive, tuple(sorted(exclude)))
        if key not in self._cache:
            self._cache[key] = pairs.preference_pairs(self, transitive, frozenset(exclude))
        return self._cache[key]

    def query_good_edges(self, q: int) -> tuple[np.ndarray, np.ndarray]:
        """Query ``q``'s slice of :meth:`good_edges` (global doc indices), built for that query alone, after
        checking that its derived edges fit in :data:`~ir_pref_measures.model.pairs.CLOSURE_BUDGET_BYTES`."""
        return pairs.query_good_edges(self, q)

    @classmethod
    def from_qrels(
        cls, qrels, *, checked: bool = False, group: str = DEFAULT_GROUP, repeated: str = "error"
    ) -> Judgments:
        """Graded judgments from qrels as a table (DataFrame in ir_measures' or PyTerrier's columns, dict of
        dicts, ``Qrel`` namedtuples; validated by :func:`ir_pref_measures.model.tables.qrels` unless ``checked``),
        all in judgment group ``group`` (one sub-group); or the :class:`~ir_pref_measures.model.columns.Columns` of a
        qrels file. A doc graded twice in a query is an error, or with ``repeated="max"`` graded by the largest
        of its grades (pref_eval's rule for diversity qrels with subtopic lines, which ``compare`` follows).
        Files and ir_datasets IDs: :func:`ir_pref_measures.loading.sources.judgments`."""
        return _assemble(*building.qrels_parts(qrels, checked=checked, repeated=repeated), groups=[group])

    @classmethod
    def from_trec_prefs(cls, table: pd.DataFrame, *, checked: bool = False) -> Judgments:
        """Judgments from trec_eval's ``prefs`` / ``qrels_prefs`` rows ``query_id, jg, jsg, doc_id, level``
        (:func:`ir_pref_measures.loading.groups.read_judgments` reads and checks them; a table is validated by
        :func:`ir_pref_measures.model.tables.trec_prefs` unless ``checked``), one group per jg. The union: a query
        with one (jg, jsg) gives grades (level = grade); otherwise each jsg gives explicit preferences, a over b for
        every two of its lines with level(a) > level(b)."""
        parts, groups = building.trec_prefs_parts(table, checked=checked)
        return _assemble(*parts, groups=groups)

    @classmethod
    def from_preferences(cls, prefs, *, checked: bool = False, group: str = DEFAULT_GROUP) -> Judgments:
        """Explicit judgments from a ``query_id, doc_id_a, doc_id_b, preference`` table (DataFrame or
        namedtuples; validated by :func:`ir_pref_measures.model.tables.preferences` unless ``checked``) or the
        :class:`~ir_pref_measures.model.columns.Columns` of a preference file
        (:func:`~ir_pref_measures.parsing.preferences.preference_columns`, checked as read), values as in
        the ``carterette`` format (-1: a preferred, 1: b preferred, 0: duplicates, -2 / 2: a / b bad), all in
        judgment group ``group``, each strict preference a sub-group of its own (module docstring)."""
        judgments = _assemble(*building.preference_parts(prefs, checked=checked), groups=[group])
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


def _assemble(
    query_vocab: np.ndarray,
    doc_vocab: pa.Array,
    docs: DocCodes,
    strict: PairCodes,
    ties: PairCodes,
    lines: LineCodes,
    *,
    groups,
    parts_by_group: dict | None = None,
) -> Judgments:
    """The judgments of a builder's parts (:data:`~ir_pref_measures.model.building.Parts`): every (query, doc) of
    ``docs``, ``strict``, ``ties`` and ``lines`` numbered in (query id, doc id) order; ``groups``: the sorted group
    names that ``lines.group`` codes; ``parts_by_group``: each group's judgments when there are several."""
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

    Parameters
    ----------
    *parts : Judgments
        The judgment sets, in order (the first graded part of a query keeps its grades).

    Returns
    -------
    Judgments
        Their union.
    """
    union, groups, holding = building.union_parts(parts)
    by_group = None
    if holding is not None:  # each group's judgments, the union of the parts that hold it
        by_group = {name: held[0] if len(held) == 1 else combine(*held) for name, held in holding.items()}
    return _assemble(*union, groups=groups, parts_by_group=by_group)
