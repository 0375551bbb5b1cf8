"""Evaluation and comparison on a Dask cluster (``pip install 'ir-pref-measures[dask]'``): see
:mod:`ir_pref_measures.dask.dataframes` (Dask DataFrames) and :mod:`ir_pref_measures.dask.cluster` (an
experiment's per-query values)."""

import warnings

from ir_pref_measures.dask.cluster import per_query_frames_on_cluster
from ir_pref_measures.dask.dataframes import compare, evaluate, judgment_frames, run_frame
from ir_pref_measures.dask.scheduler import connect

__all__ = ["compare", "connect", "evaluate", "judgment_frames", "per_query_frames_on_cluster", "run_frame"]


def per_query(*args, **kwargs):
    """Deprecated alias of :func:`per_query_frames_on_cluster` (removed in the next release)."""
    warnings.warn("ir_pref_measures.dask.per_query is per_query_frames_on_cluster", DeprecationWarning, stacklevel=2)
    return per_query_frames_on_cluster(*args, **kwargs)
