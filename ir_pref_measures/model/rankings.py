"""A run as per-query rank arrays, under the one tie rule of the library.

Tie rule: score descending, equal scores broken by doc id descending in string order (as trec_eval,
pytrec_eval and pref_eval do). The rank column of a run file is ignored. A doc listed twice in one
query of a run is an error; a run file whose scores increase down the lines of every query gets a warning (its
rank and score columns are likely swapped).

Doc ids stay an Arrow string array (no Python object per entry); they are matched by a 64-bit hash of
their bytes (:func:`ir_pref_measures.model.ids.string_hashes`), every match confirmed on the ids themselves, so no
doc vocabulary is built or sorted.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ir_pref_measures.errors import InputError
from ir_pref_measures.model.columns import Columns, FileText
from ir_pref_measures.model.ids import (
    arrow,
    as_numpy,
    as_objects,
    as_text,
    intern_blocks,
    lookup,
    ranges,
    string_hashes,
)

_U64 = np.uint64
_KEY_ROWS = 1 << 15  # run entries keyed at a time: the temporary arrays stay in cache and are reused


@dataclass(frozen=True, eq=False)
class Ranking:
    """Query ``query_ids[q]`` (sorted) ranks ``doc_text[offsets[q]:offsets[q + 1]]``, best first (rank 1).

    ``doc_text`` is an Arrow string array in rank order; ``doc_ids`` (an object array) is made only when asked for.
    """

    query_ids: np.ndarray
    offsets: np.ndarray
    doc_text: pa.Array
    scores: np.ndarray

    @cached_property
    def doc_ids(self) -> np.ndarray:
        """The doc id of every entry (object array), in rank order."""
        return as_objects(self.doc_text)

    @property
    def ranks(self) -> np.ndarray:
        """1-based rank of every entry of ``doc_ids``."""
        starts = np.repeat(self.offsets[:-1], np.diff(self.offsets))
        return np.arange(1, len(self.doc_text) + 1, dtype=np.int64) - starts

    def frame(self):
        """``query_id, doc_id, score, rank`` in rank order (a pandas DataFrame)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "query_id": np.repeat(self.query_ids, np.diff(self.offsets)),
                "doc_id": self.doc_ids,
                "score": self.scores,
                "rank": self.ranks,
            }
        )

    @cached_property
    def _keys(self) -> tuple[np.ndarray, int, int]:
        """(the sorted keys, query bits, rank bits): one uint64 key per entry, from the top bits down: its query
        index, the top bits of its doc id's hash, its 0-based rank in the query. Equal (query, hash) prefixes are
        neighbours once the keys are sorted, and the rank bits give each entry back: a sort of the keys alone
        (several times faster than an argsort) serves lookups and the repeated-doc check."""
        return _sorted_keys(self.offsets, len(self.query_ids), self.doc_text, None)

    def _positions(self, keys: np.ndarray, query: np.ndarray) -> np.ndarray:
        """The positions (into ``doc_text``) of entries given by their keys and query indexes."""
        _, _, rank_bits = self._keys
        return self.offsets[query] + (keys & _U64((1 << rank_bits) - 1)).astype(np.int64)

    def repeated(self) -> tuple[int, int] | None:
        """The two positions (in rank order) of a doc listed twice in its query, or ``None``."""
        keys, query_bits, rank_bits = self._keys
        differ = keys[1:] ^ keys[:-1]
        differ >>= _U64(rank_bits)  # in place: one temporary array the size of the keys
        same_prefix = np.flatnonzero(differ == 0)
        del differ
        if not len(same_prefix):
            return None
        group_starts = same_prefix[np.r_[True, same_prefix[1:] != same_prefix[:-1] + 1]]
        for start in group_starts.tolist():  # equal prefixes: a repeated doc, or (rarely) two ids whose hashes collide
            end = start + 1
            while end < len(keys) and (keys[end] ^ keys[start]) >> _U64(rank_bits) == 0:
                end += 1
            group = keys[start:end]
            positions = self._positions(group, (group >> _U64(64 - query_bits)).astype(np.int64))
            seen: dict[str, int] = {}
            for position in sorted(positions.tolist()):
                doc = self.doc_text[position].as_py()
                if doc in seen:
                    return seen[doc], position
                seen[doc] = position
        return None

    @cached_property
    def _query_text(self) -> pa.Array:
        return arrow(self.query_ids)

    def query_index(self, query_ids) -> np.ndarray:
        """The index of each of ``query_ids`` in ``query_ids`` of the run (int64; -1: not in the run)."""
        return lookup(query_ids, self._query_text)

    def rank_of(self, query_ids, doc_ids) -> np.ndarray:
        """Rank (float) of each (query, doc) pair; ``inf`` where the run does not retrieve it."""
        return self.rank_in(self.query_index(query_ids), doc_ids)

    def rank_in(self, want_query: np.ndarray, doc_ids) -> np.ndarray:
        """Rank (float) of each doc in the query of index ``want_query`` (into ``query_ids``; -1: a query the run
        does not hold); ``inf`` where the run does not retrieve it."""
        keys, query_bits, rank_bits = self._keys
        want_text = as_text(doc_ids)
        known = want_query >= 0
        query = np.maximum(want_query, 0)
        prefix = _key(query.astype(_U64), string_hashes(want_text), query_bits, rank_bits)
        by_prefix = np.argsort(prefix)  # sorted needles: searchsorted walks the keys once (several times faster)
        lo, hi = np.empty(len(prefix), dtype=np.int64), np.empty(len(prefix), dtype=np.int64)
        lo[by_prefix] = np.searchsorted(keys, prefix[by_prefix], "left")
        hi[by_prefix] = np.searchsorted(keys, prefix[by_prefix] | _U64((1 << rank_bits) - 1), "right")
        rank = np.full(len(prefix), np.inf)
        one = np.flatnonzero(known & (hi - lo == 1))
        entry = self._positions(keys[lo[one]], query[one])
        hit = as_numpy(pc.equal(self.doc_text.take(arrow(entry)), want_text.take(arrow(one))))
        rank[one[hit]] = entry[hit] - self.offsets[query[one[hit]]] + 1
        for i in np.flatnonzero(known & (hi - lo > 1)).tolist():  # colliding hashes: compare the ids one by one
            doc = want_text[i].as_py()
            for position in self._positions(keys[lo[i] : hi[i]], query[i]).tolist():
                if self.doc_text[position].as_py() == doc:
                    rank[i] = position - self.offsets[query[i]] + 1
        return rank

    @classmethod
    def from_columns(cls, columns: Columns) -> Ranking:
        """Build from a run file's ``query_id, doc_id, score`` columns
        (:func:`ir_pref_measures.parsing.formats.read_columns`);
        a repeated doc is an :class:`InputError` naming its later line."""
        fields = columns.fields
        return cls._build(fields["query_id"], fields["doc_id"], fields["score"], columns)

    @classmethod
    def from_frame(cls, frame, *, path: str | os.PathLike | FileText | None = None, checked: bool = False) -> Ranking:
        """Build from a ``query_id, doc_id, score`` frame, validated by :func:`ir_pref_measures.model.tables.run`
        unless ``checked`` (:func:`ir_pref_measures.loading.sources.ranking` reads and validates every run form) or
        read from a file: with ``path``, a ``line`` column names lines in messages (the file's text,
        :class:`~ir_pref_measures.model.columns.FileText`, also quotes them; a path names the file alone)."""
        if path is None and not checked:
            from ir_pref_measures.model import tables

            frame = tables.run(frame)
        raw = None if path is None or isinstance(path, str | os.PathLike) else path
        name = None if path is None else os.fspath(path) if isinstance(path, str | os.PathLike) else path.name
        missing = [c for c in ("query_id", "doc_id", "score") if c not in frame.columns]
        if missing:
            raise InputError(f"the run has no column(s) {missing} (found {list(frame.columns)})", path=name)
        score = np.asarray(frame["score"].to_numpy(), dtype=np.float64)
        lines = frame["line"].to_numpy() if "line" in frame.columns and path is not None else None
        source = None if lines is None or name is None else Columns(name, {}, lines, raw)
        return cls._build(frame["query_id"], frame["doc_id"], score, source)

    @classmethod
    def _build(cls, query, doc, score: np.ndarray, source: Columns | None) -> Ranking:
        """``source``: the file's columns, to name a line in messages (``None``: a table)."""
        if not len(score):
            raise InputError("the run is empty", path=None if source is None else source.name)
        q, query_ids = intern_blocks(query)
        if source is not None and _scores_increase(q, score, len(query_ids)):
            warnings.warn(
                f"{source.name}: the scores increase down the lines of every query: are the rank and score columns "
                "swapped? Runs are ranked by the score column (the 5th), descending",
                stacklevel=3,
            )
        doc = as_text(doc)
        hashes = None if source is None else source.hashes.pop("doc_id", None)  # taken: they become the keys
        order = _tie_rule_order(q, score, doc, len(query_ids))
        if order is not None:
            q, score, doc = q[order], score[order], doc.take(arrow(order))
            hashes = None if hashes is None else hashes[order]
        offsets = np.searchsorted(q, np.arange(len(query_ids) + 1)).astype(np.int64)
        ranking = cls(query_ids=query_ids, offsets=offsets, doc_text=doc, scores=score)
        if hashes is not None:  # the reader's hashes serve the keys (cached as the property caches them), then go
            ranking.__dict__["_keys"] = _sorted_keys(offsets, len(query_ids), doc, hashes)
        repeated = ranking.repeated()
        if repeated is not None:  # name the later of the two lines
            rows = [int(r) if order is None else int(order[r]) for r in repeated]
            _reject_repeated_doc(ranking, repeated[1], max(rows), source)
        return ranking


def _sorted_keys(
    offsets: np.ndarray, n_queries: int, doc_text: pa.Array, hashes: np.ndarray | None
) -> tuple[np.ndarray, int, int]:
    """:attr:`Ranking._keys` of a ranking, from the hashes of its doc ids (:func:`string_hashes`) when the reader
    computed them (``hashes``, in rank order: made the keys in place), else hashed here."""
    sizes = np.diff(offsets)
    query_bits = max(1, (n_queries - 1).bit_length())
    rank_bits = max(1, int(sizes.max() - 1).bit_length())
    keys = np.empty(len(doc_text), dtype=_U64) if hashes is None else hashes
    for lo in range(0, len(keys), _KEY_ROWS):  # in slices: the temporary arrays stay small
        position = np.arange(lo, min(lo + _KEY_ROWS, len(keys)))
        query = _query_of(offsets, lo, lo + len(position))
        found = string_hashes(doc_text.slice(lo, len(position))) if hashes is None else hashes[lo : lo + len(position)]
        part = _key(query.astype(_U64), found, query_bits, rank_bits)
        keys[lo : lo + len(position)] = part | (position - offsets[query]).astype(_U64)
    keys.sort()
    return keys, query_bits, rank_bits


def _query_of(offsets: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """The query index of each entry ``lo:hi`` of a ranking whose queries start at ``offsets``."""
    first, last = np.searchsorted(offsets, [lo, hi - 1], "right") - 1
    steps = np.bincount(offsets[first + 1 : last + 1] - lo, minlength=hi - lo)  # +1 where each query starts
    steps[0] += first
    return np.cumsum(steps)  # a ufunc, which lets other threads run (np.repeat holds the GIL)


def _scores_increase(query: np.ndarray, score: np.ndarray, n_queries: int) -> bool:
    """True when, in file order, the last line of every query scores above its first (queries whose first and last
    lines score the same aside, at least one query left): the rank and score columns of a run file swapped
    (``q Q0 doc 0.93 1``). ``query``: the query code (``0..n_queries-1``) of each line."""
    starts = np.flatnonzero(np.r_[True, query[1:] != query[:-1]])
    if len(starts) == n_queries:  # each query one block of lines (a run file as written): no sort
        first, last = score[starts], score[np.r_[starts[1:], len(query)] - 1]
    else:
        order = np.argsort(query, kind="stable")
        starts = np.flatnonzero(np.r_[True, query[order][1:] != query[order][:-1]])
        first, last = score[order[starts]], score[order[np.r_[starts[1:], len(order)] - 1]]
    change = last - first
    return bool((change > 0).any() and not (change < 0).any())


def _key(query: np.ndarray, hashes: np.ndarray, query_bits: int, rank_bits: int) -> np.ndarray:
    """The query index in the top ``query_bits``, the hash's top bits below, ``rank_bits`` zero bits at the bottom."""
    return (query << _U64(64 - query_bits)) | ((hashes >> _U64(query_bits + rank_bits)) << _U64(rank_bits))


def _tie_rule_order(query: np.ndarray, score: np.ndarray, doc_ids: pa.Array, n_queries: int) -> np.ndarray | None:
    """Positions by query (codes ``0..n_queries-1``), then score descending, then doc id descending; ``None`` when
    the input is in that order already (a run file as trec_eval writes it). When scores descend within each query
    (most run files), only the groups of tied entries are sorted by doc id, and queries in separate blocks are
    moved as blocks; anything else is sorted by query and score (:func:`_query_score_order`), then the groups of tied
    entries by doc id (no sort of the whole vocabulary)."""
    same_query = query[1:] == query[:-1]
    if np.all(~same_query | (score[1:] <= score[:-1])):
        order = _tied_groups_order(np.flatnonzero(same_query & (score[1:] == score[:-1])), doc_ids)
        if not (query[1:] < query[:-1]).any():
            return order
        starts = np.flatnonzero(np.r_[True, ~same_query])
        if len(starts) == n_queries:  # each query one block: move the blocks
            ends = np.r_[starts[1:], len(query)]
            by_query = np.argsort(query[starts], kind="stable")
            moved = ranges(starts[by_query], ends[by_query])
            return moved if order is None else order[moved]
    order = _query_score_order(query, score, n_queries)
    query, score = query[order], score[order]
    tied = np.flatnonzero((query[1:] == query[:-1]) & (score[1:] == score[:-1]))
    ties = _tied_groups_order(tied, doc_ids.take(arrow(order))) if len(tied) else None
    return order if ties is None else order[ties]


def _query_score_order(query: np.ndarray, score: np.ndarray, n_queries: int) -> np.ndarray:
    """Positions by query (codes ``0..n_queries-1``), then score descending, equal scores in any order (``-0.0``
    next to ``0.0``): a sort of the scores' bits made to order as the numbers do, then a stable sort by query (a radix
    sort for at most 2**15 queries); faster than Arrow's sort on both keys."""
    bits = np.ascontiguousarray(score, dtype=np.float64).view(_U64)
    negative = (bits >> _U64(63)).astype(bool)
    descending = np.where(negative, bits, ~(bits | _U64(1 << 63)))  # larger numbers, smaller keys
    by_score = np.argsort(descending)
    codes = query[by_score].astype(np.int16 if n_queries <= 2**15 else np.int32)
    return by_score[np.argsort(codes, kind="stable")]


def _tied_groups_order(tied: np.ndarray, doc_ids: pa.Array) -> np.ndarray | None:
    """Positions that put each group of tied entries (entry ``i`` ties with ``i + 1`` for ``i`` in ``tied``) in
    doc id descending order, the other entries staying where they are; ``None`` when every group is in that order."""
    if not len(tied) or pc.all(pc.greater(doc_ids.take(arrow(tied)), doc_ids.take(arrow(tied + 1)))).as_py():
        return None
    tied_with_previous = np.zeros(len(doc_ids) + 1, dtype=bool)
    tied_with_previous[tied + 1] = True
    in_group = tied_with_previous.copy()
    in_group[tied] = True
    rows = np.flatnonzero(in_group)
    group = np.cumsum(~tied_with_previous[rows])
    table = pa.table({"g": arrow(group), "d": doc_ids.take(arrow(rows))})
    order = np.arange(len(doc_ids))
    order[rows] = rows[as_numpy(pc.sort_indices(table, sort_keys=[("g", "ascending"), ("d", "descending")]))]
    return order


def _reject_repeated_doc(ranking: Ranking, position: int, row: int, source: Columns | None) -> None:
    query = ranking.query_ids[np.searchsorted(ranking.offsets, position, "right") - 1]
    number = None if source is None else source.line_no(row)
    raise InputError(
        f"doc {ranking.doc_text[position].as_py()!r} is listed twice in query {query!r} of the run",
        path=None if source is None else source.name,
        line_no=number,
        line=None if source is None or number is None else source.line(number),
        expected="each doc at most once per query",
    )
