"""Leaderboards: systems rated from battles, with bootstrap intervals.

Battles come from a battle log (:func:`~ir_pref_measures.parsing.battles.read_battles`: ``qid system_a system_b
winner [weight]``), from a per-query :func:`~ir_pref_measures.comparison.pairwise.compare` table (each query is a
battle between run i and run j, won by the sign of the measure: :func:`battles_from_compare`) or from per-query
values of any measure (PyTerrier's ``name, qid, measure, value`` table of ``Experiment(perquery=True)``: every
pair of systems battles on every query, the higher value wins: :func:`battles_from_values`).

:func:`rate` fits the ratings (Bradley-Terry by default, or online Elo) and the bootstrap; :func:`leaderboard`
returns its table. Definitions and citations: :mod:`~ir_pref_measures.leaderboards.ratings` and
:mod:`~ir_pref_measures.leaderboards.intervals`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ir_pref_measures.comparison.pairwise import SUMMARY
from ir_pref_measures.errors import InputError
from ir_pref_measures.experiment.render import render
from ir_pref_measures.ids import intern
from ir_pref_measures.leaderboards import ratings as kernels
from ir_pref_measures.leaderboards.intervals import Resamples, bootstrap
from ir_pref_measures.parsing.battles import read_battles

METHODS = ("bt", "elo")
ROUNDS = 1000
LEVEL = 0.95


def battles_from_compare(table: pd.DataFrame, measure: str = "rpp") -> pd.DataFrame:
    """Battles from a per-query ``compare`` table: per row, run i vs run j on the query, the winner by the
    sign of ``measure`` (positive: run i; negative: run j; zero: a tie). The summary rows (``all``) are left out.

    Parameters
    ----------
    table : pandas.DataFrame
        A per-query ``compare`` table.
    measure : str
        The column whose sign names the winner.

    Returns
    -------
    pandas.DataFrame
        Battles: ``query_id, system_a, system_b, winner``.
    """
    if measure not in table.columns:
        raise InputError(f"measure {measure!r} is not a column of the table ({list(table.columns)})")
    rows = table[table["query_id"] != SUMMARY]
    if rows.empty:
        raise InputError("the table has no per-query rows: call compare(..., perquery=True)")
    sign = np.sign(rows[measure].to_numpy(dtype=np.float64))
    if np.isnan(sign).any():
        row = int(np.flatnonzero(np.isnan(sign))[0])
        raise InputError(f"row {row}: {measure} is not a number")
    winner = np.where(sign > 0, "a", np.where(sign < 0, "b", "tie"))
    return pd.DataFrame(
        {"query_id": rows["query_id"], "system_a": rows["run_i"], "system_b": rows["run_j"], "winner": winner}
    ).reset_index(drop=True)


def battles_from_values(values: pd.DataFrame, measure: str | None = None) -> pd.DataFrame:
    """Battles from per-query values ``name, qid, measure, value`` (``Experiment(perquery=True)``): on each query,
    every pair of systems (in name order) battles and the higher ``measure`` value wins (equal values: a tie).
    ``measure`` may be left out when the table holds one. Every system needs a value on every query.

    Parameters
    ----------
    values : pandas.DataFrame
        Per-query values ``name, qid, measure, value``.
    measure : str, optional
        The measure that decides.

    Returns
    -------
    pandas.DataFrame
        Battles: ``query_id, system_a, system_b, winner``.
    """
    missing = [c for c in ("name", "qid", "value") if c not in values.columns]
    if missing:
        raise InputError(f"the values have no column(s) {missing}", expected="name, qid, measure, value")
    if "measure" in values.columns:
        measures = list(dict.fromkeys(values["measure"]))
        if measure is None and len(measures) > 1:
            raise InputError(f"the values hold several measures {measures}: name one")
        measure = measures[0] if measure is None else measure
        if measure not in measures:
            raise InputError(f"measure {measure!r} is not in the values", expected=f"one of {measures}")
        values = values[values["measure"] == measure]
    grid = values.pivot_table(index="qid", columns="name", values="value", aggfunc="size")
    if (grid > 1).any().any():
        raise InputError(f"a (system, query) has several values of {measure!r}")
    grid = values.pivot(index="qid", columns="name", values="value").sort_index(axis=1)
    if grid.isna().any().any():
        query, name = next((q, n) for n in grid.columns for q in grid.index[grid[n].isna()])
        raise InputError(f"system {name!r} has no value of {measure!r} on query {query!r}")
    names = np.asarray(grid.columns, dtype=object)
    i, j = np.triu_indices(len(names), k=1)
    matrix = grid.to_numpy(dtype=np.float64)
    sign = np.sign(matrix[:, i] - matrix[:, j])
    return pd.DataFrame(
        {
            "query_id": np.repeat(np.asarray(grid.index, dtype=object), len(i)),
            "system_a": np.tile(names[i], len(grid)),
            "system_b": np.tile(names[j], len(grid)),
            "winner": np.where(sign > 0, "a", np.where(sign < 0, "b", "tie")).ravel(),
        }
    )


@dataclass(frozen=True)
class Ratings:
    """Ratings of ``names`` on the Elo scale, the battles' counts, and the bootstrap rounds (``None`` without)."""

    names: list[str]
    method: str
    rating: np.ndarray
    beta: np.ndarray | None  # Bradley-Terry log-strengths (natural log); None for Elo
    points: np.ndarray
    counts: dict[str, np.ndarray]
    resamples: Resamples | None
    anchor: int | None  # the system whose rating is fixed at anchor_rating (in every round too)
    anchor_rating: float
    level: float

    def table(self) -> pd.DataFrame:
        """``system, rating, ci low, ci high, rank, rank low, rank high, battles, wins, ties, losses``, best first
        (equal ratings in name order); without bootstrap rounds the interval columns are left out."""
        rank = 1 + (self.rating[None, :] > self.rating[:, None]).sum(axis=1)
        frame = pd.DataFrame({"system": self.names, "rating": self.rating})
        if self.resamples is not None:
            low, high = self.resamples.intervals(self._scaled(self.resamples.beta), self.level)
            frame["ci low"], frame["ci high"] = low, high
            frame["rank"] = rank
            low, high = self.resamples.intervals(self.resamples.ranks(), self.level)
            frame["rank low"], frame["rank high"] = low, high
        else:
            frame["rank"] = rank
        for column, values in self.counts.items():
            frame[column] = values
        order = np.lexsort((np.arange(len(self.names)), -self.rating))
        return frame.iloc[order].reset_index(drop=True)

    def _scaled(self, beta: np.ndarray) -> np.ndarray:
        rating = kernels.elo_scale(beta)
        return rating if self.anchor is None else rating + self.anchor_rating - rating[..., [self.anchor]]

    def _matrix(self, values: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame(values, index=pd.Index(self.names, name="system"), columns=self.names)

    def win_rates(self) -> pd.DataFrame:
        """Observed share of points of the row system against the column system (NaN: never met)."""
        return self._matrix(kernels.win_rates(self.points))

    def predicted(self) -> pd.DataFrame:
        """The Bradley-Terry probability that the row system beats the column system in a battle."""
        if self.beta is None:
            raise InputError("predicted win probabilities come from Bradley-Terry ratings (method='bt')")
        return self._matrix(kernels.predicted_win_probability(self.beta))

    def above(self) -> pd.DataFrame:
        """The share of bootstrap rounds in which the row system is rated above the column system."""
        if self.resamples is None:
            raise InputError("the probability of being rated above needs bootstrap rounds (rounds > 0)")
        return self._matrix(self.resamples.above())


def encoded(battles: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """System names (sorted), the codes of system a and b, and the query codes of a battles table."""
    (a, b), names = intern(battles["system_a"], battles["system_b"])
    (query,), _ = intern(battles["query_id"])
    return [str(n) for n in names], a.astype(np.int64), b.astype(np.int64), query.astype(np.int64)


def rate(
    battles,
    *,
    method: str = "bt",
    prior: float = 0.0,
    anchor: str | None = None,
    anchor_rating: float = kernels.INIT,
    rounds: int = ROUNDS,
    resample: str = "battles",
    level: float = LEVEL,
    seed: int = 0,
    k: float = kernels.ELO_K,
) -> Ratings:
    """Rate the systems of ``battles`` (a battle file, or a table: see :func:`read_battles`).

    ``method="bt"``: Bradley-Terry maximum likelihood on the Elo scale (mean 1000, or ``anchor`` at
    ``anchor_rating``), with an L2 ``prior`` on the log-strengths when given; the battles must identify the
    ratings otherwise (an :class:`InputError` names the systems that prevent it). ``rounds`` bootstrap rounds
    (0: none) resampling ``battles`` or ``queries``, seeded by ``seed``; intervals at ``level``.
    ``method="elo"``: online Elo in input order (``k``, base 10, scale 400, from 1000), without intervals.

    Parameters
    ----------
    battles
        A battle file or a table (:func:`read_battles`).
    method : {"bt", "elo"}
        Bradley-Terry or online Elo.
    prior : float
        The L2 prior on the log-strengths (Bradley-Terry).
    anchor : str, optional
        The system whose rating is fixed at ``anchor_rating``.
    anchor_rating : float
        The anchor's rating.
    rounds : int
        Bootstrap rounds (0: none).
    resample : {"battles", "queries"}
        What the bootstrap resamples.
    level : float
        The level of the intervals.
    seed : int
        The seed of the bootstrap.
    k : float
        Elo's K factor.

    Returns
    -------
    Ratings
        The ratings, counts and bootstrap rounds (``.table()`` as a leaderboard).
    """
    if method not in METHODS:
        raise InputError(f"unknown rating method {method!r}", expected=f"one of {', '.join(METHODS)}")
    if not (np.isfinite(prior) and prior >= 0):
        raise InputError(f"prior must be a non-negative number, not {prior!r}")
    if not 0 < level < 1:
        raise InputError(f"level must be in (0, 1), not {level!r}")
    table = read_battles(battles)
    names, a, b, query = encoded(table)
    outcome, weight = table["outcome"].to_numpy(), table["weight"].to_numpy()
    n = len(names)
    points = kernels.points_matrix(a, b, outcome, weight, n)
    counts = _counts(a, b, outcome, n)
    if anchor is not None and anchor not in names:
        raise InputError(f"anchor {anchor!r} is not one of the systems", expected=", ".join(names))
    anchored = None if anchor is None else names.index(anchor)
    if method == "elo":
        rating = kernels.online_elo(a, b, outcome, n, weight, k=k)
        rating += 0.0 if anchored is None else anchor_rating - rating[anchored]
        return Ratings(names, method, rating, None, points, counts, None, anchored, anchor_rating, level)
    if prior == 0:
        kernels.check_identifiable(points, names)
    beta = kernels.bradley_terry(points, prior)
    resamples = None
    if rounds:
        resamples = bootstrap(
            a, b, outcome, weight, query, names, rounds=rounds, resample=resample, prior=prior, seed=seed
        )
    ratings = Ratings(names, method, np.empty(0), beta, points, counts, resamples, anchored, anchor_rating, level)
    return replace(ratings, rating=ratings._scaled(beta))


def _counts(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, n: int) -> dict[str, np.ndarray]:
    """Battles, wins, ties and losses per system (unweighted counts)."""
    both = np.concatenate([a, b])
    won = np.concatenate([outcome == 1, outcome == 0])
    lost = np.concatenate([outcome == 0, outcome == 1])
    return {
        "battles": np.bincount(both, minlength=n),
        "wins": np.bincount(both[won], minlength=n),
        "ties": np.bincount(both[np.concatenate([outcome == 0.5] * 2)], minlength=n),
        "losses": np.bincount(both[lost], minlength=n),
    }


def report(table: pd.DataFrame, format: str = "table", digits: int | None = None) -> str:
    """A :meth:`Ratings.table` as text in any format of :func:`~ir_pref_measures.experiment.render.render` (the
    aligned, LaTeX and HTML forms name the system column ``name``, as an experiment table; the latter two bold
    the best rating only)."""
    if format in ("csv", "json", "markdown"):
        return render(table, format, digits)
    shown = table.rename(columns={"system": "name"})
    shown.attrs["plain"] = [c for c in shown.columns if c not in ("name", "rating")]
    return render(shown, format, digits)


def leaderboard(battles, **options) -> pd.DataFrame:
    """The table of :func:`rate` (same options): ``system, rating, ci low, ci high, rank, rank low, rank high,
    battles, wins, ties, losses``, best first.

    Parameters
    ----------
    battles
        A battle file or a table (:func:`read_battles`).
    **options
        The options of :func:`rate`.

    Returns
    -------
    pandas.DataFrame
        One row per system, best first.
    """
    return rate(battles, **options).table()
