"""Systems whose true ordering is known: graded qrels of four queries, the ideal ranking of each query and worse
ones (the ideal order rotated), and every preference the grades imply; the simulator's tests order them."""

from __future__ import annotations

import pandas as pd

from ir_pref_measures.judging import Pair, Verdict
from ir_pref_measures.judging.simulation import preference_frame

GRADES = {f"q{q}": {f"d{d}": float((d * (q + 3)) % 5) for d in range(12)} for q in range(4)}


def runs():
    """Five systems: the ideal ranking of each query, then worse ones (the ideal order rotated)."""
    made = {}
    for shift in range(5):
        rows = []
        for q, grades in GRADES.items():
            ideal = sorted(grades, key=lambda d: (-grades[d], d))
            ranked = ideal[shift:] + ideal[:shift]
            rows += [(q, d, float(len(ranked) - r)) for r in range(len(ranked)) for d in [ranked[r]]]
        made[f"s{shift}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return made


def truth():
    """Every preference the grades imply (the higher grade wins; equal grades are not stated)."""
    return preference_frame(
        [Verdict(Pair(q, a, b), "first") for q, g in GRADES.items() for a in g for b in g if g[a] > g[b]]
    )


def write_files(folder) -> tuple[str, list[str]]:
    """The qrels and the runs written in TREC format to ``folder``: (qrels path, run paths)."""
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {int(g)}\n" for q, grades in GRADES.items() for d, g in grades.items()))
    names = []
    for name, frame in runs().items():
        path = folder / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n" for q, d, s in frame.itertuples(index=False)))
        names.append(str(path))
    return str(qrels), names
