"""The assessors' desk: who is shown which pair, on which side, and what they answered, kept in the store.

Each assessor has a queue fed live by a pair selector (:mod:`ir_pref_measures.judging.selectors`): a query's
questions come round by round (``selector.next_round``), the next round asked as soon as every question of the
current one has its answers. A question goes to one assessor, or to two when it falls in the ``overlap`` share
(chosen by a stable hash of the effort's seed and the question, so the same questions are shared after a
restart), so that agreement can be measured as the work goes. Each assignment is a row of the store's database
(``assignments``, through the store's connection: a SQLite file or a PostgreSQL server): the question, the
assessor, the two docs *in the order shown* (left first; the side drawn by ``numpy.random.default_rng`` seeded by
the seed, the assessor and the question), when it was shown and its state.

The desk keeps no state outside the database: a restarted server, a second tab or a double click find the same
open assignment, and an answer is stored once (the store's answers are unique per question, assessor and
attempt). Undo withdraws the assessor's last answer (the row is kept, marked withdrawn) and shows its pair again.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.judges.coefficients import cohen_kappa, contingency
from ir_pref_measures.judging.combine import combine, vote
from ir_pref_measures.judging.protocol import Answer, Pair
from ir_pref_measures.judging.selectors.base import Selector, stable_hash
from ir_pref_measures.judging.store import Store
from ir_pref_measures.judging.texts import QueryText, Texts

JUDGE = "people"
ANSWER_KEYS = ("left", "right", "tie", "bad-left", "bad-right", "skip")
_STORED = {"left": "first", "right": "second", "tie": "tie", "bad-left": "bad-first", "bad-right": "bad-second"}
SCHEMA = (
    """CREATE TABLE IF NOT EXISTS assignments (
        id INTEGER PRIMARY KEY, request_id INTEGER NOT NULL, assessor TEXT NOT NULL, query_id TEXT NOT NULL,
        first TEXT NOT NULL, second TEXT NOT NULL, shown_at REAL NOT NULL, attempt INTEGER NOT NULL,
        state TEXT NOT NULL, answered_at REAL, UNIQUE (request_id, assessor))""",
    "CREATE INDEX IF NOT EXISTS assignments_assessor ON assignments (assessor, state)",
)


@dataclass(frozen=True)
class Shown:
    """An open assignment as the page shows it: ``left`` and ``right`` doc ids."""

    assignment: int
    query_id: str
    left: str
    right: str


@dataclass
class Desk:
    """Assessors (``{name: token}``), an admin token, the CSRF ``secret``, the store, the selector and the texts of
    one effort; ``overlap`` is the share of questions answered by two assessors."""

    store: Store
    selector: Selector
    assessors: Mapping[str, str]
    admin_token: str
    secret: bytes
    texts: Texts
    seed: int = 0
    overlap: float = 0.0
    rule: str = "majority"
    name: str = "judging"
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.overlap <= 1.0:
            raise InputError(f"overlap must be a share between 0 and 1, not {self.overlap!r}")
        if len(set(self.assessors.values())) != len(self.assessors) or self.admin_token in self.assessors.values():
            raise InputError("every assessor and the admin need tokens of their own")
        self._tokens = {token: name for name, token in self.assessors.items()}
        self._db = self.store.database
        self._db.create(SCHEMA)

    # -- access ----------------------------------------------------------------------------------------------------

    def assessor_of(self, token: str) -> str | None:
        """The assessor holding ``token``, or ``None``."""
        return self._tokens.get(token)

    def is_admin(self, token: str) -> bool:
        """Whether ``token`` is the admin's."""
        import hmac

        return hmac.compare_digest(token.encode(), self.admin_token.encode())

    def owns(self, assessor: str, assignment: int) -> bool:
        """Whether ``assignment`` is ``assessor``'s."""
        row = self._db.execute("SELECT assessor FROM assignments WHERE id = ?", (assignment,)).fetchone()
        return row is not None and row[0] == assessor

    def query_text(self, query_id: str) -> QueryText:
        """The query's text (a placeholder naming it where the source has none)."""
        return self.texts.query(query_id) or QueryText(title=f"(query {query_id}: no text)")

    def doc_text(self, doc_id: str) -> str:
        """The document's text (a placeholder naming it where the source has none)."""
        text = self.texts.document(doc_id)
        return f"(document {doc_id}: no text)" if text is None else text

    # -- the queue -------------------------------------------------------------------------------------------------

    def next_pair(self, assessor: str) -> Shown | None:
        """The assessor's open assignment, or a new one from the questions that still need answers (asking the
        selector's next round of a query whose round is complete); ``None`` when nothing is left for them."""
        with self._lock:
            open_ = self._open(assessor)
            if open_ is not None:
                return open_
            for attempt in range(2):
                request = self._candidate(assessor)
                if request is not None:
                    return self._assign(assessor, request)
                if attempt == 0 and not self._advance():
                    return None
            return None

    def _open(self, assessor: str) -> Shown | None:
        row = self._db.execute(
            "SELECT id, query_id, first, second FROM assignments WHERE assessor = ? AND state = 'open' ORDER BY id",
            (assessor,),
        ).fetchone()
        return None if row is None else Shown(*row)

    def _wanted(self, request) -> int:
        """How many assessors answer ``request``: two for the overlap share (when there are two), else one."""
        key = f"{self.seed}:{request.pair.query_id}:{min(request.pair.first, request.pair.second)}:"
        key += max(request.pair.first, request.pair.second)
        shared = (stable_hash(key) % 1_000_000) < self.overlap * 1_000_000
        return 2 if shared and len(self.assessors) > 1 else 1

    def _current(self) -> list:
        """The requests of each query's latest round, in the order asked."""
        latest: dict[str, int] = {}
        requests = self.store.requests()
        for r in requests:
            latest[r.pair.query_id] = max(latest.get(r.pair.query_id, -1), r.round)
        return [r for r in requests if r.round == latest[r.pair.query_id]]

    def _assigned(self) -> dict[int, list[tuple[str, str]]]:
        rows = self._db.execute("SELECT request_id, assessor, state FROM assignments").fetchall()
        out: dict[int, list[tuple[str, str]]] = {}
        for request_id, who, state in rows:
            out.setdefault(request_id, []).append((who, state))
        return out

    def _candidate(self, assessor: str):
        assigned = self._assigned()
        best = None
        for request in self._current():
            held = assigned.get(request.id, [])
            if any(who == assessor for who, _ in held):
                continue
            active = sum(state != "skipped" for _, state in held)
            if active < self._wanted(request) and (best is None or active < best[0]):
                best = (active, request)
        return None if best is None else best[1]

    def _assign(self, assessor: str, request) -> Shown:
        rng = np.random.default_rng([self.seed, stable_hash(assessor), request.id])
        first, second = request.pair.first, request.pair.second
        if rng.random() < 0.5:
            first, second = second, first
        self._db.execute(
            "INSERT INTO assignments (request_id, assessor, query_id, first, second, shown_at, attempt, state) "
            "VALUES (?, ?, ?, ?, ?, ?, 0, 'open') ON CONFLICT (request_id, assessor) DO NOTHING",
            (request.id, assessor, request.pair.query_id, first, second, time.time()),
        )
        return self._open(assessor)

    def _advance(self) -> bool:
        """Ask the next round of every query whose current round has all its answers; whether any was asked."""
        if not self.store.requests():
            asked = False
            for query_id in sorted(self.selector.pools):
                pairs = self.selector.next_round(query_id, [])
                if pairs:
                    self.store.ask(pairs, 0, JUDGE, asked_by="web")
                    asked = True
            return asked
        assigned = self._assigned()
        answers = self._answers_by_request()
        by_query: dict[str, list] = {}
        for request in self.store.requests():
            by_query.setdefault(request.pair.query_id, []).append(request)
        asked = False
        for query_id, requests in sorted(by_query.items()):
            last = max(r.round for r in requests)
            current = [r for r in requests if r.round == last]
            if not all(self._settled(r, assigned.get(r.id, []), answers.get(r.id, [])) for r in current):
                continue
            history = [
                [combine(r.pair, answers.get(r.id, []), self.rule, k) for r in requests if r.round == k]
                for k in range(last + 1)
            ]
            pairs = self.selector.next_round(query_id, history)
            if pairs:
                self.store.ask(pairs, last + 1, JUDGE, asked_by="web")
                asked = True
        return asked

    def _settled(self, request, held: Sequence[tuple[str, str]], answers: Sequence[Answer]) -> bool:
        """A question is settled when it has its wanted answers, or every assessor skipped it."""
        skipped = sum(state == "skipped" for _, state in held)
        return len(answers) >= self._wanted(request) or skipped == len(self.assessors)

    def _answers_by_request(self) -> dict[int, list[Answer]]:
        out: dict[int, list[Answer]] = {}
        for stored in self.store.answers():
            if stored.answer.judge == JUDGE:
                out.setdefault(stored.request_id, []).append(stored.answer)
        return out

    # -- answering -------------------------------------------------------------------------------------------------

    def answer(self, assessor: str, assignment: int, key: str) -> None:
        """Store ``assessor``'s answer ``key`` (one of :data:`ANSWER_KEYS`) to their open ``assignment``; an
        assignment answered before (a double click, a second tab) is left as it is."""
        if key not in ANSWER_KEYS:
            raise InputError(f"unknown answer {key!r}", expected=f"one of {', '.join(ANSWER_KEYS)}")
        with self._lock:
            row = self._db.execute(
                "SELECT request_id, query_id, first, second, shown_at, attempt, state FROM assignments "
                "WHERE id = ? AND assessor = ?",
                (assignment, assessor),
            ).fetchone()
            if row is None or row[6] != "open":
                return
            request_id, query_id, first, second, shown_at, attempt, _ = row
            now = time.time()
            if key != "skip":
                answer = Answer(
                    Pair(query_id, first, second),
                    _STORED[key],
                    JUDGE,
                    sample=attempt,
                    latency=now - shown_at,
                    assessor=assessor,
                )
                self.store.record([(request_id, answer)])
            self._db.execute(
                "UPDATE assignments SET state = ?, answered_at = ? WHERE id = ? AND state = 'open'",
                ("skipped" if key == "skip" else "answered", now, assignment),
            )

    def can_undo(self, assessor: str) -> bool:
        """Whether ``assessor`` has an answer to withdraw."""
        return self._last_answered(assessor) is not None

    def _last_answered(self, assessor: str):
        return self._db.execute(
            "SELECT id, request_id, first, attempt, state FROM assignments WHERE assessor = ? "
            "AND state IN ('answered', 'skipped') ORDER BY answered_at DESC, id DESC",
            (assessor,),
        ).fetchone()

    def undo(self, assessor: str) -> None:
        """Withdraw ``assessor``'s last answer (or skip): its pair is shown again, before any other."""
        with self._lock:
            last = self._last_answered(assessor)
            if last is None:
                return
            assignment, request_id, first, attempt, state = last
            if state == "answered":
                self.store.withdraw(request_id, JUDGE, assessor, attempt)
            self._db.execute("DELETE FROM assignments WHERE assessor = ? AND state = 'open'", (assessor,))
            self._db.execute(
                "UPDATE assignments SET state = 'open', attempt = ?, shown_at = ?, answered_at = NULL WHERE id = ?",
                (attempt + 1, time.time(), assignment),
            )

    # -- progress and the admin's report ---------------------------------------------------------------------------

    def progress(self, assessor: str) -> tuple[int, int]:
        """``(done, total)`` for ``assessor``: the answers they gave and, added to them, the questions open or
        waiting for them now (a selector that asks round by round adds more as the work goes)."""
        with self._lock:
            done = self._db.execute(
                "SELECT COUNT(*) FROM assignments WHERE assessor = ? AND state IN ('answered', 'skipped')",
                (assessor,),
            ).fetchone()[0]
            assigned = self._assigned()
            waiting = 0
            for request in self._current():
                held = assigned.get(request.id, [])
                if any(who == assessor and state == "open" for who, state in held):
                    waiting += 1
                elif not any(who == assessor for who, _ in held):
                    waiting += sum(state != "skipped" for _, state in held) < self._wanted(request)
            return done, done + waiting

    def report(self) -> dict:
        """The admin page's figures: progress per query and assessor, agreement on shared questions (Cohen's
        kappa over first / tie / second, a bad mark counted as a preference), position bias (the share of
        decided answers that chose the left doc) and the median time per judgment."""
        requests = {r.id: r for r in self.store.requests()}
        answers = [s for s in self.store.answers() if s.answer.judge == JUDGE]
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
        assessor_rows = [
            dict(
                name=name,
                answers=len(given),
                median_seconds=_median([a.latency for a in given]),
                left_share=_left_share(given),
                link=f"/a/{self.assessors.get(name, '?')}",
            )
            for name, given in sorted(by_assessor.items())
        ]
        all_given = [s.answer for s in answers]
        totals = dict(
            answers=len(all_given),
            assessors=sum(1 for given in by_assessor.values() if given),
            median_seconds=_median([a.latency for a in all_given]),
            left_share=_left_share(all_given),
        )
        columns, rows = self._agreement(requests, answers)
        return dict(
            queries=query_rows, assessors=assessor_rows, totals=totals, agreement=rows, agreement_columns=columns
        )

    def _agreement(self, requests, answers) -> tuple[list[str], list[list]]:
        labels: dict[tuple[str, int], int] = {}
        for s in answers:
            outcome = vote(s.answer, requests[s.request_id].pair)
            if outcome is not None:
                labels[(s.answer.assessor, s.request_id)] = {"first": 1, "bad-second": 1, "tie": 0}.get(outcome, -1)
        names = sorted({who for who, _ in labels})
        rows = []
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                shared = sorted({r for who, r in labels if who == a} & {r for who, r in labels if who == b})
                if not shared:
                    continue
                x = np.array([labels[(a, r)] for r in shared])
                y = np.array([labels[(b, r)] for r in shared])
                table = contingency(x, y, np.zeros(len(shared), dtype=np.int64), 1)
                kappa = float(cohen_kappa(table)[0])
                rows.append([a, b, len(shared), int((x == y).sum()), "" if np.isnan(kappa) else f"{kappa:.3f}"])
        return ["assessor", "assessor", "shared", "agree", "kappa"], rows

    def formats(self) -> list[str]:
        """The export formats (:func:`ir_pref_measures.judging.store.export`)."""
        from ir_pref_measures.judging.export import FORMATS

        return list(FORMATS)

    def export(self, format: str) -> str:
        """The people's judgments in ``format`` (one of :meth:`formats`)."""
        from ir_pref_measures.judging.export import export_lines

        return "".join(line + "\n" for line in export_lines(self.store, format, rule=self.rule))


def _median(values: Sequence[float]) -> str:
    return f"{statistics.median(values):.1f}" if values else "-"


def _left_share(answers: Sequence[Answer]) -> str:
    decided = [a.answer for a in answers if a.answer in ("first", "second", "bad-first", "bad-second")]
    left = sum(a in ("first", "bad-second") for a in decided)
    return f"{left / len(decided):.2f}" if decided else "-"
