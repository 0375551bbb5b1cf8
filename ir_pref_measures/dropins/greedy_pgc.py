"""The drop-in of Luo's ``greedy_pgc.py`` (Preference Graph Compatibility with Greedy FAS: C. L. A. Clarke,
C. Luo, M. D. Smucker, "Evaluation measures based on preference graphs", SIGIR 2021).

``ir-pref-measures greedy-pgc [-p P] PREFS RUN`` prints what the script prints: PREFS is ``qid winner loser``
(one edge per line, repeats kept), the actual ranking is the run's rank column (ties by doc id ascending), lines
``<RUN path>,<topic>,<score>`` in PREFS order, then ``<RUN path>,amean,<mean>``. Unlike the script, ties in the
greedy choice are broken by (rank, doc id), so the output does not depend on the hash seed; ``p`` defaults to the
script's 0.8. The values come from the library's kernel (:mod:`ir_pref_measures.measures.pgc`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ir_pref_measures.dropins.script_output import DEPTH, first_appearance, ordered_ranking, report
from ir_pref_measures.measures.pgc import pgc
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.parsing.formats import load, read_run
from ir_pref_measures.parsing.preferences import read_preferences


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
    topics = first_appearance(table["query_id"])
    queries = np.searchsorted(judgments.query_ids, np.asarray(topics, dtype=object)).astype(np.int64)
    doc_rank = ranking.rank_of(judgments.query_ids[judgments.doc_query], judgments.doc_text)
    scores = pgc(judgments, doc_rank, queries, p=p, depth=DEPTH, normalize=False)
    return report(str(run), topics, scores, "amean")
