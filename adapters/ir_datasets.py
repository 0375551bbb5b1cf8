"""ir_datasets glue: judgments by dataset ID (``irds:msmarco-passage/trec-dl-2019/judged`` or the bare ID)."""

from __future__ import annotations

import pandas as pd

from ir_pref_measures.errors import InputError

PREFIX = "irds:"


def qrels(dataset_id: str) -> pd.DataFrame:
    """The dataset's qrels as ``query_id, doc_id, relevance``; a clear error when it cannot be had."""
    import ir_datasets

    name = dataset_id[len(PREFIX) :] if dataset_id.startswith(PREFIX) else dataset_id
    try:
        dataset = ir_datasets.load(name)
    except KeyError:
        raise InputError(f"{dataset_id!r} is neither a file nor an ir_datasets ID") from None
    if not dataset.has_qrels():
        raise InputError(f"ir_datasets ID {name!r} provides no qrels")
    try:
        rows = list(dataset.qrels_iter())
    except Exception as error:  # ir_datasets raises bare exceptions when a download fails
        raise InputError(
            f"the qrels of ir_datasets ID {name!r} are not in the local cache and cannot be downloaded "
            f"({error}); seed IR_DATASETS_HOME with the dataset's files"
        ) from error
    return pd.DataFrame(
        {
            "query_id": [r.query_id for r in rows],
            "doc_id": [r.doc_id for r in rows],
            "relevance": [r.relevance for r in rows],
        }
    )
