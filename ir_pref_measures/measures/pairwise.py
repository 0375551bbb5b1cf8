"""Kernels of pairwise run comparison on sorted position vectors of the relevant docs.

Layout: the relevant docs of all queries lie side by side in *segments* (``starts[s]`` is the first
column of segment s; segments are non-empty and contiguous). A position array has one row per run (or
per run pair) and one column per relevant doc: within each segment the 1-based ranks at which the run
placed the segment's relevant docs, sorted ascending, ``inf`` for docs it did not retrieve. This is the
vector ``p`` of Diaz and Ferraro (2022): ``p_k`` is the rank of the k-th relevant doc found.

Pairwise values compare rows ``a`` (run i) and ``b`` (run j) and are positive when run i is better.
``sgn(p_k, q_k)`` is +1 when i placed its k-th relevant doc earlier, -1 when later, 0 when equal (two
``inf`` are equal). Every pairwise kernel is exactly antisymmetric, and exactly 0 for equal rows.

* RPP (recall-paired preference; Diaz and Ferraro, SIGIR 2022): ``sum_k w_k sgn(p_k, q_k)``,
  ``w_k = omega(k) / sum_l omega(l)`` with ``omega(k)`` = 1 (``rpp``), 1/k (``invrpp``),
  1/log2(k+1) (``dcgrpp``).
* lexicographic precision (Diaz, EVIA 2023): ``sgn`` at the first k where the vectors differ;
  ``rrlexiprecision`` gives ``1/p_k - 1/q_k`` there instead.
* lexicographic recall (Diaz, Ekstrand and Mitra, ACM TORS 2025): ``sgn`` at the last k where the
  vectors differ (more relevant docs retrieved wins; then the later relevant docs decide).

Metrics (per run, binary relevance unless noted; ``m`` = number of relevant docs, retrieved or not)
take a position array and give one value per run and segment; a metric difference between runs is
the difference of these values. They are pref_eval's AP, RBP, RR, P, R, R-precision and nDCG, computed by
trec_eval's kernels (:mod:`~ir_pref_measures.measures.graded`) with every column a relevant doc (pref_eval's
relevant: grade > 0; nDCG's gain: the grade, a float).
"""

from __future__ import annotations

import numpy as np

from ir_pref_measures.measures import graded

RPP_WEIGHTS = ("rpp", "invrpp", "dcgrpp")


def segment_ids(starts: np.ndarray, width: int) -> np.ndarray:
    """The segment of each of ``width`` columns."""
    counts = np.diff(np.append(starts, width))
    return np.repeat(np.arange(len(starts)), counts)


def level_index(starts: np.ndarray, width: int) -> np.ndarray:
    """1-based index ``k`` of each column within its segment."""
    counts = np.diff(np.append(starts, width))
    return np.arange(1, width + 1) - np.repeat(starts, counts)


def segment_order(ranks: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per row of ``ranks`` (runs x columns, ``inf`` = unretrieved), the columns in ascending rank order within each
    segment (a stable sort: unretrieved docs keep their column order)."""
    width = ranks.shape[1]
    finite = np.where(np.isinf(ranks), 0, ranks)
    big = float(finite.max(initial=0)) + 2
    keys = segment_ids(starts, width) * big + np.where(np.isinf(ranks), big - 1, ranks)
    return np.argsort(keys, axis=1, kind="stable")


def sort_segments(ranks: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Sort every row of ``ranks`` (runs x columns, ``inf`` = unretrieved) ascending within each segment."""
    return np.take_along_axis(ranks, segment_order(ranks, starts), axis=1)


def rpp_weights(name: str, starts: np.ndarray, width: int) -> np.ndarray:
    """``omega(k)`` of each column for ``rpp``, ``invrpp`` or ``dcgrpp``."""
    k = level_index(starts, width).astype(np.float64)
    if name == "rpp":
        return np.ones(width)
    if name == "invrpp":
        return 1.0 / k
    if name == "dcgrpp":
        return 1.0 / np.log2(k + 1.0)
    raise ValueError(f"unknown RPP weighting {name!r}; known: {', '.join(RPP_WEIGHTS)}")


def rpp_sums(ahead: np.ndarray, behind: np.ndarray, starts: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """Unnormalised RPP per segment, ``sum_k omega(k) sgn(a_k, b_k)``, as (wins - losses) so that it is
    exactly antisymmetric; rows are run pairs, ``ahead`` is ``a < b`` and ``behind`` is ``a > b`` (computed once for
    every weighting ``omega``)."""
    wins = np.add.reduceat(np.where(ahead, omega, 0.0), starts, axis=1)
    losses = np.add.reduceat(np.where(behind, omega, 0.0), starts, axis=1)
    return wins - losses


def _sign_at(a: np.ndarray, b: np.ndarray, columns: np.ndarray, found: np.ndarray) -> np.ndarray:
    """``sgn(a_k, b_k)`` at column ``columns`` of each row and segment where ``found``, else 0 (int8)."""
    x, y = _at(a, columns), _at(b, columns)
    return np.where(found, (x < y).astype(np.int8) - (x > y).astype(np.int8), 0).astype(np.int8)


def _at(values: np.ndarray, columns: np.ndarray) -> np.ndarray:
    return np.take_along_axis(values, np.clip(columns, 0, values.shape[1] - 1), axis=1)


def _first_difference(a: np.ndarray, b: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column of the first differing k in each segment, and whether there is one."""
    width = a.shape[1]
    columns = np.where(a != b, np.arange(width), width)
    first = np.minimum.reduceat(columns, starts, axis=1)
    return first, first < width


def lexiprecision(a: np.ndarray, b: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``sgn(a_k, b_k)`` at the first k where the position vectors differ, else 0 (int8)."""
    return _sign_at(a, b, *_first_difference(a, b, starts))


def rrlexiprecision(a: np.ndarray, b: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``1/a_k - 1/b_k`` (``1/inf = 0``) at the first k where the position vectors differ, else 0."""
    first, found = _first_difference(a, b, starts)
    return np.where(found, 1.0 / _at(a, first) - 1.0 / _at(b, first), 0.0)


def lexirecall(a: np.ndarray, b: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``sgn(a_k, b_k)`` at the last k where the position vectors differ, else 0 (int8)."""
    columns = np.where(a != b, np.arange(a.shape[1]), -1)
    last = np.maximum.reduceat(columns, starts, axis=1)
    return _sign_at(a, b, last, last >= 0)


def segment_sizes(starts: np.ndarray, width: int) -> np.ndarray:
    """Number of columns (relevant docs, ``m``) of each segment."""
    return np.diff(np.append(starts, width))


def _ranked(p: np.ndarray, starts: np.ndarray, grades: np.ndarray | None = None) -> graded.Ranked:
    """A position array as the judged docs of trec_eval's kernels: one query per (row, segment), each column a
    relevant doc of grade 1 (or of ``grades``, the grade of the doc at each position). A position array is sorted
    within each segment (stably: unretrieved docs in column order, as :meth:`graded.Ranked.of` would leave them), so
    its rows, flattened, are in (query, rank) order already."""
    rows, width = p.shape
    query = (np.arange(rows)[:, None] * len(starts) + segment_ids(starts, width)).ravel()
    retrieved = np.zeros(rows * len(starts))
    return graded.Ranked(query, p.ravel(), np.ones(p.size) if grades is None else grades.ravel(), retrieved)


def _per_run(values: np.ndarray, p: np.ndarray, starts: np.ndarray) -> np.ndarray:
    return values.reshape(p.shape[0], len(starts))


def average_precision(p: np.ndarray, starts: np.ndarray, k: float = np.inf) -> np.ndarray:
    """AP (Buckley and Voorhees 2000) and ``ap@k``: ``(1/m) sum_{p_j <= k} j / p_j``; m counts unretrieved
    relevant docs (trec_eval's ``map`` / ``map_cut``)."""
    return _per_run(graded.average_precision(_ranked(p, starts), 1, k), p, starts)


def rank_biased_precision(p: np.ndarray, starts: np.ndarray, gamma: float = 0.5, k: float = np.inf) -> np.ndarray:
    """RBP (Moffat and Zobel 2008), binary gain, no residual: ``(1-gamma) sum_{p_j <= k} gamma^(p_j - 1)``."""
    return _per_run(graded.rank_biased_precision(_ranked(p, starts), gamma, 1, k), p, starts)


def reciprocal_rank(p: np.ndarray, starts: np.ndarray, k: float = np.inf) -> np.ndarray:
    """RR and ``rr@k``: ``1/p_1``, 0 when the first relevant doc is unretrieved or below k."""
    return _per_run(graded.reciprocal_rank(_ranked(p, starts), 1, k), p, starts)


def precision(p: np.ndarray, starts: np.ndarray, k: int) -> np.ndarray:
    """``p@k``: ``#{j: p_j <= k} / k``."""
    return _per_run(graded.precision(_ranked(p, starts), k), p, starts)


def recall(p: np.ndarray, starts: np.ndarray, k: int) -> np.ndarray:
    """``r@k``: ``#{j: p_j <= k} / m``."""
    return _per_run(graded.recall(_ranked(p, starts), k), p, starts)


def r_precision(p: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """R-precision: ``#{j: p_j <= m} / m``."""
    return _per_run(graded.r_precision(_ranked(p, starts)), p, starts)


def ndcg(p: np.ndarray, grades: np.ndarray, starts: np.ndarray, k: float = np.inf) -> np.ndarray:
    """nDCG (Jarvelin and Kekalainen 2002) with the grade as gain, as trec_eval:
    ``sum_{d: rank(d) <= k} g(d) / log2(rank(d)+1)`` over the ideal DCG of the k largest grades (all
    relevant docs, retrieved or not). ``grades``: the grade of the doc at each position of ``p``
    (:func:`segment_order` gives the columns of the positions). Every row holds the same grades per segment, so
    the ideal DCG is computed once, from the first row; the sums are those of :func:`graded.ndcg`, term for term."""
    rows, width = p.shape
    if not rows:
        return np.zeros((0, len(starts)))
    segment = segment_ids(starts, width)
    query = (np.arange(rows)[:, None] * len(starts) + segment).ravel()
    gain, rank = np.maximum(grades, 0.0).ravel(), p.ravel()
    counted = (rank <= k) & (gain > 0)
    terms = np.divide(gain, np.log2(rank + 1.0), out=np.zeros(len(rank)), where=counted)
    dcg = np.bincount(query, weights=terms, minlength=rows * len(starts))
    first = np.maximum(grades[0], 0.0)
    best = first[np.lexsort((-first, segment))]
    position = level_index(starts, width).astype(np.float64)
    ideal = np.divide(best, np.log2(position + 1.0), out=np.zeros(width), where=(position <= k) & (best > 0))
    idcg = np.tile(np.bincount(segment, weights=ideal, minlength=len(starts)), rows)
    return np.divide(dcg, idcg, out=np.zeros(len(dcg)), where=idcg > 0).reshape(rows, len(starts))
