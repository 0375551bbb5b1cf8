"""Write the clean inputs of the bad-input and determinism suites (``tests/reliability/``) beside this script.

Small generated files, one per line format the commands read: graded qrels (``qrels``), float qrels (``fqrels``),
``winner`` and ``pairs`` preferences, Carterette's format (``carterette`` with its run ``crun``), three CAsT-like
runs of 30 docs per query (``run1``..``run3``) and a DL-like run (``dlrun``), three queries each. Seed 32; re-running
writes the same bytes::

    python tests/data/inputs/make_inputs.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from synthetic import graded_qrels, preference_pairs, run_from, write_lines, write_qrels, write_run  # noqa: E402

CAST = ["31_1", "31_2", "31_3"]
DL = ["104861", "1063750", "1106007"]


def carterette_lines(rng: np.random.Generator, qrels) -> list[str]:
    """``qid src tgt pref``: -1 / 1 strict preferences, 0 for equal grades, -2 / 2 for bad docs (``NA``)."""
    lines = []
    for query, winner, loser in preference_pairs(rng, qrels, 25, noise=0.0):
        lines.append(f"{query}\t{winner}\t{loser}\t-1" if rng.random() < 0.7 else f"{query}\t{loser}\t{winner}\t1")
    for query, grades in qrels.items():
        docs = sorted(grades)
        lines.append(f"{query}\t{docs[0]}\t{docs[1]}\t0")
        lines.append(f"{query}\t{docs[-1]}\tNA\t-2")
        lines.append(f"{query}\tNA\t{docs[-2]}\t2")
    return lines


def main() -> None:
    rng = np.random.default_rng(32)
    cast = graded_qrels(rng, CAST, 20, (0, 1, 2, 3, 4))
    write_qrels(HERE / "qrels", cast)
    floats = {q: {d: g + float(rng.integers(0, 4)) / 4 for d, g in docs.items()} for q, docs in cast.items()}
    write_lines(HERE / "fqrels", [f"{q} Q0 {d} {g:.2f}" for q, docs in floats.items() for d, g in docs.items()])
    pairs = preference_pairs(rng, cast, 30)  # the winner is shown second on even lines, first on odd ones
    winner = [(q, *((b, a) if i % 2 == 0 else (a, b)), a) for i, (q, a, b) in enumerate(pairs)]
    write_lines(HERE / "winner", [" ".join(line) for line in winner])
    dl = graded_qrels(rng, DL, 12, style="dl")
    write_lines(HERE / "pairs", [f"{q} {a} {b}" for q, a, b in preference_pairs(rng, dl, 30)])
    write_run(HERE / "dlrun", run_from(rng, dl, 20, 1.0, style="dl"), "dlrun")
    carterette = graded_qrels(rng, ["1435", "1569"], 15)
    write_lines(HERE / "carterette", carterette_lines(rng, carterette))
    write_run(HERE / "crun", run_from(rng, carterette, 25, 0.8), "crun", decimals=3)
    for name, quality in (("run1", 1.5), ("run2", 0.8), ("run3", 0.2)):
        write_run(HERE / name, run_from(rng, cast, 30, quality), name)


if __name__ == "__main__":
    main()
