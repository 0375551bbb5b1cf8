"""Ideal rankings of judged docs, for the normalised measures (``nwppref``).

Graded judgments: grade descending, ties by doc id. Explicit preference graphs: the Greedy FAS order
of the strict pairs (ties by doc id), with docs judged bad last.
"""

from __future__ import annotations

import numpy as np

from ir_pref_measures.measures.greedy_fas import greedy_fas_order
from ir_pref_measures.model.judgments import Judgments


def ideal_doc_rank(judgments: Judgments, transitive: bool = True) -> np.ndarray:
    """1-based rank of every judged doc in its query's ideal ranking (all judged docs are ranked)."""
    n_docs = judgments.n_docs
    index = np.arange(n_docs)
    if judgments.only_graded:
        order = np.lexsort((index, -judgments.grades, judgments.doc_query))
    else:
        pairs = judgments.preference_pairs(transitive)
        bounds = np.searchsorted(pairs.src, judgments.doc_offsets)
        order_parts = []
        for q in range(len(judgments)):
            lo, hi = judgments.doc_offsets[q], judgments.doc_offsets[q + 1]
            local = greedy_fas_order(
                int(hi - lo),
                pairs.src[bounds[q] : bounds[q + 1]] - lo,
                pairs.dst[bounds[q] : bounds[q + 1]] - lo,
                np.arange(hi - lo),
            )
            local = local[np.argsort(judgments.bad[lo + local], kind="stable")]
            order_parts.append(local + lo)
        order = np.concatenate(order_parts) if order_parts else index
    rank = np.empty(n_docs, dtype=np.float64)
    rank[order] = index - judgments.doc_offsets[judgments.doc_query[order]] + 1
    return rank
