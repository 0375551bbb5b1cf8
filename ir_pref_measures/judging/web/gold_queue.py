"""The desk's gold pairs (:mod:`ir_pref_measures.judging.gold`): which assessor is shown which, and their answers.

A gold assignment is a row of the desk's ``assignments`` table like any other, so it is shown, reloaded and
answered the same way and its id tells nothing; it is told apart by its ``request_id``, the gold pair's id
negated (no question of the effort has a negative id). Its answer goes to ``gold_answers``, never to the effort's
answers. Each assessor is shown each gold pair at most once, drawn at random (seeded by the effort's seed, the
assessor and how many gold pairs they had) among those they have not seen, on a side drawn the same way. The
queue holds its state in memory, read from the store when the desk opens; the desk's lock guards it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ir_pref_measures.judging import gold as gold_pairs
from ir_pref_measures.judging.gold import GoldPair
from ir_pref_measures.judging.protocol import Answer, Pair
from ir_pref_measures.judging.selectors.base import stable_hash


@dataclass
class GoldAssignment:
    """A gold assignment as the queue holds it: the docs in the order shown, its state and answer."""

    id: int
    gold_id: int
    assessor: str
    first: str
    second: str
    shown_at: float
    state: str  # open, answered, skipped
    answered_at: float | None = None
    correct: bool = False
    latency: float = 0.0


class GoldQueue:
    """The gold pairs ``pairs`` (``{id: GoldPair}``, as stored) of a desk on ``database``, a share ``share`` of each
    assessor's assignments (:func:`~ir_pref_measures.judging.gold.due`)."""

    def __init__(self, database, pairs: Mapping[int, GoldPair], share: float, seed: int) -> None:
        self._db, self.pairs, self.share, self.seed = database, dict(pairs), share, seed
        self._assignments: dict[int, GoldAssignment] = {}
        self._given: dict[str, int] = {}  # assessor -> gold assignments made
        self._seen: dict[str, set[int]] = {}  # assessor -> gold ids shown
        self._open: dict[str, GoldAssignment] = {}
        self._finished: dict[str, list[GoldAssignment]] = {}  # in the order answered

    def load(self, row: tuple) -> None:
        """A gold row of ``assignments`` (negative ``request_id``) read from the store."""
        id_, request_id, assessor, _, first, second, shown_at, _, state, answered_at = row
        self._add(GoldAssignment(id_, -request_id, assessor, first, second, shown_at, state, answered_at))

    def load_answers(self) -> None:
        """Read the stored gold answers onto the assignments they answer."""
        if not self._db.columns("gold_answers"):
            return
        for assignment, correct, latency in self._db.execute(
            "SELECT assignment, correct, latency FROM gold_answers ORDER BY answered_at, assignment"
        ).fetchall():
            found = self._assignments.get(assignment)
            if found is not None:
                found.correct, found.latency = bool(correct), latency

    def _add(self, a: GoldAssignment) -> None:
        self._assignments[a.id] = a
        self._given[a.assessor] = self._given.get(a.assessor, 0) + 1
        self._seen.setdefault(a.assessor, set()).add(a.gold_id)
        if a.state == "open":
            self._open[a.assessor] = a
        else:
            finished = self._finished.setdefault(a.assessor, [])
            finished.append(a)
            finished.sort(key=lambda f: (f.answered_at or 0.0, f.id))

    def holds(self, assignment: int) -> bool:
        """Whether ``assignment`` is a gold one."""
        return assignment in self._assignments

    def owner(self, assignment: int) -> str | None:
        found = self._assignments.get(assignment)
        return None if found is None else found.assessor

    def open_of(self, assessor: str) -> GoldAssignment | None:
        return self._open.get(assessor)

    def gold(self, assessor: str) -> int:
        """How many gold assignments ``assessor`` has had."""
        return self._given.get(assessor, 0)

    def due(self, assessor: str, regular: int) -> bool:
        """Whether ``assessor``'s next assignment is gold, after ``regular`` assignments of the effort."""
        if self.share <= 0 or len(self._seen.get(assessor, ())) >= len(self.pairs):
            return False
        gold, given = self.gold(assessor), regular + self.gold(assessor)
        return gold_pairs.due(self.share, given, gold, gold_pairs.draw(self.seed, stable_hash(assessor), given))

    def assign(self, assessor: str) -> GoldAssignment | None:
        """A new gold assignment for ``assessor`` (a gold pair they have not seen), stored; ``None`` when none is
        left."""
        unseen = sorted(set(self.pairs) - self._seen.get(assessor, set()))
        if not unseen:
            return None
        rng = np.random.default_rng([self.seed, stable_hash(assessor), self.gold(assessor), 0x901D])
        gold_id = unseen[int(rng.integers(len(unseen)))]
        pair = self.pairs[gold_id].pair
        first, second = (pair.second, pair.first) if rng.random() < 0.5 else (pair.first, pair.second)
        now = time.time()
        row = self._db.execute(
            "INSERT INTO assignments (request_id, assessor, query_id, first, second, shown_at, attempt, state) "
            "VALUES (?, ?, ?, ?, ?, ?, 0, 'open') ON CONFLICT (request_id, assessor) DO NOTHING RETURNING id",
            (-gold_id, assessor, pair.query_id, first, second, now),
        ).fetchall()
        if not row:  # written by another server on the same store
            return None
        a = GoldAssignment(row[0][0], gold_id, assessor, first, second, now, "open")
        self._add(a)
        return a

    def answer(self, assignment: int, answer: str | None) -> None:
        """Store the answer (an outcome as stored: ``first``, ``tie``, ...; the docs as shown; ``None``: skipped,
        no answer) to an open gold assignment; one answered before is left as it is."""
        a = self._assignments[assignment]
        if a.state != "open":
            return
        gold = self.pairs[a.gold_id]
        now = time.time()
        state = "skipped" if answer is None else "answered"
        with self._db.transaction():
            if answer is not None:
                given = Answer(Pair(gold.pair.query_id, a.first, a.second), answer, "people", assessor=a.assessor)
                a.correct, a.latency = gold_pairs.correct(given, gold), now - a.shown_at
                self._db.execute(
                    "INSERT INTO gold_answers (assignment, gold_id, assessor, answer, correct, latency, answered_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (assignment) DO NOTHING",
                    (a.id, a.gold_id, a.assessor, answer, int(a.correct), a.latency, now),
                )
            self._db.execute("UPDATE assignments SET state = ?, answered_at = ? WHERE id = ?", (state, now, a.id))
        a.state, a.answered_at = state, now
        del self._open[a.assessor]
        self._finished.setdefault(a.assessor, []).append(a)

    def last_answered(self, assessor: str) -> float | None:
        """When ``assessor`` last answered a gold pair (``None``: never)."""
        finished = self._finished.get(assessor)
        return finished[-1].answered_at if finished else None

    def undo(self, assessor: str) -> None:
        """Withdraw ``assessor``'s last gold answer or skip: the pair is open again (the answer row deleted: a gold
        answer is no judgment of the effort)."""
        a = self._finished[assessor].pop()
        now = time.time()
        with self._db.transaction():
            self._db.execute("DELETE FROM gold_answers WHERE assignment = ?", (a.id,))
            self._db.execute(
                "UPDATE assignments SET state = 'open', shown_at = ?, answered_at = NULL WHERE id = ?", (now, a.id)
            )
        a.state, a.answered_at, a.shown_at, a.correct = "open", None, now, False
        self._open[assessor] = a

    def answered(self, assessor: str) -> int:
        """How many gold pairs ``assessor`` answered (skips not counted)."""
        return sum(a.state == "answered" for a in self._finished.get(assessor, ()))

    def scores(self) -> dict[str, tuple[int, int, list[float]]]:
        """``{assessor: (right, answered, latencies)}`` on gold."""
        out = {}
        for who, finished in self._finished.items():
            done = [a for a in finished if a.state == "answered"]
            if done:
                out[who] = (sum(a.correct for a in done), len(done), [a.latency for a in done])
        return out
