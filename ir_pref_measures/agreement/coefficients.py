"""Kernels of judge agreement on preference labels: orienting pairs, majority over repeated judgments, agreement
statistics from contingency tables, intransitive triads. numpy and scipy only; every statistic works on a stack of
tables at once (``(..., k, k)``), so a bootstrap over queries is one matrix product and one call.

A *label* says how a pair ``(a, b)`` was judged: ``1`` a preferred, ``0`` a tie, ``-1`` b preferred. The
categories of the agreement statistics are ordered ``<, =, >`` (label + 1), so the ordinal and weighted forms see
``=`` between ``<`` and ``>``.
"""

from __future__ import annotations

import numpy as np

LABELS = (-1, 0, 1)  # b preferred, tie, a preferred
CATEGORIES = len(LABELS)


def orient(a: np.ndarray, b: np.ndarray, label: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every pair with its smaller code first: ``(lo, hi, label of lo over hi, a_is_lo)``; ``a > b`` and ``b < a``
    give the same oriented judgment."""
    swap = a > b
    return np.where(swap, b, a), np.where(swap, a, b), np.where(swap, -label, label).astype(np.int8), ~swap


MAJORITY_RULES = ("plurality", "net")


def majority(keys: np.ndarray, label: np.ndarray, rule: str = "plurality") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Repeated judgments of a pair reduced to one, per distinct key (sorted). ``rule="plurality"``: the label given
    most often, a tie when two or more labels share the top count (one ``>`` and one ``<``; two ``>`` and two
    ``=``). ``rule="net"``: the sign of (votes for ``>``) - (votes for ``<``), tie votes abstaining (so ``>, =, =``
    is ``>``). Returns the distinct keys, their labels and their vote counts ``(n, 3)`` in the order ``<, =, >``."""
    if rule not in MAJORITY_RULES:
        raise ValueError(f"unknown majority rule {rule!r}")
    order = np.argsort(keys, kind="stable")
    keys, label = keys[order], label[order]
    start = np.r_[True, keys[1:] != keys[:-1]] if len(keys) else np.zeros(0, dtype=bool)
    group = np.cumsum(start) - 1
    votes = np.zeros((int(start.sum()), CATEGORIES), dtype=np.int64)
    np.add.at(votes, (group, label.astype(np.int64) + 1), 1)
    if rule == "net":
        return keys[start], np.sign(votes[:, 2] - votes[:, 0]).astype(np.int8), votes
    top = votes.max(axis=1, keepdims=True)
    unique_top = (votes == top).sum(axis=1) == 1
    winner = np.where(unique_top, votes.argmax(axis=1) - 1, 0).astype(np.int8)
    return keys[start], winner, votes


def contingency(x: np.ndarray, y: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group, the ``3 x 3`` table of two judges' labels on the same items (rows ``x``, columns ``y``; order
    ``<, =, >``): ``(n_groups, 3, 3)`` counts."""
    cell = groups.astype(np.int64) * CATEGORIES**2 + (x.astype(np.int64) + 1) * CATEGORIES + (y.astype(np.int64) + 1)
    return np.bincount(cell, minlength=n_groups * CATEGORIES**2).reshape(n_groups, CATEGORIES, CATEGORIES)


def cohen_kappa(tables: np.ndarray, weights: str | None = None) -> np.ndarray:
    """Cohen's kappa of contingency tables ``(..., k, k)``: 1 - sum w o / sum w e, with o the observed and e the
    expected (product of the margins) proportions; ``weights`` ``None`` (w = 1 off the diagonal), ``"linear"``
    (|i - j|) or ``"quadratic"`` ((i - j)^2). NaN where the expected disagreement is zero. J. Cohen, Educational
    and Psychological Measurement 20(1), 1960; weighted: J. Cohen, Psychological Bulletin 70(4), 1968."""
    tables = np.asarray(tables, dtype=np.float64)
    k = tables.shape[-1]
    i, j = np.indices((k, k))
    w = {None: (i != j).astype(np.float64), "linear": np.abs(i - j), "quadratic": (i - j) ** 2.0}[weights]
    n = tables.sum(axis=(-2, -1), keepdims=True)
    observed = (tables * w).sum(axis=(-2, -1))
    expected = ((tables.sum(axis=-1)[..., :, None] * tables.sum(axis=-2)[..., None, :]) / n * w).sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected > 0, 1 - observed / np.where(expected > 0, expected, 1), np.nan)


def fleiss_totals(counts: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group, the sums behind Fleiss' kappa of ``counts`` ``(items, k)`` (how many raters put each item in each
    category; two or more raters an item): ``(n_groups, k + 2)`` = the sums over items of ``r_ik / r_i`` (k
    columns), of ``sum_k r_ik (r_ik - 1) / (r_i (r_i - 1))``, and the number of items."""
    counts = np.asarray(counts, dtype=np.float64)
    raters = counts.sum(axis=1, keepdims=True)
    agreement = (counts * (counts - 1)).sum(axis=1) / (raters[:, 0] * (raters[:, 0] - 1))
    out = np.zeros((n_groups, counts.shape[1] + 2))
    np.add.at(out, groups, np.column_stack([counts / raters, agreement, np.ones(len(counts))]))
    return out


def fleiss_kappa(totals: np.ndarray) -> np.ndarray:
    """Fleiss' kappa from summed :func:`fleiss_totals` ``(..., k + 2)``: (Pa - Pe) / (1 - Pe), Pa the mean over
    items of the share of agreeing rater pairs, Pe = sum_k pi_k^2 with pi_k the mean share of an item's ratings in
    category k. J. L. Fleiss, Psychological Bulletin 76(5), 1971 (as ``statsmodels.stats.inter_rater.fleiss_kappa``
    when every item has the same number of raters); items with different numbers of raters as K. L. Gwet,
    *Handbook of Inter-Rater Reliability*, 4th ed., 2014, ch. 2 (as ``irrCAC``'s ``fleiss``)."""
    totals = np.asarray(totals, dtype=np.float64)
    items = totals[..., -1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        pi = totals[..., :-2] / items
        observed = totals[..., -2] / items[..., 0]
        chance = (pi * pi).sum(axis=-1)
        return np.where(chance < 1, (observed - chance) / (1 - chance), np.nan)


def coincidences(labels: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group, Krippendorff's coincidence matrix ``(n_groups, k, k)`` of ``labels`` ``(items, raters)`` (-1, 0,
    1; anything else missing): each item with m_u >= 2 values adds, for every ordered pair of its values from
    different raters, 1 / (m_u - 1)."""
    present = np.isin(labels, LABELS)
    counts = np.stack([(labels == value) & present for value in LABELS], axis=-1).sum(axis=1).astype(np.float64)
    m = counts.sum(axis=1)
    keep = m >= 2
    counts, m, groups = counts[keep], m[keep], groups[keep]
    pairs = (counts[:, :, None] * counts[:, None, :] - np.eye(CATEGORIES) * counts[:, :, None]) / (m - 1)[:, None, None]
    out = np.zeros((n_groups, CATEGORIES, CATEGORIES))
    np.add.at(out, groups, pairs)
    return out


def krippendorff_alpha(coincidence: np.ndarray, level: str = "nominal") -> np.ndarray:
    """Krippendorff's alpha from coincidence matrices ``(..., k, k)``: 1 - (n - 1) sum o_ck d_ck / sum n_c n_k d_ck,
    with d the nominal (0/1) or ordinal (on the category totals) distance. K. Krippendorff, *Computing
    Krippendorff's Alpha-Reliability*, 2011 (as the ``krippendorff`` package)."""
    o = np.asarray(coincidence, dtype=np.float64)
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    k = o.shape[-1]
    if level == "nominal":
        d = np.broadcast_to(1.0 - np.eye(k), o.shape)
    elif level == "ordinal":
        cum = np.cumsum(n_c, axis=-1)
        lo, hi = np.minimum.outer(np.arange(k), np.arange(k)), np.maximum.outer(np.arange(k), np.arange(k))
        between = cum[..., hi] - np.where(lo > 0, cum[..., np.maximum(lo - 1, 0)], 0)
        d = (between - (n_c[..., lo] + n_c[..., hi]) / 2) ** 2
    else:
        raise ValueError(f"unknown level {level!r}")
    observed = (o * d).sum(axis=(-2, -1))
    expected = (n_c[..., :, None] * n_c[..., None, :] * d).sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected > 0, 1 - (n - 1) * observed / np.where(expected > 0, expected, 1), np.nan)


def cyclic_triads(doc_query: np.ndarray, src: np.ndarray, dst: np.ndarray, n_queries: int) -> tuple[np.ndarray, ...]:
    """Per query, the triads of docs whose three pairs all carry a strict preference (``src -> dst``, global doc
    indices, at most one edge per pair), and how many of them are cycles (a > b > c > a). On sparse matrices, all
    queries at once: triangles = trace(A^3) / 6 with A the undirected graph, cycles = trace(D^3) / 3 with D the
    directed one (M. G. Kendall, B. Babington Smith, Biometrika 31, 1940, count cycles in complete tournaments)."""
    from scipy import sparse

    n = len(doc_query)
    directed = sparse.csr_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
    undirected = ((directed + directed.T) > 0).astype(np.float64)
    cycles = np.asarray((directed @ directed).multiply(directed.T).sum(axis=1)).ravel()
    triangles = np.asarray((undirected @ undirected).multiply(undirected).sum(axis=1)).ravel()
    per_query = np.bincount(doc_query, weights=triangles, minlength=n_queries) / 6
    cyclic = np.bincount(doc_query, weights=cycles, minlength=n_queries) / 3
    return np.rint(per_query).astype(np.int64), np.rint(cyclic).astype(np.int64)
