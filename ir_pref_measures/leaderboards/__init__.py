"""Leaderboards: Bradley-Terry and Elo ratings of systems from battles (:mod:`~ir_pref_measures.leaderboards.ratings`),
their bootstrap intervals (:mod:`~ir_pref_measures.leaderboards.intervals`), and boards from battle logs, ``compare``
tables and per-query values (:mod:`~ir_pref_measures.leaderboards.boards`)."""

from ir_pref_measures.leaderboards.boards import Ratings, battles_from_compare, battles_from_values, leaderboard, rate
from ir_pref_measures.leaderboards.ratings import bradley_terry, online_elo, predicted_win_probability, win_rates

__all__ = [
    "Ratings",
    "battles_from_compare",
    "battles_from_values",
    "bradley_terry",
    "leaderboard",
    "online_elo",
    "predicted_win_probability",
    "rate",
    "win_rates",
]
