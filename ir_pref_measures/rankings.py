"""A run as per-query rank arrays, under the one tie rule of the library.

Tie rule: score descending, equal scores broken by doc id descending in string order (as trec_eval,
pytrec_eval and pref_eval do). The rank column of a run file is ignored. A doc listed twice in one
query of a run is an error.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ir_pref_measures.errors import InputError
from ir_pref_measures.formats import line_text
from ir_pref_measures.ids import as_text, intern, lookup, pair_keys


@dataclass(frozen=True, eq=False)
class Ranking:
    """Query ``query_ids[q]`` ranks ``doc_ids[offsets[q]:offsets[q + 1]]``, best first (rank 1).

    Docs are held as codes (``doc_codes``, in rank order) into an Arrow vocabulary of doc ids (in no particular
    order: it is never sorted); the ids themselves (``doc_ids``, an object array) are made only when asked for.
    """

    query_ids: np.ndarray
    offsets: np.ndarray
    doc_codes: np.ndarray
    doc_vocabulary: pa.Array
    scores: np.ndarray

    @cached_property
    def doc_ids(self) -> np.ndarray:
        """The doc id of every entry (object array), in rank order."""
        return self.doc_vocabulary.take(pa.array(self.doc_codes)).to_numpy(zero_copy_only=False)

    @property
    def ranks(self) -> np.ndarray:
        """1-based rank of every entry of ``doc_ids``."""
        starts = np.repeat(self.offsets[:-1], np.diff(self.offsets))
        return np.arange(1, len(self.doc_codes) + 1, dtype=np.int64) - starts

    def frame(self) -> pd.DataFrame:
        """``query_id, doc_id, score, rank`` in rank order."""
        return pd.DataFrame(
            {
                "query_id": np.repeat(self.query_ids, np.diff(self.offsets)),
                "doc_id": self.doc_ids,
                "score": self.scores,
                "rank": self.ranks,
            }
        )

    @cached_property
    def _by_key(self) -> tuple[np.ndarray, np.ndarray]:
        """(positions sorted by (query, doc code), those keys): for lookups and the repeated-doc check."""
        run_query = np.repeat(np.arange(len(self.query_ids)), np.diff(self.offsets))
        keys = pair_keys(run_query, self.doc_codes, len(self.doc_vocabulary) + 1)
        order = np.argsort(keys, kind="stable")
        return order, keys[order]

    def repeated(self) -> tuple[int, int] | None:
        """The two positions (in rank order) of a doc listed twice in its query, or ``None``."""
        order, keys = self._by_key
        twice = np.flatnonzero(keys[1:] == keys[:-1])
        return (int(order[twice[0]]), int(order[twice[0] + 1])) if len(twice) else None

    def rank_of(self, query_ids: np.ndarray, doc_ids: np.ndarray) -> np.ndarray:
        """Rank (float) of each (query, doc) pair; ``inf`` where the run does not retrieve it."""
        order, sorted_keys = self._by_key
        want_query = lookup(query_ids, pa.array(self.query_ids, pa.string()))
        want_doc = lookup(doc_ids, self.doc_vocabulary)
        n = len(self.doc_vocabulary) + 1
        wanted = np.where((want_query >= 0) & (want_doc >= 0), pair_keys(want_query, want_doc, n), -1)
        at = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
        found = sorted_keys[at] == wanted
        rank = np.full(len(wanted), np.inf)
        rank[found] = self.ranks[order[at[found]]]
        return rank

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, path: str | os.PathLike | None = None) -> Ranking:
        """Build from a validated ``query_id, doc_id, score`` frame (:func:`ir_pref_measures.sources.ranking`
        reads and validates every run form)."""
        missing = [c for c in ("query_id", "doc_id", "score") if c not in frame.columns]
        if missing:
            raise InputError(f"the run has no column(s) {missing} (found {list(frame.columns)})", path=path)
        if frame.empty:
            raise InputError("the run is empty", path=path)
        (q,), query_ids = intern(frame["query_id"])
        doc_ids = as_text(frame["doc_id"])
        encoded = pc.dictionary_encode(doc_ids)
        score = pd.to_numeric(frame["score"], errors="raise").to_numpy(dtype=np.float64)
        order = _tie_rule_order(q, score, doc_ids)
        ranking = cls(
            query_ids=query_ids,
            offsets=np.searchsorted(q[order], np.arange(len(query_ids) + 1)).astype(np.int64),
            doc_codes=encoded.indices.to_numpy(zero_copy_only=False)[order],
            doc_vocabulary=encoded.dictionary,
            scores=score[order],
        )
        repeated = ranking.repeated()
        if repeated is not None:  # name the later of the two lines
            _reject_repeated_doc(frame.iloc[int(max(order[list(repeated)]))], path)
        return ranking


def _tie_rule_order(query: np.ndarray, score: np.ndarray, doc_ids: pa.Array) -> np.ndarray:
    """Positions by query, then score descending, then doc id descending: Arrow's multi-key sort, which
    compares doc ids only among equal scores (no sort of the whole vocabulary)."""
    table = pa.table({"q": query, "s": score, "d": doc_ids})
    keys = [("q", "ascending"), ("s", "descending"), ("d", "descending")]
    return pc.sort_indices(table, sort_keys=keys).to_numpy()


def _reject_repeated_doc(row: pd.Series, path) -> None:
    line_no = int(row["line"]) if "line" in row.index else None
    line = line_text(path, line_no) if line_no is not None and path is not None else None
    raise InputError(
        f"doc {row['doc_id']!r} is listed twice in query {row['query_id']!r} of the run",
        path=path,
        line_no=line_no,
        line=line,
        expected="each doc at most once per query",
    )
