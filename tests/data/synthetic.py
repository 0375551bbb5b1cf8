"""Seeded generators of the fixture tier's inputs: graded qrels, runs, preference judgments.

Used by the ``make_*.py`` scripts beside the fixtures (never by the tests): every generated file is a function of
the seed, so a script re-run writes the same bytes. Scores are rounded to a few decimals so that runs tie.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

Qrels = dict[str, dict[str, float]]  # query -> doc -> grade
Run = dict[str, list[tuple[str, float]]]  # query -> [(doc, score)] in file order


def doc_ids(rng: np.random.Generator, count: int, style: str = "cast") -> list[str]:
    """Distinct doc ids of mixed lengths: CAsT-like (``CAR_<hex>``, ``MARCO_<n>``), DL-like (digits) or MS MARCO
    v2-like (``msmarco_passage_<nn>_<n>``, DL 2021)."""
    ids: set[str] = set()
    while len(ids) < count:
        number = int(rng.integers(1, 10 ** int(rng.integers(2, 8))))
        if style == "dl":
            ids.add(str(number))
        elif style == "v2":
            ids.add(f"msmarco_passage_{number % 70:02d}_{number}")
        else:
            ids.add(f"CAR_{number:x}" if rng.random() < 0.5 else f"MARCO_{number}")
    return sorted(ids)


def graded_qrels(
    rng: np.random.Generator, queries: list[str], judged: int, grades: tuple[float, ...] = (0, 1, 2, 3), style="cast"
) -> Qrels:
    """``judged`` docs per query with grades drawn from ``grades`` (lower grades more often)."""
    weights = np.linspace(len(grades), 1, len(grades))
    weights /= weights.sum()
    return {
        query: {doc: float(rng.choice(grades, p=weights)) for doc in doc_ids(rng, judged, style)} for query in queries
    }


def run_from(
    rng: np.random.Generator,
    qrels: Qrels,
    depth: int,
    quality: float,
    decimals: int = 2,
    unjudged: float = 0.3,
    style: str = "cast",
) -> Run:
    """A run of ``depth`` docs per query: judged docs scored by ``quality`` x grade + noise, mixed with unjudged
    docs; scores rounded to ``decimals`` so that some tie; lines written in a shuffled order."""
    run: Run = {}
    for query, grades in qrels.items():
        judged = list(grades)
        pool = sorted(set(judged) | set(doc_ids(rng, max(1, int(depth * unjudged)), style)))
        signal = np.array([quality * grades.get(doc, 0.0) for doc in pool])
        scores = np.round(signal + rng.normal(0, 1, len(pool)), decimals)
        order = np.argsort(-scores, kind="stable")[:depth]
        lines = [(pool[i], float(scores[i])) for i in order]
        rng.shuffle(lines)
        run[query] = lines
    return run


def ranked(run: Run) -> Run:
    """The run sorted as trec_eval ranks it: score descending, ties by doc id descending."""
    return {query: sorted(lines, key=lambda line: (line[1], line[0]), reverse=True) for query, lines in run.items()}


def write_run(path: Path, run: Run, tag: str, decimals: int = 2) -> None:
    """TREC run lines ``q Q0 doc rank score tag``, the rank counting in trec_eval's order."""
    lines = [
        f"{query} Q0 {doc} {rank} {score:.{decimals}f} {tag}"
        for query, docs in ranked(run).items()
        for rank, (doc, score) in enumerate(docs, start=1)
    ]
    write_lines(path, lines)


def write_qrels(path: Path, qrels: Qrels, iteration: str = "0") -> None:
    write_lines(
        path, [f"{q} {iteration} {doc} {fmt(grade)}" for q, docs in qrels.items() for doc, grade in docs.items()]
    )


def fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


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


def write_lines(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines))
