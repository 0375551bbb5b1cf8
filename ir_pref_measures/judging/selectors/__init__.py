"""Pair selectors: which questions to ask next, per query, given the verdicts so far (:mod:`.base`)."""

from ir_pref_measures.judging.selectors.base import (
    Selector,
    all_pairs_cost,
    depth_pools,
    graded_pools,
    query_rng,
    stable_hash,
)
from ir_pref_measures.judging.selectors.insertion import BinaryInsertion
from ir_pref_measures.judging.selectors.listed import ListedPairs, read_pairs
from ir_pref_measures.judging.selectors.pairs import AllPairs, random_pairs
from ir_pref_measures.judging.selectors.rating import UNIFORM, RatingDriven
from ir_pref_measures.judging.selectors.topk import TopK

__all__ = [
    "AllPairs",
    "BinaryInsertion",
    "ListedPairs",
    "RatingDriven",
    "Selector",
    "TopK",
    "UNIFORM",
    "all_pairs_cost",
    "depth_pools",
    "graded_pools",
    "query_rng",
    "random_pairs",
    "read_pairs",
    "stable_hash",
]


def __getattr__(name: str):
    """``read_grades``: the reader of graded qrels is :func:`ir_pref_measures.judging.read_grades` now (warns once;
    removed in the next release)."""
    if name == "read_grades":
        from ir_pref_measures.errors import renamed
        from ir_pref_measures.loading.sources import read_grades

        renamed("ir_pref_measures.judging.selectors.read_grades", "ir_pref_measures.judging.read_grades")
        return read_grades
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
