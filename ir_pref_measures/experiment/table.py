"""The experiment table from per-query values, in the conventions of PyTerrier's ``pt.Experiment`` (Macdonald and
Tonellotto, ICTIR 2020): a row per run, a column per measure, and with a baseline the test columns.

Columns: ``name``, then one per measure; with a baseline, for each measure ``<m> +`` (queries where the run beats
the baseline), ``<m> -`` (where it loses) and ``<m> p-value``; with a correction, ``<m> reject`` and ``<m> p-value
corrected`` right after the p-value (statsmodels' ``multipletests`` across the runs other than the baseline, per
measure). The baseline row holds NaN in ``+``, ``-``, ``p-value``, ``p-value corrected`` and False in ``reject``.
Optional columns: ``<m> ci low`` / ``<m> ci high`` (bootstrap confidence interval of the mean), with a baseline
``<m> diff ci low`` / ``<m> diff ci high`` (of the mean difference to the baseline) and ``<m> effect size``
(standardised mean difference); the tests are :mod:`ir_pref_measures.stats.paired`. With several baselines every
test column ends in `` vs <baseline>``, and the correction runs once over the whole family of a measure: every
distinct pair of a run and a baseline (two baselines compared once). A pairwise preference column holds
preferences over the baseline: its test compares them with 0 (the sign test, or the permutation / bootstrap test
when asked for).

The tests of many systems at once (:data:`FAMILY_TESTS`, :mod:`ir_pref_measures.stats.tukey`): ``"tukey"``
and ``"randomised-tukey"`` test every pair of runs on the topic x run matrix of a measure, so their ``p-value`` is
already adjusted over all pairs (no correction is taken); with them ``diff ci low`` / ``diff ci high`` are the
simultaneous interval (level ``ci``) and ``effect size`` is Sakai's diff / sqrt(V_E). :func:`pairs_table` is the
all-pairs table of any test, :func:`anova_table` the two-way ANOVA of each measure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ir_pref_measures import arguments
from ir_pref_measures.errors import InputError
from ir_pref_measures.stats import paired, tukey
from ir_pref_measures.stats.anova import anova

FAMILY_TESTS = tukey.TESTS
TESTS = (*paired.TESTS, *FAMILY_TESTS)


@dataclass(frozen=True)
class TestSettings:
    """How runs are compared with the baseline(s): ``test`` (a name of :data:`TESTS` or a callable ``(run,
    baseline) -> (stat, p)``), the correction, the resampling settings and the optional columns; ``all_pairs`` /
    ``anova``: the table is :func:`pairs_table` / :func:`anova_table` instead of the runs."""

    __test__ = False  # settings, not a test class, for pytest

    test: str | Callable = "t"
    correction: str | None = None
    alpha: float = 0.05
    samples: int = paired.SAMPLES
    seed: int = 0
    ci: float | None = None
    effect_size: bool = False
    all_pairs: bool = False
    anova: bool = False


def summary_table(
    values: Mapping[str, pd.DataFrame],
    names: list[str],
    baselines: Sequence[str],
    settings: TestSettings,
    round: int | Mapping[str, int] | None,
    *,
    sums: Iterable[str] = (),
    pairwise: Iterable[str] = (),
) -> pd.DataFrame:
    """The ``pt.Experiment`` table from per-query values (``values[column]``: queries x runs); the columns in
    ``sums`` hold the sum over queries (as ir_measures aggregates trec_eval's counts), the others the mean; the
    columns in ``pairwise`` hold preferences over the baseline (compared with 0, not with the baseline's values).
    With ``settings.all_pairs`` or ``settings.anova``: :func:`pairs_table` or :func:`anova_table` instead."""
    sums, pairwise = set(sums), set(pairwise)
    if (settings.test in FAMILY_TESTS or settings.all_pairs or settings.anova) and pairwise & set(values):
        raise InputError(
            f"pairwise preferences ({', '.join(sorted(pairwise & set(values)))}) are relative to one baseline: "
            "the tests of all pairs and the ANOVA need measures of every run"
        )
    if settings.anova:
        return anova_table(values, names)
    if settings.all_pairs:
        return pairs_table(values, names, settings)
    table = pd.DataFrame({"name": names})
    for column, frame in values.items():
        if frame.empty:
            raise InputError(f"no query to evaluate {column} on (after restricting to the topics)")
        total = (lambda x: x.sum()) if column in sums else (lambda x: x.mean())
        table[column] = [_round(column, float(total(frame[name])), round) for name in names]
        if column in sums and all(float(v).is_integer() for v in table[column]):
            table[column] = table[column].astype(np.int64)  # a count: printed as one
        if settings.ci is not None:
            low, high = paired.bootstrap_ci(frame[names].to_numpy().T, settings.ci, settings.samples, _rng(settings))
            table[f"{column} ci low"], table[f"{column} ci high"] = low, high
    families = {c: _family(frame, names, settings) for c, frame in values.items()} if baselines else {}
    compared = {
        (baseline, column): _compare(frame, names, baseline, settings, column in pairwise, families[column])
        for baseline in baselines
        for column, frame in values.items()
    }
    if settings.correction is not None:
        for column in values:
            _correct_family({b: compared[b, column] for b in baselines}, names, settings)
    for (baseline, column), result in compared.items():
        suffix = "" if len(baselines) == 1 else f" vs {baseline}"
        for name, value in result.items():
            table[f"{column} {name}{suffix}"] = value
    if baselines:  # what a report's legend says of the tests (analysis.render)
        table.attrs.update(
            test=_test_name(settings), correction=settings.correction, pairwise=sorted(pairwise & set(values))
        )
    return table


def _family(frame: pd.DataFrame, names: list[str], settings: TestSettings) -> tukey.Pairs | None:
    """Every pair of runs by the test of many systems of ``settings`` (None for the other tests)."""
    return _all_pairs(frame, names, settings) if settings.test in FAMILY_TESTS else None


def _all_pairs(frame: pd.DataFrame, names: list[str], settings: TestSettings) -> tukey.Pairs:
    """Every pair of runs by ``settings``' test of many systems (one of :data:`FAMILY_TESTS`)."""
    assert isinstance(settings.test, str), "the tests of many systems are named (FAMILY_TESTS)"
    x = _matrix(frame, names)
    confidence = paired.CONFIDENCE if settings.ci is None else settings.ci
    return tukey.all_pairs(x, settings.test, confidence=confidence, samples=settings.samples, rng=_rng(settings))


def _matrix(frame: pd.DataFrame, names: list[str]) -> np.ndarray:
    """The queries x runs values of one measure; a missing value is an error."""
    x = frame[names].to_numpy(dtype=np.float64)
    if np.isnan(x).any():
        q, r = np.argwhere(np.isnan(x))[0]
        raise InputError(f"no value of run {names[r]!r} on query {frame.index[q]!r}: the tests need every value")
    return x


def _compare(
    frame: pd.DataFrame, names: list[str], baseline: str, settings: TestSettings, is_pairwise: bool, family=None
) -> dict:
    """The test columns of one measure against one baseline (NaN / False in the baseline's row); ``is_pairwise``:
    the values are already preferences over the baseline; ``family``: the :class:`~.tukey.Pairs` of a test of
    many systems, from which the p-values, intervals and effect sizes are taken."""
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
    if family is not None:
        return result | _from_family(family, at, others, settings, filled)
    result["p-value"] = filled(_p_values(d, runs, reference, is_pairwise, settings))
    if settings.correction is not None:  # filled in over the whole family by _correct_family
        result["reject"], result["p-value corrected"] = filled(False, False), filled(np.nan)
    if settings.ci is not None:
        low, high = paired.bootstrap_ci(d, settings.ci, settings.samples, _rng(settings))
        result["diff ci low"], result["diff ci high"] = filled(low), filled(high)
    if settings.effect_size:
        result["effect size"] = filled(paired.effect_size(d))
    return result


def _from_family(family: tukey.Pairs, at: int, others: list[int], settings: TestSettings, filled) -> dict:
    """The p-value (and interval, effect size) columns of the runs ``others`` against run ``at``, from every pair;
    the pairs hold run j minus run i (i < j), the table run minus baseline."""
    index = {(int(i), int(j)): k for k, (i, j) in enumerate(zip(family.i, family.j, strict=True))}
    k = np.array([index[min(r, at), max(r, at)] for r in others], dtype=np.int64)
    sign = np.where(np.array(others) > at, 1.0, -1.0)
    result = {"p-value": filled(family.p[k])}
    if settings.ci is not None:
        result["diff ci low"] = filled(sign * family.diff[k] - family.margin[k])
        result["diff ci high"] = filled(sign * family.diff[k] + family.margin[k])
    if settings.effect_size:
        result["effect size"] = filled(sign * family.effect[k])
    return result


def _correct_family(compared: Mapping[str, dict], names: list[str], settings: TestSettings) -> None:
    """One correction over every distinct pair of a run and a baseline (``compared[baseline]``: its columns, whose
    ``reject`` / ``p-value corrected`` are filled in here); two baselines' pair is corrected once, shown twice."""
    at = {baseline: names.index(baseline) for baseline in compared}
    members: dict[frozenset, tuple[str, int]] = {}
    for baseline in compared:
        for run in range(len(names)):
            if run != at[baseline]:
                members.setdefault(frozenset((run, at[baseline])), (baseline, run))
    p = np.array([compared[baseline]["p-value"][run] for baseline, run in members.values()], dtype=np.float64)
    assert settings.correction is not None, "a family is corrected only when a correction is asked for"
    reject, corrected = paired.correct(p, settings.correction, settings.alpha)
    slot = {pair: k for k, pair in enumerate(members)}
    for baseline in compared:
        for run in range(len(names)):
            if run != at[baseline]:
                k = slot[frozenset((run, at[baseline]))]
                compared[baseline]["reject"][run] = reject[k]
                compared[baseline]["p-value corrected"][run] = corrected[k]


def pairs_table(values: Mapping[str, pd.DataFrame], names: list[str], settings: TestSettings) -> pd.DataFrame:
    """Every pair of runs, per measure: ``measure, run, vs, diff`` (mean of run minus mean of vs), then, by the
    test of ``settings``, ``p-value`` and the optional columns. With a test of many systems (:data:`FAMILY_TESTS`)
    the p-value is adjusted over all pairs and ``ci low, ci high, margin`` (the simultaneous interval at level
    ``ci``, 0.95 by default) and ``effect size`` (diff / sqrt(V_E)) are always there; with another test, ``reject``
    and ``p-value corrected`` with a correction over all the pairs of the measure, ``ci low, ci high`` (the
    bootstrap interval of the mean difference) with ``ci`` and ``effect size`` (mean(d) / sd(d)) when asked."""
    if len(names) < 2:
        raise InputError(f"the pairs of runs need at least two runs, found {len(names)}")
    parts = []
    for column, frame in values.items():
        x = _matrix(frame, names)
        if settings.test in FAMILY_TESTS:
            part = _all_pairs(frame, names, settings).frame(names)
        else:
            i, j = np.triu_indices(len(names), k=1)
            d = (x[:, j] - x[:, i]).T
            part = pd.DataFrame({"run": np.asarray(names, dtype=object)[j], "vs": np.asarray(names, dtype=object)[i]})
            part["diff"] = d.mean(axis=1)
            if callable(settings.test):
                part["p-value"] = [settings.test(x[:, b], x[:, a])[1] for a, b in zip(i, j, strict=True)]
            else:
                part["p-value"] = paired.p_values(d, settings.test, settings.samples, _rng(settings))
            if settings.correction is not None:
                part["reject"], part["p-value corrected"] = paired.correct(
                    part["p-value"], settings.correction, settings.alpha
                )
            if settings.ci is not None:
                part["ci low"], part["ci high"] = paired.bootstrap_ci(d, settings.ci, settings.samples, _rng(settings))
            if settings.effect_size:
                part["effect size"] = paired.effect_size(d)
        parts.append(part.assign(measure=column))
    table = pd.concat(parts, ignore_index=True)
    table = table[["measure", *(c for c in table.columns if c != "measure")]]
    table.attrs.update(test=_test_name(settings), correction=settings.correction)
    return table


def anova_table(values: Mapping[str, pd.DataFrame], names: list[str]) -> pd.DataFrame:
    """The two-way ANOVA without replication (runs + queries, :mod:`~ir_pref_measures.stats.anova`) of each
    measure: ``measure, source, df, sum sq, mean sq, F, p-value``; sources ``system`` (the runs), ``topic``,
    ``residual``."""
    parts = [anova(_matrix(frame, names)).table().assign(measure=column) for column, frame in values.items()]
    table = pd.concat(parts, ignore_index=True)
    return table[["measure", *(c for c in table.columns if c != "measure")]]


def _test_name(settings: TestSettings) -> str:
    return settings.test if isinstance(settings.test, str) else getattr(settings.test, "__name__", "custom")


def _p_values(d: np.ndarray, runs: np.ndarray, reference: np.ndarray, is_pairwise: bool, settings: TestSettings):
    """Two-sided p-values of each run (row of ``runs``) against the reference (``d``: their differences)."""
    test = settings.test
    if callable(test):
        return np.array([test(run, reference)[1] for run in runs], dtype=np.float64)
    if is_pairwise and test in ("t", "wilcoxon"):  # preferences: already differences, often only -1, 0, 1
        test = "sign"
    return paired.p_values(d, test, settings.samples, _rng(settings))


def _rng(settings: TestSettings) -> np.random.Generator:
    """A fresh generator per measure and statistic: each column depends on the seed alone."""
    return np.random.default_rng(settings.seed)


def check_tests(settings: TestSettings) -> None:
    if not callable(settings.test) and settings.test not in TESTS:
        raise InputError(f"unknown test {settings.test!r}", expected=f"one of {', '.join(TESTS)}, or a callable")
    if settings.correction is not None:
        if settings.test in FAMILY_TESTS:
            raise InputError(f"the {settings.test} test adjusts its p-values over all pairs of runs: no correction")
        paired.check_correction(settings.correction)
    if settings.all_pairs and settings.anova:
        raise InputError("all_pairs and anova are two tables: ask for one at a time")
    if not 0 < settings.alpha < 1:
        raise InputError(f"correction_alpha must lie strictly between 0 and 1, not {settings.alpha!r}")
    if settings.ci is not None and not 0 < settings.ci < 1:
        raise InputError(f"ci (a confidence level) must lie strictly between 0 and 1, not {settings.ci!r}")
    paired.check_samples(settings.samples)
    arguments.seed(settings.seed)


def baseline_names(baseline, names: list[str]) -> list[str]:
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


def check_round(round) -> None:
    places = round.values() if isinstance(round, Mapping) else [] if round is None else [round]
    if not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in places):
        raise InputError(f"round must be a non-negative int or a mapping measure -> int, not {round!r}")
