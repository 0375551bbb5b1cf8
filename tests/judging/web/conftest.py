"""A small judging effort for the web interface's tests: three queries, five docs each (one holding HTML), served by
a real uvicorn server on loopback in a subprocess (``server.py`` beside this file), on a SQLite file or a
PostgreSQL database."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

HERE = Path(__file__).parent
QUERIES = {
    "q1": {"title": "solar panel efficiency", "description": "How efficient are home solar panels?"},
    "q2": {"title": "river otter diet", "description": "What do river otters eat?"},
    "q3": {"title": "bread yeast proofing", "description": "How long should bread dough proof?"},
}
DOCS = {
    f"{q}d{i}": f"Document {i} of {q}: {QUERIES[q]['title']} " + ("and more words " * (i + 1))
    for q in QUERIES
    for i in range(5)
}
DOCS["q1d0"] = "<script>document.title='pwned'</script> solar <b>panels</b> & efficiency"
POOLS = {q: [f"{q}d{i}" for i in range(5)] for q in QUERIES}


def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``server.py`` in a subprocess: started, waited for, killed (SIGKILL) and restarted on the same store."""

    def __init__(
        self, store: str, folder: Path, assessors: list[str], overlap: float, selector: str = "all", options=None
    ) -> None:
        self.store, self.folder, self.assessors, self.overlap, self.selector = (
            store,
            folder,
            assessors,
            overlap,
            selector,
        )
        self.options = options or {}  # more keywords of open_desk
        self.port = unused_port()
        self.process: subprocess.Popen | None = None
        self.links: dict[str, str] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        config = json.dumps(
            dict(
                queries=QUERIES,
                docs=DOCS,
                pools=POOLS,
                assessors=self.assessors,
                overlap=self.overlap,
                selector=self.selector,
                options=self.options,
            )
        )
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "server.py"), self.store, str(self.port), config],
            stdout=subprocess.PIPE,
            text=True,
            cwd=self.folder,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.links = json.loads(self.process.stdout.readline())
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the judging server did not start")

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def server(tmp_path):
    made = []

    def make(assessors=("alice", "bob"), overlap=0.0, selector="all", store=None, **options) -> Server:
        """A started server on ``store`` (a SQLite file or a PostgreSQL URL; by default a new file); ``options``:
        more keywords of ``open_desk``."""
        s = Server(store or str(tmp_path / "effort.sqlite"), tmp_path, list(assessors), overlap, selector, options)
        s.start()
        made.append(s)
        return s

    yield make
    for s in made:
        s.stop()
