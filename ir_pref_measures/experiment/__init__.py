"""The PyTerrier-style table of runs x measures: :func:`Experiment` (:mod:`~ir_pref_measures.experiment.front`; the
per-query computation is a parameter: ``ir_pref_measures.Experiment`` adds a Dask ``client``), the plan of its
columns, the per-query values, the runs, PyTerrier pipelines, the table with its tests, and its rendering as text,
CSV, JSON, Markdown, LaTeX and HTML (:mod:`~ir_pref_measures.experiment.render`)."""

from ir_pref_measures.experiment.demo import example
from ir_pref_measures.experiment.front import Experiment, PerQuery, Results
from ir_pref_measures.experiment.render import paper_table, render, to_html, to_latex
from ir_pref_measures.experiment.runs import DepthWarning

__all__ = [
    "DepthWarning",
    "Experiment",
    "PerQuery",
    "Results",
    "example",
    "paper_table",
    "render",
    "to_html",
    "to_latex",
]
