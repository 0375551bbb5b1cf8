"""Benchmark: the LLM judge's throughput against a loopback OpenAI-compatible server that answers every request
after a fixed delay (tests/judging/chat_server.py, run in its own process: it shares the machine, not the GIL).

``--judgments`` prompts (pairs asked in both orders: half as many pairs) at ``--concurrency`` requests in flight,
each answered after ``--delay`` seconds: the ideal is judgments x delay / concurrency. Prints the wall time, the
ratio to the ideal (the target is under 2), the judge's own CPU time per judgment, its peak RSS and the
machine's load average.

    python benchmarks/bench_llm_judge.py [--judgments 10000] [--concurrency 32] [--delay 0.05]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from harness import peak_rss_mb

SERVER = Path(__file__).resolve().parent.parent / "tests" / "judging" / "chat_server.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--judgments", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--delay", type=float, default=0.05)
    args = parser.parse_args()

    from ir_pref_measures.judging.llm import LLMJudge
    from ir_pref_measures.judging.protocol import Pair
    from ir_pref_measures.judging.texts import QueryText, Texts

    docs = {f"d{k}": f"passage {k} " * (1 + k % 7) for k in range(200)}
    queries = {f"q{k}": QueryText(f"question {k}?") for k in range(50)}
    pairs = [Pair(f"q{k % 50}", f"d{k % 200}", f"d{(k * 7 + 1) % 200}") for k in range(args.judgments // 2)]
    server = subprocess.Popen(
        [sys.executable, str(SERVER), "--delay", str(args.delay)], stdout=subprocess.PIPE, text=True
    )
    try:
        url = server.stdout.readline().strip()
        judge = LLMJudge(Texts(queries, docs), model="bench", base_url=url, concurrency=args.concurrency)
        judge.judge(pairs[:1])  # the client's imports and first connection, outside the timed part
        judge.usage.__init__()
        cpu, start = time.process_time(), time.perf_counter()
        answers = judge.judge(pairs)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    finally:
        server.terminate()
        server.wait()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    ideal = len(answers) * args.delay / args.concurrency
    assert len(answers) == len(pairs) * 2 and judge.usage.failed == 0, judge.usage
    print(f"{len(answers)} judgments, concurrency {args.concurrency}, server delay {args.delay * 1000:g} ms")
    print(f"wall {wall:.2f} s, ideal {ideal:.2f} s, ratio {wall / ideal:.2f} (target < 2)")
    print(f"judge CPU {cpu:.2f} s ({cpu / len(answers) * 1000:.2f} ms per judgment), retries {judge.usage.retries}")
    print(f"server CPU {children.ru_utime + children.ru_stime:.2f} s (the whole run, in its own process)")
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other work slows the ratio down)")


if __name__ == "__main__":
    main()
