"""``Experiment``: the table of runs x measures that ``pt.Experiment`` makes (Macdonald and Tonellotto, ICTIR
2020), with a baseline, significance tests and corrections, taking ``pt.Experiment``'s call as well as ours.

The front (:func:`Experiment`) reads the call, the runs (files, frames, PyTerrier Transformers) and the judgment
sets; the core (:func:`experiment_values`) computes the per-query values of the plan
(:mod:`~ir_pref_measures.experiment.columns`); :mod:`~ir_pref_measures.experiment.table` makes the table. Two kinds of
measures:

* ir_measures measures (ours and theirs, ``nDCG@10``, ``APpref``, ``PGC(p=0.9)``): per query, by the engine, over
  the judged queries; a judged query missing from a run scores the measure's default. The column is the mean over
  queries; the test compares the run's per-query values with the baseline's.
* pairwise preferences (``rpp``, ``invrpp``, ``dcgrpp``, ``lexirecall``, ``lexiprecision``,
  ``rrlexiprecision``; :mod:`ir_pref_measures.comparison.pairwise`, Diaz 2023, Diaz and Ferraro 2022): per query, the
  preference of the run over the baseline (0 for the baseline itself); without a baseline, the mean of
  its preferences over every other run. Queries without a relevant doc are dropped and a query missing from
  a run is its worst case, as in ``compare``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from ir_pref_measures.errors import InputError, user_stacklevel
from ir_pref_measures.experiment.columns import DEFAULT_SET, Plan, is_pairwise, summed  # noqa: F401  (DEFAULT_SET: the CLI's)
from ir_pref_measures.experiment.pipelines import VALIDATE, check_outputs, is_runtime_measure, plan_drawing
from ir_pref_measures.experiment.render import HIGHLIGHTS
from ir_pref_measures.experiment.runs import SAVE_MODES, run_sources, save_tables
from ir_pref_measures.experiment.table import (  # noqa: F401  (TESTS: the CLI's)
    TESTS,
    TestSettings,
    baseline_names,
    check_round,
    check_tests,
    long_table,
    summary_table,
)
from ir_pref_measures.experiment.values import PerQuery, experiment_values
from ir_pref_measures.loading import sources
from ir_pref_measures.model.checks import examples
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.stats import paired


def Experiment(
    runs,
    judgments=None,
    measures=None,
    *positional,
    names: Sequence[str] | None = None,
    baseline: str | int | Sequence[str | int] | None = None,
    test: str | Callable = "t",
    correction: str | None = None,
    correction_alpha: float = 0.05,
    perquery: bool | str = False,
    round: int | Mapping[str, int] | None = None,
    topics=None,
    topk: int | None = None,
    samples: int = paired.SAMPLES,
    seed: int = 0,
    ci: float | None = None,
    effect_size: bool = False,
    all_pairs: bool = False,
    anova: bool = False,
    eval_metrics=None,
    qrels=None,
    dataframe: bool = True,
    highlight: str | None = None,
    filter_by_qrels: bool = False,
    filter_by_topics: bool = True,
    save_dir: str | os.PathLike | None = None,
    save_mode: str = "warn",
    save_format="trec",
    batch_size: int | None = None,
    verbose: bool | str = False,
    per_query: PerQuery | None = None,
    plan: str = "linear",
    validate: str = "warn",
    precompute_prefix: bool = False,
):
    """Evaluate ``runs`` with ``measures`` on ``judgments``: one row per run, as ``pt.Experiment`` makes it.

    Called as ours, ``Experiment(runs, judgments, measures[, names])``, or as PyTerrier's, ``Experiment(systems,
    topics, qrels, eval_metrics[, names])`` (recognised by a topics DataFrame second, or by ``qrels=`` /
    ``eval_metrics=``), with the keywords of both.

    ``runs``: a mapping name -> run, or a sequence of runs: a path, any form ir_measures accepts (a DataFrame in
    ir_measures' or PyTerrier's columns), a :class:`Ranking`, or a PyTerrier Transformer (run on ``topics``,
    ``batch_size`` topics at a time; with ``save_dir`` its results are written to ``<save_dir>/<name>.res.gz``,
    and ``save_mode`` "reuse", "overwrite", "warn" or "error" says what an existing file means, as in
    PyTerrier). Names: ``names``, else the mapping's keys, else a file's name without folder, ``input.``,
    ``.gz`` and extension (:func:`ir_pref_measures.parsing.names.run_name`), a Transformer's ``str()`` (as PyTerrier),
    ``run1``, ``run2``, ... for other runs. ``topk=K``: every run cut at rank K first. Runs of different depths
    give a :class:`DepthWarning` (recall-oriented measures favour the deeper run).
    ``judgments``: a :class:`Judgments`, a file, an ir_datasets ID (``irds:<id>``), graded qrels / a preference
    table in any form :func:`load_judgments` takes, a list of those (their union), or a mapping name -> such a
    source, the **judgment sets** (a string ``A+B`` combines sources). Graded measures and pairwise preferences
    use the graded part of a set; the preference measures use all of it.
    ``measures``: ir_measures Measure objects or names (``nDCG@10``, ``ppref@10``, ``PGC(p=0.8)``,
    ``prefs_avgjg``) and pairwise names (``rpp``, ``lexiprecision``, ...); ``NAME:MEASURE`` evaluates on the
    judgment set ``NAME`` (needed with several sets; column ``MEASURE [NAME]``) or, if no set has that name, on
    the judgment group ``NAME`` (:func:`load_groups`); or a mapping set name -> measures. trec_eval's counts
    (``prefs_num_prefs_*``) are summed over queries, the rest averaged.
    ``baseline``: a run name or index, or a list of them: adds ``+``, ``-`` and ``p-value`` columns per measure
    (`` vs NAME`` after each with several baselines). ``test``: ``"t"`` (paired t-test,
    ``scipy.stats.ttest_rel``), ``"wilcoxon"``, ``"sign"``, ``"permutation"`` (paired randomisation test with
    ``samples`` random sign vectors, default 10,000, exact when 2^queries <= samples) or ``"bootstrap"`` (Sakai's
    paired bootstrap test), or a callable ``(run, baseline) -> (stat, p)``; pairwise preferences use the sign test
    unless the test is "permutation" or "bootstrap". ``"tukey"`` (Tukey HSD on the two-way ANOVA's residual
    variance) and ``"randomised-tukey"`` (``samples`` within-query shuffles) test all pairs of runs at once: their
    p-values are adjusted over all pairs (docs/many-systems.md). ``correction``: a statsmodels ``multipletests`` method
    (``"holm"``, ``"bonferroni"``, ``"fdr_bh"``, ...) at ``correction_alpha``; NaN p-values are left out of it.
    ``ci``: a confidence level (e.g. 0.95): percentile bootstrap intervals of each mean and, with a baseline, of
    each difference to it (``samples`` resamples). ``effect_size``: the standardised mean difference to the
    baseline. Resampling draws from ``numpy.random.default_rng(seed)``. ``all_pairs=True``: instead of the runs,
    a row per measure and pair of runs (difference, p-value, interval, effect size;
    :func:`~ir_pref_measures.experiment.table.pairs_table`); ``anova=True``: the two-way ANOVA of each measure.
    ``perquery``: ``True``, the long table ``name, qid, measure, value``; ``"both"``, ``(table, long table)``.
    ``round``: decimal places of the measure values (an int, or per measure name). ``dataframe=False``: a dict
    name -> {measure: value}. ``highlight="bold"`` or ``"color"``: a pandas Styler marking each measure's best
    value (:func:`ir_pref_measures.experiment.styled.highlight`).
    ``topics``: only these queries (a topics DataFrame with ``qid`` or ``query_id``, an ir_datasets ID, or
    query ids; with ``filter_by_topics=False`` they only feed Transformers); judged queries outside them are left
    out, topics without judgments are ignored (``filter_by_qrels=True``: not even run through Transformers).
    ``verbose``: a progress bar for the Transformers and the evaluation.
    ``per_query``: the per-query computation, called once per judgment set as
    ``per_query(rankings, judgments, measures, baseline, verbose=..., frames=...)`` and returning, per measure
    column, a frame of per-query values (queries x runs); default the local one
    (:func:`~ir_pref_measures.experiment.values.per_query_frames`). ``ir_pref_measures.Experiment(client=...)``
    passes the one of a Dask cluster (:func:`ir_pref_measures.dask.on_cluster`).

    Returns
    -------
    pandas.DataFrame | pandas.io.formats.style.Styler | dict | Results
        The table of runs x measures (see ``dataframe``, ``highlight``, ``perquery``, ``all_pairs``, ``anova``).
    """
    call = _call(runs, judgments, measures, positional, names, eval_metrics, qrels, topics)
    _check_options(save_mode, highlight, perquery, round)
    _check_pyterrier_options(plan, validate, precompute_prefix)
    verbose = False if verbose == "auto" else bool(verbose)
    settings = TestSettings(test, correction, correction_alpha, samples, seed, ci, effect_size, all_pairs, anova)
    check_tests(settings)
    if (all_pairs or anova) and (not dataframe or highlight is not None):
        raise InputError("the all-pairs and ANOVA tables are DataFrames: not with dataframe=False or highlight")
    wanted, mrt = _without_mrt(call.measures)
    experiment = Plan.of(call.judgments, wanted)
    pairwise = bool(experiment.columns(is_pairwise))
    _check_combinations(
        settings,
        baseline,
        perquery is True and save_dir is None,
        pairwise,
        call.names is not None and not call.keys_name,
    )
    frame_topics = call.topics if isinstance(call.topics, pd.DataFrame) else None
    if frame_topics is not None:
        _check_topic_overlap(frame_topics, experiment.judged, filter_by_qrels, filter_by_topics)
    restrict = sources.topic_ids(call.topics) if call.topics is not None and filter_by_topics else None
    _check_plan(experiment, baseline, settings, restrict)
    times: dict[str, float] = {}
    systems = run_sources(call.runs, call.names, keys_name=call.keys_name)
    measures = [m for items in experiment.items.values() for _, m in items]
    check_outputs(systems, call.topics, measures, validate)
    if verbose and plan == "tree":
        print(plan_drawing(systems))
    frames: dict[str, pd.DataFrame] | None = {} if any(map(is_runtime_measure, measures)) else None
    run_names = list(systems)
    baselines = baseline_names(baseline, run_names)
    values = experiment_values(
        systems, experiment, baselines[0] if baselines else None, per_query=per_query, topk=topk, restrict=restrict,
        check_runs=frame_topics is None, verbose=verbose, frames=frames, topics=call.topics,
        judged=experiment.judged if filter_by_qrels else None, batch_size=batch_size, save_dir=save_dir,
        save_mode=save_mode, save_format=save_format, times=times,
        need_documents=not all(map(is_runtime_measure, measures)),
    )  # fmt: skip
    unjudged = [] if frame_topics is None or filter_by_qrels else _unjudged(frame_topics, experiment.judged)
    summary = perquery is not True or save_dir is not None  # the tests and resampling only when the table is used
    per_query_rows = bool(perquery) or save_dir is not None  # the long table only when it is returned or saved
    table, long = _tables(
        values, experiment, run_names, baselines, settings, round, times if mrt else None, summary, per_query_rows
    )
    if long is not None and unjudged and perquery:
        long = _with_unjudged(long, unjudged, run_names, list(values))
    if save_dir is not None:
        save_tables(save_dir, table, long)
    return _output(table, long, values, perquery, dataframe, highlight)


def _check_plan(plan: Plan, baseline, settings: TestSettings, restrict: set[str] | None) -> None:
    """:class:`InputError` before any run is read: a correction without a baseline, pairwise preferences with
    several baselines, topics without a judged query."""
    given = [] if baseline is None else list(baseline) if isinstance(baseline, list | tuple) else [baseline]
    if settings.correction is not None and not given and not settings.all_pairs:
        raise InputError("a multiple-testing correction needs a baseline")
    if len(given) > 1 and plan.columns(is_pairwise):
        raise InputError("pairwise preferences (rpp, ...) are relative to one baseline: give one")
    for judged in plan.sets.values():
        _check_topics(judged, restrict)


class Results(NamedTuple):
    """``perquery="both"``: the table and the long table, as ``pt.Experiment``'s ``EvaluationDataTuple`` (shown
    one above the other in a notebook)."""

    averages: pd.DataFrame
    perquery: pd.DataFrame

    def _repr_html_(self) -> str:
        return self.averages._repr_html_() + self.perquery._repr_html_()


def _tables(
    values, plan: Plan, run_names, baselines, settings: TestSettings, round, times, summary: bool = True,
    long: bool = True,
) -> tuple:  # fmt: skip
    """The summary table (with PyTerrier's ``mrt`` column after the measures when ``times`` is given; ``None``
    unless ``summary``) and the long table (``None`` unless ``long``: a row per run, query and measure)."""
    rows = long_table(values, round) if long else None
    if not summary:
        return None, rows
    sums, pairwise = plan.columns(summed), plan.columns(is_pairwise)
    table = summary_table(values, run_names, baselines, settings, round, sums=sums, pairwise=pairwise)
    if times is not None:
        table.insert(1 + len(values), "mrt", [times[name] for name in run_names])
    return table, rows


def _output(table: pd.DataFrame | None, long: pd.DataFrame | None, values, perquery, dataframe, highlight):
    """What :func:`Experiment` returns: the long table, the summary table (a DataFrame, a dict or a Styler), or
    both (:class:`Results`; a plain tuple with ``dataframe=False``), as ``pt.Experiment``. ``long``: ``None``
    unless ``perquery``."""
    if not dataframe:
        means = (
            None
            if table is None
            else {
                row["name"]: {c: row[c] for c in table.columns[1:] if c in values or c == "mrt"}
                for _, row in table.iterrows()
            }
        )
        if not perquery:
            return means
        assert long is not None, "the per-query values are made when perquery"
        by_query = {
            i: {str(q): dict(zip(g["measure"], g["value"], strict=True)) for q, g in run.groupby("qid", sort=False)}
            for i, (_, run) in enumerate(long.groupby("name", sort=False))
        }
        return by_query if perquery is True else (means, by_query)
    if perquery is True:
        return long
    if highlight is None:
        shown = table
    else:
        from ir_pref_measures.experiment.styled import highlight as styled  # pandas' Styler needs jinja2

        shown = styled(table, highlight)
    return Results(shown, long) if perquery == "both" else shown


def _without_mrt(measures) -> tuple[object, bool]:
    """The measures without PyTerrier's ``"mrt"`` (mean response time, not a measure of the results), and whether
    it was asked for."""
    if isinstance(measures, list | tuple) and "mrt" in measures:
        return [m for m in measures if not (isinstance(m, str) and m == "mrt")], True
    return measures, False


def _check_pyterrier_options(plan, validate, precompute_prefix) -> None:
    """``pt.Experiment``'s execution options: ``plan`` ("linear" or "tree": the runs are the same either way),
    ``validate`` ("warn", "error", "ignore"), ``precompute_prefix`` (deprecated in PyTerrier: a warning)."""
    for option, value, allowed in (("plan", plan, ("linear", "tree")), ("validate", validate, VALIDATE)):
        if value not in allowed:
            raise InputError(f"unknown {option} {value!r}", expected=", ".join(allowed))
    if precompute_prefix:
        warnings.warn(
            "precompute_prefix is deprecated. Use plan='tree' instead", DeprecationWarning, stacklevel=user_stacklevel()
        )


NO_OVERLAP = (
    "There is no overlap between the qids found in the topics and qrels. If this is intentional, set "
    "filter_by_topics=False and filter_by_qrels=False."
)


def _check_topic_overlap(topics: pd.DataFrame, judged: set[str], filter_by_qrels: bool, filter_by_topics: bool):
    """``pt.Experiment``'s error (its message) when a filter is on and no topic is judged."""
    if (filter_by_qrels or filter_by_topics) and not sources.topic_ids(topics) & judged:
        raise InputError(NO_OVERLAP)


def _unjudged(topics: pd.DataFrame, judged: set[str]) -> list[str]:
    """The topics' query ids without judgments, in the topics' order."""
    column = "qid" if "qid" in topics.columns else "query_id"
    return [q for q in dict.fromkeys(topics[column].astype(str)) if q not in judged]


def _with_unjudged(long: pd.DataFrame, unjudged: list[str], run_names, columns) -> pd.DataFrame:
    """The long table with NaN rows for topics without judgments, and ``pt.Experiment``'s warning (once per run, as
    PyTerrier)."""
    for _ in run_names:
        warnings.warn(
            f"{len(unjudged)} topic(s) not found in qrels. Scores for these topics are given as NaN and should not "
            f"contribute to averages.",
            stacklevel=user_stacklevel(),
        )
    rows = pd.DataFrame(
        [(name, qid, column, np.nan) for name in run_names for qid in unjudged for column in columns],
        columns=["name", "qid", "measure", "value"],
    )
    return pd.concat([long, rows], ignore_index=True).sort_values(["name", "qid"], kind="stable", ignore_index=True)


def _check_combinations(settings: TestSettings, baseline, long_only: bool, pairwise: bool, named: bool) -> None:
    """An option that the table asked for does not use is an :class:`InputError`, never ignored: the options of
    the runs' table (its tests, intervals and effect sizes; a baseline, unless ``pairwise`` measures are relative
    to it) with ``perquery=True`` (the long table alone), ``anova`` or ``all_pairs``; a test or an effect size
    without a baseline or the pairs of runs."""
    given = {
        "baseline": baseline is not None and not (long_only and pairwise),
        "test": settings.test != "t",
        "ci": settings.ci is not None,
        "effect_size": settings.effect_size,
        "correction": settings.correction is not None,
        "all_pairs": settings.all_pairs,
        "anova": settings.anova,
    }
    table_options = [name for name, on in given.items() if on]
    if long_only and table_options:
        raise InputError(
            f"perquery=True gives the long table name, qid, measure, value alone: {', '.join(table_options)} "
            "shape the table of runs (perquery='both' gives both tables)"
        )
    if settings.anova and named:
        raise InputError("anova gives the ANOVA table of each measure, which names no run: names do not apply to it")
    if settings.anova and (unused := [n for n in table_options if n != "anova"]):
        raise InputError(f"anova gives the ANOVA table of each measure: {', '.join(unused)} do(es) not apply to it")
    if settings.all_pairs and given["baseline"]:
        raise InputError("all_pairs compares every pair of runs: a baseline does not apply to it")
    if not (given["baseline"] or settings.all_pairs) and (unused := [n for n in ("test", "effect_size") if given[n]]):
        raise InputError(f"{', '.join(unused)} compare(s) runs: give a baseline or all_pairs=True")


def _check_options(save_mode: str, highlight: str | None, perquery, round) -> None:
    """:class:`InputError` for an option outside its values, before anything is read."""
    for option, value, allowed in (("save_mode", save_mode, SAVE_MODES), ("highlight", highlight, HIGHLIGHTS)):
        if value not in allowed:
            raise InputError(f"unknown {option} {value!r}", expected=", ".join(map(str, allowed)))
    if perquery not in (False, True, "both"):
        raise InputError(f"perquery must be True, False or 'both', not {perquery!r}")
    check_round(round)


@dataclass(frozen=True)
class _Call:
    runs: object
    judgments: object
    measures: object
    names: Sequence[str] | None
    topics: object
    keys_name: bool = False  # PyTerrier's call: a dict's keys name the runs, names= is ignored


def _call(runs, judgments, measures, positional, names, eval_metrics, qrels, topics) -> _Call:
    """The arguments of either calling convention, as ours (see :func:`Experiment`)."""
    if len(positional) > 2:
        raise TypeError(f"Experiment() takes at most 5 positional arguments ({3 + len(positional)} given)")
    pyterrier = qrels is not None or eval_metrics is not None or _is_topics(judgments)
    if not pyterrier:
        if len(positional) > 1:
            raise TypeError("Experiment(runs, judgments, measures, names) takes at most 4 positional arguments")
        if positional:
            if names is not None:
                raise TypeError("Experiment() got multiple values for argument 'names'")
            names = positional[0]
        if judgments is None or measures is None:
            raise InputError("give the judgments and the measures: Experiment(runs, judgments, measures)")
        return _Call(runs, judgments, measures, names, topics)
    given = {"topics": judgments, "qrels": measures, "eval_metrics": None, "names": None}
    given |= dict(zip(("eval_metrics", "names"), positional, strict=False))
    for key, value in (("topics", topics), ("qrels", qrels), ("eval_metrics", eval_metrics), ("names", names)):
        if value is not None and given[key] is not None:
            raise TypeError(f"Experiment() got multiple values for argument {key!r}")
        given[key] = value if value is not None else given[key]
    if given["qrels"] is None or given["eval_metrics"] is None:
        raise InputError("give the qrels and the measures: Experiment(systems, topics, qrels, eval_metrics)")
    return _Call(
        runs, given["qrels"], given["eval_metrics"], given["names"], given["topics"], isinstance(runs, Mapping)
    )


def _is_topics(value) -> bool:
    """A PyTerrier topics frame: a ``query`` column, or a ``qid`` column and neither docs nor grades."""
    if not isinstance(value, pd.DataFrame):
        return False
    columns = set(value.columns)
    return "query" in columns or bool(columns & {"qid", "query_id"} and not columns & {"docno", "doc_id", "doc_id_a"})


def _check_topics(judgments: Judgments, wanted: set[str] | None) -> None:
    judged = set(map(str, judgments.query_ids))
    if wanted is not None and not judged & wanted:
        raise InputError(
            f"the topics and the judgments have no query in common "
            f"(topics e.g. {examples(wanted)}; judged e.g. {examples(judged)})"
        )
