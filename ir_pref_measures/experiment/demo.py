"""The built-in example of ``ir-pref-measures demo``: a small collection made here, evaluated as a table.

Thirty queries with 40 graded docs each (grades 0-3), a set of explicit preference judgments between
some of those docs (as an assessor would give them, with a few slips), and four runs of different
quality. Everything is generated from a fixed seed, so the table is the same on every machine.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SEED = 20081
N_QUERIES, N_DOCS, DEPTH = 30, 40, 30
RUN_NOISE = {"weak": 3.0, "tuned": 2.6, "medium": 1.4, "strong": 0.6}


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


MEASURES = ("nDCG@10", "AP", "ppref@10", "APpref", "PGC(p=0.9)", "rpp", "lexiprecision")
BASELINE = "weak"


def run_demo() -> str:
    """An :func:`~ir_pref_measures.experiment.front.Experiment` on the example: graded, preference and pairwise
    measures on the grades combined with the explicit preferences, against a baseline, Holm-corrected; the legend
    of the table, and the queries on which nDCG@10 and APpref disagree about two runs (:func:`disagreement`)."""
    from ir_pref_measures.experiment.front import Experiment
    from ir_pref_measures.experiment.render import render
    from ir_pref_measures.loading.sources import load_combined

    qrels, prefs, runs = example()
    table, long = Experiment(
        runs, load_combined(qrels, prefs), MEASURES, baseline=BASELINE, test="t", correction="holm", perquery="both"
    )
    header = (
        f"Built-in example: {N_QUERIES} queries x {N_DOCS} graded docs, {len(prefs)} explicit preferences, "
        f"{len(runs)} runs of depth {DEPTH}.\n"
        "nDCG@10 and AP use the grades; ppref@10, APpref and PGC the grades combined with the "
        "explicit preferences;\nrpp and lexiprecision are each run's preference over the baseline "
        f"{BASELINE!r} (sign test). Other tests: paired t-test; Holm correction across runs.\n\n"
        "In Python: ir_pref_measures.Experiment(runs, load_combined(qrels, prefs), measures, baseline=..., "
        "correction='holm')\n\n"
    )
    legend = (
        f"\n\nIn each block: + and - count the queries on which the run scores above and below the baseline "
        f"{BASELINE!r};\np-value is the test's, reject says whether it is significant (alpha 0.05) after the "
        "correction (p-value corrected);\nthe baseline's own row says 'baseline'.\n\n"
    )
    return header + render(table).rstrip("\n") + legend + disagreement(long, "tuned", BASELINE)


def disagreement(long: pd.DataFrame, run: str, other: str, measures: tuple[str, str] = ("nDCG@10", "APpref")) -> str:
    """The queries on which two measures (default nDCG@10 and APpref) order ``run`` and ``other`` differently, in
    words, with the first such query's values: why preference measures are worth computing beside nDCG."""
    values = long.pivot_table(index=["qid", "measure"], columns="name", values="value").reset_index()
    difference = values.assign(diff=values[run] - values[other]).pivot(index="qid", columns="measure", values="diff")
    first, second = (difference[m] for m in measures)
    differ = difference[np.sign(first) * np.sign(second) < 0].sort_index()
    if differ.empty:
        return f"{measures[0]} and {measures[1]} order {run} and {other} alike on every query."
    query = str(differ.index[0])
    shown = values[values["qid"] == query].set_index("measure")

    def said(measure: str) -> str:
        a, b = shown.loc[measure, run], shown.loc[measure, other]
        return f"{measure} {run} {a:.4f} vs {other} {b:.4f} ({run if a > b else other} better)"

    return (
        f"Where the measures disagree: on {len(differ)} of {len(difference)} queries {measures[0]} and {measures[1]} "
        f"order {run} and {other} differently;\nfor example on {query}: {said(measures[0])}, {said(measures[1])}."
    )
