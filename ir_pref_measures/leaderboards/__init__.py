"""Leaderboards: Bradley-Terry and Elo ratings from pairwise battles, their bootstrap intervals, and
prediction-powered Bradley-Terry ratings from people's and an LLM's battles."""

from ir_pref_measures.leaderboards.boards import (
    battles_from_compare,
    battles_from_runs,
    battles_from_values,
    leaderboard,
    rate,
)
from ir_pref_measures.leaderboards.ppi import PPIRatings, ppi_bradley_terry, ppi_rate

__all__ = [
    "PPIRatings",
    "battles_from_compare",
    "battles_from_runs",
    "battles_from_values",
    "leaderboard",
    "ppi_bradley_terry",
    "ppi_rate",
    "rate",
]
