"""Comparing runs with each other: pairwise preferences per query (:mod:`~ir_pref_measures.comparison.pairwise`:
RPP, lexicographic precision and recall, metric differences), rank fusion of those preferences into one ordering
(:mod:`~ir_pref_measures.comparison.fusion`: MC4, Borda, win rate) and tie-aware RBO between runs
(:mod:`~ir_pref_measures.comparison.rbo`). Each name is imported on first use, so that ``compare`` (the command)
loads neither the fusion nor the RBO kernels unless it needs them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # type checkers see the imports; at run time, __getattr__ below imports each on first use
    from ir_pref_measures.comparison.fusion import aggregate, borda, mc4, win_rate
    from ir_pref_measures.comparison.pairwise import Comparison, compare
    from ir_pref_measures.comparison.rbo import rbo_between, rbo_runs, tied_compatibility

_MODULES = {  # name -> its module
    **dict.fromkeys(("aggregate", "borda", "mc4", "win_rate"), "fusion"),
    **dict.fromkeys(("Comparison", "compare"), "pairwise"),
    **dict.fromkeys(("rbo_between", "rbo_runs", "tied_compatibility"), "rbo"),
}

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

if not TYPE_CHECKING:  # type checkers see the imports above; a misspelt name stays an error to them
    from ir_pref_measures.lazy import lazy_names

    __getattr__, __dir__ = lazy_names(__name__, _MODULES, __all__)
