"""Benchmark: the LLM judge's throughput against a loopback OpenAI-compatible server that answers every request
after a fixed delay (tests/judging/chat_server.py, run in its own process: it shares the machine, not the GIL).

Three parts, each against the ideal: prompts x delay / concurrency.

* **library**: ``LLMJudge.judge`` asked ``--judgments`` prompts (pairs in both orders) at ``--concurrency``;
* **command line**: ``ir-pref-measures judge run --judge llm`` on an effort of the ``all`` selector with as many
  prompts (queries of 15 docs, 210 prompts each), the whole command timed (start-up, texts, store), and its
  judging alone (the first question stored to the last answer stored);
* **in flight**: ``judge run`` with the ``insertion`` selector (one question a query a round) on ``--queries``
  queries at ``--inflight-concurrency``, each answer after ``--inflight-delay`` seconds; the server's requests in
  flight are sampled every 0.1 s, and the share of samples at ``--target`` or more printed (queries pipelined:
  a query's next round starts when its own answers are in).

Prints each ratio to the ideal (the target: under 1.5), CPU times, peak RSS and the load average; saved to
``benchmarks/results/llm_judge.json`` (not at ``--quick``).

    python benchmarks/bench_llm_judge.py [--judgments 2000] [--concurrency 32] [--delay 0.05] [--queries 300]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from harness import Report, peak_rss_mb, run_child

SERVER = Path(__file__).resolve().parent.parent / "tests" / "judging" / "chat_server.py"
DOCS_PER_QUERY = 15  # the command line's effort: all pairs of 15 docs, 210 prompts a query


def serve(delay: float) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen([sys.executable, str(SERVER), "--delay", str(delay)], stdout=subprocess.PIPE, text=True)
    return server, server.stdout.readline().strip()


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    server.wait()


def library(args) -> tuple[float, int, float]:
    """Wall seconds, prompts and judge CPU seconds of ``LLMJudge.judge``."""
    from ir_pref_measures.judging.judges.llm import LLMJudge
    from ir_pref_measures.judging.protocol import Pair
    from ir_pref_measures.judging.texts import QueryText, Texts

    docs = {f"d{k}": f"passage {k} " * (1 + k % 7) for k in range(200)}
    queries = {f"q{k}": QueryText(f"question {k}?") for k in range(50)}
    pairs = [Pair(f"q{k % 50}", f"d{k % 200}", f"d{(k * 7 + 1) % 200}") for k in range(args.judgments // 2)]
    server, url = serve(args.delay)
    try:
        judge = LLMJudge(Texts(queries, docs), model="bench", base_url=url, concurrency=args.concurrency)
        judge.judge(pairs[:1])  # the client's imports and first connection, outside the timed part
        judge.usage.__init__()
        cpu, start = time.process_time(), time.perf_counter()
        answers = judge.judge(pairs)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    finally:
        stop(server)
    assert len(answers) == len(pairs) * 2 and judge.usage.failed == 0, judge.usage
    return wall, len(answers), cpu


def effort(folder: Path, queries: int, docs: int, selector: str) -> list[str]:
    """An effort of ``selector`` over ``queries`` x ``docs`` graded docs in ``folder``; the texts' options."""
    with open(folder / "qrels.txt", "w") as qrels, open(folder / "queries.tsv", "w") as texts:
        for q in range(queries):
            texts.write(f"q{q}\tquestion {q}?\n")
            qrels.writelines(f"q{q} 0 q{q}d{d} {1 + (d * 7 + q) % 4}\n" for d in range(docs))
    with open(folder / "docs.tsv", "w") as texts:
        texts.writelines(
            f"q{q}d{d}\tpassage {d} of {q} {'words ' * (d % 5)}\n" for q in range(queries) for d in range(docs)
        )
    store = folder / "effort.sqlite"
    command = [sys.executable, "-m", "ir_pref_measures", "judge", "plan", str(store), "--selector", selector]
    subprocess.run([*command, "--qrels", str(folder / "qrels.txt")], check=True, capture_output=True)
    return [f"queries={folder / 'queries.tsv'}", f"documents={folder / 'docs.tsv'}"]


def judge_run(folder: Path, url: str, concurrency: int, texts: list[str]):
    options = ["model=bench", f"base_url={url}", f"concurrency={concurrency}", *texts]
    command = ["ir-pref-measures", "judge", "run", str(folder / "effort.sqlite"), "--judge", "llm"]
    return run_child(command + [a for o in options for a in ("--option", o)], folder, timeout=3600)


def judging_seconds(store: Path) -> tuple[float, int]:
    """Seconds from the first question stored to the last answer stored, and the answers."""
    with sqlite3.connect(store) as db:
        (first,) = db.execute("SELECT MIN(asked_at) FROM requests").fetchone()
        last, count = db.execute("SELECT MAX(answered_at), COUNT(*) FROM answers").fetchone()
    return last - first, count


def command_line(args, folder: Path) -> tuple[object, float, int]:
    texts = effort(folder, args.judgments // (DOCS_PER_QUERY * (DOCS_PER_QUERY - 1)), DOCS_PER_QUERY, "all")
    server, url = serve(args.delay)
    try:
        child = judge_run(folder, url, args.concurrency, texts)
    finally:
        stop(server)
    judging, prompts = judging_seconds(folder / "effort.sqlite")
    return child, judging, prompts


def in_flight(args, folder: Path) -> tuple[object, list[int], int]:
    """The insertion run and the server's requests in flight, sampled every 0.1 s while it runs."""
    texts = effort(folder, args.queries, args.docs, "insertion")
    server, url = serve(args.inflight_delay)
    samples: list[int] = []
    running = threading.Event()
    running.set()

    def sample() -> None:
        while running.is_set():
            with urllib.request.urlopen(url + "/stats") as reply:
                samples.append(json.load(reply)["in_flight"])
            time.sleep(0.1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        child = judge_run(folder, url, args.inflight_concurrency, texts)
    finally:
        running.clear()
        sampler.join()
        stop(server)
    _, prompts = judging_seconds(folder / "effort.sqlite")
    busy = samples[next((i for i, n in enumerate(samples) if n), 0) :]  # from the first request on
    return child, busy, prompts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--judgments", type=int, default=2000, help="prompts of the library and command-line parts")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--delay", type=float, default=0.05, help="seconds the server takes per answer")
    parser.add_argument("--queries", type=int, default=300, help="in flight: queries of the insertion effort")
    parser.add_argument("--docs", type=int, default=6, help="in flight: docs a query")
    parser.add_argument("--inflight-concurrency", type=int, default=320)
    parser.add_argument("--inflight-delay", type=float, default=1.0)
    parser.add_argument("--target", type=int, default=256, help="in flight: requests in flight sought")
    parser.add_argument("--quick", action="store_true", help="a smoke test's size; nothing saved")
    args = parser.parse_args()
    if args.quick:
        args.judgments, args.concurrency, args.delay = 100, 4, 0.001
        args.queries, args.docs, args.inflight_concurrency, args.inflight_delay, args.target = 8, 4, 8, 0.05, 8
    queries = max(1, round(args.judgments / (DOCS_PER_QUERY * (DOCS_PER_QUERY - 1))))
    args.judgments = queries * DOCS_PER_QUERY * (DOCS_PER_QUERY - 1)  # both parts ask the same number of prompts
    load_start = os.getloadavg()[0]
    report = Report("llm_judge", "", floor="ideal", quick=args.quick)
    wall, prompts, cpu = library(args)
    ideal = prompts * args.delay / args.concurrency
    report.add("ideal: prompts x delay / concurrency", ideal, 0.0, floor="ideal: prompts x delay / concurrency")
    report.floor = "ideal: prompts x delay / concurrency"
    report.add("library: LLMJudge.judge", wall, peak_rss_mb(), cpu=cpu)
    print(f"library: {prompts} prompts at concurrency {args.concurrency}, server delay {args.delay * 1000:g} ms")
    print(f"  wall {wall:.2f} s, ideal {ideal:.2f} s, ratio {wall / ideal:.2f} (target < 1.5); CPU {cpu:.2f} s")
    with tempfile.TemporaryDirectory() as folder:
        child, judging, cli_prompts = command_line(args, Path(folder))
    assert cli_prompts == prompts, (cli_prompts, prompts)
    report.add("command line: judge run, the whole command", child.seconds, child.peak_mb, cpu=child.cpu)
    report.add("command line: judge run, its judging", judging, child.peak_mb)
    print(f"command line: {prompts} prompts (the all selector), whole command {child.seconds:.2f} s, ratio ", end="")
    print(f"{child.seconds / ideal:.2f} (target < 1.5); CPU {child.cpu:.2f} s")
    print(f"  its judging (first question to last answer stored) {judging:.2f} s, ratio {judging / ideal:.2f}")
    with tempfile.TemporaryDirectory() as folder:
        child, busy, flight_prompts = in_flight(args, Path(folder))
    share = sum(n >= args.target for n in busy) / max(1, len(busy))
    print(
        f"in flight: insertion on {args.queries} queries x {args.docs} docs, {flight_prompts} prompts at concurrency "
        f"{args.inflight_concurrency}, server delay {args.inflight_delay * 1000:g} ms: {child.seconds:.1f} s"
    )
    print(
        f"  {len(busy)} samples: {share:.0%} at {args.target} or more in flight (median "
        f"{sorted(busy)[len(busy) // 2] if busy else 0}, max {max(busy, default=0)})"
    )
    report.inputs = f"{prompts} prompts at concurrency {args.concurrency}, server delay {args.delay * 1000:g} ms"
    report.inputs += f"; in flight: insertion on {args.queries} queries at concurrency {args.inflight_concurrency}, "
    report.inputs += f"{share:.0%} of {len(busy)} samples at >= {args.target}"
    print(f"load average {load_start:.1f} at start, {os.getloadavg()[0]:.1f} at end, on {os.cpu_count()} cores")
    report.save()


if __name__ == "__main__":
    main()
