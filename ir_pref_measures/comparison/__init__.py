"""Comparing runs with each other: pairwise preferences per query (:mod:`~ir_pref_measures.comparison.pairwise`:
RPP, lexicographic precision and recall, metric differences), rank fusion of those preferences into one ordering
(:mod:`~ir_pref_measures.comparison.fusion`: MC4, Borda, win rate) and tie-aware RBO between runs
(:mod:`~ir_pref_measures.comparison.rbo`)."""

from ir_pref_measures.comparison.fusion import aggregate, borda, mc4, win_rate
from ir_pref_measures.comparison.pairwise import Comparison, compare
from ir_pref_measures.comparison.rbo import rbo_between, rbo_runs, tied_compatibility

__all__ = [
    "Comparison",
    "aggregate",
    "borda",
    "compare",
    "mc4",
    "rbo_between",
    "rbo_runs",
    "tied_compatibility",
    "win_rate",
]
