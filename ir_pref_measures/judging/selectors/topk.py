"""The top-k judging process of ``prefj.py`` (Clarke, Vtyurina and Smucker, *Assessing top-k preferences*, ACM
TOIS 2021), seeded, accepting ties.

Candidates: the docs graded above 0, by grade descending, cut after the ``k``-th keeping its ties; a single
candidate is the top-k at once. While the pool holds more than ``f`` docs, a stage-1 round pairs each doc with
about ``p`` others (counts start at 0; repeatedly shuffle the pool, sort it stably by count, add the first pair
``(i < j)`` not yet in the round and count both docs, until every count reaches ``min(p, len(pool) - 1)``) and keeps
the docs with more than ``int(p / 2)`` wins. Then stage 2 asks every pair of the pool, and the top-k are the ``k``
docs with most wins (ties at the boundary kept, only docs with a win). A tie counts half a win to each doc; a bad
mark a win of the other doc; a question without a usable answer no win. ``p <= k`` becomes ``k + 1``, ``f <= p``
becomes ``p + 1``, as ``prefj.py`` does. With ties a stage-1 round may keep every doc (all tied: each has half
its matches); then stage 2 follows at once, where ``prefj.py`` would repeat stage 1 for ever. A stage 1 that
leaves fewer than 2 docs ends the process without a top-k (``prefj.py`` stops there too). :meth:`TopK.prefs`
gives ``prefj.py``'s ``prefs`` qrels.

**Beyond the process** (``rest``, off by default): the process spends a budget on the top docs only, and stops
whatever the budget. Given ``rest``, a :class:`~ir_pref_measures.judging.selectors.rating.RatingDriven` selector
over a wider pool (the systems' pools), each round of the process is interleaved one for one with as many
questions of ``rest`` (questions ``rest`` picks given every verdict so far, none asked before nor in the round),
so that a budget that cuts the process short still buys the questions of ``rest`` in equal share; once the
process is done, ``rest`` asks alone, round by round, to the budget. The process's own rounds, pairings and top-k
are those it has without ``rest`` (a pair ``rest`` asked before is not asked again: its verdict is reused).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from itertools import chain, zip_longest

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.protocol import Pair
from ir_pref_measures.judging.selectors.base import History, all_pairs, query_rng, shown, unordered, verdicts_by_pair
from ir_pref_measures.judging.selectors.rating import RatingDriven

K, F, P = 5, 9, 7
BONUS = 100.0  # prefs: a top-k doc's value is its score + the max grade + 100


def candidates(grades: Mapping[str, float], k: int) -> list[str]:
    """The docs graded above 0 by grade descending (stable over ``grades``' order), cut after the ``k``-th,
    keeping every doc graded as the ``k``-th."""
    ranked = sorted((d for d, g in grades.items() if g > 0), key=lambda d: -grades[d])
    bottom = k
    while bottom < len(ranked) and grades[ranked[bottom]] == grades[ranked[k - 1]]:
        bottom += 1
    return ranked[:bottom]


def stage1(pool: list[str], p: int, rng) -> list[tuple[str, str]]:
    """Stage 1's pairs (module docstring), each ``(a, b)`` with ``a < b``, in the order chosen."""
    n = min(p, len(pool) - 1)
    if n < 1:
        return []
    counts = dict.fromkeys(pool, 0)
    work: dict[tuple[str, str], None] = {}
    docs = sorted(pool)
    while min(counts.values()) < n:
        docs = [docs[i] for i in rng.permutation(len(docs))]
        docs.sort(key=counts.__getitem__)
        pair = next(
            (a, b)
            for i, x in enumerate(docs)
            for y in docs[i + 1 :]
            for a, b in [(min(x, y), max(x, y))]
            if (a, b) not in work
        )
        work[pair] = None
        counts[pair[0]] += 1
        counts[pair[1]] += 1
    return list(work)


@dataclass
class State:
    """A query's process after some rounds: the ``pool``, the ``topk`` with scores, ``done``."""

    pool: list[str]
    topk: dict[str, float] = field(default_factory=dict)
    done: bool = False
    stalled: bool = False  # the last stage-1 round kept every doc: stage 2 next


class TopK:
    """``prefj.py``'s process over graded qrels ``grades`` (``{query: {doc: grade}}``), with ``k``, ``f``, ``p``;
    with ``rest``, the questions beyond the process (module docstring)."""

    name = "topk"

    def __init__(
        self,
        grades: Mapping[str, Mapping[str, float]],
        seed: int = 0,
        k: int = K,
        f: int = F,
        p: int = P,
        rest: RatingDriven | None = None,
    ):
        self.grades, self.seed, self.rest = grades, seed, rest
        self.name = "topk" if rest is None else f"topk+{rest.name}"
        self.k = max(k, 1)
        self.p = p if p > self.k else self.k + 1
        self.f = f if f > self.p else self.p + 1
        self.candidates = {q: candidates(g, self.k) for q, g in grades.items()}
        self.pools = self.candidates if rest is None else widened(self.candidates, rest.pools)

    def _pairs(self, query_id: str, pool: list[str], round: int, stalled: bool) -> tuple[list[Pair], bool]:
        rng = query_rng(self.seed, query_id, round)
        first = len(pool) > self.f and not stalled
        pairs = stage1(pool, self.p, rng) if first else all_pairs(pool)
        return shown(query_id, pairs, rng), first

    def state(self, query_id: str, history: History) -> State:
        """The process after the rounds of ``history``."""
        pool, stalled = sorted(self.candidates.get(query_id, [])), False
        if len(pool) <= 1:
            return State([], dict.fromkeys(pool, 1.0), True)
        for round, verdicts in enumerate(history):
            pairs, first = self._pairs(query_id, pool, round, stalled)
            judged = verdicts_by_pair(verdicts)
            score = dict.fromkeys(pool, 0.0)
            for pair in pairs:
                verdict = judged.get(unordered(pair))
                if verdict is None:
                    raise ValueError(f"round {round} of query {query_id} has no verdict for {pair}")
                won_first, won_second = verdict.points()
                score[verdict.pair.first] += won_first
                score[verdict.pair.second] += won_second
            if first:
                pool, before = sorted(d for d in pool if score[d] > self.p // 2), pool
                stalled = pool == before
                if len(pool) < 2:
                    return State([], {}, True)
                continue
            ranked = sorted(pool, key=lambda d: -score[d])
            bottom = min(self.k, len(ranked))
            while bottom < len(ranked) and score[ranked[bottom]] == score[ranked[self.k - 1]]:
                bottom += 1
            return State([], {d: score[d] for d in ranked[:bottom] if score[d] > 0}, True)
        return State(pool, stalled=stalled)

    def next_round(self, query_id: str, history: History) -> list[Pair]:
        state = self.state(query_id, history)
        process = [] if state.done else self._pairs(query_id, state.pool, len(history), state.stalled)[0]
        if self.rest is None:
            return process
        if not process:
            return self.rest.next_round(query_id, history)
        beyond = self.rest.pick(query_id, history, len(process), exclude=process)
        return [pair for pair in chain.from_iterable(zip_longest(process, beyond)) if pair is not None]

    def prefs(self, query_id: str, history: History) -> dict[str, float]:
        """``prefj.py``'s ``prefs``: every graded doc keeps its grade, a top-k doc gets score + max grade + 100;
        ``{}`` while the process is not done."""
        state = self.state(query_id, history)
        if not state.done:
            return {}
        grades = dict(self.grades.get(query_id, {}))
        top = max([0.0, *grades.values()])
        return grades | {d: s + top + BONUS for d, s in state.topk.items()}


def widened(candidates: Mapping[str, list[str]], wider: Mapping[str, Collection[str]]) -> dict[str, list[str]]:
    """The pools of the process with ``rest``: ``wider`` (rest's pools), which must hold every candidate."""
    for query_id, docs in candidates.items():
        missing = sorted(set(docs) - set(wider.get(query_id, ())))
        if missing:
            raise InputError(
                f"the top-k candidates of query {query_id} are not all in the pool of the questions beyond the "
                f"process ({', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''})",
                expected="rest's pools holding every graded candidate",
            )
    return {q: sorted(set(docs)) for q, docs in sorted(wider.items())}
