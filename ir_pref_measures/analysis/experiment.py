"""Experiment tables in the conventions of PyTerrier's ``pt.Experiment`` (Macdonald and Tonellotto, ICTIR 2020):
runs x measures, with a baseline, significance tests and corrections.

Columns, named as ``pt.Experiment`` names them: ``name``, then one per measure (``str(measure)``; ``measure
[set]`` on one of several judgment sets or on a judgment group); with a baseline, for each measure ``<m> +``
(queries where the run beats the baseline), ``<m> -`` (where it loses) and ``<m> p-value``; with a correction,
``<m> reject`` and ``<m> p-value corrected`` right after the p-value (statsmodels' ``multipletests`` across the
runs other than the baseline, per measure). The baseline row holds NaN in ``+``, ``-``, ``p-value``, ``p-value
corrected`` and False in ``reject``. Optional columns: ``<m> ci low`` / ``<m> ci high`` (bootstrap confidence
interval of the mean), with a baseline ``<m> diff ci low`` / ``<m> diff ci high`` (of the mean difference to the
baseline) and ``<m> effect size`` (standardised mean difference); :mod:`ir_pref_measures.analysis.stats`. With several
baselines every test column ends in `` vs <baseline>``.

Two kinds of measures:

* ir_measures measures (ours and theirs, ``nDCG@10``, ``APpref``, ``PGC(p=0.9)``): per query, by
  ir_measures, over the judged queries; a judged query missing from a run scores the measure's default.
  The column is the mean over queries; the test compares the run's per-query values with the baseline's.
* pairwise preferences (``rpp``, ``invrpp``, ``dcgrpp``, ``lexirecall``, ``lexiprecision``,
  ``rrlexiprecision``; :mod:`ir_pref_measures.analysis.compare`, Diaz 2023, Diaz and Ferraro 2022): per query, the
  preference of the run over the baseline (0 for the baseline itself); without a baseline, the mean of
  its preferences over every other run. Queries without a relevant doc are dropped and a query missing from
  a run is its worst case, as in ``compare``. ``+``/``-`` count the queries where the run is preferred /
  not preferred, and the test is the sign test (or the randomisation / bootstrap test when asked for).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ir_pref_measures.analysis import stats as tests
from ir_pref_measures.analysis.compare import ALIASES, PREFERENCES
from ir_pref_measures.analysis.compare import Measure as PairwiseMeasure
from ir_pref_measures.analysis.compare import parse_measure as parse_pairwise
from ir_pref_measures.analysis.render import HIGHLIGHTS, render  # noqa: F401  (render: public here too, as before)
from ir_pref_measures.analysis.runs import SAVE_MODES, DepthWarning, named_runs, truncate, warn_depths  # noqa: F401
from ir_pref_measures.analysis.stats import sign_test  # noqa: F401  (public here too, as before)
from ir_pref_measures.analysis.values import per_query
from ir_pref_measures.errors import InputError
from ir_pref_measures.inputs import sources
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.rankings import Ranking

TESTS = tests.TESTS
PAIRWISE_NAMES = (*PREFERENCES, *ALIASES)
DEFAULT_SET = sources.DEFAULT_SET


@dataclass(frozen=True)
class Tests:
    """How runs are compared with the baseline(s): ``test`` (a name of :data:`TESTS` or a callable ``(run,
    baseline) -> (stat, p)``), the correction, the resampling settings and the optional columns."""

    test: str | Callable = "t"
    correction: str | None = None
    alpha: float = 0.05
    samples: int = tests.SAMPLES
    seed: int = 0
    ci: float | None = None
    effect_size: bool = False


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
    samples: int = tests.SAMPLES,
    seed: int = 0,
    ci: float | None = None,
    effect_size: bool = False,
    eval_metrics=None,
    qrels=None,
    dataframe: bool = True,
    highlight: str | None = None,
    filter_by_qrels: bool = False,
    filter_by_topics: bool = True,
    save_dir: str | os.PathLike | None = None,
    save_mode: str = "warn",
    batch_size: int | None = None,
    verbose: bool = False,
    client=None,
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
    ``.gz`` and extension (:func:`ir_pref_measures.readers.names.run_name`), a Transformer's ``str()`` (as PyTerrier),
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
    unless the test is "permutation" or "bootstrap". ``correction``: a statsmodels ``multipletests`` method
    (``"holm"``, ``"bonferroni"``, ``"fdr_bh"``, ...) at ``correction_alpha``; NaN p-values are left out of it.
    ``ci``: a confidence level (e.g. 0.95): percentile bootstrap intervals of each mean and, with a baseline, of
    each difference to it (``samples`` resamples). ``effect_size``: the standardised mean difference to the
    baseline. Resampling draws from ``numpy.random.default_rng(seed)``.
    ``perquery``: ``True``, the long table ``name, qid, measure, value``; ``"both"``, ``(table, long table)``.
    ``round``: decimal places of the measure values (an int, or per measure name). ``dataframe=False``: a dict
    name -> {measure: value}. ``highlight="bold"`` or ``"color"``: a pandas Styler marking each measure's best
    value (:func:`ir_pref_measures.analysis.render.highlight`).
    ``topics``: only these queries (a topics DataFrame with ``qid`` or ``query_id``, an ir_datasets ID, or
    query ids; with ``filter_by_topics=False`` they only feed Transformers); judged queries outside them are left
    out, topics without judgments are ignored (``filter_by_qrels=True``: not even run through Transformers).
    ``verbose``: a progress bar for the Transformers and the evaluation.
    ``client``: a ``distributed.Client``: the per-query values are computed on its cluster
    (:func:`ir_pref_measures.dask.per_query`; the same values); or a scheduler's address (``tcp://HOST:PORT``),
    reached within Dask's ``distributed.comm.timeouts.connect`` (:func:`ir_pref_measures.dask.connect`).
    """
    call = _call(runs, judgments, measures, positional, names, eval_metrics, qrels, topics)
    for option, value, allowed in (("save_mode", save_mode, SAVE_MODES), ("highlight", highlight, HIGHLIGHTS)):
        if value not in allowed:
            raise InputError(f"unknown {option} {value!r}", expected=", ".join(map(str, allowed)))
    if perquery not in (False, True, "both"):
        raise InputError(f"perquery must be True, False or 'both', not {perquery!r}")
    _check_round(round)
    settings = Tests(test, correction, correction_alpha, samples, seed, ci, effect_size)
    _check_tests(settings)
    sets = judgment_sets(call.judgments)
    plan, order = plan_measures(call.measures, sets)
    wanted = None if call.topics is None else sources.topic_ids(call.topics)
    rankings = named_runs(
        call.runs,
        call.names,
        topics=call.topics,
        judged=_judged(sets) if filter_by_qrels else None,
        batch_size=batch_size,
        verbose=verbose,
        save_dir=save_dir,
        save_mode=save_mode,
    )
    if topk is not None:
        rankings = {name: truncate(ranking, topk) for name, ranking in rankings.items()}
    warn_depths(rankings)
    run_names = list(rankings)
    baselines = _baseline_names(baseline, run_names)
    if settings.correction is not None and not baselines:
        raise InputError("a multiple-testing correction needs a baseline")
    for key, items in plan.items():
        _check_graded(items, _judgments_of(sets, key).qrels())
    restrict = wanted if filter_by_topics else None
    for judged in sets.values():
        _check_overlap(rankings, judged, restrict)
    values: dict[str, pd.DataFrame] = {}
    pairwise_baseline = baselines[0] if baselines else None
    if len(baselines) > 1 and any(isinstance(m, PairwiseMeasure) for items in plan.values() for _, m in items):
        raise InputError("pairwise preferences (rpp, ...) are relative to one baseline: give one")
    for key, items in plan.items():
        part = _judgments_of(sets, key)
        if client is None:
            values |= per_query(rankings, part, part.qrels(), items, pairwise_baseline, verbose=verbose)
        else:
            from ir_pref_measures.analysis.cluster import per_query as cluster_per_query

            values |= cluster_per_query(rankings, part, part.qrels(), items, pairwise_baseline, client=client)
    values = {column: values[column] for column in order}
    if restrict is not None:
        values = {column: frame[frame.index.isin(restrict)] for column, frame in values.items()}
    sums = {column for items in plan.values() for column, m in items if _summed(m)}
    pairwise = {column for items in plan.values() for column, m in items if isinstance(m, PairwiseMeasure)}
    long = long_table(values, round) if perquery else None
    if perquery is True:
        return long
    table = summary_table(values, run_names, baselines, settings, round, sums=sums, pairwise=pairwise)
    if perquery == "both":
        return table, long
    if not dataframe:
        return {row["name"]: {c: row[c] for c in values} for _, row in table.iterrows()}
    if highlight is not None:
        from ir_pref_measures.analysis.render import highlight as styled

        return styled(table, highlight)
    return table


@dataclass(frozen=True)
class _Call:
    runs: object
    judgments: object
    measures: object
    names: Sequence[str] | None
    topics: object


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
    return _Call(runs, given["qrels"], given["eval_metrics"], given["names"], given["topics"])


def _is_topics(value) -> bool:
    """A PyTerrier topics frame: a ``query`` column, or a ``qid`` column and neither docs nor grades."""
    if not isinstance(value, pd.DataFrame):
        return False
    columns = set(value.columns)
    return "query" in columns or (columns & {"qid", "query_id"} and not columns & {"docno", "doc_id", "doc_id_a"})


# -- judgment sets and measures -----------------------------------------------------------------------------


def judgment_sets(judgments) -> dict[str, Judgments]:
    """Judgment sets by name: a mapping name -> source, else one set named :data:`DEFAULT_SET`. A source is
    anything :func:`ir_pref_measures.inputs.sources.judgments` reads, a list of sources (their union), or a string
    ``A+B`` (the union of A and B, unless a file of that name exists)."""
    if isinstance(judgments, Mapping) and not sources.is_records(judgments):
        if not judgments:
            raise InputError("no judgment sets given")
        for name in judgments:
            if not isinstance(name, str) or not name or any(c.isspace() or c == ":" for c in name):
                raise InputError(f"a judgment set name must be a non-empty string without spaces or ':', not {name!r}")
        return {name: _judgment_set(source) for name, source in judgments.items()}
    return {DEFAULT_SET: _judgment_set(judgments)}


def _judgment_set(source) -> Judgments:
    if isinstance(source, str):
        return sources.joined(source)
    if isinstance(source, list | tuple) and not sources.is_records(source):
        return sources.combined(*source)
    return sources.judgments(source)


Key = tuple[str, str | None]  # (judgment set, judgment group or None)


def plan_measures(measures, sets: Mapping[str, Judgments]) -> tuple[dict[Key, list[tuple[str, object]]], list[str]]:
    """The measures per (judgment set, group) they are evaluated on, each with its column name: ``MEASURE`` on
    the first set; ``SET:MEASURE`` on another set, ``MEASURE [SET]``; ``GROUP:MEASURE`` (no set of that name) on
    a judgment group of the first set, ``MEASURE [GROUP]``. ``measures`` may be a mapping set name -> measures.
    An unknown set or group lists the known ones. Returns the plan and the column names in the order given."""
    first = next(iter(sets))
    plan: dict[Key, list[tuple[str, object]]] = {}
    order: list[str] = []
    for prefix, measure in _prefixed(measures):
        if prefix is None:
            key = (first, None)
        elif prefix in sets:
            key = (prefix, None)
        elif len(sets) == 1:
            sets[first].group(prefix)  # an unknown group is an InputError naming the known ones
            key = (first, prefix)
        else:
            if prefix not in sets[first].groups:
                known = f"judgment sets {', '.join(sets)}; groups of {first}: {', '.join(sets[first].groups)}"
                raise InputError(
                    f"measure {prefix}:{measure}: unknown judgment set or group {prefix!r}", expected=known
                )
            key = (first, prefix)
        for column, parsed in parse_measures([measure]):
            named = column if prefix is None else f"{column} [{prefix}]"
            if named not in order:
                plan.setdefault(key, []).append((named, parsed))
                order.append(named)
    if not plan:
        raise InputError("no measures given")
    return plan, order


def _prefixed(measures) -> list[tuple[str | None, object]]:
    """``(set or group name, measure)`` in the order given."""
    if isinstance(measures, Mapping):
        return [(str(name), m) for name, group in measures.items() for _, m in _prefixed(group)]
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    out = []
    for measure in measures:
        if isinstance(measure, str) and ":" in measure.split("(")[0]:
            prefix, _, name = measure.partition(":")
            out.append((prefix, name))
        else:
            out.append((None, measure))
    return out


def _judgments_of(sets: Mapping[str, Judgments], key: Key) -> Judgments:
    name, group = key
    return sets[name] if group is None else sets[name].group(group)


def _judged(sets: Mapping[str, Judgments]) -> set[str]:
    return {str(q) for judged in sets.values() for q in judged.query_ids}


def _summed(measure) -> bool:
    """True for a measure whose summary is a sum over queries (trec_eval's counts), not a mean."""
    import ir_measures

    return isinstance(measure, ir_measures.Measure) and isinstance(measure.aggregator(), ir_measures.SumAgg)


def parse_measures(measures) -> list[tuple[str, object]]:
    """``(column name, measure)`` pairs: an ir_measures Measure, or for a pairwise preference a
    :class:`~ir_pref_measures.analysis.compare.Measure`. A measure given twice counts once; an unknown name lists the
    known
    ones."""
    import ir_measures

    from ir_pref_measures.measures.names import parse, validate

    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    parsed: dict[str, object] = {}
    for measure in measures:
        if isinstance(measure, str) and measure in PAIRWISE_NAMES:
            parsed.setdefault(measure, parse_pairwise(measure))
            continue
        if isinstance(measure, str):
            measure = parse(measure, others=f"; or a pairwise preference: {', '.join(PAIRWISE_NAMES)}")
        elif isinstance(measure, ir_measures.Measure):
            validate(measure)
        else:
            raise InputError(f"a measure must be an ir_measures Measure or a name, not {type(measure).__name__}")
        parsed.setdefault(str(measure), measure)
    if not parsed:
        raise InputError("no measures given")
    return list(parsed.items())


# -- the table ----------------------------------------------------------------------------------------------


def summary_table(
    values: Mapping[str, pd.DataFrame],
    names: list[str],
    baselines: Sequence[str],
    settings: Tests,
    round: int | Mapping[str, int] | None,
    *,
    sums: Iterable[str] = (),
    pairwise: Iterable[str] = (),
) -> pd.DataFrame:
    """The ``pt.Experiment`` table from per-query values (``values[column]``: queries x runs); the columns in
    ``sums`` hold the sum over queries (as ir_measures aggregates trec_eval's counts), the others the mean; the
    columns in ``pairwise`` hold preferences over the baseline (compared with 0, not with the baseline's values)."""
    table = pd.DataFrame({"name": names})
    sums, pairwise = set(sums), set(pairwise)
    for column, frame in values.items():
        if frame.empty:
            raise InputError(f"no query to evaluate {column} on (after restricting to the topics)")
        total = (lambda x: x.sum()) if column in sums else (lambda x: x.mean())
        table[column] = [_round(column, float(total(frame[name])), round) for name in names]
        if column in sums and all(float(v).is_integer() for v in table[column]):
            table[column] = table[column].astype(np.int64)  # a count: printed as one
        if settings.ci is not None:
            low, high = tests.bootstrap_ci(frame[names].to_numpy().T, settings.ci, settings.samples, _rng(settings))
            table[f"{column} ci low"], table[f"{column} ci high"] = low, high
    for baseline in baselines:
        suffix = "" if len(baselines) == 1 else f" vs {baseline}"
        for column, frame in values.items():
            for name, result in _compare(frame, names, baseline, settings, column in pairwise).items():
                table[f"{column} {name}{suffix}"] = result
    return table


def _compare(frame: pd.DataFrame, names: list[str], baseline: str, settings: Tests, is_pairwise: bool) -> dict:
    """The test columns of one measure against one baseline (NaN / False in the baseline's row); ``is_pairwise``:
    the values are already preferences over the baseline."""
    at = names.index(baseline)
    others = [r for r in range(len(names)) if r != at]
    reference = np.zeros(len(frame)) if is_pairwise else frame[baseline].to_numpy()
    runs = frame[names].to_numpy().T[others]
    d = runs - reference

    def filled(row_values, fill=np.nan):
        out = np.full(len(names), fill, dtype=bool if fill is False else np.float64)
        out[others] = row_values
        return out

    result = {"+": filled((d > 0).sum(axis=1)), "-": filled((d < 0).sum(axis=1))}
    result["p-value"] = p = filled(_p_values(d, runs, reference, is_pairwise, settings))
    if settings.correction is not None:
        reject, corrected = tests.correct(p[others], settings.correction, settings.alpha)
        result["reject"], result["p-value corrected"] = filled(reject, False), filled(corrected)
    if settings.ci is not None:
        low, high = tests.bootstrap_ci(d, settings.ci, settings.samples, _rng(settings))
        result["diff ci low"], result["diff ci high"] = filled(low), filled(high)
    if settings.effect_size:
        result["effect size"] = filled(tests.effect_size(d))
    return result


def _p_values(d: np.ndarray, runs: np.ndarray, reference: np.ndarray, is_pairwise: bool, settings: Tests):
    """Two-sided p-values of each run (row of ``runs``) against the reference (``d``: their differences)."""
    test = settings.test
    if callable(test):
        return np.array([test(run, reference)[1] for run in runs], dtype=np.float64)
    if is_pairwise and test in ("t", "wilcoxon"):  # preferences: already differences, often only -1, 0, 1
        test = "sign"
    return tests.p_values(d, test, settings.samples, _rng(settings))


def _rng(settings: Tests) -> np.random.Generator:
    """A fresh generator per measure and statistic: each column depends on the seed alone."""
    return np.random.default_rng(settings.seed)


def _check_tests(settings: Tests) -> None:
    if not callable(settings.test) and settings.test not in TESTS:
        raise InputError(f"unknown test {settings.test!r}", expected=f"one of {', '.join(TESTS)}, or a callable")
    if settings.correction is not None:
        tests.check_correction(settings.correction)
    if not 0 < settings.alpha < 1:
        raise InputError(f"correction_alpha must lie strictly between 0 and 1, not {settings.alpha!r}")
    if settings.ci is not None and not 0 < settings.ci < 1:
        raise InputError(f"ci (a confidence level) must lie strictly between 0 and 1, not {settings.ci!r}")
    tests.check_samples(settings.samples)


def _baseline_names(baseline, names: list[str]) -> list[str]:
    """The baselines as run names: ``baseline`` is a name or an index, or a list of them."""
    if baseline is None:
        return []
    given = list(baseline) if isinstance(baseline, list | tuple) else [baseline]
    found = [_baseline_name(b, names) for b in given]
    if len(set(found)) < len(found):
        raise InputError(f"a baseline is given twice: {given}")
    return found


def _baseline_name(baseline, names: list[str]) -> str:
    if isinstance(baseline, int | np.integer) and not isinstance(baseline, bool):
        if not 0 <= baseline < len(names):
            raise InputError(f"baseline index {baseline} is out of range for {len(names)} runs")
        return names[baseline]
    if str(baseline) not in names:
        raise InputError(f"unknown baseline {baseline!r}", expected=f"one of the runs: {', '.join(names)}")
    return str(baseline)


def long_table(values: Mapping[str, pd.DataFrame], round: int | Mapping[str, int] | None = None) -> pd.DataFrame:
    """``name, qid, measure, value``, sorted by name and qid (measures in the order given), as PyTerrier."""
    parts = []
    for column, frame in values.items():
        stacked = frame.rename_axis("qid").reset_index().melt(id_vars="qid", var_name="name", value_name="value")
        parts.append(stacked.assign(measure=column)[["name", "qid", "measure", "value"]])
    table = pd.concat(parts, ignore_index=True).sort_values(["name", "qid"], kind="stable", ignore_index=True)
    if round is not None:
        table["value"] = [_round(m, v, round) for m, v in zip(table["measure"], table["value"], strict=True)]
    return table


def _round(column: str, value: float, round: int | Mapping[str, int] | None) -> float:
    places = round.get(column) if isinstance(round, Mapping) else round
    return value if places is None else float(np.round(value, places))


def _check_round(round) -> None:
    places = round.values() if isinstance(round, Mapping) else [] if round is None else [round]
    if not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in places):
        raise InputError(f"round must be a non-negative int or a mapping measure -> int, not {round!r}")


def _check_graded(measures: list[tuple[str, object]], qrels: pd.DataFrame | None) -> None:
    from ir_pref_measures.measures.names import is_preference_measure

    if qrels is not None:
        return
    need = [column for column, m in measures if isinstance(m, PairwiseMeasure) or not is_preference_measure(m)]
    if need:
        raise InputError(f"{', '.join(need)} need graded judgments, but the judgments hold only preferences")


def _check_overlap(rankings: Mapping[str, Ranking], judgments: Judgments, wanted: set[str] | None) -> None:
    judged = set(map(str, judgments.query_ids))
    if wanted is not None and not judged & wanted:
        raise InputError(
            f"the topics and the judgments have no query in common "
            f"(topics e.g. {_examples(wanted)}; judged e.g. {_examples(judged)})"
        )
    for name, ranking in rankings.items():
        queries = set(map(str, ranking.query_ids))
        if not queries & judged:
            raise InputError(
                f"run {name!r} has no query in common with the judgments "
                f"(run: {len(queries)} queries, e.g. {_examples(queries)}; judged: {len(judged)}, "
                f"e.g. {_examples(judged)})"
            )


def _examples(ids: set[str], n: int = 3) -> str:
    return ", ".join(sorted(ids)[:n]) or "none"
