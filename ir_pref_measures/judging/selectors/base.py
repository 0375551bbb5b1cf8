"""What every pair selector shares: the interface, the seeded random generators, and the pools.

A selector is asked, per query, for the next round of questions given the verdicts of the rounds so far:
``next_round(query_id, history) -> list[Pair]`` where ``history[r]`` holds the :class:`Verdict` of every
question of round ``r`` (in the order asked); an empty list means the query is done. A selector keeps no state that
the history does not determine, so a run that stopped resumes by replaying the stored verdicts: the same inputs,
seed and verdicts give the same questions on any machine. Every random choice (pairings, which doc is shown first)
comes from :func:`query_rng`: ``numpy.random.default_rng`` seeded by the effort's seed, a stable hash of the query
id and the round.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.protocol import Pair
from ir_pref_measures.judging.rules import Verdict

History = Sequence[Sequence[Verdict]]


@runtime_checkable
class Selector(Protocol):
    """Chooses the questions to ask: ``pools[query_id]`` are the docs it judges; ``next_round`` the next round's
    questions given the verdicts so far (``[]``: the query is done)."""

    name: str

    @property
    def pools(self) -> Mapping[str, Sequence[str]]: ...

    def next_round(self, query_id: str, history: History) -> Sequence[Pair]: ...


def stable_hash(text: str) -> int:
    """A 64-bit hash of ``text`` that is the same on every machine and run (BLAKE2b; ``hash()`` is salted)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


def query_rng(seed: int, query_id: str, round: int) -> np.random.Generator:
    """The generator of one query's round: ``default_rng([seed, stable_hash(query_id), round])``."""
    return np.random.default_rng([int(seed), stable_hash(query_id), int(round)])


def shown(query_id: str, pairs: Iterable[tuple[str, str]], rng: np.random.Generator) -> list[Pair]:
    """``pairs`` as questions, each shown in the order given or the other way round by a fair coin of ``rng``."""
    pairs = list(pairs)
    flips = rng.random(len(pairs)) < 0.5
    return [Pair(query_id, b, a) if flip else Pair(query_id, a, b) for (a, b), flip in zip(pairs, flips, strict=True)]


def all_pairs(docs: Sequence[str]) -> list[tuple[str, str]]:
    """Every unordered pair of ``docs`` as ``(a, b)`` with ``a < b``, sorted."""
    docs = sorted(set(docs))
    return [(a, b) for i, a in enumerate(docs) for b in docs[i + 1 :]]


def all_pairs_cost(pools: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """The number of pairs of each query's pool: ``n (n - 1) / 2``."""
    return {q: len(set(docs)) * (len(set(docs)) - 1) // 2 for q, docs in pools.items()}


def top_ranks(runs: Mapping[str, object], depth: int) -> dict[str, list[dict[str, int]]]:
    """Per query, each run's top ``depth`` docs with their ranks (1 = first), one ``{doc: rank}`` per run in the
    order of ``runs`` (anything :func:`ir_pref_measures.loading.sources.ranking` reads: a file, a DataFrame)."""
    from ir_pref_measures.loading.sources import ranking

    if depth < 1:
        raise InputError(f"the pool depth must be at least 1, not {depth}")
    found: dict[str, list[dict[str, int]]] = {}
    for r, run in enumerate(runs.values()):
        ranked = ranking(run)  # rank order: score descending, ties by doc id descending
        for q, query_id in enumerate(ranked.query_ids):
            start = ranked.offsets[q]
            top = ranked.doc_ids[start : min(start + depth, ranked.offsets[q + 1])]
            per_run = found.setdefault(str(query_id), [{} for _ in runs])
            per_run[r] = {str(d): rank for rank, d in enumerate(top, start=1)}
    return found


def depth_pools(runs: Mapping[str, object], depth: int) -> dict[str, list[str]]:
    """Depth-``depth`` pooling: per query, the union of the top ``depth`` docs of every run (:func:`top_ranks`),
    sorted."""
    return {q: sorted(set().union(*per_run)) for q, per_run in sorted(top_ranks(runs, depth).items())}


def graded_pools(grades: Mapping[str, Mapping[str, float]], minimum: float = 0.0) -> dict[str, list[str]]:
    """The graded candidates: per query, the docs graded above ``minimum``, sorted."""
    return {q: sorted(d for d, g in docs.items() if g > minimum) for q, docs in sorted(grades.items())}


def verdicts_by_pair(round_verdicts: Sequence[Verdict]) -> dict[tuple[str, str], Verdict]:
    """The verdicts of one round by unordered pair ``(min, max)``."""
    return {unordered(v.pair): v for v in round_verdicts}


def unordered(pair: Pair) -> tuple[str, str]:
    """The docs of ``pair`` as ``(min, max)``, whatever order they were shown in."""
    return (pair.first, pair.second) if pair.first <= pair.second else (pair.second, pair.first)
