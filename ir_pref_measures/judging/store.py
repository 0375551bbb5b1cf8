"""The judging store: one database per judging effort (a SQLite file, or a PostgreSQL database given by URL),
that loses nothing.

Four tables (plain SQL, ``?`` placeholders, all of it in :data:`SQL`; the web desk adds its ``assignments``,
:mod:`ir_pref_measures.judging.web.desk`):

* ``effort``: the effort's settings as ``key, value`` text (seed, selector, combination rule, ...), written once;
* ``requests``: one row per question asked: ``query_id``, the two docs in the order shown (``first``,
  ``second``), the ``round`` of the query it belongs to, the ``judge`` it is asked of, ``asked_by`` and
  ``asked_at``. Unique per ``(query_id, round, first, second)``: asking again is a no-op;
* ``answers``: one row per answer, never updated: the request it answers, query and docs *in the order this
  answer was shown*, judge, model, prompt hash, sample, answer, raw text, reason, tokens, latency, time, assessor,
  ``failure``, the kind of failure of an ``unusable`` answer (``transport``, ``content``, ``request``,
  ``text``; empty otherwise), ``p_first``, the judge's probability that the doc shown first is preferred
  (``NULL`` when it gives none), the HTTP ``attempts`` it took and its ``cost`` (an LLM judge's; 0 otherwise), and
  ``cached`` (1 when it was taken from an answer cache, paid for before: cost 0). Unique per ``(request, judge,
  assessor, sample, first, failure)``: a retry or a double submit never doubles an answer;
* ``withdrawn``: the answers an assessor took back (undo), kept in ``answers`` and no longer read;
* ``batches``: the batches an LLM judge in batch mode has sent and not read back yet, by the hash of their
  requests (the provider, the batch id, when sent), so that a run stopped while they are processed polls them
  again and sends nothing twice (:mod:`ir_pref_measures.judging.judges.batches`).

A ``transport`` failure (no reply received: connection failed, timeouts, 5xx or 429 after every attempt) is not an
answer: it is kept as a row (the first one of each prompt) but not read as an answer (:meth:`Store.answers`), so a
resumed run asks its prompt again. A store made before the ``failure`` column existed gets it when opened, each
old row's kind read from its reason (:func:`_migrate`).

The same schema and statements serve a PostgreSQL server given by URL (:mod:`ir_pref_measures.judging.database`).
A SQLite file is in WAL mode with a busy timeout, so several processes may write at once; every write is one
transaction, so a process killed at any moment leaves whole rows only, and a resumed run finds the requests
already answered (:meth:`Store.unanswered`) and never asks them again.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.database import connect, shown
from ir_pref_measures.judging.protocol import Answer, Pair

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS effort (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS requests (
        id INTEGER PRIMARY KEY, query_id TEXT NOT NULL, first TEXT NOT NULL, second TEXT NOT NULL,
        round INTEGER NOT NULL, judge TEXT NOT NULL, asked_by TEXT NOT NULL, asked_at REAL NOT NULL,
        UNIQUE (query_id, round, first, second))""",
    """CREATE TABLE IF NOT EXISTS answers (
        id INTEGER PRIMARY KEY, request_id INTEGER NOT NULL REFERENCES requests (id),
        query_id TEXT NOT NULL, first TEXT NOT NULL, second TEXT NOT NULL, judge TEXT NOT NULL,
        model TEXT NOT NULL, prompt_hash TEXT NOT NULL, sample INTEGER NOT NULL, answer TEXT NOT NULL,
        raw TEXT NOT NULL, reason TEXT NOT NULL, tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL,
        latency REAL NOT NULL, answered_at REAL NOT NULL, assessor TEXT NOT NULL, failure TEXT NOT NULL DEFAULT '',
        p_first REAL, attempts INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0,
        cached INTEGER NOT NULL DEFAULT 0, UNIQUE (request_id, judge, assessor, sample, first, failure))""",
    "CREATE INDEX IF NOT EXISTS answers_request ON answers (request_id)",
    """CREATE TABLE IF NOT EXISTS batches (
        key TEXT PRIMARY KEY, provider TEXT NOT NULL, batch_id TEXT NOT NULL, sent_at REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS withdrawn (
        answer_id INTEGER PRIMARY KEY REFERENCES answers (id), request_id INTEGER NOT NULL,
        withdrawn_at REAL NOT NULL)""",
)
TRANSPORT = "transport"  # the failure that is not an answer (protocol.FAILURES)
# an answer withdrawn (undo) is kept, not read; a transport failure is kept, not read as an answer
LIVE = f"id NOT IN (SELECT answer_id FROM withdrawn) AND failure <> '{TRANSPORT}'"
ANSWER_FIELDS = "query_id, first, second, judge, model, prompt_hash, sample, answer, raw, reason, tokens_in, "
ANSWER_FIELDS += "tokens_out, latency, answered_at, assessor, failure, p_first, attempts, cost, cached"
# the columns added after the first stores were made, each with its definition (:func:`_migrate`)
ADDED_COLUMNS = {
    "p_first": "REAL",
    "attempts": "INTEGER NOT NULL DEFAULT 0",
    "cost": "REAL NOT NULL DEFAULT 0",
    "cached": "INTEGER NOT NULL DEFAULT 0",
}
# the failure of a row stored before the column existed, read from its reason (the LLM judge's wording)
OLD_FAILURE = (
    "CASE WHEN answer <> 'unusable' THEN '' WHEN reason LIKE 'no answer after %' THEN 'transport' "
    "WHEN reason LIKE 'the response could not be read%' THEN 'content' WHEN reason LIKE 'missing text%' THEN 'text' "
    "WHEN reason LIKE 'HTTP %' THEN 'request' ELSE '' END"
)
SQL = {  # every statement, with ?-style placeholders
    "set": "INSERT INTO effort (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
    "settings": "SELECT key, value FROM effort ORDER BY key",
    "ask": "INSERT INTO requests (query_id, first, second, round, judge, asked_by, asked_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (query_id, round, first, second) DO NOTHING",
    "request_id": "SELECT id FROM requests WHERE query_id = ? AND round = ? AND first = ? AND second = ?",
    "answer": f"INSERT INTO answers (request_id, {ANSWER_FIELDS}) VALUES (?{', ?' * 20}) "
    "ON CONFLICT (request_id, judge, assessor, sample, first, failure) DO NOTHING",
    "requests": "SELECT id, query_id, first, second, round, judge, asked_by, asked_at FROM requests "
    "ORDER BY query_id, round, id",
    "unanswered": "SELECT r.id, r.query_id, r.first, r.second, r.round, r.judge, r.asked_by, r.asked_at "
    f"FROM requests r WHERE NOT EXISTS (SELECT 1 FROM answers a WHERE a.request_id = r.id AND a.{LIVE}) ORDER BY r.id",
    "answers": f"SELECT request_id, {ANSWER_FIELDS} FROM answers WHERE {LIVE} ORDER BY request_id, id",
    "counts": f"SELECT (SELECT COUNT(*) FROM requests), (SELECT COUNT(*) FROM answers WHERE {LIVE}), "
    "(SELECT COUNT(*) FROM requests r WHERE NOT EXISTS "
    f"(SELECT 1 FROM answers a WHERE a.request_id = r.id AND a.{LIVE}))",
    "failures": "SELECT failure, COUNT(*) FROM answers a WHERE answer = 'unusable' AND id NOT IN "
    f"(SELECT answer_id FROM withdrawn) AND NOT (failure = '{TRANSPORT}' AND EXISTS (SELECT 1 FROM answers b "
    "WHERE b.request_id = a.request_id AND b.judge = a.judge AND b.assessor = a.assessor AND b.sample = a.sample "
    f"AND b.first = a.first AND b.failure <> '{TRANSPORT}' AND b.id NOT IN (SELECT answer_id FROM withdrawn))) "
    "GROUP BY failure ORDER BY failure",
    "transport": f"SELECT request_id, {ANSWER_FIELDS} FROM answers WHERE failure = '{TRANSPORT}' "
    "AND id NOT IN (SELECT answer_id FROM withdrawn) ORDER BY request_id, id",
    "usage": "SELECT COUNT(*), COALESCE(SUM(attempts), 0), COALESCE(SUM(CASE WHEN attempts > 1 THEN attempts - 1 "
    "ELSE 0 END), 0), COALESCE(SUM(tokens_in), 0), COALESCE(SUM(tokens_out), 0), COALESCE(SUM(cost), 0), "
    "COALESCE(SUM(cached), 0) FROM answers WHERE id NOT IN (SELECT answer_id FROM withdrawn)",
    "batch": "SELECT batch_id FROM batches WHERE key = ?",
    "keep_batch": "INSERT INTO batches (key, provider, batch_id, sent_at) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (key) DO NOTHING",
    "forget_batch": "DELETE FROM batches WHERE key = ?",
    "withdraw": "INSERT INTO withdrawn (answer_id, request_id, withdrawn_at) SELECT id, request_id, ? FROM answers "
    f"WHERE request_id = ? AND judge = ? AND assessor = ? AND sample = ? AND {LIVE}",
}


@dataclass(frozen=True)
class Request:
    """A stored question: ``pair`` (in the order shown), its query's ``round``, the ``judge`` asked."""

    id: int
    pair: Pair
    round: int
    judge: str
    asked_by: str = ""
    asked_at: float = 0.0


@dataclass(frozen=True)
class StoredAnswer:
    """An answer as stored: the ``request_id`` it answers, the :class:`Answer`, and when it was stored."""

    request_id: int
    answer: Answer
    answered_at: float


class Store:
    """The store of one judging effort at ``path``: a SQLite file, or a PostgreSQL URL
    (``postgresql://user@host:port/database``, :mod:`ir_pref_measures.judging.database`); created with its schema
    when missing.

    Use as a context manager or call :meth:`close`. Every method is one transaction."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = shown(os.fspath(path))
        self.database = connect(path, SCHEMA, _migrate)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.database.close()

    def _transaction(self):
        return self.database.transaction()

    # -- the effort's settings -----------------------------------------------------------------------------------

    def settings(self) -> dict[str, str]:
        """The effort's settings as stored (``{}`` for a new store)."""
        return dict(self.database.execute(SQL["settings"]).fetchall())

    def settled(self, settings: dict[str, object]) -> dict[str, str]:
        """The settings the store would hold once ``settings`` are settled (:meth:`settle`), nothing written: a
        setting stored before with another value is an :class:`InputError`."""
        stored = self.settings()
        clash = {k: (stored[k], str(v)) for k, v in settings.items() if k in stored and stored[k] != str(v)}
        if clash:
            listed = "; ".join(f"{k}: stored {old!r}, given {new!r}" for k, (old, new) in sorted(clash.items()))
            raise InputError(f"the store was made with other settings ({listed})", path=self.path)
        return stored | {k: str(v) for k, v in settings.items()}

    def settle(self, settings: dict[str, object]) -> dict[str, str]:
        """Store ``settings`` (as text) where the store has none; a setting stored before with another value is
        an :class:`InputError`, and nothing is written (an effort keeps its seed, selector and rule). Returns the
        stored settings."""
        self.settled(settings)
        with self._transaction():
            for key, value in settings.items():
                self.database.execute(SQL["set"], (key, str(value)))
        return self.settings()

    # -- writing -------------------------------------------------------------------------------------------------

    def ask(self, pairs: Sequence[Pair], rounds: Sequence[int] | int, judge: str, asked_by: str = "") -> list[Request]:
        """Store the questions ``pairs``, each of its query's round in ``rounds`` (one round for all, or one
        each), in one transaction (idempotent: a question stored before keeps its row), and return them as
        :class:`Request` rows in the order given."""
        rounds = [rounds] * len(pairs) if isinstance(rounds, int) else list(rounds)
        now = time.time()
        keys = [(p.query_id, r, p.first, p.second) for p, r in zip(pairs, rounds, strict=True)]
        with self._transaction():
            self.database.executemany(SQL["ask"], [(q, f, s, r, judge, asked_by, now) for q, r, f, s in keys])
            ids = [self.database.execute(SQL["request_id"], key).fetchone()[0] for key in keys]
        return [Request(i, p, r, judge, asked_by, now) for i, p, r in zip(ids, pairs, rounds, strict=True)]

    def record(self, answered: Iterable[tuple[int, Answer]]) -> None:
        """Store ``(request_id, answer)`` rows in one transaction (idempotent: an answer stored before is kept)."""
        now = time.time()
        rows = [
            (request_id, a.pair.query_id, a.pair.first, a.pair.second, a.judge, a.model, a.prompt_hash, a.sample)
            + (a.answer, a.raw, a.reason, a.tokens_in, a.tokens_out, a.latency, now, a.assessor, a.failure, a.p_first)
            + (a.attempts, a.cost, int(a.cached))
            for request_id, a in answered
        ]
        with self._transaction():
            self.database.executemany(SQL["answer"], rows)

    def withdraw(self, request_id: int, judge: str, assessor: str, sample: int) -> None:
        """Withdraw an answer (an assessor's undo): the row is kept, marked withdrawn, and no longer read."""
        with self._transaction():
            self.database.execute(SQL["withdraw"], (time.time(), request_id, judge, assessor, sample))

    def keep_batch(self, key: str, provider: str, batch_id: str) -> None:
        """Keep the id of a batch sent (an LLM judge's batch mode) under ``key``, the hash of its requests."""
        with self._transaction():
            self.database.execute(SQL["keep_batch"], (key, provider, batch_id, time.time()))

    def forget_batch(self, key: str) -> None:
        """Forget the batch of ``key``, read back (its answers stored)."""
        with self._transaction():
            self.database.execute(SQL["forget_batch"], (key,))

    def batch(self, key: str) -> str | None:
        """The id of the batch sent with the requests of ``key`` and not read back yet, or ``None``."""
        row = self.database.execute(SQL["batch"], (key,)).fetchone()
        return None if row is None else row[0]

    # -- reading -------------------------------------------------------------------------------------------------

    def requests(self) -> list[Request]:
        """Every request, by query, round and order of asking."""
        return [_request(row) for row in self.database.execute(SQL["requests"])]

    def unanswered(self) -> list[Request]:
        """The requests without any answer yet (in flight when a run stopped), in the order asked."""
        return [_request(row) for row in self.database.execute(SQL["unanswered"])]

    def answers(self) -> list[StoredAnswer]:
        """Every answer, by request and order of storing (a transport failure is no answer: not among them)."""
        return [_stored(row) for row in self.database.execute(SQL["answers"])]

    def transport_failures(self) -> list[StoredAnswer]:
        """The prompts that got no reply (``failure`` ``transport``), by request and order of storing."""
        return [_stored(row) for row in self.database.execute(SQL["transport"])]

    def failures(self) -> dict[str, int]:
        """Unusable answers by kind of failure (:data:`~ir_pref_measures.judging.protocol.FAILURES`; ``""``: given
        as unusable by the judge, a person's ``?``); ``transport``: the prompts without a reply that have no answer
        since (asked again by the next run)."""
        return dict(self.database.execute(SQL["failures"]).fetchall())

    def usage(self) -> dict[str, float]:
        """What the stored answers cost: ``prompts`` (answer rows, a transport failure's included), HTTP
        ``attempts`` and ``retries`` (attempts after each prompt's first), ``tokens in`` and ``tokens out``, the
        ``cost`` and the answers ``cached`` (taken from an answer cache, at no cost)."""
        names = ("prompts", "attempts", "retries", "tokens in", "tokens out", "cost", "cached")
        return dict(zip(names, self.database.execute(SQL["usage"]).fetchone(), strict=True))

    def counts(self) -> dict[str, int]:
        """``requests``, ``answers`` and ``unanswered`` requests."""
        requests, answers, unanswered = self.database.execute(SQL["counts"]).fetchone()
        return {"requests": requests, "answers": answers, "unanswered": unanswered}


def _migrate(database) -> None:
    """Bring an older store up to date: made before the ``failure`` column, the column added to the answers and to
    their unique key, each row's kind read from its reason (:data:`OLD_FAILURE`); then the columns of
    :data:`ADDED_COLUMNS` it lacks added (``p_first``: empty, no probability; ``attempts``, ``cost``, ``cached``: 0
    for the rows stored before)."""
    if "failure" not in database.columns("answers"):
        database.add_key_column("answers", SCHEMA[2], "failure", "TEXT NOT NULL DEFAULT ''", OLD_FAILURE)
        database.execute(SCHEMA[3])  # the index, gone with SQLite's old table
    present = database.columns("answers")  # SQLite's rebuilt table has them all; PostgreSQL's altered one not
    for column, definition in ADDED_COLUMNS.items():
        if column not in present:
            database.execute(f"ALTER TABLE answers ADD COLUMN {column} {definition}")


def _request(row) -> Request:
    id_, query_id, first, second, round_, judge, asked_by, asked_at = row
    return Request(id_, Pair(query_id, first, second), round_, judge, asked_by, asked_at)


def _stored(row) -> StoredAnswer:
    request_id, query_id, first, second, judge, model, prompt_hash, sample, answer, raw, reason = row[:11]
    tokens_in, tokens_out, latency, answered_at, assessor, failure, p_first, attempts, cost, cached = row[11:]
    pair = Pair(query_id, first, second)
    fields = dict(model=model, prompt_hash=prompt_hash, raw=raw, reason=reason, assessor=assessor, failure=failure)
    fields.update(tokens_in=tokens_in, tokens_out=tokens_out, latency=latency, p_first=p_first, attempts=attempts)
    fields.update(cost=cost, cached=bool(cached))
    return StoredAnswer(request_id, Answer(pair, answer, judge, sample, **fields), answered_at)
