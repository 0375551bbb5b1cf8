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

import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ir_pref_measures import arguments
from ir_pref_measures.comparison.pairwise import SUMMARY, compare, load_runs
from ir_pref_measures.errors import InputError
from ir_pref_measures.experiment.render import render
from ir_pref_measures.leaderboards import ratings as kernels
from ir_pref_measures.leaderboards.intervals import RESAMPLES, Resamples, bootstrap
from ir_pref_measures.loading import sources
from ir_pref_measures.model.checks import check_judged
from ir_pref_measures.model.ids import intern
from ir_pref_measures.parsing.battles import read_battles

METHODS = ("bt", "elo")
METHOD_OPTIONS = {"bt": ("prior", "rounds", "resample", "level", "seed"), "elo": ("k",)}
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


def battles_from_runs(runs, qrels, measure: str = "rpp", topk: int | None = None) -> pd.DataFrame:
    """Battles of ``runs`` (a mapping name -> run or a list of paths, as :func:`compare` takes them) compared per
    query on the graded ``qrels`` by the pairwise ``measure`` (:func:`battles_from_compare`). No scores from
    nothing: a run that holds no judged query, or retrieves no judged document on any of them, is an
    :class:`InputError` (:func:`~ir_pref_measures.model.checks.check_judged`, the rule of ``eval``); one that
    retrieves no judged document on half of them or more gives :func:`compare`'s warning with their share (its
    battles there are lost or tied without evidence). ``topk`` cuts every run at that rank first."""
    rankings = {name: sources.ranking(run) for name, run in load_runs(runs).items()}
    if len(rankings) < 2:
        raise InputError(f"a leaderboard needs at least two runs, got {len(rankings)}")
    judgments = sources.judgments(qrels, format="qrels", repeated="max")
    for name, ranking in rankings.items():
        check_judged(ranking, judgments, f"run {name}")
    table = compare(rankings, qrels, measures=[measure], perquery=True, topk=topk)
    return battles_from_compare(table, measure)


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


def rating_options(
    *,
    method: str = "bt",
    prior: float | None = None,
    anchor: str | None = None,
    anchor_rating: float | None = None,
    rounds: int | None = None,
    resample: str | None = None,
    level: float | None = None,
    seed: int | None = None,
    k: float | None = None,
) -> dict:
    """The options of :func:`rate` checked, with their defaults: an :class:`InputError` names a bad value or an
    option of the other method (so a command checks them before reading its input)."""
    method = arguments.choice(method, "method", METHODS)
    given = {"prior": prior, "rounds": rounds, "resample": resample, "level": level, "seed": seed, "k": k}
    others = [name for name, value in given.items() if value is not None and name not in METHOD_OPTIONS[method]]
    if rounds == 0 and method == "elo":  # no intervals: what online Elo gives anyway
        others.remove("rounds")
    if others:
        raise InputError(f"{', '.join(others)} {'does' if len(others) == 1 else 'do'} not go with method={method!r}")
    prior = arguments.non_negative(0.0 if prior is None else prior, "prior")
    rounds = arguments.integer(ROUNDS if rounds is None else rounds, "rounds", 0)
    resample = arguments.choice("battles" if resample is None else resample, "resample", RESAMPLES)
    level = arguments.open_unit(LEVEL if level is None else level, "level")
    seed = arguments.seed(0 if seed is None else seed)
    k = arguments.positive(kernels.ELO_K if k is None else k, "k")
    if anchor is not None and not isinstance(anchor, str):
        raise InputError(f"anchor={anchor!r}: must be a system's name (a string)")
    if anchor is None and anchor_rating is not None:
        raise InputError(f"anchor_rating={anchor_rating!r} needs an anchor (anchor=SYSTEM)")
    anchor_rating = arguments.number(kernels.INIT if anchor_rating is None else anchor_rating, "anchor_rating")
    return {
        "method": method, "prior": prior, "anchor": anchor, "anchor_rating": anchor_rating, "rounds": rounds,
        "resample": resample, "level": level, "seed": seed, "k": k,
    }  # fmt: skip


def rate(battles, **options: Any) -> Ratings:
    """Rate the systems of ``battles`` (a battle file, or a table: see :func:`read_battles`).

    ``method="bt"``: Bradley-Terry maximum likelihood on the Elo scale (mean 1000, or ``anchor`` at
    ``anchor_rating``, default 1000), with an L2 ``prior`` on the log-strengths when given (default 0); the battles
    must identify the ratings otherwise (an :class:`InputError` names the systems that prevent it). ``rounds``
    bootstrap rounds (default 1000; 0: none) resampling ``battles`` (default) or ``queries``, seeded by ``seed``
    (default 0); intervals at ``level`` (default 0.95).
    ``method="elo"``: online Elo in input order (``k``, default 4; base 10, scale 400, from 1000), without
    intervals. The options are those of :func:`rating_options`; one of the other method is an :class:`InputError`,
    never ignored.

    Parameters
    ----------
    battles
        A battle file or a table (:func:`read_battles`).
    method : {"bt", "elo"}
        Bradley-Terry or online Elo.
    prior : float, optional
        The L2 prior on the log-strengths (Bradley-Terry; default 0).
    anchor : str, optional
        The system whose rating is fixed at ``anchor_rating``.
    anchor_rating : float
        The anchor's rating.
    rounds : int, optional
        Bootstrap rounds (default 1000; 0: none).
    resample : {"battles", "queries"}
        What the bootstrap resamples.
    level : float
        The level of the intervals.
    seed : int
        The seed of the bootstrap.
    k : float, optional
        Elo's K factor (default 4).

    Returns
    -------
    Ratings
        The ratings, counts and bootstrap rounds (``.table()`` as a leaderboard).
    """
    options = rating_options(**options)
    method, prior, anchor, anchor_rating = (options[key] for key in ("method", "prior", "anchor", "anchor_rating"))
    rounds, resample, level, seed, k = (options[key] for key in ("rounds", "resample", "level", "seed", "k"))
    table = read_battles(battles)
    names, a, b, query = encoded(table)
    outcome, weight = table["outcome"].to_numpy(), table["weight"].to_numpy()
    if len(outcome) and (outcome == 0.5).all():
        warnings.warn(f"all {len(outcome)} battles are ties: every system gets the same rating", stacklevel=2)
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
