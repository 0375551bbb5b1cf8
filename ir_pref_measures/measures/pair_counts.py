"""Counts of the preference pair multiset P by rank position: the arithmetic behind the ppref family.

For each evaluated query, P is the multiset of rank pairs ``(f, t)`` (preferred doc at rank f, the other
at rank t; ``inf`` = not retrieved) of Carterette & Bennett (SIGIR 2008), built as ``pairwise_pref_eval.py``
builds it: every strict pair of the judgments, plus every retrieved
preferred doc against every bad doc, plus ``PU * BU`` pairs ``(inf, inf)`` (unretrieved preferred docs
against unretrieved bad docs).

Every measure of the family is a prefix sum over these per-rank counts:

* ``correct[r]``: pairs with ``f == r < t`` (correctly ordered, preferred doc at r);
* ``ordered[r]``: pairs with ``min(f, t) == r`` (first touched at rank r);
* ``gain[r]``: sum of ``2**degree - 1`` over the correct pairs at r (Carterette & Bennett's weights);
* ``preferred[r]``: a retrieved doc at r prefers something (r is in PR).

Two builders give the same counts: :func:`explicit_counts` from the pair list, and :func:`graded_counts`
from grades alone, by sorting and a merge-count of dominated docs, O(n log^2 n) and never O(n^2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ir_pref_measures.model.closure import BlockPlan, block_plan, doc_events
from ir_pref_measures.model.ids import unique_sorted
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.pairs import PairSet

CHUNK_PAIRS = 50_000  # pairs per block of queries in the explicit kernel (bounds its temporary memory)
LEVEL_COUNTS = 8  # at most this many distinct grades in a block: pairs counted by running counts per grade
LIST_PAIRS = 1_000_000  # a query with more pairs than this is counted by blocks when it can be (see pair_counts)


@dataclass(frozen=True)
class PairCounts:
    """Per-rank counts for the evaluated queries ``queries`` (indices into ``Judgments.query_ids``).

    Events of query ``i`` (the ``i``-th evaluated one) are ``offsets[i]:offsets[i+1]``, by rank ascending.
    """

    queries: np.ndarray
    offsets: np.ndarray
    rank: np.ndarray
    correct: np.ndarray
    ordered: np.ndarray
    gain: np.ndarray
    preferred: np.ndarray
    total: np.ndarray
    unretrieved_preferred: np.ndarray
    bad: np.ndarray

    @property
    def event_query(self) -> np.ndarray:
        """Position (among the evaluated queries) of each event's query."""
        return np.repeat(np.arange(len(self.queries)), np.diff(self.offsets))


def _events(
    n_queries: int,
    query: np.ndarray,
    rank: np.ndarray,
    correct: np.ndarray,
    ordered: np.ndarray,
    gain: np.ndarray,
    preferred: np.ndarray,
):
    """Sum contributions that share (query, rank) into one event each, sorted by (query, rank)."""
    finite = np.isfinite(rank)
    query, rank = query[finite], rank[finite]
    correct, ordered, gain, preferred = correct[finite], ordered[finite], gain[finite], preferred[finite]
    same_query = query[1:] == query[:-1]
    if np.all((query[1:] > query[:-1]) | (same_query & (rank[1:] >= rank[:-1]))):  # in order (graded_counts')
        order = np.arange(len(query))  # what the stable sort would give
    else:
        order = np.lexsort((rank, query))
        query, rank = query[order], rank[order]
        same_query = query[1:] == query[:-1]
    new = np.r_[True, ~same_query | (rank[1:] != rank[:-1])] if len(query) else np.zeros(0, bool)
    group = np.cumsum(new) - 1
    n = int(new.sum())

    def total(values):
        return np.bincount(group, weights=values[order], minlength=n)

    return (
        np.searchsorted(query[new], np.arange(n_queries + 1)),
        rank[new],
        total(correct),
        total(ordered),
        total(gain),
        np.bincount(group, weights=preferred[order], minlength=n) > 0,
    )


def explicit_counts(judgments: Judgments, pairs: PairSet, doc_rank: np.ndarray, queries: np.ndarray) -> PairCounts:
    """Counts from the explicit pair list ``pairs``, with ``doc_rank`` (float, inf = unretrieved) per doc."""
    position = np.full(len(judgments), -1, dtype=np.int64)
    position[queries] = np.arange(len(queries))
    n = len(queries)

    src_pos = position[judgments.doc_query[pairs.src]]
    in_eval = src_pos >= 0
    src, dst = pairs.src[in_eval], pairs.dst[in_eval]
    q = src_pos[in_eval]
    f, t = doc_rank[src], doc_rank[dst]
    is_correct = f < t

    # PR: distinct ranks of retrieved docs that prefer something
    pr_q, pr_rank = _unique_pairs(q[np.isfinite(f)], f[np.isfinite(f)])
    first = np.minimum(f, t)
    ones = np.ones(len(src))
    zeros = np.zeros(len(src))
    pair_events = (
        np.concatenate([q, q]),
        np.concatenate([f, first]),
        np.concatenate([is_correct * ones, zeros]),
        np.concatenate([zeros, ones]),
        np.concatenate([_correct_gain(judgments.grades, src, dst, is_correct), zeros]),
        np.concatenate([np.isfinite(f), zeros > 0]),
    )
    return _with_bad_docs(
        judgments, doc_rank, queries, pairs.source, pair_events, pr_q, pr_rank, np.bincount(q, minlength=n)
    )


def _with_bad_docs(judgments, doc_rank, queries, source, pair_events, pr_q, pr_rank, n_pairs) -> PairCounts:
    """Counts from the events of the pairs (query position, rank, correct, ordered, gain, preferred), the
    PR ranks and the number of pairs per query, plus the bad-doc pairs and the unretrieved preferred docs."""
    position = np.full(len(judgments), -1, dtype=np.int64)
    position[queries] = np.arange(len(queries))
    docs = judgments.docs_of(queries)  # the evaluated docs
    doc_pos = position[judgments.doc_query[docs]]
    n = len(queries)
    # PU: unretrieved docs that are sources.
    unretrieved_source = source[docs] & np.isinf(doc_rank[docs])
    pu = np.bincount(doc_pos[unretrieved_source], minlength=n).astype(np.float64)

    # Bad docs: each retrieved preferred doc (rank r in PR) against every bad doc of its query.
    bad = judgments.bad[docs]
    bad_q, bad_rank = doc_pos[bad], doc_rank[docs[bad]]
    n_bad = np.bincount(bad_q, minlength=n).astype(np.float64)
    bad_unretrieved = np.bincount(bad_q[np.isinf(bad_rank)], minlength=n).astype(np.float64)
    bad_below_pr = _count_above(bad_q, bad_rank, pr_q, pr_rank, n)  # bad docs ranked below each PR rank
    retrieved_bad = np.isfinite(bad_rank)
    pr_below_bad = _count_above(pr_q, pr_rank, bad_q[retrieved_bad], bad_rank[retrieved_bad], n)
    n_pr = np.bincount(pr_q, minlength=n).astype(np.float64)

    e_q, e_rank, e_correct, e_ordered, e_gain, e_preferred = pair_events
    offsets, rank, correct, ordered, gain, preferred = _events(
        n,
        np.concatenate([e_q, pr_q, bad_q[retrieved_bad]]),
        np.concatenate([e_rank, pr_rank, bad_rank[retrieved_bad]]),
        np.concatenate([e_correct, bad_below_pr, 0 * pr_below_bad]),
        np.concatenate([e_ordered, bad_below_pr, pr_below_bad]),
        np.concatenate([e_gain, bad_below_pr, 0 * pr_below_bad]),
        np.concatenate([e_preferred, np.ones(len(pr_q), bool), pr_below_bad < 0]),
    )
    return PairCounts(
        queries=queries,
        offsets=offsets,
        rank=rank,
        correct=correct,
        ordered=ordered,
        gain=gain,
        preferred=preferred,
        total=n_pairs + n_pr * n_bad + pu * bad_unretrieved,
        unretrieved_preferred=pu,
        bad=n_bad,
    )


def block_counts(judgments: Judgments, plan: BlockPlan, doc_rank: np.ndarray) -> PairCounts:
    """Counts of one query from its blocks (:mod:`.closure`), without listing its pairs."""
    lo, hi = plan.lo, plan.hi
    rank = doc_rank[lo:hi]
    correct, gain, ordered, pairs = doc_events(plan, judgments.grades[lo:hi], rank)
    has = pairs > 0
    finite = np.isfinite(rank) & (has | (ordered > 0))  # the docs the listed pairs would give an event
    pr = finite & has
    zero = np.zeros(int(finite.sum()), dtype=np.int64)
    pair_events = (zero, rank[finite], correct[finite], ordered[finite], gain[finite], pr[finite])
    source = np.zeros(judgments.n_docs, dtype=bool)
    source[lo:hi] = plan.source
    pr_rank = np.sort(rank[pr])
    return _with_bad_docs(
        judgments,
        doc_rank,
        np.asarray([plan.q]),
        source,
        pair_events,
        np.zeros(len(pr_rank), dtype=np.int64),
        pr_rank,
        np.asarray([int(pairs.sum())]),
    )


@np.errstate(over="ignore", invalid="ignore")  # a grade beyond +-1023: an infinite gain, refused by wppref
def _correct_gain(grades: np.ndarray, src: np.ndarray, dst: np.ndarray, is_correct: np.ndarray) -> np.ndarray:
    """``2**degree - 1`` for the correct pairs, 0 for the others; the degree of preference is the grade
    difference when both docs are graded and it is positive, else 1."""
    difference = grades[src] - grades[dst]
    degree = np.where(difference > 0, difference, 1.0)
    return np.where(is_correct, np.exp2(degree) - 1.0, 0.0)


def _unique_pairs(query: np.ndarray, rank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if not len(query):
        return query.astype(np.int64), rank
    order = np.lexsort((rank, query))
    query, rank = query[order], rank[order]
    new = np.r_[True, (query[1:] != query[:-1]) | (rank[1:] != rank[:-1])]
    return query[new], rank[new]


def _count_above(
    item_q: np.ndarray, item_rank: np.ndarray, at_q: np.ndarray, at_rank: np.ndarray, n: int
) -> np.ndarray:
    """For each (at_q, at_rank): how many items of the same query have a rank strictly greater."""
    if not len(at_q):
        return np.zeros(0)
    finite_max = max(
        [1.0] + [float(r[np.isfinite(r)].max()) for r in (item_rank, at_rank) if len(r) and np.isfinite(r).any()]
    )
    span = finite_max + 2.0
    keys = np.sort(item_q * span + np.where(np.isfinite(item_rank), item_rank, span - 1.0))
    probe = at_q * span + at_rank
    return (np.searchsorted(keys, at_q * span + span, "left") - np.searchsorted(keys, probe, "right")).astype(
        np.float64
    )


def lower_before(keys: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every position i: how many j < i have ``keys[j] < keys[i]``, and the sum of their weights.

    Bottom-up merge sort, vectorised per level: at width w, each element of a right half looks up, by
    binary search, the sorted left half of its block. O(n log^2 n).
    """
    n = len(keys)
    count = np.zeros(n)
    weight = np.zeros(n)
    if n < 2:
        return count, weight
    dense = np.unique(keys, return_inverse=True)[1].astype(np.int64)
    span = int(dense.max()) + 1
    perm = np.arange(n)
    position = np.arange(n)
    width = 1
    while width < n:
        block = position // (2 * width)
        right = (position // width) % 2 == 1
        left_keys = block[~right] * span + dense[perm[~right]]
        left_weights = np.r_[0.0, np.cumsum(weights[perm[~right]])]
        probe_block = block[right] * span
        hi = np.searchsorted(left_keys, probe_block + dense[perm[right]], "left")
        lo = np.searchsorted(left_keys, probe_block, "left")
        count[perm[right]] += hi - lo
        weight[perm[right]] += left_weights[hi] - left_weights[lo]
        perm = perm[np.argsort(block * span + dense[perm], kind="stable")]
        width *= 2
    return count, weight


def lower_before_by_level(
    level: np.ndarray, start: np.ndarray, level_weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For every position i: how many j in ``start[i]:i`` have ``level[j] < level[i]``, and the sum of their
    weights (``level_weight[level[j]]``); the same as :func:`lower_before` within segments, by running counts per
    level: O(n x levels), for few levels (grades)."""
    n, n_levels = len(level), len(level_weight)
    counts = np.zeros((n + 1, n_levels), dtype=np.int64)
    counts[np.arange(1, n + 1), level] = 1
    np.cumsum(counts, axis=0, out=counts)  # counts[i, l]: positions before i at level l
    lower = np.cumsum(counts, axis=1) - counts  # positions before i at a level below l
    lower_weight = np.cumsum(counts * level_weight, axis=1) - counts * level_weight
    at = np.arange(n)
    count = lower[at, level] - lower[start, level]
    weight = lower_weight[at, level] - lower_weight[start, level]
    return count, weight


@np.errstate(over="ignore", under="ignore", invalid="ignore")  # grades beyond +-1023: see _correct_gain
def graded_counts(judgments: Judgments, doc_rank: np.ndarray, queries: np.ndarray) -> PairCounts:
    """Counts for judgments derived from grades (a -> b iff grade(a) > grade(b)), without pairs.

    For a retrieved doc d: below(d) = judged docs of lower grade ranked after d (its correct pairs),
    above(d) = docs of higher grade ranked after d; pairs first touched at d's rank = below + above.
    """
    position = np.full(len(judgments), -1, dtype=np.int64)
    position[queries] = np.arange(len(queries))
    n = len(queries)
    docs = judgments.docs_of(queries)
    docs = docs[judgments.graded[docs]]
    q = position[judgments.doc_query[docs]]
    rank = doc_rank[docs]
    grade = judgments.grades[docs]
    order = np.lexsort((docs, rank, q))  # by query, then rank (unretrieved last, by doc index)
    q, rank, grade = q[order], rank[order], grade[order]
    grade_values = unique_sorted(grade)
    level = np.searchsorted(grade_values, grade)
    key = q * max(len(grade_values), 1) + level
    w = np.exp2(-grade)

    query_start = np.searchsorted(q, np.arange(n + 1))
    start = query_start[q]
    by_key = np.argsort(key, kind="stable")  # one sort of the keys serves every count below
    sorted_keys = key[by_key]
    w_by_key = np.r_[0.0, np.cumsum(w[by_key])]
    w_prefix = np.r_[0.0, np.cumsum(w)]
    first_of_key = np.searchsorted(sorted_keys, key, "left")
    total_lower = first_of_key - start
    total_lower_w = w_by_key[first_of_key] - w_by_key[start]
    if len(grade_values) <= LEVEL_COUNTS:
        before, before_w = lower_before_by_level(level, start, np.exp2(-grade_values))
    else:
        before, before_w = lower_before(key, w)
        before = before - start
        before_w = before_w - w_prefix[start]
    same_total = np.searchsorted(sorted_keys, key, "right") - first_of_key
    same_before = _running_count(by_key, sorted_keys)
    later = query_start[q + 1] - np.arange(len(q)) - 1
    below = total_lower - before
    above = later - below - (same_total - same_before - 1)
    retrieved = np.isfinite(rank)
    gain = np.exp2(grade) * (total_lower_w - before_w) - below

    offsets, event_rank, correct, ordered, event_gain, preferred = _events(
        n, q, rank, below.astype(np.float64), (below + above).astype(np.float64), gain, total_lower > 0
    )
    unretrieved_preferred = np.bincount(q[~retrieved & (total_lower > 0)], minlength=n).astype(np.float64)
    return PairCounts(
        queries=queries,
        offsets=offsets,
        rank=event_rank,
        correct=correct,
        ordered=ordered,
        gain=event_gain,
        preferred=preferred,
        total=np.bincount(q, weights=total_lower.astype(np.float64), minlength=n),
        unretrieved_preferred=unretrieved_preferred,
        bad=np.zeros(n),
    )


def _running_count(order: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """How many earlier positions hold the same key (``order``: the stable argsort of the keys, ``sorted_keys``:
    the keys in that order)."""
    first = np.searchsorted(sorted_keys, sorted_keys, "left")
    out = np.empty(len(order), dtype=np.int64)
    out[order] = np.arange(len(order)) - first
    return out


def pair_counts(judgments: Judgments, doc_rank: np.ndarray, queries: np.ndarray, transitive: bool = True) -> PairCounts:
    """Counts for ``queries`` under ``doc_rank``: the graded fast path when every judgment is a grade;
    else the explicit pairs, a block of queries at a time (at most ``CHUNK_PAIRS`` pairs per block), except
    for a query with more than ``LIST_PAIRS`` pairs whose docs fall in few blocks of twins (grades plus a
    few explicit judgments): its pairs are counted by blocks (:mod:`.closure`), never listed; such a query
    holding grades only, with too many distinct grades for blocks, takes the graded kernel."""
    if judgments.only_graded:
        return graded_counts(judgments, doc_rank, queries)
    sizes = np.diff(judgments.doc_offsets)
    counted: dict[int, BlockPlan | None] = {}
    for q in np.asarray(queries)[sizes[queries].astype(np.float64) ** 2 > LIST_PAIRS].tolist():
        plan = block_plan(judgments, q, transitive)
        if plan is not None and plan.n_pairs > LIST_PAIRS:
            counted[q] = plan
        elif plan is None and _only_graded(judgments, q):
            counted[q] = None  # many distinct grades, no other judgment: the graded kernel, per query
    if not counted:
        return _listed_counts(judgments, doc_rank, queries, judgments.preference_pairs(transitive))
    pairs = judgments.preference_pairs(transitive, exclude=tuple(counted))
    parts, run = [], []
    for q in np.asarray(queries).tolist():
        if q not in counted:
            run.append(q)
            continue
        if run:
            parts.append(_listed_counts(judgments, doc_rank, np.asarray(run, dtype=np.int64), pairs))
            run = []
        plan = counted[q]
        one = np.asarray([q], dtype=np.asarray(queries).dtype)
        parts.append(
            graded_counts(judgments, doc_rank, one) if plan is None else block_counts(judgments, plan, doc_rank)
        )
    if run:
        parts.append(_listed_counts(judgments, doc_rank, np.asarray(run, dtype=np.int64), pairs))
    return _concatenate(queries, parts)


def _only_graded(judgments: Judgments, q: int) -> bool:
    """Query ``q`` holds grades only: every doc graded, none bad, no explicit preference or tie."""
    lo, hi = judgments.doc_offsets[q], judgments.doc_offsets[q + 1]
    has_edges = np.searchsorted(judgments.edge_src, [lo, hi])
    has_ties = np.searchsorted(judgments.tie_a, [lo, hi])
    return bool(
        judgments.graded[lo:hi].all()
        and not judgments.bad[lo:hi].any()
        and has_edges[0] == has_edges[1]
        and has_ties[0] == has_ties[1]
    )


def _listed_counts(judgments: Judgments, doc_rank: np.ndarray, queries: np.ndarray, pairs: PairSet) -> PairCounts:
    bounds = np.searchsorted(pairs.src, judgments.doc_offsets)
    sizes = np.diff(bounds)[queries]
    block = np.cumsum(sizes) // CHUNK_PAIRS
    parts = []
    for b in np.unique(block):
        chunk = queries[block == b]
        lo, hi = bounds[chunk.min()], bounds[chunk.max() + 1]
        part = PairSet(pairs.src[lo:hi], pairs.dst[lo:hi], pairs.source)
        parts.append(explicit_counts(judgments, part, doc_rank, chunk))
    return _concatenate(queries, parts) if parts else explicit_counts(judgments, pairs, doc_rank, queries)


def _concatenate(queries: np.ndarray, parts: list[PairCounts]) -> PairCounts:
    """Counts of consecutive blocks of ``queries`` as one."""
    starts = np.cumsum([0, *(len(p.rank) for p in parts)])
    offsets = np.concatenate([p.offsets[:-1] + start for p, start in zip(parts, starts, strict=False)])

    def joined(name: str) -> np.ndarray:
        return np.concatenate([getattr(p, name) for p in parts])

    return PairCounts(
        queries=queries,
        offsets=np.append(offsets, starts[-1]),
        **{
            name: joined(name)
            for name in ("rank", "correct", "ordered", "gain", "preferred", "total", "unretrieved_preferred", "bad")
        },
    )
