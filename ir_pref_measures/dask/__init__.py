"""Evaluation and comparison on a Dask cluster (``pip install 'ir-pref-measures[dask]'``): see
:mod:`ir_pref_measures.dask.dataframes` (Dask DataFrames) and :mod:`ir_pref_measures.dask.cluster` (an
experiment's per-query values)."""

from ir_pref_measures.dask.cluster import per_query
from ir_pref_measures.dask.dataframes import compare, evaluate, judgment_frames, run_frame
from ir_pref_measures.dask.scheduler import connect

__all__ = ["compare", "connect", "evaluate", "judgment_frames", "per_query", "run_frame"]
