"""The rating-driven selector: ask next where a Bradley-Terry rating of the documents is least certain.

After each round, the docs' Bradley-Terry log-strengths ``beta`` are fitted to the verdicts so far
(:func:`ir_pref_measures.leaderboards.sparse_ratings.bradley_terry_battles`: the maximum of the likelihood with an
L2 ``prior``, which always exists and is unique; a tie is half a win each way). The selector remembers each
query's last fit and starts the next one from it when the history extends the verdicts it fitted (two or three
sparse Newton steps instead of a fit from zero); any other history is fitted from zero. Both reach the same
maximum to :data:`~ir_pref_measures.leaderboards.sparse_ratings.SPARSE_TOLERANCE`, and scores within a relative
:data:`TIE` of the best count as tied, so the questions are a function of the history and the seed: a run resumed
from its stored verdicts asks what the uninterrupted run asked (up to scores that differ by about 1e-9 but not
exactly: not met in practice). A doc's uncertainty is the inverse of its Fisher information
``prior + sum_j n_ij p_ij (1 - p_ij)`` (``n_ij`` questions of the pair, ``p_ij`` the fitted probability that i
beats j). Each question of the next round takes the least certain doc ``i`` (a seeded random order breaks ties)
and the not yet asked partner ``j`` that maximises ``p_ij (1 - p_ij) (1/info_i + 1/info_j)`` (the most uncertain
outcome between uncertain docs), then counts that question in both docs' information. A round holds ``batch``
questions (a tenth of the pool by default).

With ``runs`` (the systems to be ordered), the selector asks instead where the SYSTEMS' measure is least certain:
a pair of docs matters to the systems' ordering when two systems rank the two docs in opposite orders within
``depth`` (a doc below ``depth`` or not retrieved ranks below every doc above it), since its answer then moves
the two systems' scores in opposite directions. A pair's weight ``w_ij = n_ij n_ji`` is the number of such
pairs of systems (``n_ij``: the systems that rank ``i`` above ``j``). Each question takes the not yet asked pair
maximising ``w_ij p_ij (1 - p_ij) (1/info_i + 1/info_j)``: the pairs that the most pairs of systems disagree on,
whose outcome is least certain under the current ratings; once every pair of positive weight is asked, the
pairs left by the docs' uncertainty alone. The selector reads the runs, never an answer it has not asked for.

**Defensive mixture** (Hesterberg, *Weighted average importance sampling and defensive mixture distributions*,
Technometrics 1995): a targeted sample over-represents the pairs it targets, while a measure such as ppref (a ratio
over the judged pairs of a ranking) is estimated without bias by a uniform sample of pairs. A share ``uniform`` of
the questions (:data:`UNIFORM`, a half, by default) is therefore drawn uniformly among the pairs not yet asked:
question ``t`` of a query (``t`` = the verdicts before its round + its place in the round) is uniform when
``floor((t + 1) uniform) > floor(t uniform)``, so every second question is uniform whatever the rounds, and any
pair keeps a chance of at least ``uniform`` times its uniform one. ``uniform=0`` is the targeted rule alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.protocol import Pair
from ir_pref_measures.judging.rules import Verdict
from ir_pref_measures.judging.selectors.base import History, query_rng, shown, top_ranks


def expit(x):
    """The logistic function, scipy's (imported on first use: the other selectors need no scipy)."""
    from scipy.special import expit as logistic

    return logistic(x)


PRIOR = 1.0
UNIFORM = 0.5  # the defensive share: every second question is drawn uniformly
DRAWS = 32  # draws of a uniform pair by rejection before the open pairs are listed
TIE = 1e-9  # scores within this relative distance of the best tie: the warm and the cold fit choose alike


@dataclass(frozen=True)
class Disputed:
    """The pairs ``(rows[k], cols[k])``, ``rows < cols``, of positive disagreement weight ``weights[k]`` (in the
    order of ``np.nonzero``): the only pairs the targeted rule scores while one of them is open."""

    rows: np.ndarray
    cols: np.ndarray
    weights: np.ndarray


@dataclass(frozen=True)
class Fit:
    """One query's fitted ratings: the sorted pool ``docs``, the ``verdicts`` fitted (flat, in the order asked),
    each verdict's doc indices ``a`` (first) and ``b`` (second) and ``points``, and the log-strengths ``beta``."""

    docs: list[str]
    verdicts: list[Verdict]
    a: np.ndarray
    b: np.ndarray
    points: np.ndarray
    beta: np.ndarray


def first_of_best(scores: np.ndarray, tiebreak: np.ndarray) -> int:
    """The index of the best score, ties (within a relative :data:`TIE`) going to the lowest ``tiebreak``."""
    best = scores.max()
    candidates = np.flatnonzero(scores >= best - TIE * abs(best))
    return int(candidates[np.argmin(tiebreak[candidates])])


def disagreement(docs: Sequence[str], ranks: Sequence[Mapping[str, int]], depth: int) -> np.ndarray:
    """The ``n x n`` weights ``w_ij = n_ij n_ji`` of ``docs`` (module docstring) under the systems' ``ranks``
    (one ``{doc: rank}`` per system, the top ``depth``; any other doc ranks ``depth + 1``)."""
    rank = np.array([[r.get(d, depth + 1) for d in docs] for r in ranks], dtype=np.int64).reshape(len(ranks), -1)
    above = (rank[:, :, None] < rank[:, None, :]).sum(axis=0)
    return (above * above.T).astype(np.float64)


class RatingDriven:
    """Rating-driven selection over ``pools[query]`` (module docstring), ``batch`` questions a round; with
    ``runs`` (name -> a run file or table), by the systems' disagreement within ``depth``; a share ``uniform`` of
    the questions drawn uniformly (0: every question targeted, the rule before the defensive mixture)."""

    name = "rating"

    def __init__(
        self,
        pools: Mapping[str, Sequence[str]],
        seed: int = 0,
        batch: int | None = None,
        prior: float = PRIOR,
        runs: Mapping[str, object] | None = None,
        depth: int = 10,
        uniform: float = UNIFORM,
    ) -> None:
        if not prior > 0:
            raise InputError(f"the rating-driven selector needs a positive prior (the L2 penalty), not {prior}")
        if not 0 <= uniform <= 1:
            raise InputError(f"the share of uniform questions must be in [0, 1], not {uniform}")
        self.pools, self.seed, self.batch, self.prior, self.depth = pools, seed, batch, prior, depth
        self.uniform = uniform
        self._fits: dict[str, Fit] = {}  # per query: the last fit, reused when the history extends its verdicts
        self._ranks = None if runs is None else top_ranks(runs, depth)
        self._disputed: dict[str, Disputed] = {}

    def disputed(self, query_id: str, docs: Sequence[str]) -> Disputed | None:
        """The pairs of positive disagreement weight of the query's sorted pool (``None`` without runs)."""
        if self._ranks is None:
            return None
        if query_id not in self._disputed:
            weights = disagreement(docs, self._ranks.get(query_id, []), self.depth)
            rows, cols = np.nonzero(np.triu(weights, 1) > 0)
            self._disputed[query_id] = Disputed(rows, cols, weights[rows, cols])
        return self._disputed[query_id]

    def ratings(self, query_id: str, history: History) -> Fit:
        """The fit of the verdicts of ``history`` over the sorted pool of ``query_id``: warm-started from the last
        fit of the query when ``history`` extends its verdicts, otherwise from zero (the same maximum either way,
        to ``SPARSE_TOLERANCE``)."""
        docs = sorted(set(self.pools[query_id]))
        verdicts = list(chain.from_iterable(history))
        last = self._fits.get(query_id)
        if last is None or last.docs != docs or verdicts[: len(last.verdicts)] != last.verdicts:
            last = Fit(docs, [], np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 2)), np.zeros(len(docs)))
        if len(verdicts) == len(last.verdicts):
            return last
        index = {d: i for i, d in enumerate(docs)}
        new = verdicts[len(last.verdicts) :]
        a = np.concatenate([last.a, np.array([index[v.pair.first] for v in new], dtype=np.int64)])
        b = np.concatenate([last.b, np.array([index[v.pair.second] for v in new], dtype=np.int64)])
        points = np.concatenate([last.points, np.array([v.points() for v in new], dtype=np.float64).reshape(-1, 2)])
        from ir_pref_measures.leaderboards.sparse_ratings import bradley_terry_battles  # brings pandas: on first use

        beta = bradley_terry_battles(a, b, points, len(docs), self.prior, start=last.beta)
        fit = self._fits[query_id] = Fit(docs, verdicts, a, b, points, beta)
        return fit

    def next_round(self, query_id: str, history: History) -> list[Pair]:
        size = self.batch or max(1, len(set(self.pools[query_id])) // 10)
        return self.pick(query_id, history, size)

    def pick(self, query_id: str, history: History, size: int, exclude: Sequence[Pair] = ()) -> list[Pair]:
        """Up to ``size`` questions not asked in ``history`` nor among ``exclude`` (questions of the same round
        chosen by another rule): each a uniform slot (:func:`uniform_slot`) or a targeted one (module
        docstring), in the order of their slots."""
        fit = self.ratings(query_id, history)
        docs, beta, a, b, n = fit.docs, fit.beta, fit.a, fit.b, len(fit.docs)
        asked = np.zeros((n, n), dtype=bool)
        asked[a, b] = asked[b, a] = True
        index = {d: i for i, d in enumerate(docs)}
        for pair in exclude:
            asked[index[pair.first], index[pair.second]] = asked[index[pair.second], index[pair.first]] = True
        np.fill_diagonal(asked, True)
        p = expit(beta[a] - beta[b])
        info = self.prior + np.bincount(a, p * (1 - p), n) + np.bincount(b, p * (1 - p), n)
        rng = query_rng(self.seed, query_id, len(history))
        tiebreak = rng.permutation(n)  # position of each doc in a random order: the earlier wins a tie
        target = Targets(beta, tiebreak, self.disputed(query_id, docs))
        picks: list[tuple[str, str]] = []
        for slot in range(len(a), len(a) + size):
            chosen = uniform_pair(asked, rng) if uniform_slot(slot, self.uniform) else target.next(asked, info)
            if chosen is None:
                break
            i, j = chosen
            picks.append((docs[i], docs[j]))
            asked[i, j] = asked[j, i] = True
            outcome = target.outcome(i, j)
            info[i] += outcome
            info[j] += outcome
        return shown(query_id, picks, rng)


def uniform_slot(slot: int, share: float) -> bool:
    """Whether question ``slot`` of a query (0 = its first) is drawn uniformly: ``floor((slot + 1) share) >
    floor(slot share)``, so that of any first ``m`` questions ``floor(m share)`` are uniform, whatever the rounds."""
    return math.floor((slot + 1) * share) > math.floor(slot * share)


def uniform_pair(asked: np.ndarray, rng: np.random.Generator) -> tuple[int, int] | None:
    """A pair ``(i, j)``, ``i < j``, drawn uniformly among those not ``asked`` (its diagonal set; ``None``: none
    left): up to :data:`DRAWS` draws of two docs, the first pair not asked (rejection sampling, fast while most
    pairs are open), else a draw among the open pairs listed."""
    n = len(asked)
    for i, j in rng.integers(n, size=(DRAWS, 2)) if n > 1 else ():
        if not asked[i, j]:
            return (int(min(i, j)), int(max(i, j)))
    open_ = np.flatnonzero(np.triu(~asked, 1))
    if not len(open_):
        return None
    return divmod(int(open_[rng.integers(len(open_))]), n)


class Targets:
    """The targeted rule of one round (module docstring) over the log-strengths ``beta``: by the docs'
    uncertainty, or with the systems' ``disputed`` pairs by theirs; ties go to the lowest ``tiebreak``."""

    def __init__(self, beta: np.ndarray, tiebreak: np.ndarray, disputed: Disputed | None) -> None:
        self.beta, self.tiebreak, self.disputed = beta, tiebreak, disputed
        if disputed is not None:  # the disputed pairs' outcome variances and order, once a round
            p = expit(beta[disputed.rows] - beta[disputed.cols])
            self.variance = p * (1 - p)
            self.order = tiebreak[disputed.rows] * len(beta) + tiebreak[disputed.cols]

    def outcome(self, i: int, j: int) -> float:
        """``p_ij (1 - p_ij)``: the variance of the outcome of the pair under the ratings."""
        p = expit(self.beta[i] - self.beta[j])
        return float(p * (1 - p))

    def next(self, asked: np.ndarray, info: np.ndarray) -> tuple[int, int] | None:
        """The next targeted pair given the pairs ``asked`` and the docs' ``info`` (``None``: none left)."""
        return self.by_docs(asked, info) if self.disputed is None else self.by_systems(asked, info)

    def by_docs(self, asked: np.ndarray, info: np.ndarray) -> tuple[int, int] | None:
        """The least certain doc ``i`` with an open pair, and its partner maximising ``p_ij (1 - p_ij) (1/info_i +
        1/info_j)``."""
        open_ = ~asked.all(axis=1)
        if not open_.any():
            return None
        i = first_of_best(np.where(open_, 1.0 / info, -np.inf), self.tiebreak)
        q = expit(self.beta[i] - self.beta)
        gain = np.where(asked[i], -np.inf, q * (1 - q) * (1.0 / info[i] + 1.0 / info))
        return i, first_of_best(gain, self.tiebreak)

    def by_systems(self, asked: np.ndarray, info: np.ndarray) -> tuple[int, int] | None:
        """The pair ``(i, j)``, ``i < j``, not asked, maximising ``w_ij p_ij (1 - p_ij) (1/info_i + 1/info_j)``
        among the pairs of positive weight, else ``p_ij (1 - p_ij) (1/info_i + 1/info_j)``; ties by the two
        docs' ``tiebreak``, lexicographically."""
        disputed = self.disputed
        assert disputed is not None, "asked only where the systems dispute pairs (next)"
        rows, cols = disputed.rows, disputed.cols
        open_ = ~asked[rows, cols]
        if open_.any():  # scored among the disputed pairs alone: the others' gain is -inf
            spread = self.variance * (1.0 / info[rows] + 1.0 / info[cols])
            k = first_of_best(np.where(open_, disputed.weights * spread, -np.inf), self.order)
            return int(rows[k]), int(cols[k])
        n = len(info)
        open_ = np.triu(~asked, 1)
        if not open_.any():
            return None
        variance, order = self._every_pair
        gain = np.where(open_, variance * (1.0 / info[:, None] + 1.0 / info[None, :]), -np.inf)
        return divmod(first_of_best(gain.ravel(), order), n)

    @cached_property
    def _every_pair(self) -> tuple[np.ndarray, np.ndarray]:
        """Every pair's outcome variance (n x n) and tie order, once a round (the disputed pairs all asked)."""
        p = expit(self.beta[:, None] - self.beta[None, :])
        return p * (1 - p), (self.tiebreak[:, None] * len(self.beta) + self.tiebreak[None, :]).ravel()
