"""Preference-based IR evaluation for ir_measures, ir_datasets and PyTerrier.

``import ir_pref_measures`` registers the preference measures with ir_measures, so that
``ir_measures.calc_aggregate([ppref@10, nDCG@10], qrels, run)`` works.
"""

import os as _os

if not _os.path.isdir(_os.path.join(__path__[0], "adapters")):  # imported from a source checkout's root
    from ir_pref_measures._checkout import module_folders as _module_folders

    __path__[:] = _module_folders(__path__)

from ir_pref_measures._version import __version__
from ir_pref_measures.adapters import ir_measures as _ir_measures_adapter
from ir_pref_measures.comparison.fusion import aggregate
from ir_pref_measures.comparison.pairwise import compare
from ir_pref_measures.comparison.rbo import rbo_runs
from ir_pref_measures.engine import set_n_jobs
from ir_pref_measures.errors import InputError
from ir_pref_measures.loading.sources import groups as load_groups
from ir_pref_measures.loading.sources import judgments as load_judgments
from ir_pref_measures.loading.sources import load_combined
from ir_pref_measures.loading.sources import ranking as as_ranking
from ir_pref_measures.measures.tied_rbo import rbo, rbo_of_scores
from ir_pref_measures.model.judgments import DEFAULT_GROUP, JudgmentLines, Judgments, combine
from ir_pref_measures.model.rankings import Ranking
from ir_pref_measures.parsing.formats import read_qrels, read_run
from ir_pref_measures.parsing.images import read_image_pairs, read_image_positions
from ir_pref_measures.parsing.preferences import detect_format, read_preferences

_ir_measures_adapter.register()

globals().update(_ir_measures_adapter.MEASURES)  # ppref, APpref, PGC, prefs_avgjg, ...: one name per measure

_LAZY = {  # name -> (module, attribute; None: the module itself)
    "meta": ("ir_pref_measures.meta", None),
    "judges": ("ir_pref_measures.judges", None),
    "plots": ("ir_pref_measures.meta.plots", None),
    "Experiment": ("ir_pref_measures.experiment.front", "Experiment"),
    "paper_table": ("ir_pref_measures.experiment.render", "paper_table"),
    "topics": ("ir_pref_measures.parsing.datasets", "topics"),
    "dask": ("ir_pref_measures.dask", None),
    **{
        name: ("ir_pref_measures.leaderboards.boards", name)
        for name in ("leaderboard", "rate", "battles_from_compare", "battles_from_values")
    },
    "read_battles": ("ir_pref_measures.parsing.battles", "read_battles"),
}


def __getattr__(name: str):
    """``meta``, ``judges``, ``plots``, ``Experiment``, ``paper_table``, ``topics``, ``dask`` and the leaderboard
    functions are imported on first use, so that ``import ir_pref_measures`` loads neither pandas nor statsmodels,
    matplotlib or Dask."""
    if name in _LAZY:
        import importlib

        module_name, attribute = _LAZY[name]
        module = importlib.import_module(module_name)
        return module if attribute is None else getattr(module, attribute)
    raise AttributeError(f"module 'ir_pref_measures' has no attribute {name!r}")


__all__ = [
    "__version__",
    "set_n_jobs",
    "Experiment",
    "paper_table",
    "InputError",
    "aggregate",
    "battles_from_compare",
    "battles_from_values",
    "compare",
    "leaderboard",
    "rate",
    "read_battles",
    "Judgments",
    "Ranking",
    "as_ranking",
    "combine",
    "detect_format",
    "load_combined",
    "load_groups",
    "load_judgments",
    "DEFAULT_GROUP",
    "JudgmentLines",
    "meta",
    "judges",
    "plots",
    "read_image_pairs",
    "read_image_positions",
    "read_preferences",
    "read_qrels",
    "read_run",
    "rbo",
    "rbo_of_scores",
    "rbo_runs",
    "topics",
    *_ir_measures_adapter.MEASURES,
]
