"""The preference pairs of a :class:`~ir_pref_measures.model.judgments.Judgments`: the derived edges of the grades
and the pair sets of the ppref family.

A graded doc ``a`` prefers every doc ``b`` of its query with a lower grade (:func:`derived_edges`, built by sorting).
The ppref family counts strict pairs (:func:`preference_pairs`, a :class:`PairSet`): the good strict edges (explicit
and derived, none out of a bad doc), or with ``transitive`` their strict closure, every pair ``(i, j)``, ``i != j``,
joined by a walk that holds at least one strict edge and walks through ties (a tie never leads out of a bad doc; an
explicit self-preference gives ``(i, i)``). Queries of at most :data:`BIT_QUERY_DOCS` docs are closed together on bit
sets (:func:`~ir_pref_measures.model.reach.batch_closure`), their derived edges never listed; a larger query alone, on
its listed edges (:func:`~ir_pref_measures.model.reach.query_closure`).

A query whose listed pairs would take more memory than :data:`CLOSURE_BUDGET_BYTES` (at :data:`BYTES_PER_PAIR` each) is
refused up front with an :class:`~ir_pref_measures.errors.InputError` (:func:`check_budget`), estimated from its sizes.

The functions take the ``Judgments`` as their first argument, ``judgments``, unannotated: ``Judgments`` calls this
module, which therefore does not import it (no import cycle).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.model import reach
from ir_pref_measures.model.ids import ranges

BIT_QUERY_DOCS = 2048  # queries up to this many docs are closed together, on bit sets (one bit per pair of docs)
BIT_BATCH_BYTES = 1 << 24  # one bit matrix (docs x widest query) of the queries closed together; a few are alive
CLOSURE_BUDGET_BYTES = 3 * 2**30  # most memory one query's listed preference pairs may take; more is refused
BYTES_PER_PAIR = 256  # peak memory per listed pair (measured: 245 B on a closure of 5M pairs, APpref), kernel included

# the values of a carterette-form preference table (model.building.preference_parts reads them)
CARTERETTE_NUMBERS = (-2, -1, 0, 1, 2)
CARTERETTE_NOTE = "preference -1 (a preferred), 1 (b preferred), 0 (duplicates), -2 (a bad, b NA), 2 (a NA, b bad)"
NA = "NA"


@dataclass(frozen=True)
class PairSet:
    """The strict preference pairs of a judgment set, as the ppref family defines them.

    ``src[i] -> dst[i]`` (global doc indices, unique, sorted) are the pairs with a strict preference:
    the explicit ones, or with ``transitive`` every pair joined by a walk holding at least one strict
    edge (duplicates inherit each other's preferences, as in Carterette et al.'s pairwise_pref_eval.py).
    ``source`` marks the docs that prefer anything or are a duplicate of anything (the tool counts both as "preferred").
    """

    src: np.ndarray
    dst: np.ndarray
    source: np.ndarray


def derived_edges(doc_query: np.ndarray, grades: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def check_budget(judgments, q: int, pairs: int, what: str, way_out: str) -> None:
    """Refuse a query whose ``pairs`` listed pairs would take more than ``CLOSURE_BUDGET_BYTES``."""
    need = pairs * BYTES_PER_PAIR
    if need > CLOSURE_BUDGET_BYTES:
        raise InputError(
            f"query {judgments.query_ids[q]!r}: listing its {what} would take about {pairs:,} pairs "
            f"(~{need / 2**30:.1f} GB, over the budget ir_pref_measures.model.pairs.CLOSURE_BUDGET_BYTES = "
            f"{CLOSURE_BUDGET_BYTES / 2**30:.1f} GB); {way_out}, or raise the budget"
        )


def query_good_edges(judgments, q: int) -> tuple[np.ndarray, np.ndarray]:
    """Query ``q``'s slice of :meth:`~ir_pref_measures.model.judgments.Judgments.good_edges` (global doc indices),
    built for that query alone, after checking that its derived edges fit in ``CLOSURE_BUDGET_BYTES``."""
    lo, hi = int(judgments.doc_offsets[q]), int(judgments.doc_offsets[q + 1])
    src, dst, bounds = judgments.explicit_good_edges()
    e_src, e_dst = src[bounds[q] : bounds[q + 1]], dst[bounds[q] : bounds[q + 1]]
    grades, bad = judgments.grades[lo:hi], judgments.bad[lo:hi]
    graded = np.sort(grades[~np.isnan(grades)])
    good_grades = grades[~np.isnan(grades) & ~bad]
    n_derived = int(np.searchsorted(graded, good_grades, "left").sum())
    check_budget(
        judgments,
        q,
        n_derived + len(e_src),
        "derived and explicit preference pairs (grades plus explicit preferences)",
        "PGC and Compatibility never need this list, and the ppref family counts such a query without it "
        "only when its docs without explicit judgments have few distinct grades (at most "
        "ir_pref_measures.model.closure.BLOCK_LIMIT blocks; nwppref's ideal ranking always needs the list)",
    )
    d_src, d_dst = derived_edges(judgments.doc_query[lo:hi], grades)
    keep = ~bad[d_src]
    all_src = np.concatenate([e_src, (d_src[keep] + lo).astype(e_src.dtype)])
    all_dst = np.concatenate([e_dst, (d_dst[keep] + lo).astype(e_dst.dtype)])
    order = np.lexsort((all_dst, all_src))
    return all_src[order], all_dst[order]


def _good_edges_of(judgments, exclude: frozenset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:meth:`~ir_pref_measures.model.judgments.Judgments.good_edges`, or, when a query has derived edges and explicit
    ones (a combined graph) or some queries are excluded, the same built query by query (budget checked, no global
    list)."""
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


def preference_pairs(judgments, transitive: bool, exclude: frozenset = frozenset()) -> PairSet:
    """The :class:`PairSet` of ``judgments``: its distinct good strict edges, or with ``transitive`` their strict
    closure, leaving out the queries in ``exclude`` (:meth:`~ir_pref_measures.model.judgments.Judgments.
    preference_pairs` caches it)."""
    derived = _derived_sources(judgments)
    if transitive:
        src, dst = _strict_closure(judgments, exclude, derived)
    else:
        src, dst, _ = _good_edges_of(judgments, exclude)
        distinct = np.r_[True, (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])] if len(src) else np.zeros(0, bool)
        src, dst = src[distinct], dst[distinct]
    return PairSet(src=src, dst=dst, source=_sources(judgments, exclude, derived))


def _sources(judgments, exclude: frozenset, derived: np.ndarray) -> np.ndarray:
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


def _derived_sources(judgments) -> np.ndarray:
    """The graded docs above the lowest grade of their query: the sources of derived edges (bad or not)."""
    starts = judgments.doc_offsets[:-1]
    held = np.diff(judgments.doc_offsets) > 0
    lowest = np.full(len(starts), np.nan)
    if held.any():
        lowest[held] = np.fmin.reduceat(judgments.grades, starts[held])
    return judgments.grades > lowest[judgments.doc_query]


def _strict_closure(judgments, exclude: frozenset, derived: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def _batch_closure(judgments, queries, edge_bounds, tie_bounds) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~ir_pref_measures.model.reach.batch_closure` of ``queries`` (ascending) on their explicit good edges, ties
    and grades (``edge_bounds``, ``tie_bounds``: each query's slice of the edges and of the ties), in global doc
    indices."""
    e_src, e_dst, _ = judgments.explicit_good_edges()
    docs = judgments.docs_of(queries)  # sorted: a doc's place in it is its index in the batch
    edges = ranges(edge_bounds[queries], edge_bounds[queries + 1])
    ties = ranges(tie_bounds[queries], tie_bounds[queries + 1])
    doc_query = judgments.doc_query[docs]
    src, dst = (np.searchsorted(docs, part) for part in (e_src[edges], e_dst[edges]))
    tie_a, tie_b = (np.searchsorted(docs, part) for part in (judgments.tie_a[ties], judgments.tie_b[ties]))
    return reach.batch_closure(
        doc_query,
        docs - judgments.doc_offsets[doc_query],
        src,
        dst,
        tie_a,
        tie_b,
        judgments.bad[docs],
        judgments.grades[docs],
        ids=docs.astype(e_src.dtype),  # the pairs in the index dtype of the judgments
    )


def _query_closure(judgments, q: int, tie_bounds) -> tuple[np.ndarray, np.ndarray]:
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
        check_budget(
            judgments,
            q,
            reach.closure_estimate(*graph),
            "transitive closure (estimated from its condensation)",
            "evaluate without the closure: transitive=False, e.g. ppref(transitive=False)@10",
        )
    i, j = reach.query_closure(*graph)
    return i + base, j + base
