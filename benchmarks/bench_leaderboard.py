"""Benchmark: Bradley-Terry leaderboards on 100 systems x 1,000,000 battles (seeded, from known strengths).

Times, each in a fresh process with its peak RSS: reading the battle file (``qid system_a system_b winner``, the
floor every rating pays); ratings without intervals from the file (``rate(path, rounds=0)``: read, encode, count,
check identifiability, Newton solve), and its rating step alone on battles already read; 1,000 bootstrap rounds
over battles and over queries (``rate(path, rounds=1000)``, reading included); and, as the peer, FastChat's
``compute_bt`` (L-BFGS-B, its defaults) on the same battles when its source is found (a git mirror of
lm-sys/FastChat). Ratios are against the reading floor and FastChat; the rating gap to FastChat is printed too.

    python benchmarks/bench_leaderboard.py [--systems 100] [--battles 1000000] [--rounds 1000] [--fastchat GIT_DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

CHILD = r"""
import json, resource, sys, time
import numpy as np
what, path, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
start = time.perf_counter()
if what == "read":
    from ir_pref_measures.parsing.battles import read_battles
    out = {"rows": len(read_battles(path))}
elif what == "fit":  # the rating step alone, on battles already read
    from ir_pref_measures.leaderboards import ratings
    from ir_pref_measures.leaderboards.boards import encoded
    from ir_pref_measures.parsing.battles import read_battles
    table = read_battles(path)
    start = time.perf_counter()
    names, a, b, _ = encoded(table)
    points = ratings.points_matrix(a, b, table["outcome"].to_numpy(), table["weight"].to_numpy(), len(names))
    ratings.check_identifiable(points, names)
    out = {"ratings": dict(zip(names, ratings.elo_scale(ratings.bradley_terry(points)).tolist()))}
elif what == "fastchat":
    import importlib.util
    import pandas as pd
    spec = importlib.util.spec_from_file_location("rating_systems", sys.argv[4])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    frame = pd.read_csv(path, sep=" ", header=None, names=["q", "model_a", "model_b", "winner"], dtype=str)
    frame["winner"] = frame["winner"].map({"a": "model_a", "b": "model_b", "tie": "tie"})
    ratings = module.compute_bt(frame)
    out = {"ratings": {str(k): float(v) for k, v in ratings.items()}}
else:
    from ir_pref_measures.leaderboards.boards import rate
    result = rate(path, rounds=rounds, resample=what)
    out = {"ratings": dict(zip(result.names, result.rating.tolist()))}
out["seconds"] = time.perf_counter() - start
out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def make_battles(path: Path, systems: int, battles: int, queries: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    beta = rng.normal(0.0, 1.0, systems)
    a = rng.integers(0, systems, battles)
    b = (a + rng.integers(1, systems, battles)) % systems
    p = 1.0 / (1.0 + np.exp(beta[b] - beta[a]))
    u = rng.random(battles)
    winner = np.where(u < 0.1, "tie", np.where(rng.random(battles) < p, "a", "b"))
    names = np.array([f"system{k:03d}" for k in range(systems)], dtype=object)
    frame = pd.DataFrame({"q": rng.integers(0, queries, battles), "a": names[a], "b": names[b], "winner": winner})
    frame.to_csv(path, sep=" ", header=False, index=False)


def child(what: str, path: Path, rounds: int = 0, source: str = "") -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, what, str(path), str(rounds), source], capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=100)
    parser.add_argument("--battles", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--fastchat", default="/work/.mirror/lm-sys+FastChat/repo")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "battles.txt"
        make_battles(path, args.systems, args.battles, args.queries)
        print(f"{args.systems} systems x {args.battles:,} battles ({args.queries} queries), {args.rounds} rounds")
        results = {"read the battle file (floor)": child("read", path)}
        results["ratings (rounds=0)"] = child("battles", path, 0)
        results["  of which the rating step (read excluded)"] = child("fit", path)
        results[f"ratings + {args.rounds} rounds over battles"] = child("battles", path, args.rounds)
        results[f"ratings + {args.rounds} rounds over queries"] = child("queries", path, args.rounds)
        source = Path(folder) / "rating_systems.py"
        shown = subprocess.run(
            ["git", "-C", args.fastchat, "show", "HEAD:fastchat/serve/monitor/rating_systems.py"], capture_output=True
        )
        if shown.returncode == 0:
            source.write_bytes(shown.stdout)
            results["FastChat compute_bt (peer)"] = child("fastchat", path, 0, str(source))
    floor = results["read the battle file (floor)"]["seconds"]
    peer = results.get("FastChat compute_bt (peer)", {}).get("seconds")
    print(f"{'':45s} {'seconds':>8s} {'x floor':>8s} {'x FastChat':>10s} {'peak RSS MB':>12s}")
    for name, result in results.items():
        ratio = f"{result['seconds'] / peer:10.2f}" if peer else f"{'':10s}"
        print(f"{name:45s} {result['seconds']:8.2f} {result['seconds'] / floor:8.2f} {ratio} {result['rss_mb']:12.0f}")
    if peer:
        ours, theirs = results["ratings (rounds=0)"]["ratings"], results["FastChat compute_bt (peer)"]["ratings"]
        gap = max(abs(ours[k] - theirs[k]) for k in ours)
        print(f"largest rating difference to FastChat's compute_bt: {gap:.2e} Elo points")


if __name__ == "__main__":
    main()
