"""The assessors' desk: who is shown which pair, on which side, and what they answered, kept in the store.

Each assessor has a queue fed live by a pair selector (:mod:`ir_pref_measures.judging.selectors`): a query's
questions come round by round (``selector.next_round``), the next round asked as soon as every question of the
current one has its answers. A question goes to one assessor, or to two when it falls in the ``overlap`` share
(chosen by a stable hash of the effort's seed and the question, so the same questions are shared after a
restart), so that agreement can be measured as the work goes; with ``max_assessors`` above two, a question whose
answers have no majority outcome (two assessors who disagree) goes to one more assessor, up to ``max_assessors``
(dynamic overlap), and its round waits for that answer. Each assignment is a row of the store's database
(``assignments``, through the store's connection: a SQLite file or a PostgreSQL server): the question, the
assessor, the two docs *in the order shown* (left first; the side drawn by ``numpy.random.default_rng`` seeded by
the seed, the assessor and the question), when it was shown and its state.

The database is the record: every change is written there before the desk acts on it, so a restarted server, a
second tab or a double click find the same open assignment, and an answer is stored once (the store's answers are
unique per question, assessor and attempt). To answer without scanning the store on every request, the desk
keeps the effort's requests, assignments and people's answers in memory as well, read from the store once when
it opens and changed with every write after that; so one server serves a store at a time. Every method is safe to
call from several threads: one lock serialises the changes (the web app calls the desk from a thread pool, never
on its event loop). Undo withdraws the assessor's last answer (the row is kept, marked withdrawn) and shows its
pair again.

When people's queries were drawn for prediction-powered inference (``ppi --choose``,
:func:`~ir_pref_measures.judging.ppi.choose_for_people`: the draw kept in the store's settings), the desk offers
only the drawn queries' pairs: a question of another query is neither shown nor asked, so people's work goes where
the interval uses it. The draw is read when the desk opens and again, at most every :data:`DRAW_CHECK` seconds, as
assessors and the admin ask for pages: a draw made while the desk runs takes effect without a restart (the desk's
state read from the store again; a pair of another query shown and not yet answered is no longer offered).
"""

from __future__ import annotations

import bisect
import statistics
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import gold as gold_rules
from ir_pref_measures.judging.gold import GoldPair
from ir_pref_measures.judging.ppi import drawn_queries
from ir_pref_measures.judging.protocol import Answer, Pair
from ir_pref_measures.judging.rules import SIDES, combine_answers, vote
from ir_pref_measures.judging.selectors.base import Selector, stable_hash
from ir_pref_measures.judging.store import Request, Store, StoredAnswer
from ir_pref_measures.judging.texts import QueryText, Texts
from ir_pref_measures.judging.web import agreement
from ir_pref_measures.judging.web.gold_queue import GoldQueue
from ir_pref_measures.judging.web.security import Keyring, new_token
from ir_pref_measures.judging.web.study import Study, participant

JUDGE = "people"
DRAW_CHECK = 1.0  # seconds between two reads of the draw of people's queries (module docstring)
ANSWER_KEYS = ("left", "right", "tie", "bad-left", "bad-right", "skip")
_STORED = {"left": "first", "right": "second", "tie": "tie", "bad-left": "bad-first", "bad-right": "bad-second"}
SCHEMA = (
    """CREATE TABLE IF NOT EXISTS assignments (
        id INTEGER PRIMARY KEY, request_id INTEGER NOT NULL, assessor TEXT NOT NULL, query_id TEXT NOT NULL,
        first TEXT NOT NULL, second TEXT NOT NULL, shown_at REAL NOT NULL, attempt INTEGER NOT NULL,
        state TEXT NOT NULL, answered_at REAL, UNIQUE (request_id, assessor))""",
    "CREATE INDEX IF NOT EXISTS assignments_assessor ON assignments (assessor, state)",
)
ASSIGNMENT_FIELDS = "id, request_id, assessor, query_id, first, second, shown_at, attempt, state, answered_at"


@dataclass(frozen=True)
class Shown:
    """An open assignment as the page shows it: ``left`` and ``right`` doc ids."""

    assignment: int
    query_id: str
    left: str
    right: str


@dataclass
class _Assignment:
    """An assignment row as the desk holds it in memory."""

    id: int
    request_id: int
    assessor: str
    query_id: str
    first: str
    second: str
    shown_at: float
    attempt: int
    state: str  # open, answered, skipped
    answered_at: float | None

    def shown(self) -> Shown:
        return Shown(self.id, self.query_id, self.first, self.second)


@dataclass(frozen=True)
class View:
    """What an assessor's page shows: the open pair (``None``: nothing left), the progress, whether undo can act."""

    pair: Shown | None
    done: int
    total: int
    can_undo: bool


@dataclass
class Desk:
    """Assessors (``{name: token}``), an admin token, the CSRF ``secret``, the store, the selector and the texts of
    one effort; ``overlap`` is the share of questions answered by two assessors, ``max_assessors`` the most a
    question they disagree on goes to; ``gold`` pairs are a share ``gold_share`` of each assessor's assignments."""

    store: Store
    selector: Selector
    assessors: Mapping[str, str]
    admin_token: str
    secret: bytes
    texts: Texts
    seed: int = 0
    overlap: float = 0.0
    rule: str = "majority"
    name: str = "judging effort"
    gold: Sequence[GoldPair] = ()
    gold_share: float = 0.0
    max_assessors: int = 2
    study: Study | None = None
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.overlap <= 1.0:
            raise InputError(f"overlap must be a share between 0 and 1, not {self.overlap!r}")
        if not 0.0 <= self.gold_share < 1.0:
            raise InputError(f"the gold share must be at least 0 and below 1, not {self.gold_share!r}")
        if self.max_assessors < 2:
            raise InputError(f"max_assessors must be at least 2, not {self.max_assessors!r}")
        if self.gold_share > 0 and not self.gold:
            raise InputError("a gold share needs gold pairs")
        if len(set(self.assessors.values())) != len(self.assessors) or self.admin_token in self.assessors.values():
            raise InputError("every assessor and the admin need tokens of their own")
        self.keyring = Keyring(self.assessors, self.admin_token)
        self._db = self.store.database
        self._db.create(SCHEMA)
        self._gold = GoldQueue(self._db, gold_rules.store_gold(self._db, self.gold), self.gold_share, self.seed)
        self._texts_lock = threading.Lock()
        self._reader: Store | None = None  # a connection of its own for the admin's exports
        self._reader_lock = threading.Lock()
        with self._lock:
            self._load()

    def _load(self) -> None:
        """Read the requests, the assignments and the people's answers from the store."""
        self._requests: dict[int, Request] = {}
        self._rounds: dict[str, dict[int, list[Request]]] = {}  # query -> round -> its requests in order asked
        self._current_ids: list[int] | None = None  # each query's latest round (None: to be listed again)
        self._wanted_of: dict[int, int] = {}  # request -> the assessors it wants
        self._base_of: dict[int, int] = {}  # request -> the assessors it wants before any disagreement
        self._active: dict[int, int] = {}  # request -> the assessors holding it who did not skip it
        self._skipped: dict[int, int] = {}  # request -> the assessors who skipped it
        self._verdicts: dict[str, dict[int, list]] = {}  # query -> round -> its verdicts (dropped on a change)
        self._assignments: dict[int, _Assignment] = {}
        self._held: dict[int, dict[str, _Assignment]] = {}  # request -> assessor -> assignment
        self._open: dict[str, _Assignment] = {}  # assessor -> their open assignment
        self._finished: dict[str, list[tuple[float, int]]] = {}  # assessor -> (answered_at, id), answered or skipped
        self._answers: dict[int, list[StoredAnswer]] = {}  # request -> the people's live answers, in order stored
        self._exhausted: set[str] = set()  # queries the selector has nothing more for, given their answers now
        self.drawn = drawn_queries(self.store.settings())  # the queries offered (None: every query)
        self._draw_read = time.monotonic()
        for request in self.store.requests():
            self._add_request(request)
        for row in self._db.execute(f"SELECT {ASSIGNMENT_FIELDS} FROM assignments ORDER BY id").fetchall():
            if row[1] < 0:  # a gold pair's
                self._gold.load(row)
            elif row[8] != "open" or self._offered(row[3]):  # an open pair of a query not drawn is not offered
                self._add_assignment(_Assignment(*row))
        self._gold.load_answers()
        for stored in self.store.answers():
            if stored.answer.judge == JUDGE:
                self._answers.setdefault(stored.request_id, []).append(stored)
        for request_id in self._answers:
            self._rewant(request_id)

    def _follow_draw(self) -> None:
        """Read the draw of people's queries again when :data:`DRAW_CHECK` seconds have passed since it was last
        read; a changed draw reads the desk's state from the store again (call it holding the lock)."""
        now = time.monotonic()
        if now - self._draw_read < DRAW_CHECK:
            return
        self._draw_read = now
        if drawn_queries(self.store.settings()) != self.drawn:
            self._load()

    def _offered(self, query_id: str) -> bool:
        """Whether people are offered the query's pairs: every query, or the drawn ones (module docstring)."""
        return self.drawn is None or query_id in self.drawn

    def _add_request(self, request: Request) -> None:
        if request.id in self._requests or not self._offered(request.pair.query_id):
            return
        self._requests[request.id] = request
        self._rounds.setdefault(request.pair.query_id, {}).setdefault(request.round, []).append(request)
        self._base_of[request.id] = self._wanted_of[request.id] = self._wanted(request)
        self._current_ids = None

    def _add_assignment(self, a: _Assignment) -> None:
        self._assignments[a.id] = a
        self._held.setdefault(a.request_id, {})[a.assessor] = a
        self._count(a, +1)
        if a.state == "open":
            if a.assessor not in self._open or a.id < self._open[a.assessor].id:
                self._open[a.assessor] = a
        else:
            bisect.insort(self._finished.setdefault(a.assessor, []), (a.answered_at or 0.0, a.id))

    def _count(self, a: _Assignment, change: int) -> None:
        """Count ``a`` (+1) in its request's active or skipped assessors, or no longer (-1)."""
        counts = self._skipped if a.state == "skipped" else self._active
        counts[a.request_id] = counts.get(a.request_id, 0) + change

    def _rewant(self, request_id: int) -> None:
        """Dynamic overlap: a question whose answers have no outcome given by more than half of them (two
        assessors who disagree) wants one assessor more than it has answers, up to ``max_assessors`` (and the
        assessors there are); else the assessors it wanted from the start."""
        request = self._requests.get(request_id)
        if request is None:
            return
        outcomes = [vote(s.answer, request.pair) for s in self._answers.get(request_id, ())]
        counts: dict[str, int] = {}
        for outcome in outcomes:
            if outcome is not None:
                key = SIDES[outcome]
                counts[key] = counts.get(key, 0) + 1
        split = len(outcomes) >= 2 and 2 * max(counts.values(), default=0) <= len(outcomes)
        wanted = self._base_of[request_id]
        if split:
            wanted = max(wanted, min(len(outcomes) + 1, self.max_assessors, len(self.assessors)))
        self._wanted_of[request_id] = wanted

    def _changed(self, request_id: int) -> None:
        """An answer to ``request_id`` was given or withdrawn: its round's verdicts are computed again."""
        request = self._requests.get(request_id)
        if request is not None:
            self._rewant(request_id)
            self._verdicts.get(request.pair.query_id, {}).pop(request.round, None)
            self._exhausted.discard(request.pair.query_id)

    # -- access ----------------------------------------------------------------------------------------------------

    def assessor_of(self, token: str) -> str | None:
        """The assessor holding ``token``, or ``None`` (:class:`~ir_pref_measures.judging.web.security.Keyring`)."""
        return self.keyring.assessor(token)

    def admit(self, participant_id: str) -> str:
        """The token of the participant ``participant_id`` of the open study link (:mod:`.study`), made and kept in
        the store's settings on their first visit, the same on every later one; an :class:`InputError` for an id
        that is no participant id or when the study link is not enabled."""
        if self.study is None:
            raise InputError("the open study link is not enabled")
        name = participant(participant_id)
        with self._lock:
            token = self.assessors.get(name)
            if token is None:
                key = f"web.assessor.{name}"
                if key not in self.store.settings():
                    self.store.settle({key: new_token()})
                token = self.store.settings()[key]
                self.assessors = {**self.assessors, name: token}
                self.keyring = Keyring(self.assessors, self.admin_token)
            return token

    def judged(self, assessor: str) -> int:
        """The answers ``assessor`` has given (skips not counted), gold pairs included."""
        with self._lock:
            answered = sum(self._assignments[i].state == "answered" for _, i in self._finished.get(assessor, ()))
            return answered + self._gold.answered(assessor)

    def is_admin(self, token: str) -> bool:
        """Whether ``token`` is the admin's."""
        return self.keyring.is_admin(token)

    def owns(self, assessor: str, assignment: int) -> bool:
        """Whether ``assignment`` is ``assessor``'s."""
        with self._lock:
            found = self._assignments.get(assignment)
            return assessor in (None if found is None else found.assessor, self._gold.owner(assignment))

    def query_text(self, query_id: str) -> QueryText:
        """The query's text (a placeholder naming it where the source has none)."""
        with self._texts_lock:
            return self.texts.query(query_id) or QueryText(title=f"(query {query_id}: no text)")

    def doc_text(self, doc_id: str) -> str:
        """The document's text (a placeholder naming it where the source has none)."""
        with self._texts_lock:
            text = self.texts.document(doc_id)
        return f"(document {doc_id}: no text)" if text is None else text

    # -- the queue -------------------------------------------------------------------------------------------------

    def view(self, assessor: str) -> View:
        """The assessor's page at once: :meth:`next_pair`, :meth:`progress` and :meth:`can_undo`."""
        with self._lock:
            self._follow_draw()
            pair = self._next(assessor)
            done, total = self._progress(assessor)
            return View(pair, done, total, self._can_undo(assessor))

    def next_pair(self, assessor: str) -> Shown | None:
        """The assessor's open assignment, or a new one from the questions that still need answers (asking the
        selector's next round of a query whose round is complete); ``None`` when nothing is left for them."""
        with self._lock:
            self._follow_draw()
            return self._next(assessor)

    def _next(self, assessor: str) -> Shown | None:
        open_ = self._open.get(assessor) or self._gold.open_of(assessor)
        if open_ is not None:
            return Shown(open_.id, self._query_of(open_), open_.first, open_.second)
        for attempt in range(2):
            request = self._candidate(assessor)
            if request is not None:
                regular = len(self._finished.get(assessor, ()))
                gold = self._gold.assign(assessor) if self._gold.due(assessor, regular) else None
                if gold is not None:
                    return Shown(gold.id, self._query_of(gold), gold.first, gold.second)
                return self._assign(assessor, request)
            if attempt == 0 and not self._advance():
                return None
        return None

    def _query_of(self, a) -> str:
        """The query of an assignment of the effort or of a gold pair."""
        return a.query_id if isinstance(a, _Assignment) else self._gold.pairs[a.gold_id].pair.query_id

    def _wanted(self, request: Request) -> int:
        """How many assessors answer ``request``: two for the overlap share (when there are two), else one."""
        key = f"{self.seed}:{request.pair.query_id}:{min(request.pair.first, request.pair.second)}:"
        key += max(request.pair.first, request.pair.second)
        shared = (stable_hash(key) % 1_000_000) < self.overlap * 1_000_000
        return 2 if shared and len(self.assessors) > 1 else 1

    def _current(self) -> list[int]:
        """The requests (ids) of each query's latest round, by query and in the order asked."""
        if self._current_ids is None:
            self._current_ids = [r.id for q in sorted(self._rounds) for r in self._rounds[q][max(self._rounds[q])]]
        return self._current_ids

    def _candidate(self, assessor: str) -> Request | None:
        """The first of the current questions that the assessor has not held and that has the fewest assessors
        among those that want more."""
        active, wanted, held = self._active, self._wanted_of, self._held
        best, fewest = None, 0
        for request_id in self._current():
            n = active.get(request_id, 0)
            if n >= wanted[request_id] or assessor in held.get(request_id, ()):
                continue
            if best is None or n < fewest:
                best, fewest = request_id, n
                if n == 0:
                    break
        return None if best is None else self._requests[best]

    def _assign(self, assessor: str, request: Request) -> Shown | None:
        rng = np.random.default_rng([self.seed, stable_hash(assessor), request.id])
        first, second = request.pair.first, request.pair.second
        if rng.random() < 0.5:
            first, second = second, first
        now = time.time()
        added = self._db.execute(
            "INSERT INTO assignments (request_id, assessor, query_id, first, second, shown_at, attempt, state) "
            "VALUES (?, ?, ?, ?, ?, ?, 0, 'open') ON CONFLICT (request_id, assessor) DO NOTHING RETURNING id",
            (request.id, assessor, request.pair.query_id, first, second, now),
        ).fetchall()
        if added:
            self._add_assignment(_Assignment(added[0][0], request.id, assessor, request.pair.query_id, first, second,
                                             now, 0, "open", None))  # fmt: skip
        else:  # written by another server on the same store: read it
            row = self._db.execute(
                f"SELECT {ASSIGNMENT_FIELDS} FROM assignments WHERE request_id = ? AND assessor = ?",
                (request.id, assessor),
            ).fetchone()
            self._add_assignment(_Assignment(*row))
        open_ = self._open.get(assessor)
        return None if open_ is None else open_.shown()

    def _people(self, request_id: int) -> list[Answer]:
        return [s.answer for s in self._answers.get(request_id, ())]

    def _advance(self) -> bool:
        """Ask the next round of every query whose current round has all its answers; whether any was asked."""
        if not self._requests:
            asked = False
            for query_id in sorted(q for q in self.selector.pools if self._offered(q)):
                pairs = self.selector.next_round(query_id, [])
                if pairs:
                    self._ask(pairs, 0)
                    asked = True
            return asked
        asked = False
        for query_id in sorted(self._rounds):
            asked |= self._advance_query(query_id)
        return asked

    def _advance_query(self, query_id: str) -> bool:
        """Ask the query's next round if its current one has all its answers; whether any was asked. The verdicts
        of each round are kept until an answer of the round changes, so the selector is handed the same history
        objects, extended (the rating selector's fit then starts from its last one)."""
        if query_id in self._exhausted or query_id not in self._rounds:  # not offered (an answer given before a draw)
            return False
        rounds = self._rounds[query_id]
        last = max(rounds)
        if not all(self._settled(r) for r in rounds[last]):
            return False
        kept = self._verdicts.setdefault(query_id, {})
        for k in range(last + 1):
            if k not in kept:
                kept[k] = [combine_answers(r.pair, self._people(r.id), self.rule, k) for r in rounds.get(k, ())]
        pairs = self.selector.next_round(query_id, [kept[k] for k in range(last + 1)])
        if not pairs:
            self._exhausted.add(query_id)
            return False
        self._ask(pairs, last + 1)
        return True

    def _ask(self, pairs: Sequence[Pair], round: int) -> None:
        for request in self.store.ask(pairs, round, JUDGE, asked_by="web"):
            self._add_request(request)

    def _settled(self, request: Request) -> bool:
        """A question is settled when it has its wanted answers, or every assessor answered or skipped it."""
        answers = len(self._answers.get(request.id, ()))
        return answers >= self._wanted_of[request.id] or answers + self._skipped.get(request.id, 0) >= len(
            self.assessors
        )

    # -- answering -------------------------------------------------------------------------------------------------

    def answer(self, assessor: str, assignment: int, key: str) -> None:
        """Store ``assessor``'s answer ``key`` (one of :data:`ANSWER_KEYS`) to their open ``assignment``; an
        assignment answered before (a double click, a second tab) is left as it is."""
        if key not in ANSWER_KEYS:
            raise InputError(f"unknown answer {key!r}", expected=f"one of {', '.join(ANSWER_KEYS)}")
        with self._lock:
            if self._gold.owner(assignment) == assessor:
                self._gold.answer(assignment, _STORED.get(key))
                return
            a = self._assignments.get(assignment)
            if a is None or a.assessor != assessor or a.state != "open":
                return
            now = time.time()
            state = "skipped" if key == "skip" else "answered"
            if key != "skip":
                given = Answer(
                    Pair(a.query_id, a.first, a.second),
                    _STORED[key],
                    JUDGE,
                    sample=a.attempt,
                    latency=now - a.shown_at,
                    assessor=assessor,
                )
                self.store.record([(a.request_id, given)])
                held = self._answers.setdefault(a.request_id, [])
                if not any(s.answer.assessor == assessor and s.answer.sample == a.attempt for s in held):
                    held.append(StoredAnswer(a.request_id, given, now))  # else stored before a restart: kept
            self._db.execute(
                "UPDATE assignments SET state = ?, answered_at = ? WHERE id = ? AND state = 'open'",
                (state, now, assignment),
            )
            self._count(a, -1)
            a.state, a.answered_at = state, now
            self._count(a, +1)
            if self._open.get(assessor) is a:
                del self._open[assessor]
            bisect.insort(self._finished.setdefault(assessor, []), (now, a.id))
            self._changed(a.request_id)
            # the query's next round as soon as this one is complete: one query at a time, not all at once
            self._advance_query(a.query_id)

    def can_undo(self, assessor: str) -> bool:
        """Whether ``assessor`` has an answer to withdraw."""
        with self._lock:
            return self._can_undo(assessor)

    def _can_undo(self, assessor: str) -> bool:
        return bool(self._finished.get(assessor)) or self._gold.last_answered(assessor) is not None

    def undo(self, assessor: str) -> None:
        """Withdraw ``assessor``'s last answer (or skip): its pair is shown again, before any other."""
        with self._lock:
            finished = self._finished.get(assessor)
            gold_at = self._gold.last_answered(assessor)
            if gold_at is not None and (not finished or finished[-1][0] <= gold_at):
                self._gold.undo(assessor)
                return
            if not finished:
                return
            a = self._assignments[finished[-1][1]]
            if a.state == "answered":
                self.store.withdraw(a.request_id, JUDGE, assessor, a.attempt)
            self._db.execute(
                "DELETE FROM assignments WHERE assessor = ? AND state = 'open' AND request_id >= 0", (assessor,)
            )
            now = time.time()
            self._db.execute(
                "UPDATE assignments SET state = 'open', attempt = ?, shown_at = ?, answered_at = NULL WHERE id = ?",
                (a.attempt + 1, now, a.id),
            )
            if a.state == "answered":
                kept = [
                    s
                    for s in self._answers.get(a.request_id, ())
                    if not (s.answer.assessor == assessor and s.answer.sample == a.attempt)
                ]
                self._answers[a.request_id] = kept
            dropped = self._open.pop(assessor, None)
            if dropped is not None:
                del self._assignments[dropped.id]
                del self._held[dropped.request_id][assessor]
                self._count(dropped, -1)
            finished.pop()
            self._count(a, -1)
            a.state, a.attempt, a.shown_at, a.answered_at = "open", a.attempt + 1, now, None
            self._count(a, +1)
            self._open[assessor] = a
            self._changed(a.request_id)

    # -- progress and the admin's report ---------------------------------------------------------------------------

    def progress(self, assessor: str) -> tuple[int, int]:
        """``(done, total)`` for ``assessor``: the answers they gave and, added to them, the questions open or
        waiting for them now (a selector that asks round by round adds more as the work goes)."""
        with self._lock:
            return self._progress(assessor)

    def _progress(self, assessor: str) -> tuple[int, int]:
        done = len(self._finished.get(assessor, ()))
        active, wanted, held = self._active, self._wanted_of, self._held
        waiting = 0
        for request_id in self._current():
            mine = held.get(request_id, {}).get(assessor)
            if mine is not None:
                waiting += mine.state == "open"
            else:
                waiting += active.get(request_id, 0) < wanted[request_id]
        return done, done + waiting

    def report(self) -> dict:
        """The admin page's figures: progress per query and assessor; per assessor their accuracy on gold, their
        agreement with the others on shared questions, the median time per judgment and the flag
        (:func:`~ir_pref_measures.judging.gold.flagged`); agreement on shared questions (Cohen's kappa of every two
        assessors; Fleiss' kappa and Krippendorff's alpha of all: :mod:`~ir_pref_measures.judging.web.agreement`;
        first / tie / second, a bad mark counted as a preference), position bias (the share of decided answers
        that chose the left doc), the median time per judgment, and the queries drawn for people (``drawn``, sorted;
        ``None``: every query is offered)."""
        with self._lock:  # a copy of the desk's state, the figures computed outside the lock
            self._follow_draw()
            drawn = None if self.drawn is None else sorted(self.drawn)
            requests = dict(sorted(self._requests.items()))
            answers = [s for request_id in sorted(self._answers) for s in self._answers[request_id]]
            gold = self._gold.scores()
        answered = {s.request_id for s in answers}
        queries: dict[str, list[int]] = {}
        for r in requests.values():
            counts = queries.setdefault(r.pair.query_id, [0, 0])
            counts[0] += 1
            counts[1] += r.id in answered
        query_rows = [
            dict(query_id=q, asked=a, answered=n, percent=int(100 * n / a) if a else 0)
            for q, (a, n) in sorted(queries.items())
        ]
        by_assessor: dict[str, list] = {name: [] for name in self.assessors}
        for s in answers:
            by_assessor.setdefault(s.answer.assessor, []).append(s.answer)
        labels = _labels(requests, answers)
        others = agreement.with_others(labels)
        assessor_rows = []
        for name, given in sorted(by_assessor.items()):
            right, n, _ = gold.get(name, (0, 0, []))
            agree, compared = others.get(name, (0, 0))
            assessor_rows.append(
                dict(
                    name=name,
                    answers=len(given),
                    gold_right=right,
                    gold_answered=n,
                    gold_accuracy=f"{right / n:.2f}" if n else "-",
                    agreement=f"{agree / compared:.2f}" if compared else "-",
                    median_seconds=_median([a.latency for a in given]),
                    left_share=_left_share(given),
                    flagged=gold_rules.flagged(right, n),
                    link=f"/a/{self.assessors.get(name, '?')}",
                )
            )
        all_given = [s.answer for s in answers]
        totals = dict(
            answers=len(all_given),
            assessors=sum(1 for given in by_assessor.values() if given),
            median_seconds=_median([a.latency for a in all_given]),
            left_share=_left_share(all_given),
        )
        return dict(
            queries=query_rows,
            assessors=assessor_rows,
            totals=totals,
            agreement=agreement.pairwise(labels),
            agreement_columns=["assessor", "assessor", "shared", "agree", "kappa"],
            reliability=agreement.reliability(labels),
            drawn=drawn,
        )

    def formats(self) -> list[str]:
        """The export formats (:func:`ir_pref_measures.judging.store.export`) but ``soft``: people give no
        probabilities."""
        from ir_pref_measures.judging.exports import FORMATS

        return [name for name in FORMATS if name != "soft"]

    def export(self, format: str, exclude_flagged: bool = False) -> str:
        """The people's judgments in ``format`` (one of :meth:`formats`); with ``exclude_flagged``, without the
        answers of the assessors flagged on gold pairs."""
        from ir_pref_measures.judging.exports import export_lines

        with self._reader_lock:  # read on a connection of its own: the assessors are not kept waiting
            if self._reader is None:
                self._reader = Store(self._db.location)
            excluded = gold_rules.flagged_assessors(self._reader.database) if exclude_flagged else frozenset()
            return "".join(export_lines(self._reader, format, rule=self.rule, excluded=excluded))


def _labels(requests: Mapping[int, Request], answers: Sequence[StoredAnswer]) -> agreement.Labels:
    """Each assessor's label per question (:mod:`~ir_pref_measures.judging.web.agreement`): ``1`` prefers the
    doc of the smaller id, ``0`` a tie, ``-1`` the other; an unusable answer has none."""
    labels: dict[str, dict[int, int]] = {}
    for s in answers:
        pair = requests[s.request_id].pair
        outcome = vote(s.answer, pair)
        if outcome is not None:
            label = {"first": 1, "bad-second": 1, "tie": 0}.get(outcome, -1)
            labels.setdefault(s.answer.assessor, {})[s.request_id] = label if pair.first < pair.second else -label
    return labels


def _median(values: Sequence[float]) -> str:
    return f"{statistics.median(values):.1f}" if values else "-"


def _left_share(answers: Sequence[Answer]) -> str:
    decided = [a.answer for a in answers if a.answer in ("first", "second", "bad-first", "bad-second")]
    left = sum(a in ("first", "bad-second") for a in decided)
    return f"{left / len(decided):.2f}" if decided else "-"
