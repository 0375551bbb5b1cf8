"""Everything Dask (``pip install 'ir-pref-measures[dask]'``): evaluation and comparison of Dask DataFrames
(:mod:`~ir_pref_measures.dask.dataframes`), an experiment's per-query values on a cluster
(:mod:`~ir_pref_measures.dask.cluster`), :func:`Experiment` with a ``client``, and connecting to a scheduler within a
time bound (:mod:`~ir_pref_measures.dask.scheduler`). The DataFrame functions import Dask on first use."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from ir_pref_measures.dask.cluster import on_cluster, per_query_frames_on_cluster
from ir_pref_measures.dask.experiment import Experiment
from ir_pref_measures.dask.scheduler import connect

if TYPE_CHECKING:
    from ir_pref_measures.dask.dataframes import compare, evaluate, judgment_frames, run_frame

DATAFRAMES = ("compare", "evaluate", "judgment_frames", "run_frame")  # in dataframes.py, which imports Dask

__all__ = [
    "Experiment",
    "compare",
    "connect",
    "evaluate",
    "judgment_frames",
    "on_cluster",
    "per_query_frames_on_cluster",
    "run_frame",
]


def per_query(*args, **kwargs):
    """Deprecated alias of :func:`per_query_frames_on_cluster` (removed in the next release)."""
    warnings.warn("ir_pref_measures.dask.per_query is per_query_frames_on_cluster", DeprecationWarning, stacklevel=2)
    return per_query_frames_on_cluster(*args, **kwargs)


if not TYPE_CHECKING:  # type checkers see the imports above; a misspelt name stays an error to them

    def __getattr__(name: str):
        """The DataFrame functions, imported on first use (they need Dask)."""
        if name in DATAFRAMES:
            from ir_pref_measures.dask import dataframes

            return getattr(dataframes, name)
        raise AttributeError(f"module 'ir_pref_measures.dask' has no attribute {name!r}")
