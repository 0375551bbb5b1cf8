"""The simulation of a judging effort from files: the judge (simulated from graded qrels, or replaying recorded
judgments), the pools, the truth and the selectors built from the names a user gives, then the simulator
(:func:`ir_pref_measures.judging.simulation.simulate`) over budgets, or the curve of judgments per topic with its knee
(:func:`ir_pref_measures.judging.per_topic.judgments_per_topic`).

The selectors judge the pools of the graded qrels (every selector judges the top-k candidates), or with ``depth``
the runs' pools over the judged topics (what the measure sees); the ``rating`` selector looks as deep as the
measure (its cutoff, else :data:`FULL_DEPTH`). The truth is a file of full judgments, else every pair of the pools
judged by the judge of seed 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ir_pref_measures.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

FULL_DEPTH = 1000  # the rating selector's depth for a measure without a cutoff: a whole TREC run


@dataclass(frozen=True)
class Simulation:
    """What :func:`simulate_effort` found: ``table`` (every selector, budget and seed), ``text`` (the summary, or
    the per-topic curve with each selector's knee, as lines to show)."""

    table: pd.DataFrame
    text: str

    def plot(self, path: str) -> None:
        """tau against judgments, one line per selector, drawn to ``path`` (the ``plot`` extra: matplotlib)."""
        from ir_pref_measures.judging.simulation import plot

        plot(self.table, path)


def simulate_effort(
    qrels: str,
    runs: Sequence[str],
    selectors: Sequence[str],
    *,
    judge: str = "simulated",
    noise: float = 0.0,
    judgments: str | None = None,
    prefs_format: str | None = None,
    fallback: str = "coin",
    depth: int | None = None,
    measure: str = "ppref@10",
    truth: str | None = None,
    topk: int | None = None,
    budgets: Sequence[float | int] | None = None,
    per_topic: Sequence[int] | None = None,
    seeds: int = 1,
) -> Simulation:
    """Simulate the ``selectors`` (names of :data:`~ir_pref_measures.choices.SELECTORS`) with the ``judge``
    (``simulated`` from ``qrels`` with ``noise``, or ``replay`` of ``judgments`` in ``prefs_format``, a pair never
    recorded answered by a coin or, with ``fallback="qrels"``, by the grades) over the ``runs`` (cut at ``topk``)
    at ``budgets`` (shares of the pairs) or ``per_topic`` judgments, for ``seeds`` seeds, under ``measure``
    (module docstring)."""
    from ir_pref_measures.agreement.panel import runs_at_depth
    from ir_pref_measures.judging.selectors import TopK
    from ir_pref_measures.judging.simulation import BUDGETS, all_judged, judged_depth_pools, simulate, summary
    from ir_pref_measures.loading.sources import read_grades, read_recorded

    if per_topic and budgets:
        raise InputError("give --budgets (shares of the pairs) or --per-topic (judgments per topic), not both")
    if judge == "replay" and not judgments:
        raise InputError("the replay judge needs --judgments")
    # the inputs, each read once, before the judge, the pools and the selectors are built of them
    seen = _depth(measure)
    grades = read_grades(qrels)
    recorded = read_recorded(judgments, prefs_format) if judge == "replay" else None
    ranked = runs_at_depth(runs, topk)
    make_judge = _judge_maker(grades, recorded, noise, fallback)
    named = dict(zip(runs, runs, strict=True))
    if depth:  # what the measure sees: the runs' pools over the judged topics
        pools, candidates = judged_depth_pools(named, grades, depth)
    else:
        pools, candidates = TopK(grades).pools, grades  # every selector judges the top-k candidates
    makers = {name: _maker(name, pools, candidates, named, seen) for name in selectors}
    full = f"{prefs_format}:{truth}" if truth and prefs_format else truth
    if full is None:
        full = all_judged(pools, make_judge(0))
    if per_topic:
        return _per_topic(makers, make_judge, ranked, full, pools, per_topic, seeds, measure)
    table = simulate(
        makers, make_judge, ranked, full, pools=pools, budgets=budgets or list(BUDGETS),
        seeds=range(seeds), measure=measure,
    )  # fmt: skip
    return Simulation(table, summary(table, spread=True).round(4).to_string() + "\n")


def _judge_maker(grades, recorded, noise, fallback):
    """``seed -> Judge``: the simulated judge over ``grades``, or with ``recorded`` judgments their replay (a pair
    never recorded answered by a coin, or with ``fallback="qrels"`` by the grades)."""
    from ir_pref_measures.judging.judges import ReplayJudge, SimulatedJudge

    if recorded is None:
        return lambda seed: SimulatedJudge(grades, seed, noise=noise)
    answers = grades if fallback == "qrels" else None
    return lambda seed: ReplayJudge(recorded, seed, fallback=answers)


def _per_topic(makers, make_judge, runs, truth, pools, per_topic, seeds, measure) -> Simulation:
    """The per-topic curve with each selector's knee, and the table of every seed."""
    from ir_pref_measures.judging.per_topic import judgments_per_topic, knees

    table, curve = judgments_per_topic(
        makers, make_judge, runs, truth, pools=pools, per_topic=per_topic, seeds=range(seeds), measure=measure
    )
    lines = [curve.round(4).to_string(index=False)]
    for name, at in knees(curve).items():
        lines.append(f"knee {name}: {'none' if at is None else at} judgments per topic")
    return Simulation(table, "\n".join(lines) + "\n")


def _maker(name, pools, candidates, runs, depth):
    """``seed -> Selector`` for the selector ``name`` (``random`` asks in batches of 50)."""
    from ir_pref_measures.judging.effort import build_selector

    batch = 50 if name == "random" else None
    return lambda seed: build_selector(name, seed, pools, candidates, batch, runs=runs, depth=depth)


def _depth(measure: str) -> int:
    """The depth the measure sees: its cutoff, else :data:`FULL_DEPTH`."""
    from ir_pref_measures.measures.names import parse_measure

    return parse_measure(measure).params.get("cutoff") or FULL_DEPTH
