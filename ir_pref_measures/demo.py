"""The built-in example of ``ir-pref-measures demo``: a small collection made here, evaluated as a table.

Eight queries with 40 graded docs each (grades 0-3), a set of explicit preference judgments between
some of those docs (as an assessor would give them, with a few slips), and three runs of different
quality. Everything is generated from a fixed seed, so the table is the same on every machine.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SEED = 20081
N_QUERIES, N_DOCS, DEPTH = 8, 40, 30
RUN_NOISE = {"strong": 0.6, "medium": 1.4, "weak": 3.0}


def example() -> tuple[pd.DataFrame, pd.DataFrame, dict[str, pd.DataFrame]]:
    """``(qrels, preferences, runs)`` of the built-in example."""
    rng = np.random.default_rng(SEED)
    qrels, prefs = [], []
    runs: dict[str, list] = {name: [] for name in RUN_NOISE}
    for q in range(1, N_QUERIES + 1):
        qid = f"q{q}"
        docs = np.array([f"{qid}-d{d:02d}" for d in range(N_DOCS)])
        grades = rng.choice(4, size=N_DOCS, p=[0.5, 0.25, 0.15, 0.1])
        qrels += [(qid, doc, int(g)) for doc, g in zip(docs, grades, strict=True)]
        for _ in range(60):
            a, b = rng.choice(N_DOCS, size=2, replace=False)
            slip = rng.random() < 0.1
            better_a = (grades[a] > grades[b]) != slip
            if grades[a] != grades[b]:
                prefs.append((qid, docs[a], docs[b], -1 if better_a else 1))
        for name, noise in RUN_NOISE.items():
            scores = grades + rng.normal(0.0, noise, size=N_DOCS)
            top = np.argsort(-scores, kind="stable")[:DEPTH]
            runs[name] += [(qid, docs[d], float(scores[d])) for d in top]
    qrels_frame = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    prefs_frame = pd.DataFrame(prefs, columns=["query_id", "doc_id_a", "doc_id_b", "preference"])
    run_frames = {name: pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]) for name, rows in runs.items()}
    return qrels_frame, prefs_frame, run_frames


def run_demo() -> str:
    """Evaluate the example with graded and preference measures; the table as text."""
    import ir_measures

    from ir_pref_measures.judgments import Judgments

    qrels, prefs, runs = example()
    judgments = Judgments.from_preferences(prefs)
    graded = [ir_measures.parse_measure(m) for m in ("nDCG@10", "AP", "ppref@10", "rpref@10", "APpref", "nwppref@10")]
    explicit = [ir_measures.parse_measure(m) for m in ("ppref@10", "rpref@10", "APpref")]
    rows = []
    for name, run in runs.items():
        row = {"name": name}
        for measure, value in ir_measures.calc_aggregate(graded, qrels, run).items():
            row[str(measure)] = value
        for measure, value in ir_measures.calc_aggregate(explicit, judgments, run).items():
            row[f"{measure} [prefs]"] = value
        rows.append(row)
    table = pd.DataFrame(rows)
    columns = ["name", *(str(m) for m in graded), *(f"{m} [prefs]" for m in explicit)]
    header = (
        f"Built-in example: {N_QUERIES} queries x {N_DOCS} graded docs, {len(prefs)} explicit preferences, "
        f"3 runs of depth {DEPTH}.\nColumns without [prefs] use preferences derived from the grades; "
        "[prefs] columns use the explicit preference judgments.\n"
    )
    return header + table[columns].to_string(index=False, float_format=lambda v: f"{v:.4f}")
