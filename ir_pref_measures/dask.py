"""Evaluation and comparison on a Dask cluster (``pip install 'ir-pref-measures[dask]'``): see
:mod:`ir_pref_measures.adapters.dask` (Dask DataFrames) and :mod:`ir_pref_measures.analysis.cluster` (an
experiment's per-query values)."""

from ir_pref_measures.adapters.dask import compare, evaluate, judgment_frames, run_frame
from ir_pref_measures.analysis.cluster import per_query
from ir_pref_measures.analysis.scheduler import connect

__all__ = ["compare", "connect", "evaluate", "judgment_frames", "per_query", "run_frame"]
