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
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import database

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
    """The answer cache at ``location`` (a SQLite file, made when missing, or a PostgreSQL URL)."""

    def __init__(self, location: str | os.PathLike) -> None:
        self.location = database.shown(os.fspath(location))
        _check(location)
        try:
            self.database = database.Database(location)
            self.database.create(SCHEMA, _migrate)
        except sqlite3.DatabaseError as error:
            raise InputError(f"cannot open the answer cache: {error}", path=self.location) from None

    def get(self, key: str) -> tuple[str, int, int, float | None] | None:
        """The reply kept under ``key`` (text, tokens in, tokens out, p(first) or ``None``), or ``None``."""
        row = self.database.execute(GET, (key,)).fetchone()
        return None if row is None else (row[0], int(row[1]), int(row[2]), None if row[3] is None else float(row[3]))

    def put(
        self, key: str, model: str, raw: str, tokens_in: int, tokens_out: int, p_first: float | None = None
    ) -> None:
        """Keep a reply under ``key`` with its p(first) when read (one transaction; a reply kept before stays)."""
        with self.database.transaction():
            self.database.execute(PUT, (key, model, raw, tokens_in, tokens_out, time.time(), p_first))

    def close(self) -> None:
        self.database.close()


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
