"""Bootstrap uncertainty of Bradley-Terry ratings: resampled battles or resampled queries.

* ``battles``: each round draws as many battles as there are, with replacement, from all of them (Efron 1979);
  as FastChat's ``compute_bootstrap_bt`` does, the draw is one multinomial over the distinct battles
  ``(a, b, outcome, weight)`` with their counts as probabilities, which has the same distribution.
* ``queries``: each round draws as many queries as there are, with replacement, and keeps every battle of each
  query drawn (a cluster bootstrap, Davison and Hinkley 1997, sec. 3.8): the battles of one query are not
  independent (one query is easy or hard for every system).

Every round is refitted to convergence (:func:`~ir_pref_measures.leaderboards.ratings.bradley_terry`). A round whose
resampled battles have no finite maximum likelihood (without a prior) is an error naming the reason, never a
number. From the rounds: percentile intervals of the ratings, the ranks (1 + the number of systems rated
strictly higher) and their percentile interval, and the share of rounds in which i is rated above j (ties
counting one half).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_array

from ir_pref_measures import arguments
from ir_pref_measures.errors import InputError
from ir_pref_measures.leaderboards.ratings import bradley_terry, identifiability

RESAMPLES = ("battles", "queries")
CHUNK_CELLS = 1 << 22  # rounds x systems^2 per batch of Newton solves (memory: a few such float64 arrays)


@dataclass(frozen=True)
class Resamples:
    """The log-strengths (natural log) of each round, ``(rounds, systems)``."""

    beta: np.ndarray

    def ranks(self) -> np.ndarray:
        """Per round, 1 + the number of systems with a strictly higher rating."""
        beta = self.beta
        return 1 + (beta[:, None, :] > beta[:, :, None]).sum(axis=2)

    def intervals(self, values: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
        """Percentile interval at ``level`` (e.g. 0.95) over the rounds, per column of ``values``; integer
        values (ranks) give interval ends that are values taken."""
        tail = (1.0 - level) / 2 * 100
        if values.dtype.kind in "iu":
            return (
                np.percentile(values, tail, axis=0, method="lower"),
                np.percentile(values, 100 - tail, axis=0, method="higher"),
            )
        return np.percentile(values, tail, axis=0), np.percentile(values, 100 - tail, axis=0)

    def above(self) -> np.ndarray:
        """``P[i, j]``: the share of rounds in which i's rating is above j's, a tie counting one half (NaN on the
        diagonal)."""
        beta = self.beta
        above = (beta[:, :, None] > beta[:, None, :]).mean(axis=0)
        above += (beta[:, :, None] == beta[:, None, :]).mean(axis=0) / 2
        np.fill_diagonal(above, np.nan)
        return above


def unit_points(
    unit: np.ndarray, a: np.ndarray, b: np.ndarray, outcome: np.ndarray, weight: np.ndarray, n_units: int, n: int
) -> csr_array:
    """``M[u, i * n + j]``: the points of i against j in the battles of unit ``u`` (a query, or one distinct
    battle), as a sparse matrix."""
    rows = np.concatenate([unit, unit])
    columns = np.concatenate([a * n + b, b * n + a])
    values = np.concatenate([weight * outcome, weight * (1.0 - outcome)])
    keep = values != 0
    return csr_array((values[keep], (rows[keep], columns[keep])), shape=(n_units, n * n))


def distinct_battles(a, b, outcome, weight, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(cell, counts)``: the index of each battle's distinct ``(a, b, outcome, weight)`` and their counts."""
    key = (a.astype(np.int64) * n + b) * 3 + np.rint(2 * outcome).astype(np.int64)
    if np.all(weight == weight[0]):
        _, cell, counts = np.unique(key, return_inverse=True, return_counts=True)
    else:
        _, cell, counts = np.unique(np.column_stack([key, weight]), axis=0, return_inverse=True, return_counts=True)
    return cell.ravel(), counts


def bootstrap(
    a: np.ndarray,
    b: np.ndarray,
    outcome: np.ndarray,
    weight: np.ndarray,
    query: np.ndarray,
    names: Sequence[str],
    *,
    rounds: int = 1000,
    resample: str = "battles",
    prior: float = 0.0,
    seed: int = 0,
) -> Resamples:
    """Refit the Bradley-Terry ratings on ``rounds`` bootstrap resamples (see the module docstring), drawn with
    ``numpy.random.default_rng(seed)``: the same seed, the same rounds."""
    resample = arguments.choice(resample, "resample", RESAMPLES)
    rounds = arguments.positive_int(rounds, "rounds")
    prior = arguments.non_negative(prior, "prior")
    seed = arguments.seed(seed)
    n = len(names)
    rng = np.random.default_rng(seed)
    if resample == "battles":
        cell, counts = distinct_battles(a, b, outcome, weight, n)
        units = unit_points(cell, a, b, outcome, weight, len(counts), n)
        # a unit holds `counts` equal battles: its points per battle drawn
        units = csr_array(units.multiply(1.0 / counts[:, None]))
        draws, probabilities = len(a), counts / len(a)
    else:
        n_queries = int(query.max()) + 1
        units = unit_points(query, a, b, outcome, weight, n_queries, n)
        draws, probabilities = n_queries, np.full(n_queries, 1.0 / n_queries)
    chunk = max(1, CHUNK_CELLS // (n * n))
    beta = np.empty((rounds, n))
    transposed = units.T.tocsr()
    for start in range(0, rounds, chunk):
        size = min(chunk, rounds - start)
        drawn = rng.multinomial(draws, probabilities, size=size).astype(np.float64)
        points = np.asarray(transposed @ drawn.T).T.reshape(size, n, n)
        if prior == 0:
            for k in range(size):
                reason = identifiability(points[k], names)
                if reason is not None:
                    raise InputError(
                        f"bootstrap round {start + k + 1} (resampling {resample}): {reason}",
                        expected="more battles, or a prior (prior=..., --prior) that keeps every round finite",
                    )
        beta[start : start + size] = bradley_terry(points, prior)
    return Resamples(beta)
