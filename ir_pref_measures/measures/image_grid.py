"""Greedy PGC for results shown in a grid (Luo 2021, chapter 5, Algorithms 5-7).

An examination order gives every grid cell a key; lower keys are examined first. Greedy PGC then runs
with the key in place of the rank (RANKIMAGESINK / RANKIMAGESOURCE: sinks take the largest (key, doc
id), sources and max-delta vertices the smallest; docs not in the grid have key +infinity), and the grid
is linearised by key, ties broken by position in the ideal ranking (docs outside the ideal after those
in it, then by the run's order), as §5.3 says. The score is the RBO of the ideal and that list.

Examination orders (rows and columns 0-based, ``width`` = results in the cell's row):

==============  ==========================================  ====================================
name            order                                        key
==============  ==========================================  ====================================
``left_right``  left to right, top to bottom (Xie's default)  row-major index
``weighted``    weighted default: the default order; its     row-major index
                weight 1/log2(j+1) is monotone in j
``middle``      middle-position bias                         ``row + |floor(width/2) - col|``
``bottom_top``  bottom to top, right to left                 minus the row-major index
``manhattan``   Manhattan distance from the top-left cell    ``row + col``
``euclidean``   Euclidean distance from the top-left cell    ``row^2 + col^2`` (same order)
==============  ==========================================  ====================================

X. Xie, J. Mao, Y. Liu, M. de Rijke, H. Chen, M. Zhang, S. Ma. Preference-based evaluation metrics for
web image search. SIGIR 2020. C. Luo. Information Retrieval Evaluation Measures Based on Preference
Graphs. MMath thesis, University of Waterloo, 2021.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.measures.params import ORDERS as ORDERS
from ir_pref_measures.measures.pgc import ideal_order, positions_in, rbo_of_positions
from ir_pref_measures.model.ids import encode, intern, pair_keys
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.rankings import Ranking


@dataclass(frozen=True, eq=False)
class Grid:
    """Result grids of many queries: entry ``i`` of ``ranking`` (query by query, in reading order) sits
    in row ``row[i]``, column ``col[i]`` (0-based) of a row holding ``width[i]`` results."""

    ranking: Ranking
    row: np.ndarray
    col: np.ndarray
    width: np.ndarray

    @classmethod
    def from_ranking(cls, ranking: Ranking, cols: int) -> Grid:
        """The run's results laid out row-major in ``cols`` columns (the last row may be shorter)."""
        if int(cols) != cols or cols < 1:
            raise InputError(f"a grid needs a positive number of columns, not {cols!r}")
        index = ranking.ranks - 1
        row, col = index // cols, index % cols
        size = np.repeat(np.diff(ranking.offsets), np.diff(ranking.offsets))
        return cls(ranking, row, col, np.minimum(cols, size - row * cols))

    @classmethod
    def from_positions(cls, frame) -> Grid:
        """Explicit positions from a table (a DataFrame or any mapping of columns) with columns ``query_id,
        doc_id, row, col``, and ``width`` (default: the number of results in the row); see :meth:`from_arrays`.
        The kernels never import pandas: :func:`ir_pref_measures.meta.evaluation.grid_values` reads the frame."""
        columns = list(frame.columns if hasattr(frame, "columns") else frame)
        missing = [c for c in ("query_id", "doc_id", "row", "col") if c not in columns]
        if missing:
            raise InputError(f"grid positions need column(s) {missing} (found {columns})")
        width = frame["width"] if "width" in columns else None
        return cls.from_arrays(frame["query_id"], frame["doc_id"], frame["row"], frame["col"], width)

    @classmethod
    def from_arrays(cls, query_id, doc_id, row, col, width=None) -> Grid:
        """Explicit positions: per entry its query id, doc id, 0-based row and column, and ``width`` (default:
        the number of results in the row). A doc twice in a query, or two docs in one cell, is an error."""
        (q,), query_ids = intern(query_id)
        (d,), doc_vocabulary = encode(doc_id)
        row, col = (np.asarray(x, dtype=np.int64) for x in (row, col))
        if (row < 0).any() or (col < 0).any():
            raise InputError("grid rows and columns are 0-based and cannot be negative")
        for what, keys in (
            ("a doc placed twice", pair_keys(q, d, len(doc_vocabulary))),
            ("two docs in one cell", pair_keys(pair_keys(q, row, row.max() + 1), col, col.max() + 1)),
        ):
            if len(np.unique(keys)) < len(keys):
                raise InputError(f"grid positions hold {what} in one query")
        if width is None:
            row_key = pair_keys(q, row, row.max() + 1)
            _, inverse, counts = np.unique(row_key, return_inverse=True, return_counts=True)
            width = counts[inverse.reshape(-1)]
        else:
            width = np.asarray(width, dtype=np.int64)
        order = np.lexsort((col, row, q))
        ranking = Ranking(
            query_ids=query_ids,
            offsets=np.searchsorted(q[order], np.arange(len(query_ids) + 1)).astype(np.int64),
            doc_text=doc_vocabulary.take(d[order]),
            scores=-np.arange(len(order), dtype=np.float64),
        )
        return cls(ranking, row[order], col[order], width[order])


def examination_key(grid: Grid, order: str) -> np.ndarray:
    """Per grid entry, its key under examination ``order`` (lower = examined earlier); ties are possible."""
    row, col = grid.row.astype(np.float64), grid.col.astype(np.float64)
    reading = row * (grid.col.max(initial=0) + 1) + col
    keys = {
        "left_right": lambda: reading,
        "weighted": lambda: reading,
        "middle": lambda: row + np.abs(grid.width // 2 - col),
        "bottom_top": lambda: -reading,
        "manhattan": lambda: row + col,
        "euclidean": lambda: row * row + col * col,
    }
    if order not in keys:
        raise InputError(f"unknown examination order {order!r}; known: {', '.join(ORDERS)}")
    return keys[order]()


def grid_pgc(
    judgments: Judgments,
    grid: Grid,
    queries: np.ndarray,
    order: str = "middle",
    p: float = 0.95,
    depth: int = 1000,
    normalize: bool = False,
) -> np.ndarray:
    """Greedy PGC of one result grid per query index in ``queries`` (queries without a grid score 0)."""
    ranking = grid.ranking
    key = examination_key(grid, order)
    doc_rank = ranking.rank_of(judgments.query_ids[judgments.doc_query], judgments.doc_text)
    retrieved = np.isfinite(doc_rank)
    run_query = np.searchsorted(ranking.query_ids, judgments.query_ids[judgments.doc_query[retrieved]])
    entry = ranking.offsets[run_query] + doc_rank[retrieved].astype(np.int64) - 1
    doc_key = np.full(len(doc_rank), np.inf)
    doc_key[retrieved] = key[entry]
    ideal_position = positions_in(ideal_order(judgments, doc_key, queries), judgments.doc_query, len(doc_key))
    entry_ideal = np.full(len(key), np.inf)
    entry_ideal[entry] = np.where(ideal_position[retrieved] >= 0, ideal_position[retrieved], np.inf)
    entry_query = np.repeat(np.arange(len(ranking.query_ids)), np.diff(ranking.offsets))
    linear = np.lexsort((np.arange(len(key)), entry_ideal, key, entry_query))
    linear_position = np.empty(len(key), dtype=np.int64)
    linear_position[linear] = np.arange(len(key)) - ranking.offsets[entry_query[linear]]
    run_position = np.full(len(doc_rank), np.inf)
    run_position[retrieved] = linear_position[entry]
    return rbo_of_positions(judgments, queries, ideal_position, run_position, p, depth, normalize)
