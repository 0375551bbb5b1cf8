"""Gold pairs: pairs with a known answer, shown to people among the others to measure how well each one judges.

A gold pair is a query, two docs and the expected outcome (``first``, ``second`` or ``tie``, relative to the docs
as listed). They come from a preference file in a format the package reads (:func:`gold_from_file`: a strict
preference or a tie per line; a bad mark states no pair and is refused) or from graded qrels: every pair of an
effort's pool whose grades differ by ``gap`` or more (:func:`gold_from_qrels`; two grades apart, a pair a careful
assessor rarely gets wrong).

They are kept in the store apart from the effort's questions, so they never count in the budget, the progress or
the export: the table ``gold`` (the pairs) and ``gold_answers`` (one row per assessor's answer to a gold pair: the
assignment it answers, the answer as the assessor gave it relative to the docs *as listed*, whether it is
correct, its latency and time). An answer is correct when its outcome (a bad mark read as a preference for the
other doc) is the expected one.

**The flag** (:func:`flagged`): an assessor is flagged once they have answered at least :data:`MIN_GOLD` gold
pairs and got fewer than :data:`MIN_ACCURACY` of them right. With 10 gold answers it flags an assessor who clicks
the five answer keys at random (right 2 times in 5) with probability 0.988, and one who answers a strict
preference the other way round 5 times in 100 with probability 0.012 (binomial tails). ``judge export
--exclude-flagged`` leaves the flagged assessors' answers out (:func:`flagged_assessors`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.protocol import Answer, Pair
from ir_pref_measures.judging.rules import SIDES, vote

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS gold (
        id INTEGER PRIMARY KEY, query_id TEXT NOT NULL, first TEXT NOT NULL, second TEXT NOT NULL,
        expected TEXT NOT NULL, UNIQUE (query_id, first, second))""",
    """CREATE TABLE IF NOT EXISTS gold_answers (
        assignment INTEGER PRIMARY KEY, gold_id INTEGER NOT NULL, assessor TEXT NOT NULL, answer TEXT NOT NULL,
        correct INTEGER NOT NULL, latency REAL NOT NULL, answered_at REAL NOT NULL)""",
)
MIN_GOLD = 5  # gold answers before an assessor can be flagged
MIN_ACCURACY = 0.8  # the share of gold answers an assessor must get right not to be flagged
GAP = 2  # the grade gap of a gold pair drawn from graded qrels
EXPECTED = {-1: "first", 1: "second", 0: "tie"}  # a preference file's value -> the expected outcome


@dataclass(frozen=True)
class GoldPair:
    """A pair with a known answer: ``expected`` is ``first``, ``second`` or ``tie`` for ``pair`` as listed."""

    pair: Pair
    expected: str


def gold_from_file(path, format: str | None = None) -> list[GoldPair]:
    """The gold pairs of a preference file (``carterette``, ``winner`` or ``pairs``; detected when unambiguous),
    one per line; a bad mark (a doc against ``NA``) is an :class:`InputError` naming the line."""
    from ir_pref_measures.parsing.preferences import read_preferences

    frame = read_preferences(path, format)
    out = []
    for q, a, b, value, line in zip(
        frame["query_id"], frame["doc_id_a"], frame["doc_id_b"], frame["preference"], frame["line"], strict=True
    ):
        if int(value) not in EXPECTED:
            raise InputError("a gold pair needs two docs, not a bad mark", path=str(path), line_no=int(line))
        out.append(GoldPair(Pair(str(q), str(a), str(b)), EXPECTED[int(value)]))
    if not out:
        raise InputError("no gold pair in the file", path=str(path))
    return out


def gold_from_qrels(
    grades: Mapping[str, Mapping[str, float]], pools: Mapping[str, Sequence[str]], gap: float = GAP
) -> list[GoldPair]:
    """Every pair of docs of ``pools`` (``{query: docs}``) whose grades in ``grades`` (``{query: {doc: grade}}``;
    an ungraded doc: 0) differ by ``gap`` or more, the better doc expected; by query, then pool order."""
    out = []
    for q in sorted(pools):
        graded = grades.get(q, {})
        docs = list(dict.fromkeys(pools[q]))
        for i, a in enumerate(docs):
            for b in docs[i + 1 :]:
                difference = graded.get(a, 0.0) - graded.get(b, 0.0)
                if abs(difference) >= gap:
                    out.append(GoldPair(Pair(q, a, b), "first" if difference > 0 else "second"))
    if not out:
        raise InputError(f"no pair of the effort's pools has grades {gap:g} or more apart in the gold qrels")
    return out


def correct(answer: Answer, gold: GoldPair) -> bool:
    """Whether ``answer`` (shown in either order) gives ``gold``'s expected outcome (a bad mark: a preference for
    the other doc)."""
    outcome = vote(answer, gold.pair)
    return outcome is not None and SIDES[outcome] == gold.expected


def flagged(right: int, answered: int) -> bool:
    """The flag (module docstring): ``answered >= MIN_GOLD`` and ``right / answered < MIN_ACCURACY``."""
    return answered >= MIN_GOLD and right < MIN_ACCURACY * answered


def accuracy(database) -> dict[str, tuple[int, int]]:
    """``{assessor: (right, answered)}`` on gold, read from a store's database (``{}`` when it has no gold)."""
    if not database.columns("gold_answers"):
        return {}
    rows = database.execute("SELECT assessor, SUM(correct), COUNT(*) FROM gold_answers GROUP BY assessor")
    return {who: (int(right), int(n)) for who, right, n in rows.fetchall()}


def flagged_assessors(database) -> set[str]:
    """The assessors :func:`flagged` on their gold answers in a store's database."""
    return {who for who, (right, n) in accuracy(database).items() if flagged(right, n)}


def store_gold(database, pairs: Iterable[GoldPair]) -> dict[int, GoldPair]:
    """Write ``pairs`` to the store's ``gold`` table (a pair stored before keeps its row) and return every gold
    pair stored, by id."""
    database.create(SCHEMA)
    with database.transaction():
        database.executemany(
            "INSERT INTO gold (query_id, first, second, expected) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (query_id, first, second) DO NOTHING",
            [(g.pair.query_id, g.pair.first, g.pair.second, g.expected) for g in pairs],
        )
    rows = database.execute("SELECT id, query_id, first, second, expected FROM gold ORDER BY id").fetchall()
    return {i: GoldPair(Pair(q, a, b), e) for i, q, a, b, e in rows}


def due(share: float, given: int, gold: int, draw: float) -> bool:
    """Whether an assessor's next assignment is gold, who has had ``given`` assignments of which ``gold`` were
    gold: when ``gold < share * (given + 1) - draw`` (``draw`` uniform in [0, 1), seeded per assessor and
    assignment), so that after n assignments the gold ones number ``share * n`` within one, at places an assessor
    cannot predict."""
    return gold < share * (given + 1) - draw


def draw(seed: int, assessor_hash: int, given: int) -> float:
    """The uniform draw of :func:`due` for an assessor's assignment number ``given``."""
    return float(np.random.default_rng([seed, assessor_hash, given, 0x901D]).random())
