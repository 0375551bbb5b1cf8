"""Benchmark: the judging web interface under twenty assessors, a kill and a restart.

A synthetic effort (``--queries`` queries of ``--docs`` documents, graded at random) is planned with the
rating-driven selector, served by ``ir-pref-measures judge serve`` in its own process, and answered by
``--assessors`` HTTP clients (threads of this process, one connection each) for ``--seconds``; the server is then
killed (SIGKILL), restarted on the same store, and answered for ``--seconds`` more. Prints the answers per second,
the latency of "next pair" (the assessor page: p50, p99, max), the answers acknowledged and stored (equal when
nothing is lost or doubled), the server's peak RSS and the machine's load average (the clients share its cores).

    python benchmarks/bench_web.py [--assessors 20] [--seconds 60] [--queries 20] [--docs 200]
"""

from __future__ import annotations

import argparse
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

import httpx
import numpy as np

FIELD = re.compile(r'name="(csrf|assignment)" value="([^"]*)"')


def start(command: list[str], cwd: str) -> tuple[subprocess.Popen, dict[str, str]]:
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=cwd)
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


def assessor(link: str, stop: threading.Event, latencies: list, given: list) -> None:
    base, token = link.split("/a/")
    with httpx.Client(base_url=base, timeout=30) as client:
        k = 0
        while not stop.is_set():
            try:
                t0 = time.perf_counter()
                page = client.get(f"/a/{token}")
                latencies.append(time.perf_counter() - t0)
                fields = dict(FIELD.findall(page.text))
                if "assignment" not in fields:
                    return
                k += 1
                answer = ("left", "right", "tie")[k % 3]
                if client.post(f"/a/{token}/answer", data={**fields, "answer": answer}).status_code == 303:
                    given.append(fields["assignment"])
            except httpx.TransportError:
                time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--assessors", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--port", type=int, default=8765)
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
    store = os.path.join(folder, "effort.sqlite")
    cli = [sys.executable, "-m", "ir_pref_measures", "judge"]
    subprocess.run([*cli, "plan", store, "--selector", "rating", "--qrels", "qrels.txt"], cwd=folder, check=True)
    names = [f"assessor{i:02d}" for i in range(args.assessors)]
    serve = [*cli, "serve", store, "--queries", "queries.tsv", "--docs", "docs.tsv", "--port", str(args.port)]
    serve += ["--overlap", "0.1", "--assessors", *names]
    latencies: list[float] = []
    given: list[str] = []
    peak = 0
    server, links = start(serve, folder)
    t0 = time.perf_counter()
    for phase in range(2):
        stop = threading.Event()
        threads = [threading.Thread(target=assessor, args=(links[n], stop, latencies, given)) for n in names]
        for t in threads:
            t.start()
        time.sleep(args.seconds)
        if phase == 0:
            peak = max(peak, _rss_kb(server.pid))
            server.send_signal(signal.SIGKILL)
            server.wait()
            stop.set()
            for t in threads:
                t.join()
            server, links = start(serve, folder)
        else:
            stop.set()
            for t in threads:
                t.join()
    wall = time.perf_counter() - t0
    peak = max(peak, _rss_kb(server.pid))
    server.terminate()
    server.wait()
    with sqlite3.connect(store) as db:
        stored = db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
    ms = np.asarray(latencies) * 1000
    print(f"assessors {args.assessors}, {args.queries} queries x {args.docs} docs, rating-driven selector")
    print(f"answers acknowledged {len(given)}, stored {stored}, {len(given) / wall:.1f} answers/s over {wall:.0f} s")
    print(f"next pair: p50 {np.percentile(ms, 50):.1f} ms, p99 {np.percentile(ms, 99):.1f} ms, max {ms.max():.1f} ms")
    print(f"server peak RSS {peak / 1024:.0f} MB; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def _rss_kb(pid: int) -> int:
    """The peak resident set (VmHWM) of process ``pid``, in kB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


if __name__ == "__main__":
    main()
