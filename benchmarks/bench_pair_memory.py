"""Benchmark: peak memory of the ``all`` and ``random`` selectors on a pool of 10,000 documents, 50 questions.

Each case runs in a fresh process: one query whose pool holds 5,000 docs (12,497,500 pairs: numpy's permutation of
every pair, kept as 4-byte indices, 50 MB) or 10,000 docs (49,995,000 pairs: beyond 2^24 pairs, the lazy shuffle),
the runner with the simulated judge and an on-disk store, a budget of 50 questions. Printed: the process's peak RSS,
the RSS of the same process after its imports (the floor) and their ratio, and the seconds. Target: peak under
300 MB (with a list of pairs: past 2 GB within 10 s; with numpy's permutation at 10,000 docs: 330 MB).

    python benchmarks/bench_pair_memory.py [--docs 5000 10000] [--questions 50]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CASE = """
import json, os, resource, sys, tempfile, time
from ir_pref_measures.judging import runner
from ir_pref_measures.judging.judges import SimulatedJudge
from ir_pref_measures.judging.selectors import AllPairs, random_pairs
from ir_pref_measures.judging.store import Store

def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

name, docs, questions = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
grades = {"q": {f"d{d:05d}": float(d % 4) for d in range(docs)}}
pools = {"q": sorted(grades["q"])}
floor = rss_mb()
start = time.perf_counter()
selector = AllPairs(pools, 1) if name == "all" else random_pairs(pools, 1, 1)
with tempfile.TemporaryDirectory() as folder, Store(os.path.join(folder, "e.sqlite")) as store:
    report = runner.run(store, selector, SimulatedJudge(grades), budget=questions)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"asked": report.asked, "floor": floor, "peak": peak, "seconds": seconds}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, nargs="+", default=[5_000, 10_000])
    parser.add_argument("--questions", type=int, default=50)
    args = parser.parse_args()
    for docs in args.docs:
        pairs = docs * (docs - 1) // 2
        for name in ("all", "random"):
            done = subprocess.run(
                [sys.executable, "-c", CASE, name, str(docs), str(args.questions)],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            found = json.loads(done.stdout.splitlines()[-1])
            print(
                f"selector {name:6s} pool {docs:,} docs ({pairs:,} pairs), {found['asked']} questions: "
                f"peak RSS {found['peak']:.0f} MB (after imports {found['floor']:.0f} MB, "
                f"x{found['peak'] / found['floor']:.2f}), {found['seconds']:.2f} s (target < 300 MB)"
            )


if __name__ == "__main__":
    main()
