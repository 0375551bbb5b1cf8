"""The answer cache: LLM replies kept for any effort to reuse, so that a prompt paid for once is not paid again (a
second effort over the same pairs, a re-run with another selector).

One table, ``replies``, in a SQLite file (the default) or a PostgreSQL database by URL
(:mod:`ir_pref_measures.judging.database`), shared by any number of efforts and processes (WAL, busy timeout;
every write one transaction). A reply is keyed by :func:`cache_key`: the SHA-256 of the request as it would be
sent (the endpoint's model, the messages, the sampling options: ``temperature``, ``max_tokens``, the ``seed`` sent)
and the sample index, so a changed prompt, model or sampling option misses, and each sample of a prompt is its own
entry. It keeps the reply's text, the tokens it cost and its p(first) when the judge read one from the reply's
log-probabilities (given back on a hit; a cache made before that column gets it, empty, when opened); the judge
reads the text again with its preset, as it reads a reply from the endpoint. Only replies are kept: a failure (no
reply, a refused prompt) is never cached.

The LLM judges' workers share one event loop: :meth:`AnswerCache.get` and :meth:`AnswerCache.put` (coroutines) keep a
PostgreSQL round trip off it, run by the one thread that owns the cache's connection (opened, used and closed
there: the connection never serves two threads), while the requests in flight go on; a SQLite cache is read and
written inline (microseconds, and its connection stays with the thread that opened it).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import database

T = TypeVar("T")
TABLE = "replies"
SCHEMA = (
    f"""CREATE TABLE IF NOT EXISTS {TABLE} (key TEXT PRIMARY KEY, model TEXT NOT NULL, raw TEXT NOT NULL,
        tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL, stored_at REAL NOT NULL, p_first REAL)""",
)
ADDED_COLUMNS = {"p_first": "REAL"}  # column -> definition: added to a cache made before it (empty in old rows)
GET = f"SELECT raw, tokens_in, tokens_out, p_first FROM {TABLE} WHERE key = ?"
PUT = (
    f"INSERT INTO {TABLE} (key, model, raw, tokens_in, tokens_out, stored_at, p_first) VALUES (?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (key) DO NOTHING"
)


def cache_key(request: dict, sample: int) -> str:
    """The key of a chat request (``model``, ``messages`` and the sampling options, as sent) and its sample."""
    text = json.dumps([request, sample], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class AnswerCache:
    """The answer cache at ``location`` (a SQLite file, made when missing, or a PostgreSQL URL, whose connection
    one thread of the cache's own owns: module docstring)."""

    def __init__(self, location: str | os.PathLike) -> None:
        self.location = database.shown(os.fspath(location))
        _check(location)
        url = database.is_url(os.fspath(location))
        self._owner = ThreadPoolExecutor(1, thread_name_prefix="answer-cache") if url else None
        try:
            self.database = self._call(_open, location)
        except sqlite3.DatabaseError as error:
            raise InputError(f"cannot open the answer cache: {error}", path=self.location) from None
        except BaseException:
            self._stop()
            raise

    def _call(self, function: Callable[..., T], *arguments) -> T:
        """``function(*arguments)`` in the thread owning the connection (this one for SQLite), waited for."""
        return function(*arguments) if self._owner is None else self._owner.submit(function, *arguments).result()

    async def _await(self, function: Callable[..., T], *arguments) -> T:
        """``function(*arguments)`` in the thread owning the connection, the event loop free meanwhile (SQLite:
        inline)."""
        if self._owner is None:
            return function(*arguments)
        return await asyncio.get_running_loop().run_in_executor(self._owner, function, *arguments)

    async def get(self, key: str) -> tuple[str, int, int, float | None] | None:
        """The reply kept under ``key`` (text, tokens in, tokens out, p(first) or ``None``), or ``None``."""
        return await self._await(self._get, key)

    async def put(
        self, key: str, model: str, raw: str, tokens_in: int, tokens_out: int, p_first: float | None = None
    ) -> None:
        """Keep a reply under ``key`` with its p(first) when read (one transaction; a reply kept before stays)."""
        await self._await(self._put, key, model, raw, tokens_in, tokens_out, p_first)

    def _get(self, key: str) -> tuple[str, int, int, float | None] | None:
        row = self.database.execute(GET, (key,)).fetchone()
        return None if row is None else (row[0], int(row[1]), int(row[2]), None if row[3] is None else float(row[3]))

    def _put(self, key: str, model: str, raw: str, tokens_in: int, tokens_out: int, p_first: float | None) -> None:
        with self.database.transaction():
            self.database.execute(PUT, (key, model, raw, tokens_in, tokens_out, time.time(), p_first))

    def close(self) -> None:
        try:
            self._call(self.database.close)
        finally:
            self._stop()

    def _stop(self) -> None:
        if self._owner is not None:
            self._owner.shutdown()


def _open(location: str | os.PathLike) -> database.Database:
    """The cache's database, its table made or brought up to date."""
    opened = database.Database(location)
    opened.create(SCHEMA, _migrate)
    return opened


def _migrate(database: database.Database) -> None:
    """A cache made before a column of :data:`ADDED_COLUMNS` gets it (its rows: no p(first))."""
    present = database.columns(TABLE)
    for column, definition in ADDED_COLUMNS.items():
        if column not in present:
            database.execute(f"ALTER TABLE {TABLE} ADD COLUMN {column} {definition}")


def _check(location: str | os.PathLike) -> None:
    """A cache file may be missing (its folder exists), empty, or a cache; never a judging store or a file of
    something else."""
    found = database.probe(location)
    if found in ("url", "missing", "empty"):
        if found == "missing" and not os.path.isdir(os.path.dirname(os.path.abspath(location))):
            raise InputError("cannot make the answer cache: its folder does not exist", path=os.fspath(location))
        return
    if found == "sqlite" and TABLE in database.sqlite_tables(os.fspath(location)):
        return
    what = {"store": "a judging store", "folder": "a folder"}.get(found, "a file of something else")
    raise InputError(f"{what}, not an answer cache: give a new file or an answer cache", path=os.fspath(location))
