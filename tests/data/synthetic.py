"""Seeded generators of the fixture tier's inputs: graded qrels, runs, preference judgments.

Used by the ``make_*.py`` scripts beside the fixtures (never by the tests): every generated file is a function of
the seed, so a script re-run writes the same bytes. Scores are rounded to a few decimals so that runs tie. The
generators shared with the stand-ins of the real-data tier and the documentation's example files are
:mod:`ir_pref_measures.examples`'.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ir_pref_measures.examples import (  # noqa: F401  (the generators the package shares with the scripts)
    Qrels,
    Run,
    doc_ids,
    fmt,
    graded_qrels,
    ranked,
    run_from,
    write_lines,
    write_qrels,
)


def write_run(path: Path, run: Run, tag: str, decimals: int = 2) -> None:
    """TREC run lines ``q Q0 doc rank score tag``, the rank counting in trec_eval's order."""
    lines = [
        f"{query} Q0 {doc} {rank} {score:.{decimals}f} {tag}"
        for query, docs in ranked(run).items()
        for rank, (doc, score) in enumerate(docs, start=1)
    ]
    write_lines(path, lines)


def preference_pairs(rng: np.random.Generator, qrels: Qrels, per_query: int, noise: float = 0.1):
    """(query, winner, loser) judgments sampled among judged pairs of different grade; a share ``noise`` reversed
    (so the graphs have conflicts and cycles), repeated pairs possible (a multigraph)."""
    for query, grades in qrels.items():
        docs = list(grades)
        for _ in range(per_query):
            a, b = rng.choice(len(docs), 2, replace=False)
            first, second = docs[a], docs[b]
            if grades[first] == grades[second]:
                continue
            winner, loser = (first, second) if grades[first] > grades[second] else (second, first)
            if rng.random() < noise:
                winner, loser = loser, winner
            yield query, winner, loser
