"""Benchmark: judge agreement beside the floor (reading the files) and the direct way (dictionaries, then
scikit-learn's ``cohen_kappa_score`` and ``krippendorff.alpha`` once per bootstrap resample).

Inputs: TREC DL 2021, 11,681 crowd judgments (``winner``) against GPT-4o's judging log of the same pairs, from
``../shared/testdata`` (or ``IR_PREF_MEASURES_TESTDATA``); and a seeded synthetic input (``--queries`` queries x
100 docs, four judges of ``--votes`` votes per query each). Every variant runs in a fresh process and reports
wall time (files read inside the timed part) and peak RSS; ratios are against the floor on the same input.

    python benchmarks/bench_judges.py [--queries 200] [--votes 2000] [--samples 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from harness import peak_rss_mb

HERE = Path(__file__).resolve().parent
TESTDATA = Path(os.environ.get("IR_PREF_MEASURES_TESTDATA", HERE.parent.parent / "shared" / "testdata"))
DL21 = {
    "people": TESTDATA / "dueling_bandits_dl2021" / "judgments.txt",
    "gpt4o": TESTDATA / "dl_llm_prefs_arabzadeh" / "llm_pref_judgments" / "DL2021" / "judge.human",
}
VARIANTS = ("floor: read the files", "ours: align, agreement, reliability, diagnostics", "direct: dicts + libraries")


def make_synthetic(folder: Path, queries: int, votes: int) -> dict[str, Path]:
    """Four judges (``winner`` files) of ``votes`` random pairs per query among 100 docs, agreeing 70 %."""
    rng = np.random.default_rng(0)
    truth = rng.random((queries, 100))
    paths = {}
    for judge in range(4):
        q = np.repeat(np.arange(queries), votes)
        a, b = rng.integers(0, 100, (2, len(q)))
        b = np.where(a == b, (b + 1) % 100, b)
        right = truth[q, a] > truth[q, b]
        a_wins = np.where(rng.random(len(q)) < 0.7, right, ~right)
        columns = zip(q.tolist(), a.tolist(), b.tolist(), a_wins, strict=True)
        lines = [f"q{x} d{y} d{z} d{y if w else z}\n" for x, y, z, w in columns]
        paths[f"j{judge}"] = folder / f"judge{judge}.txt"
        paths[f"j{judge}"].write_text("".join(lines))
    return paths


def _direct_labels(path: Path) -> dict:
    votes = defaultdict(Counter)
    for line in open(path):
        parts = line.split()
        if parts[0] == "@":
            _, query, a, b, verdict = parts
            if verdict == "?":
                continue
            label = 1 if verdict == "!" else 0
        else:
            query, a, b, winner = parts
            label = 1 if winner == a else -1
        key, label = ((query, a, b), label) if a < b else ((query, b, a), -label)
        votes[key][label] += 1
    out = {}
    for key, counter in votes.items():
        top = max(counter.values())
        winners = [label for label, count in counter.items() if count == top]
        out[key] = winners[0] if len(winners) == 1 else 0
    return out


def measure_one(variant: str, paths: dict[str, str], samples: int) -> dict:
    """One variant, timed after its imports (scipy.stats alone takes seconds to import)."""
    import krippendorff
    import scipy.stats  # noqa: F401  (imported by the diagnostics)
    from sklearn.metrics import cohen_kappa_score

    from ir_pref_measures.agreement import panel as judges
    from ir_pref_measures.parsing.preferences import is_judging_log, judging_log_columns, preference_columns

    start = time.perf_counter()
    if variant.startswith("floor"):
        for path in paths.values():
            judging_log_columns(path) if is_judging_log(path) else preference_columns(path, "winner")
    elif variant.startswith("ours"):
        sources = {name: path if "@" in open(path).read(1) else f"winner:{path}" for name, path in paths.items()}
        aligned = judges.align(sources)
        judges.agreement(aligned, samples=samples)
        judges.reliability(aligned, samples=samples)
        judges.diagnostics(aligned)
    else:
        labels = {name: _direct_labels(Path(path)) for name, path in paths.items()}
        names = list(labels)
        rng = np.random.default_rng(0)
        for i, x in enumerate(names):
            for y in names[i + 1 :]:
                shared = sorted(labels[x].keys() & labels[y].keys())
                first = np.array([labels[x][k] for k in shared])
                second = np.array([labels[y][k] for k in shared])
                query = np.unique([k[0] for k in shared], return_inverse=True)[1]
                rows = [np.flatnonzero(query == q) for q in range(query.max() + 1)]
                for _ in range(samples + 1):  # the estimate, then the resamples of the queries
                    take = np.concatenate([rows[q] for q in rng.integers(0, len(rows), len(rows))])
                    cohen_kappa_score(first[take], second[take])
                    krippendorff.alpha(np.vstack([first[take], second[take]]).astype(float))
    seconds = time.perf_counter() - start
    return {
        "variant": variant,
        "seconds": seconds,
        "peak_rss_mb": peak_rss_mb(),
    }


def run_in_process(variant: str, paths: dict, samples: int) -> dict:
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); from bench_judges import measure_one; "
        "print(json.dumps(measure_one(sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4]))))"
    )
    args = [
        sys.executable,
        "-c",
        code,
        str(HERE),
        variant,
        json.dumps({k: str(v) for k, v in paths.items()}),
        str(samples),
    ]
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def report(title: str, paths: dict, samples: int) -> None:
    print(f"\n{title}")
    rows = [run_in_process(v, paths, samples) for v in VARIANTS]
    floor = rows[0]["seconds"]
    print(f"{'variant':<52}{'seconds':>9}{'x floor':>9}{'peak RSS MB':>13}")
    for row in rows:
        print(f"{row['variant']:<52}{row['seconds']:>9.2f}{row['seconds'] / floor:>9.1f}{row['peak_rss_mb']:>13.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--votes", type=int, default=2000)
    parser.add_argument("--samples", type=int, default=1000)
    args = parser.parse_args()
    if all(path.exists() for path in DL21.values()):
        report("TREC DL 2021: people against GPT-4o (2 judges, 11,681 lines each)", DL21, args.samples)
    with tempfile.TemporaryDirectory() as folder:
        paths = make_synthetic(Path(folder), args.queries, args.votes)
        title = f"synthetic: 4 judges x {args.queries} queries x {args.votes} votes (seeded)"
        report(title, paths, args.samples)


if __name__ == "__main__":
    main()
