"""A run as per-query rank arrays, under the one tie rule of the library.

Tie rule: score descending, equal scores broken by doc id descending in string order (as trec_eval,
pytrec_eval and pref_eval do). The rank column of a run file is ignored. A doc listed twice in one
query of a run is an error.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ir_pref_measures.errors import InputError
from ir_pref_measures.formats import line_text, read_run

PYTERRIER_RUN_COLUMNS = {"qid": "query_id", "docno": "doc_id"}


@dataclass(frozen=True, eq=False)
class Ranking:
    """Query ``query_ids[q]`` ranks ``doc_ids[offsets[q]:offsets[q + 1]]``, best first (rank 1)."""

    query_ids: np.ndarray
    offsets: np.ndarray
    doc_ids: np.ndarray
    scores: np.ndarray

    @property
    def ranks(self) -> np.ndarray:
        """1-based rank of every entry of ``doc_ids``."""
        starts = np.repeat(self.offsets[:-1], np.diff(self.offsets))
        return np.arange(1, len(self.doc_ids) + 1, dtype=np.int64) - starts

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

    def rank_of(self, query_ids: np.ndarray, doc_ids: np.ndarray) -> np.ndarray:
        """Rank (float) of each (query, doc) pair; ``inf`` where the run does not retrieve it."""
        wanted = pd.DataFrame({"query_id": query_ids, "doc_id": doc_ids})
        found = wanted.merge(self.frame()[["query_id", "doc_id", "rank"]], how="left", on=["query_id", "doc_id"])
        return found["rank"].fillna(np.inf).to_numpy(dtype=np.float64)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, path: str | os.PathLike | None = None) -> Ranking:
        """Build from a frame with ``query_id, doc_id, score`` (PyTerrier's ``qid, docno`` accepted)."""
        frame = frame.rename(columns={k: v for k, v in PYTERRIER_RUN_COLUMNS.items() if k in frame.columns})
        missing = [c for c in ("query_id", "doc_id", "score") if c not in frame.columns]
        if missing:
            raise InputError(f"the run has no column(s) {missing} (found {list(frame.columns)})", path=path)
        if frame.empty:
            raise InputError("the run is empty", path=path)
        table = pd.DataFrame(
            {
                "query_id": frame["query_id"].astype(str).to_numpy(dtype=object),
                "doc_id": frame["doc_id"].astype(str).to_numpy(dtype=object),
                "score": pd.to_numeric(frame["score"], errors="raise").to_numpy(dtype=np.float64),
            }
        )
        if "line" in frame.columns:
            table["line"] = frame["line"].to_numpy()
        table = table.sort_values(
            ["query_id", "score", "doc_id"],
            ascending=[True, False, False],
            kind="mergesort",
            ignore_index=True,
        )
        _reject_repeated_docs(table, path)
        qids, starts = np.unique(table["query_id"].to_numpy(dtype=str), return_index=True)
        offsets = np.append(starts, len(table)).astype(np.int64)
        return cls(
            query_ids=qids.astype(object),
            offsets=offsets,
            doc_ids=table["doc_id"].to_numpy(dtype=object),
            scores=table["score"].to_numpy(dtype=np.float64),
        )


def _reject_repeated_docs(table: pd.DataFrame, path) -> None:
    repeated = table.duplicated(["query_id", "doc_id"], keep="first").to_numpy()
    if not repeated.any():
        return
    row = table.iloc[int(np.flatnonzero(repeated)[0])]
    line_no = int(row["line"]) if "line" in table.columns else None
    line = None
    if line_no is not None and path is not None:
        line = line_text(path, line_no)
    raise InputError(
        f"doc {row['doc_id']!r} is listed twice in query {row['query_id']!r} of the run",
        path=path,
        line_no=line_no,
        line=line,
        expected="each doc at most once per query",
    )


def as_ranking(run) -> Ranking:
    """A :class:`Ranking` from any run form ir_measures accepts, or a path to a TREC run file.

    Accepted: a ``Ranking``; a path; a pandas DataFrame (``query_id, doc_id, score`` or PyTerrier's
    ``qid, docno, score``); a dict ``{query_id: {doc_id: score}}``; an iterable of namedtuples with
    ``query_id, doc_id, score`` (such as ``ir_measures.ScoredDoc``).
    """
    if isinstance(run, Ranking):
        return run
    if isinstance(run, str | os.PathLike):
        return Ranking.from_frame(read_run(run), path=run)
    if isinstance(run, pd.DataFrame):
        return Ranking.from_frame(run)
    if isinstance(run, Mapping):
        qids = [q for q, docs in run.items() for _ in docs]
        docs = [d for q in run for d in run[q]]
        scores = [s for q in run for s in run[q].values()]
        return Ranking.from_frame(pd.DataFrame({"query_id": qids, "doc_id": docs, "score": scores}))
    if isinstance(run, Iterable):
        rows = list(run)
        if rows and not all(hasattr(rows[0], f) for f in ("query_id", "doc_id", "score")):
            raise InputError(f"run items need fields query_id, doc_id, score; got {rows[0]!r}")
        return Ranking.from_frame(
            pd.DataFrame(
                {
                    "query_id": [r.query_id for r in rows],
                    "doc_id": [r.doc_id for r in rows],
                    "score": [r.score for r in rows],
                }
            )
        )
    raise InputError(f"cannot read a run from {type(run).__name__}")
