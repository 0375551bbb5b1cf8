"""Preference judgments made consistent (:mod:`ir_pref_measures.measures.consistent`), from any preference source."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd

from ir_pref_measures.errors import user_stacklevel
from ir_pref_measures.measures.consistent import consistent_rows
from ir_pref_measures.model import tables


def consistent_mask(table: pd.DataFrame) -> np.ndarray:
    """Per row of a validated ``carterette`` preference table (``query_id, doc_id_a, doc_id_b, preference``), whether
    it agrees with the order fitted to its query's judgments (:func:`~ir_pref_measures.measures.consistent.
    consistent_rows`); a row that marks a doc bad is kept."""
    preference = table["preference"].to_numpy()
    query = np.unique(table["query_id"].astype(str).to_numpy(), return_inverse=True)[1].reshape(-1)
    docs = np.concatenate([table["doc_id_a"].astype(str).to_numpy(), table["doc_id_b"].astype(str).to_numpy()])
    named = pd.MultiIndex.from_arrays([np.tile(query, 2), docs])
    codes = named.unique().sort_values().get_indexer(named)  # ascending with (query, doc id)
    a, b = codes[: len(table)], codes[len(table) :]
    bad = np.zeros(int(codes.max()) + 1 if len(codes) else 0, dtype=bool)
    bad[a[preference == -2]] = True
    bad[b[preference == 2]] = True  # a marked row has its bad doc, so the kernel keeps it as it is
    outcome = np.select([preference == -1, preference == 1], [1, -1], 0)
    return consistent_rows(query, a, b, outcome, bad)


def consistent_preferences(source, format: str | None = None) -> pd.DataFrame:
    """The judgments of ``source`` that agree with an order fitted to each query's judgments: the judgments of a
    pair combined by majority, tied docs in one class, the classes ordered by Greedy FAS (Eades, Lin and Smyth
    1993), and the judgments against that order left out, with a warning that counts them
    (:mod:`ir_pref_measures.measures.consistent`). The transitive closure of the result prefers no pair both ways;
    on judgments without contradictions the result is the input itself.

    Parameters
    ----------
    source
        A preference table (``query_id, doc_id_a, doc_id_b, preference``, values as in the ``carterette`` format),
        or a file of preference judgments named as every judgment source names one (``FORMAT:PATH``; Clarke's
        judging log as ``log:PATH`` or detected).
    format : str, optional
        The file's format where detection cannot tell.

    Returns
    -------
    pandas.DataFrame
        The judgments kept, as a ``carterette`` preference table in the order of the input, which every judgment
        reader takes (``load_judgments``, ``Experiment``, ``ir_measures`` calls).
    """
    if isinstance(source, str | os.PathLike):
        from ir_pref_measures.loading.sources import preference_rows

        table = preference_rows(source, format)
    else:
        table = tables.preferences(source)
    table = table[list(tables.PREFERENCE_COLUMNS)].reset_index(drop=True)
    keep = consistent_mask(table)
    left_out = int((~keep).sum())
    if left_out:
        warnings.warn(
            f"{left_out} of {len(table)} preference judgments contradict the order fitted to their query's "
            f"judgments (outvoted, or against the Greedy FAS order): left out",
            stacklevel=user_stacklevel(),
        )
    return table[keep].reset_index(drop=True)
