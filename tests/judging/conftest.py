"""A real PostgreSQL server for the judging store's tests: the system's ``initdb`` and ``pg_ctl`` (Debian's
``postgresql`` package) start one on a loopback port in a temporary folder, once per test session; each test gets
a database of its own. Run as the ``postgres`` user when the tests run as root (PostgreSQL refuses root). Tests
asking for it skip, with the reason, where the binaries or psycopg are absent."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid

import pytest


def _binaries() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    return os.path.dirname(initdb) if initdb else None


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgreSQL:
    """A PostgreSQL server in ``folder`` listening on ``127.0.0.1:port`` (trust authentication, loopback only)."""

    def __init__(self, binaries: str) -> None:
        self.binaries = binaries
        self.folder = tempfile.mkdtemp(prefix="judging-postgresql-")
        self.data = os.path.join(self.folder, "data")
        self.port = _port()
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(self.folder, "postgres")

    def run(self, tool: str, *args: str) -> None:
        command = [*self.as_user, os.path.join(self.binaries, tool), *args]
        subprocess.run(command, check=True, capture_output=True, text=True, timeout=120)

    def start(self) -> None:
        self.run("initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "--no-sync")
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.run("pg_ctl", "-D", self.data, "-o", options, "-l", os.path.join(self.folder, "log"), "-w", "start")

    def stop(self) -> None:
        try:
            self.run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """The URL of a new, empty database."""
        import psycopg

        name = f"judging_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url(name)


@pytest.fixture(scope="session")
def postgresql_server():
    """A running :class:`PostgreSQL` server (skips where PostgreSQL or psycopg is absent)."""
    pytest.importorskip("psycopg", reason="psycopg is absent: pip install 'ir-pref-measures[web]'")
    binaries = _binaries()
    if binaries is None:
        pytest.skip("PostgreSQL is absent (no initdb; Debian: apt-get install postgresql)")
    server = PostgreSQL(binaries)
    try:
        server.start()
    except (subprocess.CalledProcessError, OSError) as error:
        server.stop()
        detail = getattr(error, "stderr", "") or str(error)
        pytest.skip(f"PostgreSQL did not start: {detail.strip().splitlines()[-1] if detail.strip() else error}")
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_location(request, tmp_path) -> str:
    """Where a new judging store goes: a SQLite file, or a new database on the PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "effort.sqlite")
    return request.getfixturevalue("postgresql_server").new_database()


@pytest.fixture
def free_port() -> int:
    """A loopback port nothing listens on."""
    return _port()
