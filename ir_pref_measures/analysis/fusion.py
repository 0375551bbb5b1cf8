"""Aggregation of per-query comparisons into one ordering of runs: MC4, Borda count, win rate, mean.

Per query, runs are ordered by a score, higher first: the net preference (the sum of a run's values
against all its opponents, ``pref_aggregate``'s rule) or a metric value. Exact ties in any score go to
the larger run id (string order), as ``pref_aggregate`` does.

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

from ir_pref_measures.analysis.compare import SUMMARY
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


def borda(orderings: np.ndarray) -> np.ndarray:
    """Borda points per run: n - t for place t (0-based) of each query's ordering, summed over queries."""
    n_queries, n = orderings.shape
    points = np.zeros(n, dtype=np.int64)
    np.add.at(points, orderings.ravel(), np.tile(np.arange(n, 0, -1), n_queries))
    return points


def majority_losses(orderings: np.ndarray) -> np.ndarray:
    """``loses[a, b]``: more queries rank b above a than a above b."""
    n_queries, n = orderings.shape
    place = np.empty_like(orderings)
    np.put_along_axis(place, orderings, np.arange(n)[None, :], axis=1)
    above = (place[:, :, None] < place[:, None, :]).sum(axis=0)  # above[a, b]: queries ranking a above b
    return above.T > above


def mc4(orderings: np.ndarray, iterations: int | None = 10, damping: float = DAMPING) -> np.ndarray:
    """MC4 scores (Dwork et al. 2001): ``e = 1 P^T`` after ``iterations`` steps (exact; scaled by n^T), or
    the stationary distribution of ``(1 - damping) P + damping / n`` with ``iterations=None``.
    ``P[a, b] = 1/n`` when b beats a by majority, ``P[a, a] = 1 - (#b that beat a)/n``."""
    loses = majority_losses(orderings)
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
    """Order the runs of a per-query :func:`ir_pref_measures.analysis.compare.compare` table (``perquery=True``).

    Returns one row per (measure, method, place): ``measure, method, place, run, score`` (place 1 is
    best). Per query runs are ordered by net preference, which for a metric difference orders them by
    the metric itself; ``mean`` is the mean over queries of the net preference divided by the number of
    runs (for a metric: the run's mean minus the mean of all runs); ``win_rate`` counts the per-query
    pairs; ``mc4`` and ``borda`` use the per-query orderings. See the module docstring for the rules.
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
        orderings = order_runs(scores, names)
        for method in methods:
            if method == "mc4":
                total = mc4(orderings, iterations, damping)
            elif method == "borda":
                total = borda(orderings).astype(np.float64)
            elif method == "win_rate":
                total = win_rate(run_i, run_j, values, len(names))
            else:
                total = scores.mean(axis=0) / len(names)
            ranked = order_runs(total[None, :], names)[0]
            out.append(
                pd.DataFrame(
                    {
                        "measure": measure,
                        "method": method,
                        "place": np.arange(1, len(names) + 1),
                        "run": np.asarray(names, dtype=object)[ranked],
                        "score": total[ranked],
                    }
                )
            )
    return pd.concat(out, ignore_index=True)
