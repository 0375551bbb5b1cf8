"""The drop-in of Clarke's ``compatibility.py`` (C. L. A. Clarke, A. Vtyurina, M. D. Smucker, "Assessing top-k
preferences", TOIS 2021).

``ir-pref-measures compatibility [-p P] QRELS RUN`` prints what the script prints: ``runid,topic,compatibility``,
one line per topic in run-file order (topics with a value > 0 in the qrels), then ``runid,average,<mean>``; the
run's order is score descending, ties by doc id ascending, and ``runid`` is the last run line's tag. The values
come from the library's kernel (:mod:`ir_pref_measures.measures.compatibility`) at the script's depth, 1000.
"""

from __future__ import annotations

import numpy as np

from ir_pref_measures.comparison.rbo import tied_compatibility
from ir_pref_measures.dropins.script_output import DEPTH, first_appearance, ordered_ranking, report
from ir_pref_measures.errors import InputError
from ir_pref_measures.loading.sources import qrels_table
from ir_pref_measures.measures.compatibility import compatibility
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.parsing.formats import fields, load, read_run


def compatibility_report(qrels, run, p: float = 0.95, normalize: bool = True, ties: str | None = None) -> str:
    """The output of ``compatibility.py -p P QRELS RUN`` (``normalize=False``: its NORMALIZE=False); with
    ``ties`` (w, a or b), the values are Compatibility with ties instead
    (:func:`ir_pref_measures.comparison.rbo.tied_compatibility`), in the same layout."""
    if not 0.01 <= p <= 0.99:
        raise InputError(f"value of p = {p} out of range [0.01,0.99]")
    grades = qrels_table(qrels)
    judgments = Judgments.from_qrels(grades)
    raw = load(run)
    frame = read_run(raw)
    runid = fields(raw.line(int(frame["line"].iloc[-1])))[-1]
    ranking = ordered_ranking(frame, -frame["score"].to_numpy(dtype=np.float64), path=raw)
    positive = set(grades["query_id"][grades["relevance"] > 0].astype(str))
    topics = [t for t in first_appearance(frame["query_id"]) if t in positive]
    queries = np.searchsorted(judgments.query_ids, np.asarray(topics, dtype=object)).astype(np.int64)
    doc_rank = ranking.rank_of(judgments.query_ids[judgments.doc_query], judgments.doc_text)
    if ties is None:
        scores = compatibility(judgments, doc_rank, queries, p=p, depth=DEPTH, normalize=normalize)
    else:
        scores = tied_compatibility(judgments, ranking, queries, p, ties, normalize, depth=DEPTH)
    return report(runid, topics, scores, "average", in_line_order=True)
