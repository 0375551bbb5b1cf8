"""The experiment table from per-query values, in the conventions of PyTerrier's ``pt.Experiment`` (Macdonald and
Tonellotto, ICTIR 2020): a row per run, a column per measure, and with a baseline the test columns.

Columns: ``name``, then one per measure; with a baseline, for each measure ``<m> +`` (queries where the run beats
the baseline), ``<m> -`` (where it loses) and ``<m> p-value``; with a correction, ``<m> reject`` and ``<m> p-value
corrected`` right after the p-value (statsmodels' ``multipletests`` across the runs other than the baseline, per
measure). The baseline row holds NaN in ``+``, ``-``, ``p-value``, ``p-value corrected`` and False in ``reject``.
Optional columns: ``<m> ci low`` / ``<m> ci high`` (bootstrap confidence interval of the mean), with a baseline
``<m> diff ci low`` / ``<m> diff ci high`` (of the mean difference to the baseline) and ``<m> effect size``
(standardised mean difference); the tests are :mod:`ir_pref_measures.analysis.stats`. With several baselines every
test column ends in `` vs <baseline>``. A pairwise preference column holds preferences over the baseline: its test
compares them with 0 (the sign test, or the permutation / bootstrap test when asked for).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ir_pref_measures.analysis import stats as tests
from ir_pref_measures.errors import InputError

TESTS = tests.TESTS


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
    if baselines:  # what a report's legend says of the tests (analysis.render)
        test = settings.test if isinstance(settings.test, str) else getattr(settings.test, "__name__", "custom")
        table.attrs.update(test=test, correction=settings.correction, pairwise=sorted(pairwise & set(values)))
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


def check_tests(settings: Tests) -> None:
    if not callable(settings.test) and settings.test not in TESTS:
        raise InputError(f"unknown test {settings.test!r}", expected=f"one of {', '.join(TESTS)}, or a callable")
    if settings.correction is not None:
        tests.check_correction(settings.correction)
    if not 0 < settings.alpha < 1:
        raise InputError(f"correction_alpha must lie strictly between 0 and 1, not {settings.alpha!r}")
    if settings.ci is not None and not 0 < settings.ci < 1:
        raise InputError(f"ci (a confidence level) must lie strictly between 0 and 1, not {settings.ci!r}")
    tests.check_samples(settings.samples)


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
