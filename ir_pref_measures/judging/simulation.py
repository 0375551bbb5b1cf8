"""The simulator of judging strategies: selectors x budgets x seeds, and how close the systems' ordering under a
measure computed from the judgments collected comes to the ordering under all judgments.

For each selector, budget and seed, a run of the selector with the judge (both seeded by the seed) to the budget
(a ``float``: a share of each query's all-pairs cost over ``pools``; an ``int``: that many questions per query)
collects verdicts (in memory); their preferences
(ties included, a bad mark as a win of the other doc), made consistent (:func:`consistent`: the judgments that
agree with an order fitted to them, so that a noisy judge's cycles do not tie every doc under the closure), are the
judgments under which each system's mean ``measure`` is computed (:func:`ir_pref_measures.engine.run_metrics`:
the runs are read and the measure parsed once, before the first run of a selector); the truth is made consistent
the same way. Kendall's tau and tau_AP
(:func:`ir_pref_measures.meta.kendall_tau`, :func:`ir_pref_measures.meta.tau_ap`) compare the systems' ordering
with the one under ``truth`` (all judgments). The cost-versus-fidelity table says what a lab gets for its money
before it pays for judgments.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import runner
from ir_pref_measures.judging.protocol import Judge
from ir_pref_measures.judging.rules import Verdict
from ir_pref_measures.judging.selectors.base import Selector, all_pairs_cost
from ir_pref_measures.judging.store import Store
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.rankings import Ranking

BUDGETS = (0.1, 0.25, 0.5)
COLUMNS = ["selector", "budget", "seed", "judgments", "tau", "tau_ap"]


def preference_frame(verdicts: Sequence[Verdict]):
    """``verdicts`` as a ``carterette`` preference table (``query_id, doc_id_a, doc_id_b, preference``: ``-1`` a
    preferred, ``0`` a tie); a bad mark is a win of the other doc, a verdict without outcome is left out."""
    import pandas as pd

    rows = []
    for v in verdicts:
        winner = v.winner()
        if v.outcome == "tie":
            rows.append((v.pair.query_id, v.pair.first, v.pair.second, 0))
        elif winner is not None:
            loser = v.pair.second if winner == v.pair.first else v.pair.first
            rows.append((v.pair.query_id, winner, loser, -1))
    return pd.DataFrame(rows, columns=["query_id", "doc_id_a", "doc_id_b", "preference"])


def consistent(judgments):
    """``judgments`` as the measures should read judgments that may contradict each other: a preference table
    (:func:`preference_frame`) made consistent (:func:`~ir_pref_measures.loading.consistent.consistent_mask`: the
    judgments that agree with an order fitted to them); any other judgment source as it is."""
    import pandas as pd

    from ir_pref_measures.loading.consistent import consistent_mask

    if not isinstance(judgments, pd.DataFrame) or "preference" not in judgments.columns:
        return judgments
    frame = judgments.reset_index(drop=True)
    return frame[consistent_mask(frame)]


def _verdict_judgments(verdicts: Sequence[Verdict]) -> Judgments:
    """``verdicts`` as the measures read them: their :func:`preference_frame` made :func:`consistent`, as
    :class:`~ir_pref_measures.model.judgments.Judgments`."""
    return Judgments.from_preferences(consistent(preference_frame(verdicts)))


def judged_depth_pools(runs: Mapping[str, object], grades: Mapping[str, Mapping[str, float]], depth: int):
    """What a measure to ``depth`` sees of ``runs``: their depth-``depth`` pools over the topics of the graded
    qrels ``grades``, and those grades over the pools (an ungraded doc: 0), whose top-k candidates ``topk``
    judges. Returns ``(pools, grades)``."""
    from ir_pref_measures.judging.selectors.base import depth_pools

    pools = {q: docs for q, docs in depth_pools(runs, depth).items() if q in grades}
    return pools, {q: {d: grades[q].get(d, 0.0) for d in docs} for q, docs in pools.items()}


def all_judged(pools: Mapping[str, Sequence[str]], judge: Judge):
    """The truth of a simulation: the preference table (:func:`preference_frame`) of ``judge``'s verdicts on
    every pair of ``pools``."""
    from ir_pref_measures.judging.selectors.pairs import AllPairs

    with Store(":memory:") as store:
        report = runner.run(store, AllPairs(pools, 0), judge)
    return preference_frame([v for history in report.history.values() for r in history for v in r])


def system_scores(judgments, runs: Mapping[str, object], measure: str):
    """Each run's mean ``measure`` over the judged queries under ``judgments`` (anything
    :func:`ir_pref_measures.load_judgments` reads), as a Series by run name."""
    from ir_pref_measures.loading import sources
    from ir_pref_measures.measures.names import parse_measure

    rankings = {name: sources.ranking(run) for name, run in runs.items()}
    return _scores(sources.judgments(judgments), rankings, parse_measure(measure))


def _scores(judgments: Judgments, rankings: Mapping[str, Ranking], measure):
    """:func:`system_scores` of judgments and runs read already, under the parsed ``measure``."""
    import pandas as pd

    from ir_pref_measures.engine import run_metrics

    scores = {}
    for name, run in rankings.items():
        values = [m.value for m in run_metrics([measure], run, judgments)]
        scores[name] = sum(values) / len(values) if values else math.nan
    return pd.Series(scores, dtype="float64")


def simulate(
    selectors: Mapping[str, Callable[[int], Selector]],
    judge: Callable[[int], Judge],
    runs: Mapping[str, object],
    truth,
    *,
    pools: Mapping[str, Sequence[str]],
    budgets: Sequence[float | int] = BUDGETS,
    seeds: Sequence[int] = (0,),
    measure: str = "ppref@10",
    verbose: bool = False,
):
    """The table (a DataFrame: :data:`COLUMNS`) of ``selectors`` (name -> ``seed -> Selector``) x ``budgets``
    (shares of the all-pairs cost of ``pools``, or ints: questions per query) x ``seeds``, with ``judge``
    (``seed -> Judge``), the systems ``runs`` and the full judgments ``truth`` (module docstring)."""
    import pandas as pd

    from ir_pref_measures.loading import sources
    from ir_pref_measures.measures.names import parse_measure
    from ir_pref_measures.meta.evaluation import kendall_tau, tau_ap

    if len(runs) < 2:
        raise InputError(f"the simulator orders systems: give at least 2 runs, not {len(runs)}")
    rankings = {name: sources.ranking(run) for name, run in runs.items()}
    parsed = parse_measure(measure)
    reference = _scores(sources.judgments(consistent(truth)), rankings, parsed)
    costs = all_pairs_cost(pools)
    rows = []
    for name, make in selectors.items():
        for share in budgets:
            for seed in seeds:
                selector = make(seed)
                budget = {q: _questions(share, costs.get(q, 0)) for q in selector.pools}
                with Store(":memory:") as store:
                    report = runner.run(store, selector, judge(seed), budget=budget, verbose=verbose)
                verdicts = [v for history in report.history.values() for r in history for v in r]
                scores = _scores(_verdict_judgments(verdicts), rankings, parsed)
                rows.append(
                    (name, share, seed, report.asked, kendall_tau(scores, reference), tau_ap(scores, reference))
                )
    return pd.DataFrame(rows, columns=COLUMNS)


def _questions(budget: float | int, cost: int) -> int:
    """A query's questions under ``budget``: a ``float`` is a share of its all-pairs ``cost`` (rounded up), an
    ``int`` the number itself."""
    if isinstance(budget, float):
        return math.ceil(budget * cost)
    return budget


def summary(table, spread: bool = False):
    """The mean judgments, tau and tau_AP over the seeds of each selector and budget (rows: selector, budget);
    with ``spread``, also the standard deviations over the seeds (``tau_sd``, ``tau_ap_sd``)."""
    grouped = table.groupby(["selector", "budget"], sort=True)
    means = grouped[["judgments", "tau", "tau_ap"]].mean()
    if not spread:
        return means
    sds = grouped[["tau", "tau_ap"]].std().add_suffix("_sd")
    return means.join(sds)[["judgments", "tau", "tau_sd", "tau_ap", "tau_ap_sd"]]


def plot(table, path) -> None:
    """tau against judgments, one line per selector (the ``plot`` extra: matplotlib), saved to ``path``."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise InputError("the simulator's plot needs matplotlib: pip install 'ir-pref-measures[plot]'") from error
    means = summary(table).reset_index()
    figure, axes = plt.subplots(figsize=(6, 4))
    for name, rows in means.groupby("selector", sort=True):
        axes.plot(rows["judgments"], rows["tau"], marker="o", label=name)
    axes.set_xlabel("judgments")
    axes.set_ylabel("Kendall's tau vs all judgments")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
