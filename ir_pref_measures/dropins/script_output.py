"""What the drop-ins of Clarke's ``compatibility.py`` and Luo's ``greedy_pgc.py`` share: the scripts' rank order
(not the library's tie rule), their RBO depth, and their output lines."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ir_pref_measures.model.ids import encode, intern, pair_keys
from ir_pref_measures.model.rankings import Ranking

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


def first_appearance(values: pd.Series) -> list[str]:
    return pd.unique(values.astype(str)).tolist()


def report(runid: str, topics: list[str], scores: np.ndarray, mean_label: str, in_line_order: bool = False) -> str:
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
