"""Cycles of preference judgments under the strict transitive closure, and the warning when they collapse a query.

Under the closure (:mod:`ir_pref_measures.model.reach`), a pair ``(i, j)`` is strict when a walk from ``i`` to ``j``
holds a strict edge. Two docs are then strict **both ways** exactly when they lie in one strongly connected
component of the judgment graph (good strict edges, explicit and derived from the grades; ties both ways, never out
of a bad doc) that holds a strict edge: the walk ``i -> j`` can pass through that edge, and so can the walk back.
Such a pair counts once as correctly and once as wrongly ordered by any ranking, so a query whose docs form one
such component gives every run a value of about 0.5, whatever the judgments say. Noisy judgments (an LLM's or a
person's answers with a few contradictions) form one in every query once enough pairs are judged.

:func:`both_ways` counts those pairs per query without listing the closure (components of a graph whose derived
edges go through one node per grade, O(docs + edges)); :func:`warn_collapsed` says so in words, once per judgment
set, when a query has at least :data:`COLLAPSE_SHARE` of its pairs of judged docs strict both ways.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np

from ir_pref_measures.errors import user_stacklevel
from ir_pref_measures.model.judgments import DEFAULT_GROUP
from ir_pref_measures.model.reach import grade_levels

COLLAPSE_SHARE = 0.1  # a query whose pairs of judged docs are strict both ways in at least this share is collapsed
_warned = threading.Lock()


def both_ways(judgments) -> np.ndarray:
    """Per query of ``judgments``: the unordered pairs of distinct docs that the strict closure makes strict both
    ways (module docstring)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n = judgments.n_docs
    src, dst, _ = judgments.explicit_good_edges()
    good_ties = ~judgments.bad[judgments.tie_a] & ~judgments.bad[judgments.tie_b]
    tie_a, tie_b = judgments.tie_a[good_ties], judgments.tie_b[good_ties]  # a tie out of a bad doc leads nowhere back
    (level_src, level_dst), (walk_src, walk_dst) = grade_levels(judgments.doc_query, judgments.grades, judgments.bad)
    strict_src, strict_dst = np.concatenate([src, level_src]), np.concatenate([dst, level_dst])
    rows = np.concatenate([strict_src, tie_a, tie_b, walk_src]).astype(np.int64)
    cols = np.concatenate([strict_dst, tie_b, tie_a, walk_dst]).astype(np.int64)
    nodes = max(n, int(rows.max()) + 1 if len(rows) else 0, int(cols.max()) + 1 if len(cols) else 0)
    graph = csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(nodes, nodes))
    _, component = connected_components(graph, directed=True, connection="strong")
    inside = component[strict_src] == component[strict_dst]
    cyclic = np.zeros(component.max() + 1 if nodes else 0, dtype=bool)
    cyclic[component[strict_src[inside]]] = True
    doc_component = component[:n]
    counted = cyclic[doc_component]
    size = np.bincount(doc_component[counted], minlength=len(cyclic)).astype(np.float64)
    pairs_of = size * (size - 1) / 2  # every component lies within one query
    first_doc = np.full(len(cyclic), n, dtype=np.int64)
    np.minimum.at(first_doc, doc_component, np.arange(n))
    per_query = np.zeros(len(judgments.query_ids))
    held = size > 1
    np.add.at(per_query, judgments.doc_query[first_doc[held]], pairs_of[held])
    return per_query


def doc_pairs(judgments) -> np.ndarray:
    """Per query: the unordered pairs of its distinct judged docs, ``n (n - 1) / 2``."""
    sizes = np.diff(judgments.doc_offsets).astype(np.float64)
    return sizes * (sizes - 1) / 2


def collapse_message(judgments) -> str | None:
    """The warning's words when a query of ``judgments`` has at least :data:`COLLAPSE_SHARE` of its pairs of judged
    docs strict both ways under the closure, naming those queries; else ``None``."""
    if not len(judgments.edge_src):  # grades alone never contradict each other
        return None
    cyclic, pairs = both_ways(judgments), doc_pairs(judgments)
    share = np.divide(cyclic, pairs, out=np.zeros_like(cyclic), where=pairs > 0)
    collapsed = np.flatnonzero(share >= COLLAPSE_SHARE)
    if not len(collapsed):
        return None
    ids = [str(q) for q in judgments.query_ids[collapsed]]
    named = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
    overall = cyclic[collapsed].sum() / pairs[collapsed].sum()
    names = [str(name) for name in judgments.group_names if str(name) != DEFAULT_GROUP]
    which = f" ({', '.join(names)})" if names else ""
    return (
        f"the preference judgments{which} contradict each other: under the transitive closure, {overall:.0%} of "
        f"the pairs of judged docs of {len(collapsed)} of the {len(judgments.query_ids)} queries ({named}) are "
        f"preferred both ways (cycles), and count once as correct and once as wrong for every run, pulling its "
        f"values towards 0.5. "
        f"Make the judgments consistent first (ir_pref_measures.consistent_preferences, or judge export "
        f"--consistent), or evaluate without the closure (transitive=False, e.g. ppref(transitive=False)@10)"
    )


def warn_collapsed(judgments) -> None:
    """The warning of :func:`collapse_message`, at most once per judgment set (``judgments``' cache remembers it)."""
    with _warned:
        if "collapse_checked" in judgments._cache:
            return
        judgments._cache["collapse_checked"] = True
    message = collapse_message(judgments)
    if message is not None:
        warnings.warn(message, CycleWarning, stacklevel=user_stacklevel())


class CycleWarning(UserWarning):
    """Preference judgments whose cycles make the closure prefer pairs of docs both ways."""
