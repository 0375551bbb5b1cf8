"""Aggregation of per-query comparisons into one ordering of runs: MC4, Borda count, win rate, mean.

Per query, runs are ordered by a score, higher first: the net preference (the sum of a run's values
against all its opponents, ``pref_aggregate``'s rule) or a metric value. In :func:`aggregate` ties stay
ties: runs with equal scores in a query share their places (Borda gives each the mean of their points; in
MC4's majorities a tie counts for neither run), and runs with equal final scores share a place, so no result
depends on the runs' names. The ``pref_eval`` drop-in reproduces ``pref_aggregate``, which breaks every tie
by the larger run id (string order): :func:`order_runs` and the ordering forms of :func:`borda` and
:func:`mc4`.

* MC4 (Dwork, Kumar, Naor and Sivakumar, WWW 2001): a Markov chain over runs that moves from run a to
  each run b ranked above a by a majority of queries with probability 1/n. ``iterations=10`` (the
  default) is ``pref_aggregate``'s: ten steps from the all-ones vector, no normalisation, computed in
  exact integer arithmetic; runs that lose every majority then decay to 0 and fall back to name order.
  ``iterations=None`` gives the stationary distribution of the chain damped as PageRank is (with
  probability ``damping`` a uniform jump), so every run gets a meaningful place.
* Borda count: a run at 0-based place t of a query's ordering of n runs gets n - t points.
* win rate: the share of (query, opponent) comparisons a run wins, ties counting one half.
* mean: the mean over queries of the per-query score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ir_pref_measures.comparison.pairwise import SUMMARY
from ir_pref_measures.errors import InputError

if TYPE_CHECKING:  # the tables are pandas'; the arithmetic is numpy
    import pandas as pd

METHODS = ("mc4", "borda", "win_rate", "mean")
DAMPING = 0.15
ID_COLUMNS = ("query_id", "run_i", "run_j")


def net_preference(
    query: np.ndarray, run_i: np.ndarray, run_j: np.ndarray, values: np.ndarray, n_queries: int, n_runs: int
) -> np.ndarray:
    """``score[q, r]`` = the sum over the rows of query q of ``v`` where r is run i and ``-v`` where r is
    run j, accumulated in row order (so that float sums are those of ``pref_aggregate``)."""
    score = np.zeros((n_queries, n_runs))
    index = np.ravel(np.column_stack([query * n_runs + run_i, query * n_runs + run_j]))
    np.add.at(score.ravel(), index, np.ravel(np.column_stack([values, -values])))
    return score


def order_runs(scores: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """Run indices by (score, run id) descending, for each row of ``scores`` (queries x runs)."""
    name_rank = np.argsort(np.argsort(np.asarray(names, dtype=str)))
    return np.lexsort((np.broadcast_to(-name_rank, scores.shape), -scores), axis=-1)


def above_in_orderings(orderings: np.ndarray) -> np.ndarray:
    """``above[a, b]``: the queries whose ordering (run indices, best first) places a above b."""
    n_queries, n = orderings.shape
    place = np.empty_like(orderings)
    np.put_along_axis(place, orderings, np.arange(n)[None, :], axis=1)
    return (place[:, :, None] < place[:, None, :]).sum(axis=0)


def above_in_scores(scores: np.ndarray) -> np.ndarray:
    """``above[a, b]``: the queries (rows of ``scores``, queries x runs) where a scores strictly above b."""
    return (scores[:, :, None] > scores[:, None, :]).sum(axis=0)


def borda_with_ties(scores: np.ndarray) -> np.ndarray:
    """Borda points per run from scores (queries x runs): n - (runs strictly above) - (other runs tied) / 2, the
    mean of the points of the places a group of tied runs spans; without ties, :func:`borda`'s points."""
    n = scores.shape[1]
    above = (scores[:, None, :] > scores[:, :, None]).sum(axis=2)  # [q, r]: runs strictly above r
    tied = (scores[:, None, :] == scores[:, :, None]).sum(axis=2) - 1
    return (n - above - tied / 2).sum(axis=0)


def borda(orderings: np.ndarray) -> np.ndarray:
    """Borda points per run: n - t for place t (0-based) of each query's ordering, summed over queries."""
    n_queries, n = orderings.shape
    points = np.zeros(n, dtype=np.int64)
    np.add.at(points, orderings.ravel(), np.tile(np.arange(n, 0, -1), n_queries))
    return points


def majority_losses(orderings: np.ndarray | None, above: np.ndarray | None = None) -> np.ndarray:
    """``loses[a, b]``: more queries rank b above a than a above b (``above``: :func:`above_in_orderings` of
    ``orderings``, or given, e.g. :func:`above_in_scores`)."""
    if above is None:
        if orderings is None:
            raise InputError("give the per-query orderings or the above counts")
        above = above_in_orderings(orderings)
    return above.T > above


def mc4(
    orderings: np.ndarray | None,
    iterations: int | None = 10,
    damping: float = DAMPING,
    *,
    above: np.ndarray | None = None,
) -> np.ndarray:
    """MC4 scores (Dwork et al. 2001): ``e = 1 P^T`` after ``iterations`` steps (exact; scaled by n^T), or
    the stationary distribution of ``(1 - damping) P + damping / n`` with ``iterations=None``.
    ``P[a, b] = 1/n`` when b beats a by majority, ``P[a, a] = 1 - (#b that beat a)/n``; the majorities come from
    the per-query ``orderings``, or from ``above`` (:func:`majority_losses`)."""
    loses = majority_losses(orderings, above)
    n = len(loses)
    if iterations is not None:
        steps = loses.astype(object)
        steps[np.diag_indices(n)] = [n - int(k) for k in loses.sum(axis=1)]
        e = np.ones(n, dtype=object)
        for _ in range(iterations):
            e = e.dot(steps)
        scale = n**iterations
        return np.array([float(x) / scale for x in e])
    if not 0.0 < damping <= 1.0:
        raise InputError(f"damping must be in (0, 1], not {damping}")
    chain = loses / n
    chain[np.diag_indices(n)] = 1.0 - loses.sum(axis=1) / n
    chain = (1.0 - damping) * chain + damping / n
    system = np.vstack([(chain.T - np.eye(n))[:-1], np.ones(n)])
    return np.linalg.solve(system, np.append(np.zeros(n - 1), 1.0))


def win_rate(run_i: np.ndarray, run_j: np.ndarray, values: np.ndarray, n_runs: int) -> np.ndarray:
    """Per run: (wins + ties / 2) / comparisons over all rows (query, opponent) it takes part in."""
    outcome = np.sign(values)
    points = np.zeros(n_runs)
    np.add.at(points, run_i, (1 + outcome) / 2)
    np.add.at(points, run_j, (1 - outcome) / 2)
    counts = np.bincount(run_i, minlength=n_runs) + np.bincount(run_j, minlength=n_runs)
    return points / np.maximum(counts, 1)


def aggregate(
    table: pd.DataFrame,
    measures: Sequence[str] | None = None,
    methods: Sequence[str] = METHODS,
    *,
    iterations: int | None = 10,
    damping: float = DAMPING,
) -> pd.DataFrame:
    """Order the runs of a per-query :func:`ir_pref_measures.comparison.pairwise.compare` table (``perquery=True``).

    Returns one row per (measure, method, run): ``measure, method, place, run, score`` (place 1 is best; runs
    with equal scores share a place, listed in name order). Per query runs are scored by net preference, which
    for a metric difference scores them by the metric itself; ``mean`` is the mean over queries of the net
    preference divided by the number of runs (for a metric: the run's mean minus the mean of all runs);
    ``win_rate`` counts the per-query pairs; ``mc4`` and ``borda`` use the per-query scores, ties kept. See the
    module docstring for the rules.

    Parameters
    ----------
    table : pandas.DataFrame
        A per-query ``compare`` table (``perquery=True``).
    measures : Sequence[str], optional
        The measure columns to aggregate (default: all of them).
    methods : Sequence[str]
        Among ``mc4``, ``borda``, ``win_rate``, ``mean``.
    iterations : int, optional
        MC4's steps (10, as ``pref_aggregate.py``; ``None``: the damped stationary distribution).
    damping : float
        The damping of the stationary distribution.

    Returns
    -------
    pandas.DataFrame
        ``measure, method, place, run, score``.
    """
    import pandas as pd

    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise InputError(f"unknown aggregation method(s) {unknown}", expected=f"some of {', '.join(METHODS)}")
    rows = table[table["query_id"] != SUMMARY]
    if rows.empty:
        raise InputError("the table has no per-query rows: call compare(..., perquery=True)")
    measures = [c for c in table.columns if c not in ID_COLUMNS] if measures is None else list(measures)
    missing = [m for m in measures if m not in table.columns]
    if missing:
        raise InputError(f"measure(s) {missing} are not columns of the table ({list(table.columns)})")
    query, query_ids = pd.factorize(rows["query_id"])
    run_codes, names = pd.factorize(pd.concat([rows["run_i"], rows["run_j"]], ignore_index=True), sort=True)
    run_i, run_j = run_codes[: len(rows)], run_codes[len(rows) :]
    names = list(names)
    out = []
    for measure in measures:
        values = rows[measure].to_numpy(dtype=np.float64)
        scores = net_preference(query, run_i, run_j, values, len(query_ids), len(names))
        for method in methods:
            if method == "mc4":
                total = mc4(None, iterations, damping, above=above_in_scores(scores))
            elif method == "borda":
                total = borda_with_ties(scores)
            elif method == "win_rate":
                total = win_rate(run_i, run_j, values, len(names))
            else:
                total = scores.mean(axis=0) / len(names)
            ranked = np.lexsort((np.arange(len(names)), -total))  # equal totals: listed in name order, one place
            out.append(
                pd.DataFrame(
                    {
                        "measure": measure,
                        "method": method,
                        "place": 1 + (total[None, :] > total[ranked][:, None]).sum(axis=1),
                        "run": np.asarray(names, dtype=object)[ranked],
                        "score": total[ranked],
                    }
                )
            )
    return pd.concat(out, ignore_index=True)
