"""PyTerrier interop (pyterrier >= 1.0). PyTerrier's Transformers run inside
:func:`~ir_pref_measures.experiment.front.Experiment` (:func:`ir_pref_measures.experiment.runs.results`); here,
the other way:

* our judgments into ``pt.Experiment`` / ``pt.Evaluate``: :func:`qrels` turns any judgment source (a
  :class:`~ir_pref_measures.model.judgments.Judgments`, a preference table with ``query_id`` or ``qid`` columns, a
  file, an ir_datasets ID) into the one table PyTerrier takes (it merges the qrels with the topics on ``qid``);
  :func:`measures` turns measure names into Measure objects (PyTerrier reads a string as a trec_eval name).

Graded judgments become ``qid, docno, label``; explicit preferences ``qid, doc_id_a, doc_id_b, preference`` (the
``carterette`` values: -1 a preferred, 0 duplicates, -2 a bad), which the ir_measures provider reads back as the
same judgments. One table cannot hold grades and explicit preferences together, nor several judgment groups:
evaluate those with :func:`~ir_pref_measures.experiment.front.Experiment`, which takes ``pt.Experiment``'s call.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ir_pref_measures.errors import InputError


def qrels(source) -> pd.DataFrame:
    """Judgments as the table ``pt.Experiment(..., qrels, ...)`` takes: ``qid, docno, label`` for graded ones,
    ``qid, doc_id_a, doc_id_b, preference`` for explicit preferences (rows in query, then doc order)."""
    from ir_pref_measures.loading import sources

    judgments = sources.judgments(source)
    if len(judgments.groups) > 1:
        raise InputError(
            f"the judgments hold {len(judgments.groups)} judgment groups ({', '.join(judgments.groups)}), which one "
            "PyTerrier qrels table cannot keep apart; give one group (Judgments.group(name)) or use "
            "ir_pref_measures.experiment.front.Experiment"
        )
    graded = judgments.qrels()
    explicit = len(judgments.edge_src) + len(judgments.tie_a) + int(judgments.bad.sum())
    if graded is not None and explicit:
        raise InputError(
            "the judgments combine grades and explicit preferences, which one PyTerrier qrels table cannot hold; "
            "evaluate them with ir_pref_measures.experiment.front.Experiment (it takes pt.Experiment's arguments)"
        )
    if graded is not None:
        return graded.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    return _preference_table(judgments)


def _preference_table(judgments) -> pd.DataFrame:
    """The explicit judgments as carterette-valued rows: a strict preference ``a b -1`` (multiplicity kept), a
    duplicate pair ``a b 0``, a bad doc ``d d -2``."""
    query = judgments.query_ids[judgments.doc_query]
    bad = np.flatnonzero(judgments.bad)
    a = np.concatenate([judgments.edge_src, judgments.tie_a, bad])
    b = np.concatenate([judgments.edge_dst, judgments.tie_b, bad])
    value = np.repeat([-1, 0, -2], [len(judgments.edge_src), len(judgments.tie_a), len(bad)])
    order = np.lexsort((b, a))  # doc indices are in query order: rows by query, then doc
    return pd.DataFrame(
        {
            "qid": query[a[order]].astype(str),
            "doc_id_a": judgments.doc_ids[a[order]].astype(str),
            "doc_id_b": judgments.doc_ids[b[order]].astype(str),
            "preference": value[order].astype(np.int64),
        }
    )


def measures(names) -> list:
    """Measure objects for ``pt.Experiment`` / ``pt.Evaluate`` from names (``"ppref@10"``, ``"PGC(p=0.8)"``,
    ``"nDCG@10"``) or objects: PyTerrier reads a string as a trec_eval name, which ours are not."""
    from ir_pref_measures.measures.names import parse_measure, validate

    found = []
    for name in [names] if isinstance(names, str) else names:
        if isinstance(name, str):
            found.append(parse_measure(name))
        else:
            validate(name)
            found.append(name)
    return found
