"""Experiment tables in the conventions of PyTerrier's ``pt.Experiment`` (Macdonald and Tonellotto, ICTIR 2020;
``specs/ecosystem.md`` §2.4): runs x measures, with a baseline, significance tests and corrections.

Columns, named as ``pt.Experiment`` names them: ``name``, then one per measure (``str(measure)``); with a
baseline, for each measure ``<m> +`` (queries where the run beats the baseline), ``<m> -`` (where it loses)
and ``<m> p-value``; with a correction, ``<m> reject`` and ``<m> p-value corrected`` right after the
p-value (statsmodels' ``multipletests`` across the runs other than the baseline, per measure). The
baseline row holds NaN in ``+``, ``-``, ``p-value``, ``p-value corrected`` and False in ``reject``.

Two kinds of measures:

* ir_measures measures (ours and theirs, ``nDCG@10``, ``APpref``, ``PGC(p=0.9)``): per query, by
  ir_measures, over the judged queries; a judged query missing from a run scores the measure's default.
  The column is the mean over queries; the test compares the run's per-query values with the baseline's.
* pairwise preferences (``rpp``, ``invrpp``, ``dcgrpp``, ``lexirecall``, ``lexiprecision``,
  ``rrlexiprecision``; :mod:`ir_pref_measures.compare`, Diaz 2023, Diaz and Ferraro 2022): per query, the
  preference of the run over the baseline (0 for the baseline itself); without a baseline, the mean of
  its preferences over every other run. Queries without a relevant doc are dropped and a query missing from
  a run is its worst case, as in ``compare``. ``+``/``-`` count the queries where the run is preferred /
  not preferred, and the test is always the sign test.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ir_pref_measures import sources
from ir_pref_measures.compare import ALIASES, PREFERENCES, evaluate, load_runs, relevant_docs
from ir_pref_measures.compare import Measure as PairwiseMeasure
from ir_pref_measures.compare import parse_measure as parse_pairwise
from ir_pref_measures.errors import InputError
from ir_pref_measures.judgments import Judgments
from ir_pref_measures.rankings import Ranking

TESTS = ("t", "wilcoxon", "sign")
FORMATS = ("table", "csv", "json", "markdown")
TEST_SUFFIXES = (" +", " -", " p-value", " reject", " p-value corrected")
PAIRWISE_NAMES = (*PREFERENCES, *ALIASES)
PROGRESS_DELAY = 2.0  # seconds before the progress bar shows (only on a terminal)


def sign_test(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Two-sided sign test of paired values: the exact binomial test (p = 1/2) of the number of pairs with
    x > y among those with x != y (ties dropped). Returns ``(wins, p)``; p is NaN when no pair differs.
    W. J. Dixon, A. M. Mood. The statistical sign test. JASA 41(236), 1946."""
    from scipy import stats

    difference = np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    wins, losses = int((difference > 0).sum()), int((difference < 0).sum())
    if wins + losses == 0:
        return 0.0, math.nan
    return float(wins), float(stats.binomtest(wins, wins + losses, 0.5).pvalue)


def Experiment(
    runs,
    judgments,
    measures,
    names: Sequence[str] | None = None,
    baseline: str | int | None = None,
    test: str | Callable = "t",
    correction: str | None = None,
    correction_alpha: float = 0.05,
    perquery: bool = False,
    round: int | Mapping[str, int] | None = None,
    topics=None,
    client=None,
) -> pd.DataFrame:
    """Evaluate ``runs`` with ``measures`` on ``judgments``: one row per run, as ``pt.Experiment`` makes it.

    ``runs``: a mapping name -> run (any form ir_measures accepts, a :class:`Ranking` or a path), or a
    sequence of runs with ``names`` (run files are named by their file name without ``input.``/``.gz``).
    ``judgments``: a :class:`Judgments` (e.g. :func:`load_combined` of qrels and preferences), a file,
    an ir_datasets ID (``irds:<id>``; a string that is no file is taken for an ID), or graded qrels / a
    preference table in any form :func:`load_judgments` takes. Graded measures and pairwise preferences use
    the graded part of the judgments; the preference measures use all of them.
    ``measures``: ir_measures Measure objects or names (``nDCG@10``, ``ppref@10``, ``PGC(p=0.8)``,
    ``prefs_avgjg``) and pairwise names (``rpp``, ``lexiprecision``, ...); ``GROUP:MEASURE`` evaluates a
    measure on one judgment group (``judge.00:ppref@10``, column ``ppref@10 [judge.00]``; see
    :func:`load_groups`). trec_eval's counts (``prefs_num_prefs_*``) are summed over queries, the rest
    averaged. ``baseline``: a run name (or index): adds ``+``, ``-``
    and ``p-value`` columns per measure; ``test``: ``"t"`` (paired t-test, ``scipy.stats.ttest_rel``),
    ``"wilcoxon"`` (signed-rank), ``"sign"`` or a callable ``(run, baseline) -> (stat, p)``; pairwise
    preferences always use the sign test. ``correction``: a ``statsmodels`` ``multipletests`` method
    (``"holm"``, ``"bonferroni"``, ``"fdr_bh"``, ...) at ``correction_alpha``; NaN p-values are left out of it.
    ``perquery=True``: the long table ``name, qid, measure, value`` (with a baseline, the pairwise values are
    preferences over it). ``round``: decimal places of the measure values (an int, or per measure name).
    ``topics``: only these queries (a topics DataFrame with ``qid`` or ``query_id``, an ir_datasets ID, or
    query ids); judged queries outside them are left out, topics without judgments are ignored.
    ``client``: a ``distributed.Client``: the per-query values are computed on its cluster
    (:func:`ir_pref_measures.dask.per_query`; same values).
    """
    rankings = named_runs(runs, names)
    run_names = list(rankings)
    baseline = _baseline_name(baseline, run_names)
    if correction is not None:
        _check_correction(correction, baseline)
    test_fn = _test_function(test)
    _check_round(round)
    judged = sources.judgments(judgments)
    by_group = group_measures(measures, judged)
    for group, group_measures_ in by_group.items():
        _check_graded(group_measures_, _judgments_of(judged, group).qrels())
    wanted = None if topics is None else sources.topic_ids(topics)
    _check_overlap(rankings, judged, wanted)
    values: dict[str, pd.DataFrame] = {}
    for group, group_measures_ in by_group.items():
        part = _judgments_of(judged, group)
        if client is None:
            values |= per_query(rankings, part, part.qrels(), group_measures_, baseline)
        else:
            from ir_pref_measures.adapters.dask import per_query as cluster_per_query

            values |= cluster_per_query(rankings, part, part.qrels(), group_measures_, baseline, client=client)
    order = [column for group_measures_ in by_group.values() for column, _ in group_measures_]
    values = {column: values[column] for column in _in_given_order(order, measures, judged)}
    if wanted is not None:
        values = {column: frame[frame.index.isin(wanted)] for column, frame in values.items()}
    if perquery:
        return long_table(values, round)
    sums = {column for group_measures_ in by_group.values() for column, m in group_measures_ if _summed(m)}
    return summary_table(values, run_names, baseline, test_fn, correction, correction_alpha, round, sums=sums)


def group_measures(measures, judgments: Judgments) -> dict[str | None, list[tuple[str, object]]]:
    """The measures per judgment group they are evaluated on: ``GROUP:MEASURE`` (a string) on
    ``judgments.group(GROUP)``, named ``MEASURE [GROUP]`` (as ``meta`` names them), the others on every
    judgment (group ``None``). An unknown group lists the known ones."""
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    plain, grouped = [], {}
    for measure in measures:
        group, measure = _split_group(measure)
        if group is None:
            plain.append(measure)
        else:
            judgments.group(group)  # an unknown group is an InputError
            grouped.setdefault(group, []).append(measure)
    out: dict[str | None, list[tuple[str, object]]] = {None: parse_measures(plain)} if plain else {}
    for group, named in grouped.items():
        out[group] = [(f"{column} [{group}]", m) for column, m in parse_measures(named)]
    if not out:
        raise InputError("no measures given")
    return out


def _split_group(measure) -> tuple[str | None, object]:
    if isinstance(measure, str) and ":" in measure.split("(")[0]:
        group, _, name = measure.partition(":")
        return group, name
    return None, measure


def _in_given_order(columns: list[str], measures, judgments: Judgments) -> list[str]:
    """``columns`` in the order their measures were given."""
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        return columns
    position = {}
    for i, measure in enumerate(measures):
        group, measure = _split_group(measure)
        for column, _ in parse_measures([measure]):
            position.setdefault(column if group is None else f"{column} [{group}]", i)
    return sorted(columns, key=lambda c: position.get(c, len(position)))


def _judgments_of(judgments: Judgments, group: str | None) -> Judgments:
    return judgments if group is None else judgments.group(group)


def _summed(measure) -> bool:
    """True for a measure whose summary is a sum over queries (trec_eval's counts), not a mean."""
    import ir_measures

    return isinstance(measure, ir_measures.Measure) and isinstance(measure.aggregator(), ir_measures.SumAgg)


def named_runs(runs, names: Sequence[str] | None = None) -> dict[str, Ranking]:
    """Runs by name as :class:`Ranking` s (each read once): from a mapping, from ``names`` and a sequence of
    runs, or from a sequence of run files (named as ``compare`` names them)."""
    if isinstance(runs, str | os.PathLike):
        runs = [runs]
    if names is not None:
        runs = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
        if len(names) != len(runs):
            raise InputError(f"{len(names)} names for {len(runs)} runs")
        if len(set(map(str, names))) < len(names):
            raise InputError(f"the run names are not unique: {list(names)}")
        runs = dict(zip(map(str, names), runs, strict=True))
    elif not isinstance(runs, Mapping):
        runs = list(runs)
        if not all(isinstance(run, str | os.PathLike) for run in runs):
            raise InputError("give runs as a mapping name -> run, or names= for a list of runs")
    named = load_runs(runs)
    if not named:
        raise InputError("no runs to evaluate")
    return {name: sources.ranking(run) for name, run in named.items()}


def parse_measures(measures) -> list[tuple[str, object]]:
    """``(column name, measure)`` pairs: an ir_measures Measure, or for a pairwise preference a
    :class:`ir_pref_measures.compare.Measure`. A measure given twice counts once; an unknown name lists the known
    ones."""
    import ir_measures

    from ir_pref_measures.adapters.ir_measures import parse, validate

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


def per_query(
    rankings: Mapping[str, Ranking],
    judgments: Judgments,
    qrels: pd.DataFrame | None,
    measures: list[tuple[str, object]],
    baseline: str | None,
) -> dict[str, pd.DataFrame]:
    """Per measure column: a frame of per-query values, one row per query id (sorted), one column per run."""
    from tqdm.auto import tqdm

    from ir_pref_measures.adapters.ir_measures import evaluate

    ordinary = [m for _, m in measures if not isinstance(m, PairwiseMeasure)]
    preferences = [m for _, m in measures if isinstance(m, PairwiseMeasure)]
    names = list(rankings)
    found: dict[object, dict[str, dict[str, float]]] = {m: {} for m in ordinary}
    steps = (len(names) if ordinary else 0) + (1 if preferences else 0)
    with tqdm(total=steps, desc="experiment", unit="step", delay=PROGRESS_DELAY, disable=None, leave=False) as bar:
        for name in names if ordinary else ():
            for metric in evaluate(ordinary, rankings[name], qrels=qrels, judgments=judgments):
                found[metric.measure].setdefault(name, {})[str(metric.query_id)] = metric.value
            bar.update()
        columns = {m: pd.DataFrame(found[m]).reindex(columns=names).sort_index() for m in ordinary}
        if preferences:
            columns |= _pairwise_values(rankings, qrels, preferences, baseline)
            bar.update()
    return {column: columns[m] for column, m in measures}


def _pairwise_values(rankings, qrels, measures: list, baseline: str | None) -> dict:
    """Per pairwise measure: per query, each run's preference over the baseline (0 for the baseline), or
    without one, the mean of its preferences over each other run."""
    names = list(rankings)
    if baseline is None and len(names) < 2:
        raise InputError("pairwise preferences need at least two runs")
    result = evaluate(rankings, relevant_docs(qrels), measures, baseline=baseline)
    out = {}
    for measure in measures:
        values = result.pair_values[measure.name].astype(np.float64)
        total = np.zeros((len(names), len(result.query_ids)))
        np.add.at(total, result.run_i, values)
        if baseline is None:  # pair (i, j) is i vs j; j vs i is its negation (the preferences are antisymmetric)
            np.subtract.at(total, result.run_j, values)
            total /= len(names) - 1
        index = pd.Index(result.query_ids.astype(str), name=None)
        out[measure] = pd.DataFrame(total.T, index=index, columns=names).sort_index()
    return out


def summary_table(
    values: Mapping[str, pd.DataFrame],
    names: list[str],
    baseline: str | None,
    test_fn: Callable,
    correction: str | None,
    correction_alpha: float,
    round: int | Mapping[str, int] | None,
    *,
    sums: Iterable[str] = (),
) -> pd.DataFrame:
    """The ``pt.Experiment`` table from per-query values (``values[column]``: queries x runs); the columns in
    ``sums`` hold the sum over queries (as ir_measures aggregates trec_eval's counts), the others the mean."""
    table = pd.DataFrame({"name": names})
    sums = set(sums)
    for column, frame in values.items():
        if frame.empty:
            raise InputError(f"no query to evaluate {column} on (after restricting to the topics)")
        total = (lambda x: x.sum()) if column in sums else (lambda x: x.mean())
        table[column] = [_round(column, float(total(frame[name])), round) for name in names]
    if baseline is None:
        return table
    at = names.index(baseline)
    for column, frame in values.items():
        is_pairwise = column in PAIRWISE_NAMES  # values are already preferences over the baseline
        reference = np.zeros(len(frame)) if is_pairwise else frame[baseline].to_numpy()
        fn = sign_test if is_pairwise else test_fn
        plus, minus, p = np.full(len(names), np.nan), np.full(len(names), np.nan), np.full(len(names), np.nan)
        for r, name in enumerate(names):
            if r == at:
                continue
            run = frame[name].to_numpy()
            plus[r], minus[r] = (run > reference).sum(), (run < reference).sum()
            p[r] = fn(run, reference)[1]
        table[f"{column} +"], table[f"{column} -"], table[f"{column} p-value"] = plus, minus, p
        if correction is not None:
            reject, corrected = _correct(p, at, correction, correction_alpha)
            table[f"{column} reject"], table[f"{column} p-value corrected"] = reject, corrected
    return table


def _correct(p: np.ndarray, baseline_at: int, method: str, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """statsmodels' ``multipletests`` over the finite p-values of the runs other than the baseline."""
    from statsmodels.stats.multitest import multipletests

    reject, corrected = np.zeros(len(p), dtype=bool), np.full(len(p), np.nan)
    tested = np.isfinite(p)
    tested[baseline_at] = False
    if tested.any():
        reject[tested], corrected[tested] = multipletests(p[tested], alpha=alpha, method=method)[:2]
    return reject, corrected


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


def _baseline_name(baseline, names: list[str]) -> str | None:
    if baseline is None:
        return None
    if isinstance(baseline, int | np.integer) and not isinstance(baseline, bool):
        if not 0 <= baseline < len(names):
            raise InputError(f"baseline index {baseline} is out of range for {len(names)} runs")
        return names[baseline]
    if str(baseline) not in names:
        raise InputError(f"unknown baseline {baseline!r}", expected=f"one of the runs: {', '.join(names)}")
    return str(baseline)


def _test_function(test) -> Callable:
    from scipy import stats

    if callable(test):
        return test
    functions = {"t": stats.ttest_rel, "wilcoxon": stats.wilcoxon, "sign": sign_test}
    if test not in functions:
        raise InputError(f"unknown test {test!r}", expected=f"one of {', '.join(TESTS)}, or a callable")
    return functions[test]


def _check_correction(correction: str, baseline: str | None) -> None:
    from statsmodels.stats.multitest import multipletests

    if baseline is None:
        raise InputError("a multiple-testing correction needs a baseline")
    try:
        multipletests([0.5], method=correction)
    except ValueError:
        raise InputError(
            f"unknown correction {correction!r}",
            expected="a statsmodels multipletests method: bonferroni, holm, sidak, holm-sidak, simes-hochberg, "
            "hommel, fdr_bh, fdr_by, fdr_tsbh, fdr_tsbky",
        ) from None


def _check_round(round) -> None:
    places = round.values() if isinstance(round, Mapping) else [] if round is None else [round]
    if not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in places):
        raise InputError(f"round must be a non-negative int or a mapping measure -> int, not {round!r}")


def _check_graded(measures: list[tuple[str, object]], qrels: pd.DataFrame | None) -> None:
    from ir_pref_measures.adapters.ir_measures import is_preference_measure

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


def render(table: pd.DataFrame, format: str = "table") -> str:
    """The table as text: ``table`` (aligned, 4 decimals; the measure values, then a block of test columns per
    measure), ``csv``, ``json`` (records) or ``markdown`` (one table, 4 decimals)."""
    if format == "csv":
        return table.to_csv(index=False)
    if format == "json":
        return table.to_json(orient="records", indent=1) + "\n"
    cells = {column: [_cell(column, v) for v in table[column]] for column in table.columns}
    if format == "table":
        return _text_blocks(table, pd.DataFrame(cells))
    if format == "markdown":
        right = {c: pd.api.types.is_numeric_dtype(table[c]) for c in table.columns}
        lines = ["| " + " | ".join(table.columns) + " |"]
        lines.append("|" + "|".join("---:" if right[c] else ":---" for c in table.columns) + "|")
        lines += ["| " + " | ".join(cells[c][i] for c in table.columns) + " |" for i in range(len(table))]
        return "\n".join(lines) + "\n"
    raise InputError(f"unknown output format {format!r}", expected=", ".join(FORMATS))


def _text_blocks(table: pd.DataFrame, cells: pd.DataFrame) -> str:
    """The values of every measure side by side, then per measure a block of its test columns."""
    measures = [c for c in table.columns if not c.endswith(TEST_SUFFIXES)]
    blocks = [cells[measures]]
    for measure in measures[1:]:
        tests = [measure + suffix for suffix in TEST_SUFFIXES if measure + suffix in table.columns]
        if tests:
            renamed = {"name": measure} | {c: c[len(measure) + 1 :] for c in tests}
            blocks.append(cells[[measures[0], *tests]].rename(columns=renamed))
    return "\n\n".join(block.to_string(index=False) for block in blocks) + "\n"


def _cell(column: str, value) -> str:
    if isinstance(value, bool | np.bool_) or not isinstance(value, float | np.floating):
        return str(value)
    if math.isnan(value):
        return ""
    if column.endswith((" +", " -")):
        return str(int(value))
    if "p-value" in column and value < 1e-3:
        return f"{value:.1e}"
    return f"{value:.4f}"
