"""Drop-in commands for the two reference scripts of compatibility and Greedy PGC.

``ir-pref-measures compatibility [-p P] QRELS RUN`` prints what Clarke's ``compatibility.py`` prints:
``runid,topic,compatibility``, one line per topic in run-file order (topics with a value > 0 in the
qrels), then ``runid,average,<mean>``; the run's order is score descending, ties by doc id ascending,
and ``runid`` is the last run line's tag.

``ir-pref-measures greedy-pgc [-p P] PREFS RUN`` prints what Luo's ``greedy_pgc.py`` prints: PREFS is
``qid winner loser`` (one edge per line, repeats kept), the actual ranking is the run's rank column
(ties by doc id ascending), lines ``<RUN path>,<topic>,<score>`` in PREFS order, then
``<RUN path>,amean,<mean>``. Unlike the script, ties in the greedy choice are broken by (rank, doc id),
so the output does not depend on the hash seed; ``p`` defaults to the script's 0.8.

Both use the library's kernels (:mod:`ir_pref_measures.measures.compatibility`, :mod:`.pgc`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ir_pref_measures.errors import InputError
from ir_pref_measures.ids import encode, intern, pair_keys
from ir_pref_measures.inputs.sources import qrels_table
from ir_pref_measures.measures.compatibility import compatibility
from ir_pref_measures.measures.pgc import pgc
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.rankings import Ranking
from ir_pref_measures.readers.formats import fields, load, read_run
from ir_pref_measures.readers.preferences import read_preferences

DEPTH = 1000


def ordered_ranking(frame: pd.DataFrame, key: np.ndarray, path=None) -> Ranking:
    """A :class:`Ranking` of ``query_id, doc_id`` rows ordered by ``key`` ascending, then doc id ascending
    (the reference scripts' orders, not the library's tie rule). A doc twice in a query is an error."""
    (q,), query_ids = intern(frame["query_id"])
    (d,), doc_vocabulary = encode(frame["doc_id"])
    keys = pair_keys(q, d, len(doc_vocabulary))
    if len(np.unique(keys)) < len(keys):
        Ranking.from_frame(frame.assign(score=0.0), path=path)  # raises, naming the repeated line
    order = np.lexsort((d, key, q))
    return Ranking(
        query_ids=query_ids,
        offsets=np.searchsorted(q[order], np.arange(len(query_ids) + 1)).astype(np.int64),
        doc_text=doc_vocabulary.take(d[order]),
        scores=-np.asarray(key, dtype=np.float64)[order],
    )


def _first_appearance(values: pd.Series) -> list[str]:
    return pd.unique(values.astype(str)).tolist()


def _report(runid: str, topics: list[str], scores: np.ndarray, mean_label: str, in_line_order: bool = False) -> str:
    """The scripts' output; the mean sums the scores by topic id, or with ``in_line_order`` in the order of the
    lines, as ``compatibility.py`` does (its reference outputs differ in the last digit otherwise)."""
    lines = ["runid,topic,compatibility"]
    for topic, score in zip(topics, scores.tolist(), strict=True):
        lines.append(f"{runid},{topic},{score!r}")
    pairs = list(zip(topics, scores.tolist(), strict=True))
    total = 0.0
    for _, score in pairs if in_line_order else sorted(pairs):  # sorted by topic: independent of the line order
        total += score
    lines.append(f"{runid},{mean_label},{total / len(topics) if topics else 0.0!r}")
    return "\n".join(lines) + "\n"


def compatibility_report(qrels, run, p: float = 0.95, normalize: bool = True) -> str:
    """The output of ``compatibility.py -p P QRELS RUN`` (``normalize=False``: its NORMALIZE=False)."""
    if not 0.01 <= p <= 0.99:
        raise InputError(f"value of p = {p} out of range [0.01,0.99]")
    grades = qrels_table(qrels)
    judgments = Judgments.from_qrels(grades)
    raw = load(run)
    frame = read_run(raw)
    runid = fields(raw.line(int(frame["line"].iloc[-1])))[-1]
    ranking = ordered_ranking(frame, -frame["score"].to_numpy(dtype=np.float64), path=raw)
    positive = set(grades["query_id"][grades["relevance"] > 0].astype(str))
    topics = [t for t in _first_appearance(frame["query_id"]) if t in positive]
    queries = np.searchsorted(judgments.query_ids, np.asarray(topics, dtype=object)).astype(np.int64)
    doc_rank = ranking.rank_of(judgments.query_ids[judgments.doc_query], judgments.doc_text)
    scores = compatibility(judgments, doc_rank, queries, p=p, depth=DEPTH, normalize=normalize)
    return _report(runid, topics, scores, "average", in_line_order=True)


def greedy_pgc_report(prefs, run, p: float = 0.8) -> str:
    """The output of ``greedy_pgc.py PREFS RUN`` with persistence ``p`` and a total tie-break."""
    table = read_preferences(prefs, "pairs")
    judgments = Judgments.from_preferences(table.drop(columns="line"))
    raw = load(run)
    frame = read_run(raw, keep_rank=True)
    rank = pd.to_numeric(frame["rank"], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(rank) | (rank != np.round(rank))
    if bad.any():
        raw.fail("the rank column is not an integer", line_no=int(frame["line"].iloc[int(np.flatnonzero(bad)[0])]))
    ranking = ordered_ranking(frame, rank, path=raw)
    topics = _first_appearance(table["query_id"])
    queries = np.searchsorted(judgments.query_ids, np.asarray(topics, dtype=object)).astype(np.int64)
    doc_rank = ranking.rank_of(judgments.query_ids[judgments.doc_query], judgments.doc_text)
    scores = pgc(judgments, doc_rank, queries, p=p, depth=DEPTH, normalize=False)
    return _report(str(run), topics, scores, "amean")
