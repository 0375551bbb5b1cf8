"""The judges, one module by kind: simulated from graded qrels (``simulated``), replayed from recorded judgments
(``replay``), people through files (``files``), and the LLM judge (``llm``, with its prompt presets, graded
labels, confidence, answer cache, batches and prompt stream). Each answers a question with one
:class:`~ir_pref_measures.judging.protocol.Answer`.

:data:`JUDGES` is the registry of judges by name that ``judge run`` takes (``simulated``, ``replay``, ``files``,
``llm``; other modules register theirs with :func:`register_judge`): a factory ``(**options) -> Judge``.
"""

from __future__ import annotations

from collections.abc import Callable

from ir_pref_measures.judging.judges.files import FilesJudge
from ir_pref_measures.judging.judges.replay import ReplayJudge
from ir_pref_measures.judging.judges.simulated import SimulatedJudge, grade_order, question_rng
from ir_pref_measures.judging.protocol import Judge
from ir_pref_measures.loading.sources import read_grades, read_recorded

__all__ = [
    "JUDGES",
    "FilesJudge",
    "ReplayJudge",
    "SimulatedJudge",
    "grade_order",
    "question_rng",
    "read_recorded",
    "register_judge",
]

JUDGES: dict[str, Callable[..., Judge]] = {}


def register_judge(name: str, factory: Callable[..., Judge]) -> None:
    """Make ``factory(**options)`` the judge ``name`` of ``judge run``."""
    JUDGES[name] = factory


def _simulated(qrels, seed: int = 0, **rates) -> SimulatedJudge:
    return SimulatedJudge(read_grades(qrels), seed, **rates)


def _replay(judgments, seed: int = 0, format: str | None = None, qrels=None) -> ReplayJudge:
    return ReplayJudge(read_recorded(judgments, format), seed, fallback=None if qrels is None else read_grades(qrels))


def _llm(**options) -> Judge:
    """The LLM judge (:func:`ir_pref_measures.judging.judges.llm.llm_judge_from_options`: ``model``, ``queries``,
    ``documents``, ...; the ``llm`` extra), imported only when asked for."""
    from ir_pref_measures.judging.judges.llm import llm_judge_from_options

    return llm_judge_from_options(options)


register_judge("simulated", _simulated)
register_judge("replay", _replay)
register_judge("files", FilesJudge)
register_judge("llm", _llm)
