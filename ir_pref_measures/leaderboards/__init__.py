"""Leaderboards: Bradley-Terry and Elo ratings of systems from battles (:mod:`~ir_pref_measures.leaderboards.ratings`),
their bootstrap intervals (:mod:`~ir_pref_measures.leaderboards.intervals`), boards from battle logs, ``compare``
tables and per-query values (:mod:`~ir_pref_measures.leaderboards.boards`), and prediction-powered Bradley-Terry
ratings from people's and an LLM's battles (:mod:`~ir_pref_measures.leaderboards.ppi`)."""

from ir_pref_measures.leaderboards.boards import (
    Ratings,
    battles_from_compare,
    battles_from_runs,
    battles_from_values,
    leaderboard,
    rate,
)
from ir_pref_measures.leaderboards.ppi import PPIRatings, ppi_bradley_terry, ppi_rate
from ir_pref_measures.leaderboards.ratings import bradley_terry, online_elo, predicted_win_probability, win_rates

__all__ = [
    "PPIRatings",
    "Ratings",
    "battles_from_compare",
    "battles_from_runs",
    "battles_from_values",
    "bradley_terry",
    "leaderboard",
    "online_elo",
    "ppi_bradley_terry",
    "ppi_rate",
    "predicted_win_probability",
    "rate",
    "win_rates",
]
