"""One connection to a judging store's database: a SQLite file (the default) or a PostgreSQL server by URL.

Statements are written once, in SQLite's words (``?`` placeholders, ``id INTEGER PRIMARY KEY``, ``REAL``);
:func:`postgresql` turns them into PostgreSQL's (``%s``, an identity column, ``DOUBLE PRECISION``). A write
transaction takes the database's one writer lock as it starts, so writers in several processes run one after
the other and a killed one leaves whole rows only: SQLite's ``BEGIN IMMEDIATE``; PostgreSQL's ``BEGIN`` and a
transaction-level advisory lock (released by the commit, the rollback, or the server when the client dies).
PostgreSQL needs ``psycopg`` (``pip install 'ir-pref-measures[web]'``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sqlite3
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from ir_pref_measures.errors import InputError

if TYPE_CHECKING:
    import psycopg

BUSY_TIMEOUT = 60.0  # seconds a writer waits for another one's transaction
SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file
JUDGING_TABLES = ("effort", "requests", "answers")  # a SQLite file with these is a judging store
# what SQLite says when the file, not the program, is wrong: shown as one line naming the file
STORE_TROUBLE = {
    "readonly": "the judging store cannot be written (read-only)",
    "locked": "the judging store stayed locked by another process for more than {timeout:g} s",
    "malformed": "the judging store is damaged",
    "not a database": "the judging store is damaged",
    "disk i/o": "the judging store could not be read or written (disk I/O error)",
    "unable to open": "the judging store could not be opened",
    "database or disk is full": "the judging store could not be written (the disk is full)",
    "no such table": "not a judging store (a table of the judging tables is missing)",
}
URL_SCHEMES = ("postgresql://", "postgres://")
WRITER_LOCK = 0x6A75646765  # the advisory lock every PostgreSQL writer of a store takes ("judge")


def is_url(location: str | os.PathLike) -> bool:
    """Whether ``location`` is a PostgreSQL URL (``postgresql://user@host:port/database``) rather than a path."""
    return isinstance(location, str) and location.startswith(URL_SCHEMES)


def exists(location: str | os.PathLike) -> bool:
    """Whether the store at ``location`` may already exist: a file that exists, or any URL (its server says)."""
    return is_url(location) or os.path.exists(location)


def probe(location: str | os.PathLike) -> str:
    """What is at ``location`` before it is opened, nothing written: ``"url"`` (a PostgreSQL server: it says),
    ``"missing"``, ``"folder"``, ``"empty"`` (a file of 0 bytes, or a SQLite file without tables), ``"store"`` (a
    SQLite file with the judging tables), ``"sqlite"`` (a SQLite file of something else) or ``"foreign"`` (a file
    that is not SQLite); an :class:`InputError` naming it when it cannot be read or is damaged."""
    if is_url(location):
        return "url"
    path = os.fspath(location)
    if not os.path.exists(path):
        return "missing"
    if os.path.isdir(path):
        return "folder"
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as error:
        raise InputError(f"cannot read the judging store ({error.strerror or error})", path=path) from None
    if not header:
        return "empty"
    if header != SQLITE_HEADER:
        return "foreign"
    tables = sqlite_tables(path)
    if not tables:
        return "empty"
    return "store" if set(JUDGING_TABLES) <= set(tables) else "sqlite"


def sqlite_tables(path: str) -> list[str]:
    """The tables of the SQLite file ``path``, read through a read-only connection."""
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT)) as db:
            rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall()
    except sqlite3.DatabaseError as error:
        raise store_error(error, path) from None
    return [name for (name,) in rows]


NOT_A_STORE = {
    "folder": "a folder, not a judging store",
    "empty": "an empty file, not a judging store",
    "foreign": "not a SQLite file: not a judging store",
    "sqlite": "a SQLite file of another program, not a judging store",
}


def check_existing(location: str | os.PathLike) -> None:
    """A store a command reads (``run``, ``status``, ``export``, ``serve``): it must exist and be a judging store;
    else an :class:`InputError` naming it, nothing created or changed."""
    found = probe(location)
    if found in ("url", "store"):
        return
    if found == "missing":
        raise InputError(
            "no such judging store (no plan yet): make one first (ir-pref-measures judge plan)", path=location
        )
    raise InputError(f"{NOT_A_STORE[found]}{_tables(location, found)}", path=location)


def check_creatable(location: str | os.PathLike) -> None:
    """A store :func:`connect` may make or reopen: missing (its folder exists), empty, or a judging store; never
    a file of something else (the judging tables are not added to another program's database)."""
    found = probe(location)
    if found in ("url", "store", "empty"):
        return
    if found == "missing":
        folder = os.path.dirname(os.path.abspath(location))
        if not os.path.isdir(folder):
            raise InputError(f"cannot make the judging store: the folder {folder} does not exist", path=location)
        return
    raise InputError(f"{NOT_A_STORE[found]}{_tables(location, found)}; refusing to make it one", path=location)


def _tables(location, found: str) -> str:
    if found != "sqlite":
        return ""
    tables = sqlite_tables(os.fspath(location))
    listed = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
    return f" (its tables: {listed})"


class StoreError(InputError):
    """What SQLite says about a store's file (read-only, locked, damaged), as one line naming it."""


def store_error(error: Exception, location: str | os.PathLike) -> Exception:
    """An error of SQLite about the file (read-only, locked, damaged, not a store) as an :class:`InputError`
    naming it; any other error (a programming error) unchanged."""
    text = str(error)
    for marker, said in STORE_TROUBLE.items():
        if marker in text.lower():
            said = said.format(timeout=BUSY_TIMEOUT)
            return StoreError(f"{said} ({text})", path=shown(os.fspath(location)))
    return error


def shown(location: str) -> str:
    """``location`` as it may be shown in a message: a URL without its password."""
    return re.sub(r"^(\w+://[^:/@]*):[^@]*@", r"\1:***@", location) if is_url(location) else location


@functools.cache
def postgresql(statement: str) -> str:
    """A SQLite statement of the store in PostgreSQL's dialect."""
    statement = statement.replace("%", "%%").replace("?", "%s")
    statement = re.sub(
        r"\bid INTEGER PRIMARY KEY\b", "id INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", statement
    )
    return re.sub(r"\bREAL\b", "DOUBLE PRECISION", statement)


class Database:
    """A connection to the SQLite file or PostgreSQL URL ``location``, in autocommit outside :meth:`transaction`."""

    def __init__(self, location: str | os.PathLike) -> None:
        self.location = os.fspath(location)
        self.dialect = "postgresql" if is_url(self.location) else "sqlite"
        self._db: sqlite3.Connection | psycopg.Connection
        if self.dialect == "sqlite":
            self._db = sqlite3.connect(
                self.location, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT * 1000)}")
            self._db.execute("PRAGMA synchronous=NORMAL")
        else:
            try:
                import psycopg
            except ImportError:
                raise InputError(
                    "a PostgreSQL store needs psycopg: pip install 'ir-pref-measures[web]'", path=shown(self.location)
                ) from None
            self._db = psycopg.connect(self.location, autocommit=True)

    def execute(self, statement: str, parameters: Sequence = ()):
        """Run ``statement`` (SQLite's dialect) with ``parameters``; the cursor (iterate it or fetch from it): a
        damaged file is one line naming it, here or as the rows are read (:func:`store_error`)."""
        if self.dialect == "sqlite":
            with self._errors():
                return _Rows(self._db.execute(statement, parameters), self._errors)
        return self._db.execute(postgresql(statement), parameters)

    def executemany(self, statement: str, rows: Iterable[Sequence]) -> None:
        """Run ``statement`` once per row of ``rows``."""
        if isinstance(self._db, sqlite3.Connection):
            with self._errors():
                self._db.executemany(statement, rows)
        else:
            self._db.cursor().executemany(postgresql(statement), list(rows))

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """SQLite's errors about the file (read-only, locked, damaged) as one :class:`InputError` naming it."""
        try:
            yield
        except sqlite3.DatabaseError as error:
            raise store_error(error, self.location) from None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction holding the writer lock from its start: committed at the end, rolled back on an
        exception."""
        if self.dialect == "sqlite":
            with self._errors():
                self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                with contextlib.suppress(sqlite3.Error):  # a failed statement may have ended it already
                    self._db.execute("ROLLBACK")
                raise
            with self._errors():
                self._db.execute("COMMIT")
        else:
            assert not isinstance(self._db, sqlite3.Connection)
            with self._db.transaction():
                self._db.execute("SELECT pg_advisory_xact_lock(%s)", (WRITER_LOCK,))
                yield

    def create(self, schema: Sequence[str], migrate: Callable[[Database], None] | None = None) -> None:
        """Create the tables and indexes of ``schema`` where missing, then ``migrate(self)`` (an older schema
        brought up to date), in one transaction."""
        with self.transaction():
            for statement in schema:
                self.execute(statement)
            if migrate is not None:
                migrate(self)

    def columns(self, table: str) -> list[str]:
        """The column names of ``table``, in order (``[]`` when it does not exist)."""
        if self.dialect == "sqlite":
            return [row[1] for row in self._db.execute(f"PRAGMA table_info({table})")]
        found = self._db.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name = %s ORDER BY ordinal_position",
            (table,),
        )
        return [row[0] for row in found]

    def add_key_column(self, table: str, create: str, column: str, definition: str, fill: str) -> None:
        """Add ``column`` (``definition``, e.g. ``TEXT NOT NULL DEFAULT ''``) to ``table`` and to its unique key,
        each row's value computed by the SQL expression ``fill`` of its other columns; ``create`` is the table's
        ``CREATE TABLE IF NOT EXISTS`` statement with the column and the new key. Ids are kept. SQLite cannot
        change a table's key: the table is rebuilt (copied to a new one, which takes the old one's name); its
        indexes must be created again afterwards. PostgreSQL: ``ALTER TABLE``, the old unique key dropped and the
        new one added. Run it inside :meth:`transaction`."""
        old = ", ".join(self.columns(table))
        if self.dialect == "sqlite":
            rebuilt = create.replace(f"CREATE TABLE IF NOT EXISTS {table} (", f"CREATE TABLE {table}_rekeyed (", 1)
            self.execute(rebuilt)
            self.execute(f"INSERT INTO {table}_rekeyed ({old}, {column}) SELECT {old}, {fill} FROM {table}")
            self.execute(f"DROP TABLE {table}")
            self.execute(f"ALTER TABLE {table}_rekeyed RENAME TO {table}")
            return
        unique = re.search(r"UNIQUE \(([^)]*)\)", create)
        if unique is None:
            raise ValueError(f"no unique key in {create!r}")
        self.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
        self.execute(f"UPDATE {table} SET {column} = {fill}")
        found = self._db.execute(
            "SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'u'", (table,)
        )
        for (name,) in found.fetchall():
            self._db.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
        self.execute(f"ALTER TABLE {table} ADD UNIQUE ({unique.group(1)})")

    def close(self) -> None:
        self._db.close()


class _Rows:
    """A SQLite cursor read as one (``fetchone``, ``fetchall``, iteration), its errors about the file turned into
    one line naming it as the rows are read (:func:`store_error`)."""

    def __init__(self, cursor, errors) -> None:
        self._cursor, self._errors = cursor, errors

    def fetchone(self):
        with self._errors():
            return self._cursor.fetchone()

    def fetchall(self) -> list:
        with self._errors():
            return self._cursor.fetchall()

    def __iter__(self):
        with self._errors():
            yield from self._cursor


def connect(
    location: str | os.PathLike, schema: Sequence[str] = (), migrate: Callable[[Database], None] | None = None
) -> Database:
    """The :class:`Database` at ``location`` with the tables of ``schema`` (an older one brought up to date by
    ``migrate``); an :class:`InputError` naming it when it cannot be opened."""
    try:
        if schema:
            check_creatable(location)
        database = Database(location)
        database.create(schema, migrate)
        return database
    except StoreError:
        raise
    except sqlite3.DatabaseError as error:
        found = store_error(error, location)
        if isinstance(found, StoreError):
            raise found from None
        raise InputError(f"cannot open the judging store: {error}", path=os.fspath(location)) from None
    except InputError as error:
        raise InputError(f"cannot open the judging store: {error.message}", path=error.path) from None
    except Exception as error:
        if type(error).__module__.startswith("psycopg"):
            message = str(error).replace(str(location), shown(str(location)))
            raise InputError(f"cannot open the judging store: {message}", path=shown(str(location))) from None
        raise
