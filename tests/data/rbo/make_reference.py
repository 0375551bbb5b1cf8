"""Record reference values of tie-aware RBO for ``tests/measures/test_tied_rbo.py``: ``reference.csv.gz`` beside
this script.

Seeded ranking pairs with ties are drawn here (correlated scores rounded to a few levels, so equal scores tie;
each ranking cut at its own length, 1 to 40; p from 0.5 to 0.99; some pairs disjoint, fully tied or equal), and
the reference implementation of Corsi and Urbano (SIGIR 2024), ``rbo/Python/rbo.py`` of
github.com/julian-urbano/sigir2024-rbo (MIT), computes the 12 values of each pair (three variants x ext, min,
max, res). The reference file is read from a local git mirror of that repository into a temporary folder at run
time; it is never stored here. Run from anywhere::

    python tests/data/rbo/make_reference.py --repo /work/.mirror/julian-urbano+sigir2024-rbo/repo

The first line of the output names the repository commit whose ``rbo.py`` made the values.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SCORES = ("ext", "min", "max", "res")


def reference_module(repo: str):
    """Import ``rbo/Python/rbo.py`` of the mirror's HEAD from a temporary copy; returns (module, commit)."""
    commit = subprocess.run(
        ["git", "--git-dir", repo, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    source = subprocess.run(
        ["git", "--git-dir", repo, "show", f"{commit}:rbo/Python/rbo.py"], check=True, capture_output=True, text=True
    ).stdout
    folder = Path(tempfile.mkdtemp(prefix="sigir2024_rbo_"))
    (folder / "rbo_reference.py").write_text(source)
    spec = importlib.util.spec_from_file_location("rbo_reference", folder / "rbo_reference.py")
    module = importlib.util.module_from_spec(spec)
    if not hasattr(np, "in1d"):  # removed from numpy 2.4; the reference calls it once, as np.isin
        np.in1d = np.isin
    spec.loader.exec_module(module)
    return module, commit


def draw_pair(rng: np.random.Generator) -> tuple[str, str, float]:
    """Two rankings (the reference's string form) of correlated, rounded scores, and a persistence p."""
    n = int(rng.integers(2, 60))
    rho = rng.uniform(-0.9, 0.99)
    base = rng.standard_normal(n)
    scores = [base, rho * base + np.sqrt(1 - rho**2) * rng.standard_normal(n)]
    kind = rng.random()
    rankings = []
    for k, score in enumerate(scores):
        levels = int(rng.choice([1, 2, 3, 5, 8, 20, 1000])) if kind > 0.05 else 1000
        tied = np.round((score - score.min()) / (np.ptp(score) + 1e-12) * (levels - 1))
        length = int(rng.integers(1, min(n, 40) + 1))
        items = [f"{'d' if kind < 0.03 and k else 'i'}{i + 1}" for i in range(n)]  # a few disjoint pairs
        order = np.lexsort((rng.random(n), -tied))[:length]
        groups: list[tuple[list[str], float]] = []
        for i in order:
            if groups and tied[i] == groups[-1][1]:
                groups[-1][0].append(items[i])
            else:
                groups.append(([items[i]], tied[i]))
        rankings.append(" ".join(g[0] if len(g) == 1 else "(" + " ".join(g) + ")" for g, _ in groups))
    if kind > 0.97:
        rankings[1] = rankings[0]
    p = float(rng.uniform(0.5, 0.99)) if rng.random() < 0.8 else float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99]))
    return rankings[0], rankings[1], p


def main() -> None:
    if os.environ.get("PYTHONHASHSEED") != "0":  # the reference iterates sets: fix their order, and so the last bits
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default="/work/.mirror/julian-urbano+sigir2024-rbo/repo", help="git dir")
    parser.add_argument("--pairs", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=20240714)
    parser.add_argument("--out", default=str(HERE / "reference.csv.gz"))
    args = parser.parse_args()
    reference, commit = reference_module(args.repo)
    rng = np.random.default_rng(args.seed)
    header = ["x", "y", "p"] + [f"{t}.{s}" for t in "wab" for s in SCORES]
    lines = [f"# julian-urbano/sigir2024-rbo@{commit} rbo/Python/rbo.py, seed {args.seed}", ",".join(header)]
    for _ in range(args.pairs):
        x, y, p = draw_pair(rng)
        row = [x, y, repr(p)]
        for ties in "wab":
            values = reference.rbo(reference.from_string(x), reference.from_string(y), p, ties=ties)
            row += [repr(float(values[s])) for s in SCORES]
        lines.append(",".join(row))
    with open(args.out, "wb") as out, gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as packed:  # reruns: same bytes
        packed.write(("\n".join(lines) + "\n").encode())


if __name__ == "__main__":
    main()
