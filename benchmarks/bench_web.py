"""Benchmark: the judging web interface under twenty assessors, a kill and a restart.

A synthetic effort (``--queries`` queries of ``--docs`` documents, graded at random) is planned with the
rating-driven selector, served by ``ir-pref-measures judge serve`` in its own process, and answered by ``--assessors``
HTTP clients (threads of this process, one keep-alive connection each, the standard library's ``http.client``: a
light client, so that the clients' own GIL adds little to the times) for ``--seconds``, while one more client, in a
process of its own, fetches the page's static files (the stylesheet and the script, as a browser without a cache
would) every 20 ms; the server is then killed (SIGKILL), restarted on the same store, and answered for
``--seconds`` more. Prints the answers per second, the latency of "next pair" (the assessor page: p50, p99, max)
and of the static files, the answers acknowledged and stored (equal when nothing is lost or doubled), the server's
peak RSS and the machine's load average at the start and the end (the clients share its cores), and, at the
standard size (the defaults), appends them as one run to ``benchmarks/results/web.json``.

``--store URL`` keeps the effort in an empty PostgreSQL database in place of a new SQLite file. ``--code PATH``
serves the package of another checkout (a worktree of an older commit: ``PYTHONPATH=PATH``), so that two versions
are measured alternately on the same loaded machine; ``--label`` names the run.

    python benchmarks/bench_web.py [--assessors 20] [--seconds 60] [--queries 20] [--docs 200] [--label after]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import numpy as np

FIELD = re.compile(r'name="(csrf|assignment)" value="([^"]*)"')
RESULTS = Path(__file__).parent / "results" / "web.json"
STATIC = ("/static/style.css", "/static/judge.js")


def start(command: list[str], cwd: str, env: dict[str, str]) -> tuple[subprocess.Popen, dict[str, str]]:
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=cwd, env=env)
    expected = 1 + len(command) - command.index("--assessors") - 1  # the admin and every assessor
    links = dict(server.stderr.readline().rstrip("\n").split("\t") for _ in range(expected))
    url = links["admin"].split("/admin/")[0]
    host, port = url.removeprefix("http://").split(":")
    for _ in range(300):
        try:
            socket.create_connection((host, int(port)), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    return server, links


class Client:
    """One keep-alive HTTP/1.1 connection (reconnected after a failure)."""

    def __init__(self, base: str) -> None:
        self.host, port = base.removeprefix("http://").split(":")
        self.port = int(port)
        self.connection: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: str | None = None) -> tuple[int, str]:
        if self.connection is None:
            self.connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if body is not None else {}
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
            return response.status, response.read().decode()
        except (OSError, http.client.HTTPException):
            self.connection.close()
            self.connection = None
            raise


def assessor(link: str, stop: threading.Event, latencies: list, given: list) -> None:
    base, token = link.split("/a/")
    client = Client(base)
    k = 0
    while not stop.is_set():
        try:
            t0 = time.perf_counter()
            _, page = client.request("GET", f"/a/{token}")
            latencies.append(time.perf_counter() - t0)
            fields = dict(FIELD.findall(page))
            if "assignment" not in fields:
                return
            k += 1
            form = urlencode({**fields, "answer": ("left", "right", "tie")[k % 3]})
            if client.request("POST", f"/a/{token}/answer", form)[0] == 303:
                given.append(fields["assignment"])
        except (OSError, http.client.HTTPException):
            time.sleep(0.05)


def static_files(base: str, seconds: float, out) -> None:
    """Fetch the static files in turn every 20 ms for ``seconds``, timing each (a browser without a cache); the
    times go to the queue ``out``."""
    client = Client(base)
    latencies = []
    k = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            t0 = time.perf_counter()
            if client.request("GET", STATIC[k % len(STATIC)])[0] == 200:
                latencies.append(time.perf_counter() - t0)
            k += 1
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.02)
    out.put(latencies)


def percentiles(seconds: list[float]) -> dict[str, float]:
    ms = np.asarray(seconds) * 1000
    if not len(ms):
        return {"n": 0}
    return {
        "n": len(ms),
        "p50_ms": round(float(np.percentile(ms, 50)), 1),
        "p99_ms": round(float(np.percentile(ms, 99)), 1),
        "max_ms": round(float(ms.max()), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--assessors", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--label", default="", help="the run's name in the results (e.g. before, after)")
    parser.add_argument("--code", default=None, help="serve the package of this checkout (PYTHONPATH)")
    parser.add_argument("--no-save", action="store_true", help="print only; do not append to the results")
    parser.add_argument("--store", default=None, help="an empty PostgreSQL database's URL (default: a SQLite file)")
    args = parser.parse_args()
    folder = tempfile.mkdtemp()
    rng = np.random.default_rng(0)
    with open(os.path.join(folder, "qrels.txt"), "w") as out:
        for q in range(args.queries):
            for d in range(args.docs):
                out.write(f"q{q} 0 q{q}d{d} {rng.integers(1, 4)}\n")
    Path(folder, "queries.tsv").write_text("".join(f"q{q}\tquestion {q}\n" for q in range(args.queries)))
    Path(folder, "docs.tsv").write_text(
        "".join(f"q{q}d{d}\tpassage {d} of question {q}\n" for q in range(args.queries) for d in range(args.docs))
    )
    env = dict(os.environ)
    if args.code:
        env["PYTHONPATH"] = os.path.abspath(args.code) + os.pathsep + env.get("PYTHONPATH", "")
    commit = subprocess.run(
        ["git", "-C", args.code or str(Path(__file__).parent), "rev-parse", "--short", "HEAD"],
        capture_output=True, text=True, check=False,
    ).stdout.strip()  # fmt: skip
    store = args.store or os.path.join(folder, "effort.sqlite")
    kind = "PostgreSQL" if args.store else "SQLite"
    cli = [sys.executable, "-m", "ir_pref_measures", "judge"]
    plan = [*cli, "plan", store, "--selector", "rating", "--qrels", "qrels.txt"]
    subprocess.run(plan, cwd=folder, check=True, env=env)
    names = [f"assessor{i:02d}" for i in range(args.assessors)]
    serve = [*cli, "serve", store, "--queries", "queries.tsv", "--docs", "docs.tsv", "--port", str(args.port)]
    serve += ["--overlap", "0.1", "--assessors", *names]
    latencies: list[float] = []
    static: list[float] = []
    given: list[str] = []
    peak = 0
    load_start = os.getloadavg()
    server, links = start(serve, folder, env)
    base = links["admin"].split("/admin/")[0]
    t0 = time.perf_counter()
    for phase in range(2):
        stop = threading.Event()
        threads = [threading.Thread(target=assessor, args=(links[n], stop, latencies, given)) for n in names]
        out = multiprocessing.get_context("fork").Queue()
        probe = multiprocessing.get_context("fork").Process(target=static_files, args=(base, args.seconds - 0.5, out))
        probe.start()
        for t in threads:
            t.start()
        time.sleep(args.seconds)
        static += out.get()
        probe.join()
        if phase == 0:
            peak = max(peak, _rss_kb(server.pid))
            server.send_signal(signal.SIGKILL)
            server.wait()
            stop.set()
            for t in threads:
                t.join()
            server, links = start(serve, folder, env)
        else:
            stop.set()
            for t in threads:
                t.join()
    wall = time.perf_counter() - t0
    load_end = os.getloadavg()
    peak = max(peak, _rss_kb(server.pid))
    server.terminate()
    server.wait()
    db = psycopg_connect(store) if args.store else sqlite3.connect(store)
    stored = db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
    distinct = db.execute("SELECT COUNT(*) FROM (SELECT DISTINCT request_id, assessor FROM answers) AS d").fetchone()[0]
    db.close()
    run = {
        "label": args.label,
        "commit": commit,
        "date": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "inputs": f"{args.assessors} assessors, {args.queries} queries x {args.docs} docs, rating selector, "
        f"overlap 0.1, {args.seconds:.0f} s + kill -9 + {args.seconds:.0f} s, {kind}",
        "load_average_start": [round(x, 2) for x in load_start],
        "load_average_end": [round(x, 2) for x in load_end],
        "cores": os.cpu_count(),
        "answers_acknowledged": len(given),
        "answers_stored": stored,
        "answers_doubled": stored - distinct,
        "answers_per_second": round(len(given) / wall, 1),
        "next_pair": percentiles(latencies),
        "static": percentiles(static),
        "server_peak_rss_mb": round(peak / 1024),
    }
    n, s = run["next_pair"], run["static"]
    print(f"{run['label'] or 'run'} ({commit}): {run['inputs']}")
    rate = run["answers_per_second"]
    print(f"answers acknowledged {len(given)}, stored {stored}, {rate} answers/s over {wall:.0f} s")
    print(f"next pair: p50 {n.get('p50_ms')} ms, p99 {n.get('p99_ms')} ms, max {n.get('max_ms')} ms")
    print(f"static files: p50 {s.get('p50_ms')} ms, p99 {s.get('p99_ms')} ms, max {s.get('max_ms')} ms ({s['n']})")
    print(f"server peak RSS {run['server_peak_rss_mb']} MB; load average {load_start[0]:.1f} -> {load_end[0]:.1f}")
    standard = (args.assessors, args.seconds, args.queries, args.docs) == (20, 60, 20, 200)
    if standard and not args.no_save:  # a smaller size is a smoke test: printed, never saved
        runs = json.loads(RESULTS.read_text())["runs"] if RESULTS.exists() else []
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps({"name": "web", "runs": [*runs, run]}, indent=1) + "\n")


def psycopg_connect(url: str):
    import psycopg

    return psycopg.connect(url, autocommit=True)


def _rss_kb(pid: int) -> int:
    """The peak resident set (VmHWM) of process ``pid``, in kB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


if __name__ == "__main__":
    main()
