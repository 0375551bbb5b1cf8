"""trec_eval's measures of graded relevance, computed for every query of a run at once.

A measure of trec_eval 9 (pytrec_eval) depends only on the judged docs of a query (their grade, their rank in the
run) and on the number of docs the run retrieves for it: unjudged docs count only through the ranks they push the
judged ones down to. :class:`Ranked` holds the judged docs of many queries side by side, sorted by (query, rank);
every kernel is a sum per query (``np.bincount``) of a per-doc term, or a cumulative count within the query, with no
loop over queries.

trec_eval's rules (``form_res_rels.c`` and ``m_*.c``), stated once: a doc is *judged* when its grade is >= 0 (a
negative grade means "in the pool, unjudged"); it is *relevant* at level ``rel`` when judged and grade >= ``rel``;
the ideal ranking of nDCG sorts all judged docs of the query by grade (relevant or not, retrieved or not); a value
with a zero denominator is 0. ``judged_only`` (trec_eval's ``-J``) removes the docs that are not judged from the
run before ranking (:meth:`Ranked.judged_only`).

C. Buckley. trec_eval 9.0 (usnistgov/trec_eval), 2008; C. Van Gysel, M. de Rijke. Pytrec_eval: An Extremely Fast
Python Interface to trec_eval. SIGIR 2018.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Ranked:
    """The judged docs of ``len(retrieved)`` queries, sorted by (query, rank): ``query`` (0-based), ``rank`` (1-based
    float; ``inf``: not retrieved), ``grade`` (float), and per query ``retrieved``, the number of docs the run
    ranks (trec_eval's ``num_ret``). Build with :meth:`of`."""

    query: np.ndarray
    rank: np.ndarray
    grade: np.ndarray
    retrieved: np.ndarray

    @classmethod
    def of(cls, query: np.ndarray, rank: np.ndarray, grade: np.ndarray, retrieved: np.ndarray) -> Ranked:
        """Sorted by (query, rank); the docs of a query need not be adjacent."""
        order = np.lexsort((rank, query))
        return cls(query[order], rank[order], grade[order], np.asarray(retrieved, dtype=np.float64))

    @property
    def n(self) -> int:
        return len(self.retrieved)

    def total(self, values: np.ndarray) -> np.ndarray:
        """Per query, the sum of ``values`` (one per doc) in rank order."""
        return np.bincount(self.query, weights=values, minlength=self.n).astype(np.float64)

    def so_far(self, mask: np.ndarray) -> np.ndarray:
        """Per doc, how many docs of its query up to and including it (in rank order) ``mask`` holds."""
        counts = np.cumsum(mask, dtype=np.int64)
        before = np.r_[0, counts][np.searchsorted(self.query, np.arange(self.n))]
        return counts - before[self.query]

    def judged(self) -> np.ndarray:
        return self.grade >= 0

    def relevant(self, rel: int = 1) -> np.ndarray:
        return self.judged() & (self.grade >= rel)

    def top(self, k: float | np.ndarray) -> np.ndarray:
        """Per doc, whether it is retrieved at rank <= ``k`` (a number, or one per query)."""
        return self.rank <= (k[self.query] if isinstance(k, np.ndarray) and k.ndim else k)

    def regraded(self, gains: dict) -> Ranked:
        """The grades mapped by ``gains`` (grade -> gain; other grades unchanged), as ir_measures maps the qrels
        for nDCG's ``gains``: the gains are the grades trec_eval sees."""
        grade = self.grade.copy()
        for level, gain in gains.items():
            grade[self.grade == level] = gain
        return Ranked(self.query, self.rank, grade, self.retrieved)

    def judged_only(self) -> Ranked:
        """The run without its unjudged docs (trec_eval's ``-J``): the judged retrieved docs keep their order."""
        kept = self.judged() & np.isfinite(self.rank)
        rank = np.where(kept, self.so_far(kept), np.inf)
        return Ranked.of(self.query, rank, self.grade, self.total(kept))


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator``, 0 where the denominator is 0 (trec_eval's rule)."""
    return np.divide(numerator, denominator, out=np.zeros(len(numerator)), where=denominator > 0)


def num_ret(ranked: Ranked) -> np.ndarray:
    """``num_ret``: the docs retrieved."""
    return ranked.retrieved.copy()


def num_rel(ranked: Ranked, rel: int = 1) -> np.ndarray:
    """``num_rel``: R, the relevant docs judged (retrieved or not)."""
    return ranked.total(ranked.relevant(rel))


def num_rel_ret(ranked: Ranked, rel: int = 1) -> np.ndarray:
    """``num_rel_ret``: the relevant docs retrieved."""
    return ranked.total(ranked.relevant(rel) & np.isfinite(ranked.rank))


def relevant_in_top(ranked: Ranked, k: float | np.ndarray, rel: int = 1) -> np.ndarray:
    """The relevant docs at rank <= ``k`` (a number, or one per query)."""
    return ranked.total(ranked.relevant(rel) & ranked.top(k))


def precision(ranked: Ranked, k: int, rel: int = 1) -> np.ndarray:
    """``P_k``: relevant docs in the top k / k (k even where fewer are retrieved)."""
    return relevant_in_top(ranked, k, rel) / k


def recall(ranked: Ranked, k: float, rel: int = 1) -> np.ndarray:
    """``recall_k``: relevant docs in the top k / R."""
    return _ratio(relevant_in_top(ranked, k, rel), num_rel(ranked, rel))


def success(ranked: Ranked, k: int, rel: int = 1) -> np.ndarray:
    """``success_k``: 1 if a relevant doc is in the top k, else 0."""
    return (relevant_in_top(ranked, k, rel) > 0).astype(np.float64)


def r_precision(ranked: Ranked, rel: int = 1) -> np.ndarray:
    """``Rprec``: relevant docs in the top R / R."""
    r = num_rel(ranked, rel)
    return _ratio(relevant_in_top(ranked, r, rel), r)


def average_precision(ranked: Ranked, rel: int = 1, k: float = np.inf) -> np.ndarray:
    """``map`` and ``map_cut_k`` (Buckley and Voorhees 2000): the sum over the relevant docs at rank <= k of the
    precision at their rank, / R (unretrieved relevant docs count in R)."""
    relevant = ranked.relevant(rel)
    found = np.where(relevant & ranked.top(k), ranked.so_far(relevant) / ranked.rank, 0.0)
    return _ratio(ranked.total(found), num_rel(ranked, rel))


def reciprocal_rank(ranked: Ranked, rel: int = 1, k: float = np.inf) -> np.ndarray:
    """``recip_rank`` (and MS MARCO's MRR@k): 1 / the rank of the first relevant doc at rank <= k, else 0."""
    first = np.flatnonzero(ranked.relevant(rel) & ranked.top(k))
    queries, at = np.unique(ranked.query[first], return_index=True)
    out = np.zeros(ranked.n)
    out[queries] = 1.0 / ranked.rank[first[at]]
    return out


def bpref(ranked: Ranked, rel: int = 1) -> np.ndarray:
    """``bpref`` (Buckley and Voorhees, SIGIR 2004): per relevant retrieved doc, 1 - min(n, R) / min(N, R), n the
    judged non-relevant docs ranked above it and N those judged (1 when n = 0); summed, / R."""
    retrieved = np.isfinite(ranked.rank)
    nonrelevant = ranked.judged() & (ranked.grade < rel)
    r = num_rel(ranked, rel)
    counted = nonrelevant & retrieved
    above = ranked.so_far(counted) - counted
    limit = np.minimum(ranked.total(nonrelevant), r)[ranked.query]
    share = np.divide(
        np.minimum(above, r[ranked.query]), limit, out=np.zeros(len(above)), where=(above > 0) & (limit > 0)
    )
    return _ratio(ranked.total(np.where(ranked.relevant(rel) & retrieved, 1.0 - share, 0.0)), r)


def ndcg(ranked: Ranked, k: float = np.inf) -> np.ndarray:
    """``ndcg`` and ``ndcg_cut_k`` (Järvelin and Kekäläinen 2002): the DCG of the top k, gain = grade (> 0) at rank
    r discounted by log2(r + 1), / the DCG of the ideal top k, all judged docs of the query sorted by grade."""
    gain = np.maximum(ranked.grade, 0.0)
    dcg = ranked.total(np.where(ranked.top(k) & (gain > 0), gain / np.log2(ranked.rank + 1.0), 0.0))
    order = np.lexsort((-gain, ranked.query))
    query, best = ranked.query[order], gain[order]
    ideal = Ranked(query, np.zeros(len(query)), best, ranked.retrieved)
    position = ideal.so_far(np.ones(len(query), dtype=bool)).astype(np.float64)
    idcg = ideal.total(np.where((position <= k) & (best > 0), best / np.log2(position + 1.0), 0.0))
    return _ratio(dcg, idcg)


def judged_share(ranked: Ranked, k: float = np.inf) -> np.ndarray:
    """``Judged@k`` (ir_measures' judged provider): the docs with a judgment (a negative grade too) in the top
    min(k, num_ret) / min(k, num_ret)."""
    depth = np.minimum(ranked.retrieved, k)
    return _ratio(ranked.total(ranked.top(depth)), depth)


CWL_DEPTH = 1000
"""The depth of cwl_eval's user model (its ``max_n``), and so of ir_measures' ``RBP``: ranks below it get no
weight, and the weights of ranks 1 to it sum to 1."""


def _rbp_weight(rank: np.ndarray, p: float, depth: float) -> np.ndarray:
    """The weight of rank r in RBP's user model: p^(r - 1) · (1 - p) / (1 - p^depth), for r <= depth, else 0 (with
    ``depth`` infinite, (1 - p) · p^(r - 1), Moffat and Zobel's; with p = 1, 1 / depth)."""
    scale = 1.0 / depth if p == 1 else (1.0 - p) / (1.0 - p**depth)
    return np.where(rank <= depth, scale * p ** np.minimum(rank - 1.0, depth), 0.0)


def rank_biased_precision(
    ranked: Ranked, p: float, rel: int = 1, k: float = np.inf, depth: float = np.inf
) -> np.ndarray:
    """RBP (Moffat and Zobel 2008), binary gain: the sum over the relevant docs at rank <= k of the weight of their
    rank (:func:`_rbp_weight`; ``depth=CWL_DEPTH`` is cwl_eval's RBP, the weights normalised over that depth)."""
    weight = _rbp_weight(ranked.rank, p, depth)
    return ranked.total(np.where(ranked.relevant(rel) & ranked.top(k), weight, 0.0))


def rbp_residual(ranked: Ranked, p: float, k: float = np.inf, depth: float = CWL_DEPTH) -> np.ndarray:
    """RBP's residual (Moffat and Zobel 2008, section 4; cwl_eval's ``ResEU`` of RBP): the most the unknown could
    add, 1 - the weight of the ranks <= min(k, depth) that hold a doc with a judgment (any grade, negative too).
    The ranks of unjudged docs, the ranks past the run's end and those past k count as unknown."""
    known = ranked.total(np.where(ranked.top(k), _rbp_weight(ranked.rank, p, depth), 0.0))
    return np.maximum(1.0 - known, 0.0)
