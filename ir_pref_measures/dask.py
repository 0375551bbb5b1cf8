"""Evaluation and comparison on a Dask cluster (``pip install 'ir-pref-measures[dask]'``): see
:mod:`ir_pref_measures.adapters.dask`."""

from ir_pref_measures.adapters.dask import compare, connect, evaluate, judgment_frames, per_query, run_frame

__all__ = ["compare", "connect", "evaluate", "judgment_frames", "per_query", "run_frame"]
