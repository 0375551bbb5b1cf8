"""The rating-driven selector: ask next where a Bradley-Terry rating of the documents is least certain.

After each round, the docs' Bradley-Terry log-strengths ``beta`` are fitted to the verdicts so far
(:func:`ir_pref_measures.leaderboards.ratings.bradley_terry` with an L2 ``prior``, so that a maximum always
exists; a tie is half a win each way). A doc's uncertainty is the inverse of its Fisher information
``prior + sum_j n_ij p_ij (1 - p_ij)`` (``n_ij`` questions of the pair, ``p_ij`` the fitted probability that i
beats j). Each question of the next round takes the least certain doc ``i`` (a seeded random order breaks ties)
and the not yet asked partner ``j`` that maximises ``p_ij (1 - p_ij) (1/info_i + 1/info_j)`` (the most uncertain
outcome between uncertain docs), then counts that question in both docs' information. A round holds ``batch``
questions (a tenth of the pool by default): each round refits the ratings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from scipy.special import expit

from ir_pref_measures.judging.protocol import Pair
from ir_pref_measures.judging.selectors.base import History, query_rng, shown
from ir_pref_measures.leaderboards.ratings import bradley_terry, points_matrix

PRIOR = 1.0
FIT_TOLERANCE = 1e-6  # Newton's stopping step on the log-strengths: far below what changes a choice


class RatingDriven:
    """Rating-driven selection over ``pools[query]`` (module docstring), ``batch`` questions a round."""

    name = "rating"

    def __init__(
        self, pools: Mapping[str, Sequence[str]], seed: int = 0, batch: int | None = None, prior: float = PRIOR
    ) -> None:
        self.pools, self.seed, self.batch, self.prior = pools, seed, batch, prior

    def ratings(self, docs: list[str], history: History) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The fitted ``beta`` of ``docs`` and the asked pairs as index arrays ``(a, b)``."""
        index = {d: i for i, d in enumerate(docs)}
        verdicts = [v for r in history for v in r]
        a = np.array([index[v.pair.first] for v in verdicts], dtype=np.int64)
        b = np.array([index[v.pair.second] for v in verdicts], dtype=np.int64)
        points = np.array([v.points() for v in verdicts], dtype=np.float64).reshape(-1, 2)
        beta = np.zeros(len(docs))
        played = np.flatnonzero(points.sum(axis=1) > 0)
        if len(played):
            used = np.unique(np.concatenate([a[played], b[played]]))  # docs without a verdict stay at 0
            local = np.searchsorted(used, [a[played], b[played]])
            total = points[played].sum(axis=1)
            matrix = points_matrix(local[0], local[1], points[played, 0] / total, total, len(used))
            beta[used] = bradley_terry(matrix, prior=self.prior, tolerance=FIT_TOLERANCE)
        return beta, a, b

    def next_round(self, query_id: str, history: History) -> list[Pair]:
        docs = sorted(set(self.pools[query_id]))
        n = len(docs)
        beta, a, b = self.ratings(docs, history)
        asked = np.zeros((n, n), dtype=bool)
        asked[a, b] = asked[b, a] = True
        np.fill_diagonal(asked, True)
        p = expit(beta[a] - beta[b])
        info = self.prior + np.bincount(a, p * (1 - p), n) + np.bincount(b, p * (1 - p), n)
        rng = query_rng(self.seed, query_id, len(history))
        tiebreak = rng.permutation(n)  # position of each doc in a random order: the earlier wins a tie
        open_ = ~asked.all(axis=1)
        picks: list[tuple[str, str]] = []
        for _ in range(self.batch or max(1, n // 10)):
            if not open_.any():
                break
            uncertainty = np.where(open_, 1.0 / info, -np.inf)
            best = np.flatnonzero(uncertainty == uncertainty.max())
            i = best[np.argmin(tiebreak[best])]
            q = expit(beta[i] - beta)
            gain = np.where(asked[i], -np.inf, q * (1 - q) * (1.0 / info[i] + 1.0 / info))
            partners = np.flatnonzero(gain == gain.max())
            j = partners[np.argmin(tiebreak[partners])]
            picks.append((docs[i], docs[j]))
            asked[i, j] = asked[j, i] = True
            info[i] += q[j] * (1 - q[j])
            info[j] += q[j] * (1 - q[j])
            open_[i], open_[j] = ~asked[i].all(), ~asked[j].all()
        return shown(query_id, picks, rng)
