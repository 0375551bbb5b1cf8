"""Pair selectors: which questions to ask next, per query, given the verdicts so far (:mod:`.base`)."""

from ir_pref_measures.judging.selectors.base import (
    Selector,
    all_pairs_cost,
    depth_pools,
    graded_pools,
    query_rng,
    read_grades,
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
    "read_grades",
    "stable_hash",
]
