"""Producing preference judgments: judges (LLM, simulated, replayed, people), pair selection within a budget, the
store that loses nothing, the simulator of judging strategies and the web interface for people (``web``, the
``[web]`` extra; ``LLMJudge`` needs the ``[llm]`` extra when it asks)."""

from ir_pref_measures.judging.effort import export, make_judge, plan, run, selector_of, status
from ir_pref_measures.judging.exports import export_lines
from ir_pref_measures.judging.gold import GoldPair, gold_from_file, gold_from_qrels
from ir_pref_measures.judging.judges import FilesJudge, ReplayJudge, SimulatedJudge, register_judge
from ir_pref_measures.judging.judges.confidence import soft_outcome, soft_preference
from ir_pref_measures.judging.judges.graded import (
    GRADED_PRESETS,
    GradedPreset,
    Label,
    LLMGrader,
    qrels_lines,
    read_umbrela,
)
from ir_pref_measures.judging.judges.llm import LLMJudge
from ir_pref_measures.judging.judges.presets import clarke_lines, preset
from ir_pref_measures.judging.per_topic import judgments_per_topic, knee, knees
from ir_pref_measures.judging.ppi import choose_for_people, drawn_queries, judge_frames, store_ppi_table
from ir_pref_measures.judging.protocol import ANSWERS, Answer, Judge, Pair
from ir_pref_measures.judging.rules import Verdict, combine_answers, register_rule
from ir_pref_measures.judging.runner import run as loop
from ir_pref_measures.judging.selectors import (
    AllPairs,
    BinaryInsertion,
    ListedPairs,
    RatingDriven,
    TopK,
    depth_pools,
    graded_pools,
    random_pairs,
    read_pairs,
)
from ir_pref_measures.judging.simulated_effort import Simulation, simulate_effort
from ir_pref_measures.judging.simulation import simulate
from ir_pref_measures.judging.soft import soft_preferences, soft_values
from ir_pref_measures.judging.store import Store
from ir_pref_measures.judging.texts import QueryText, Texts, load_texts
from ir_pref_measures.loading.sources import read_grades

__all__ = [
    "ANSWERS",
    "GRADED_PRESETS",
    "AllPairs",
    "Answer",
    "BinaryInsertion",
    "FilesJudge",
    "GoldPair",
    "GradedPreset",
    "Judge",
    "LLMGrader",
    "LLMJudge",
    "Label",
    "ListedPairs",
    "Pair",
    "QueryText",
    "RatingDriven",
    "ReplayJudge",
    "SimulatedJudge",
    "Simulation",
    "Store",
    "Texts",
    "TopK",
    "Verdict",
    "choose_for_people",
    "drawn_queries",
    "clarke_lines",
    "combine_answers",
    "depth_pools",
    "export",
    "export_lines",
    "gold_from_file",
    "gold_from_qrels",
    "graded_pools",
    "judge_frames",
    "judgments_per_topic",
    "knee",
    "knees",
    "load_texts",
    "loop",
    "make_judge",
    "plan",
    "preset",
    "qrels_lines",
    "random_pairs",
    "read_grades",
    "read_pairs",
    "read_umbrela",
    "register_judge",
    "register_rule",
    "run",
    "selector_of",
    "simulate",
    "simulate_effort",
    "soft_outcome",
    "soft_preference",
    "soft_preferences",
    "soft_values",
    "status",
    "store_ppi_table",
    "web",
]


def __getattr__(name: str):
    """``web`` (the interface for people; its server needs the ``[web]`` extra), imported on first use; ``combine``,
    the old name of :func:`combine_answers` (warns once; removed in the next release)."""
    if name == "combine":
        from ir_pref_measures.errors import renamed

        renamed("ir_pref_measures.judging.combine", "combine_answers (ipm.combine combines judgment sets)")
        return combine_answers
    if name == "web":
        import importlib

        return importlib.import_module("ir_pref_measures.judging.web")
    raise AttributeError(f"module 'ir_pref_measures.judging' has no attribute {name!r}")
