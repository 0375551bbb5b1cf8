"""Meta-evaluation of measures: agreement with users' SERP preferences, sensitivity, consistency, stability,
and preference precision-recall curves, for any measure the package knows (ours and ir_measures').

Every analysis works on per-query values: a frame per measure, one row per query, one column per run
(:func:`measure_values` makes them from runs and judgments; :func:`grid_values` from Xie et al.'s image grids).

* :func:`agreement`: per query, the measure's preference between two systems against a gold preference (thesis
  Figs. 5.6/5.8: the 3x3 table, agreements, the chi-squared test on the non-tie cells, the one-tailed binomial
  test; Kendall's tau between the measure's and the gold preferences). C. Luo, *IR Evaluation Measures Based on
  Preference Graphs*, MMath thesis, Waterloo 2021, §5.4.
* :func:`sensitivity`: the share of run pairs a paired test finds significantly different (discriminative power;
  thesis Tables 4.1-4.2; T. Sakai, SIGIR 2006), or, Sakai's method, that the randomised Tukey HSD test finds
  significantly different over all pairs at once (T. Sakai, *Laboratory Experiments in Information Retrieval*,
  Springer 2018, ch. 4-5); tests: :func:`paired_p_values`.
* :func:`consistency`: Kendall's tau and tau_AP between the run orderings of two measures (thesis Figs. 4.1-4.3;
  E. Yilmaz, J. A. Aslam, S. Robertson, SIGIR 2008).
* :func:`stability`: remove a fraction of the preference judgments at random, re-evaluate, report the ANOVA F and
  tau against the full judgments (B. Carterette, P. N. Bennett, SIGIR 2008 poster, Table 2).
* :func:`pr_curves`: ppref@k against rpref@k over cutoffs (same poster, Fig. 1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ir_pref_measures.choices import BINOMIAL_METHODS, META_TESTS
from ir_pref_measures.errors import InputError
from ir_pref_measures.loading.sources import load_combined
from ir_pref_measures.model import tables
from ir_pref_measures.model.judgments import Judgments, combine
from ir_pref_measures.stats import tukey
from ir_pref_measures.stats.anova import anova
from ir_pref_measures.stats.paired import check_samples, p_values

TESTS = META_TESTS  # the names of analysis.stats and analysis.tukey
TIE = "tie"


# -- per-query values ------------------------------------------------------------------------------------------


def measure_values(runs, judgments, measures, names: Sequence[str] | None = None) -> dict[str, pd.DataFrame]:
    """Per measure (named ``str(measure)``): per-query values, one row per query (sorted), one column per run.

    ``runs``, ``judgments``, ``measures``, ``names`` as :func:`~ir_pref_measures.experiment.front.Experiment`
    takes them
    (paths, a mapping name -> run, a :class:`Judgments`, graded qrels, a preference table; measure names or
    objects, ours and ir_measures'). A judged query that a run does not answer scores 0 for that run.
    """
    from ir_pref_measures.experiment.front import Experiment

    long = Experiment(runs, judgments, measures, names=names, perquery=True)
    run_names = list(dict.fromkeys(long["name"]))
    out = {}
    for measure, rows in long.groupby("measure", sort=False):
        table = rows.pivot(index="qid", columns="name", values="value")
        out[str(measure)] = table.reindex(columns=run_names).fillna(0.0).sort_index()
    return out


def grid_values(
    judgments: Judgments, positions: pd.DataFrame, order: str = "middle", p: float = 0.95, **rbo
) -> pd.DataFrame:
    """Greedy PGC of result grids (thesis chapter 5): one row per query, one column per engine.

    ``positions``: ``query_id, engine, doc_id, row, col`` (and ``width``), as
    :func:`ir_pref_measures.parsing.images.read_image_positions` reads Xie et al.'s ``Image_position.json``;
    ``order`` is an examination order of :data:`ir_pref_measures.measures.image_grid.ORDERS`; ``rbo``: ``depth``,
    ``normalize``. Only queries with judgments are scored.
    """
    from ir_pref_measures.measures.image_grid import Grid, grid_pgc

    missing = [c for c in ("query_id", "engine", "doc_id", "row", "col") if c not in positions.columns]
    if missing:
        raise InputError(f"grid positions need column(s) {missing} (found {list(positions.columns)})")
    columns = {}
    for engine, rows in positions.groupby("engine", sort=False):
        rows = rows[np.isin(rows["query_id"], judgments.query_ids)]
        width = rows["width"].to_numpy(dtype=np.int64) if "width" in rows.columns else None
        query_id, doc_id, row, col = (rows[c].to_numpy() for c in ("query_id", "doc_id", "row", "col"))
        grid = Grid.from_arrays(query_id, doc_id, row, col, width)
        queries = np.searchsorted(judgments.query_ids, grid.ranking.query_ids)
        values = grid_pgc(judgments, grid, queries, order, p=p, **rbo)
        columns[str(engine)] = pd.Series(values, index=grid.ranking.query_ids.astype(str))
    return pd.DataFrame(columns).fillna(0.0).sort_index()


def _complete(values: pd.DataFrame, what: str = "values") -> np.ndarray:
    """The values as a float (queries x runs) array; a missing value is an error."""
    if not isinstance(values, pd.DataFrame):
        raise InputError(f"{what} must be a DataFrame: one row per query, one column per run")
    array = values.to_numpy(dtype=np.float64)
    missing = np.argwhere(np.isnan(array))
    if len(missing):
        q, r = missing[0]
        raise InputError(f"{what}: no value for run {values.columns[r]!r} on query {values.index[q]!r}")
    if array.shape[0] < 2:
        raise InputError(f"{what}: at least two queries are needed, found {array.shape[0]}")
    return array


# -- agreement with SERP preferences ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Agreement:
    """The 3x3 table (rows: the measure's preference; columns: the gold one), its agreements (both prefer the
    same system) and disagreements (opposite systems), the chi-squared test of independence on the 2x2 non-tie
    cells, the one-tailed binomial test of the measure's majority preference on those cells, and ``tau``:
    Kendall's tau-b between the measure's and the gold preferences over all gold queries, ties included (1:
    the same preference on every query, -1: the opposite one)."""

    table: pd.DataFrame
    agree: int
    disagree: int
    chi2: float
    chi2_p: float
    majority: str
    majority_share: float
    binomial_p: float
    tau: float


def agreement(values: pd.DataFrame, gold: pd.Series, *, correction: bool = False, binomial: str = "exact") -> Agreement:
    """Agreement of a measure with per-query gold preferences between two systems (thesis §5.4, Figs. 5.6/5.8).

    ``values``: one row per query, two columns (systems A and B); the measure prefers the system with the higher
    value, equal values are a tie. ``gold``: per query, A's name, B's name or ``"tie"``; every gold query needs
    values. Chi-squared test of independence (``scipy.stats.chi2_contingency``, df 1; ``correction``: Yates', off
    as in the thesis) on the cells where neither prefers a tie. Binomial test on the same cells: the number of
    queries where the measure prefers its majority system, one-tailed against 1/2; ``binomial="exact"``
    (``scipy.stats.binomtest``) or ``"normal"`` (normal approximation with continuity correction, which
    reproduces the thesis' printed p-values). ``tau``: Kendall's tau-b (``scipy.stats.kendalltau``) between the
    measure's and the gold preferences, each on the ordinal scale A better < tie < B better, over every gold
    query: the 3x3 table's ordinal association (A. Agresti, *Analysis of Ordinal Categorical Data*, 2010, §7.1).
    Undefined statistics (an empty row or column, a constant preference) are NaN.
    """
    from scipy import stats

    if not isinstance(values, pd.DataFrame) or values.shape[1] != 2:
        raise InputError("agreement needs a DataFrame of two columns (systems A and B), one row per query")
    if binomial not in BINOMIAL_METHODS:
        raise InputError(f"unknown binomial method {binomial!r}; known: {', '.join(BINOMIAL_METHODS)}")
    a, b = (str(c) for c in values.columns)
    labels = (a, b, TIE)
    if TIE in (a, b) or a == b:
        raise InputError(f"the two systems need distinct names other than {TIE!r}, not {a!r} and {b!r}")
    gold = gold.astype(str)
    unknown = sorted(set(gold) - set(labels))
    if unknown:
        raise InputError(f"unknown gold preference(s) {unknown[:3]}; expected {a!r}, {b!r} or {TIE!r}")
    values = values.set_axis(values.index.astype(str))
    lacking = gold.index.astype(str).difference(values.index)
    if len(lacking):
        raise InputError(f"{len(lacking)} gold queries have no values, e.g. {list(lacking[:3])}")
    pair = _complete(values.loc[gold.index.astype(str)], "agreement values")
    measure = np.sign(pair[:, 1] - pair[:, 0]).astype(np.int64)  # -1: A better, 1: B better, 0: tie
    row = np.select([measure < 0, measure > 0], [0, 1], 2)
    col = gold.map({a: 0, b: 1, TIE: 2}).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = float(stats.kendalltau(measure, np.array([-1, 1, 0])[col]).statistic)
    counts = np.zeros((3, 3), dtype=np.int64)
    np.add.at(counts, (row, col), 1)
    table = pd.DataFrame(
        counts,
        index=pd.Index([f"{a} better", f"{b} better", TIE], name="measure"),
        columns=pd.Index([f"{a} better", f"{b} better", TIE], name="gold"),
    )
    cells = counts[:2, :2]
    if (cells.sum(axis=0) > 0).all() and (cells.sum(axis=1) > 0).all():
        chi2, chi2_p = (float(x) for x in stats.chi2_contingency(cells, correction=correction)[:2])
    else:
        chi2, chi2_p = math.nan, math.nan
    prefers = cells.sum(axis=1)  # queries where the measure prefers A, B
    n, k = int(prefers.sum()), int(prefers.max())
    majority = labels[int(np.argmax(prefers))] if n else TIE
    return Agreement(
        table=table,
        agree=int(np.trace(cells)),
        disagree=int(cells[0, 1] + cells[1, 0]),
        chi2=chi2,
        chi2_p=chi2_p,
        majority=majority,
        majority_share=k / n if n else math.nan,
        binomial_p=_binomial_greater(k, n, binomial),
        tau=tau,
    )


def _binomial_greater(k: int, n: int, method: str) -> float:
    """P(X >= k) for X ~ Binomial(n, 1/2): exact, or by the normal approximation with continuity correction."""
    from scipy import stats

    if n == 0:
        return math.nan
    if method == "exact":
        return float(stats.binomtest(k, n, 0.5, alternative="greater").pvalue)
    return float(stats.norm.sf((k - 0.5 - n / 2) / math.sqrt(n / 4)))


# -- sensitivity -----------------------------------------------------------------------------------------------


def _pair_differences(values: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run pairs ``i < j`` and their per-query differences (pairs x queries)."""
    array = _complete(values)
    i, j = np.triu_indices(array.shape[1], k=1)
    return i, j, (array[:, i] - array[:, j]).T


def paired_p_values(values: pd.DataFrame, test: str = "t", *, samples: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Two-sided p-values of a paired test between every two runs (a symmetric runs x runs frame, NaN on the
    diagonal). ``values``: one row per query, one column per run. ``test``: ``"t"`` (Student's paired t-test,
    as ``scipy.stats.ttest_rel``; NaN when two runs never differ), ``"permutation"`` (the paired randomisation
    test: sign flips of the per-query differences; M. D. Smucker, J. Allan, B. Carterette, CIKM 2007) or
    ``"bootstrap"`` (Sakai 2006), each with ``samples`` resamples drawn from ``numpy.random.default_rng(seed)``,
    the same for every pair; or the p-values of all pairs at once, adjusted over them: ``"tukey"`` (Tukey HSD) or
    ``"randomised-tukey"`` (``samples`` shuffles; :mod:`~ir_pref_measures.stats.tukey`)."""
    if test not in TESTS:
        raise InputError(f"unknown test {test!r}; known: {', '.join(TESTS)}")
    rng = np.random.default_rng(seed)
    if test in tukey.TESTS:
        matrix = tukey.all_pairs(_complete(values), test, samples=check_samples(samples), rng=rng).matrix()
    else:
        i, j, d = _pair_differences(values)
        matrix = np.full((values.shape[1],) * 2, np.nan)
        matrix[i, j] = matrix[j, i] = p_values(d, test, check_samples(samples), rng)
    return pd.DataFrame(matrix, index=values.columns, columns=values.columns)


@dataclass(frozen=True)
class Sensitivity:
    """``significant`` of ``pairs`` run pairs have p < alpha; ``share`` = significant / pairs."""

    share: float
    significant: int
    pairs: int
    p_values: pd.DataFrame


def sensitivity(
    values: pd.DataFrame, test: str = "t", alpha: float = 0.05, *, samples: int = 10_000, seed: int = 0
) -> Sensitivity:
    """Sensitivity (discriminative power): the share of run pairs whose per-query values differ significantly,
    p < ``alpha`` by :func:`paired_p_values` (thesis §4: paired t-test, p < 0.05; Sakai 2018, ch. 4-5: the randomised
    Tukey HSD test, ``test="randomised-tukey"``). Needs at least two runs."""
    if values.shape[1] < 2:
        raise InputError(f"sensitivity needs at least two runs, found {values.shape[1]}")
    if not 0 < alpha < 1:
        raise InputError(f"alpha must lie in (0, 1), not {alpha!r}")
    p = paired_p_values(values, test, samples=samples, seed=seed)
    upper = p.to_numpy()[np.triu_indices(values.shape[1], k=1)]
    significant = int((upper < alpha).sum())
    return Sensitivity(significant / len(upper), significant, len(upper), p)


def sensitivity_table(
    values: Mapping[str, pd.DataFrame], test: str = "t", alpha: float = 0.05, **kwargs
) -> pd.DataFrame:
    """:func:`sensitivity` of several measures: ``measure, sensitivity, significant, pairs``, most sensitive
    first (ties by measure name)."""
    rows = []
    for name, frame in values.items():
        s = sensitivity(frame, test, alpha, **kwargs)
        rows.append({"measure": name, "sensitivity": s.share, "significant": s.significant, "pairs": s.pairs})
    table = pd.DataFrame(rows, columns=["measure", "sensitivity", "significant", "pairs"])
    return table.sort_values(["sensitivity", "measure"], ascending=[False, True], kind="stable", ignore_index=True)


# -- consistency -----------------------------------------------------------------------------------------------


def kendall_tau(x: pd.Series, y: pd.Series) -> float:
    """Kendall's tau-b between two scorings of the same runs (``scipy.stats.kendalltau``), aligned by index."""
    from scipy import stats

    x, y = _aligned(x, y)
    return float(stats.kendalltau(x, y).statistic)


def tau_ap(estimate: pd.Series, truth: pd.Series) -> float:
    """tau_AP (Yilmaz, Aslam, Robertson, SIGIR 2008) of the ordering by ``estimate`` against the one by
    ``truth`` (both descending): 2/(N-1) sum_{i=2..N} C(i)/(i-1) - 1, where C(i) counts the runs above the
    run at position i of the estimated ordering that are above it in the true one too. tau_AP is defined for
    orderings without ties: equal scores are ordered by run name. Not symmetric: ``truth`` is the reference."""
    estimate, truth = _aligned(estimate, truth)
    n = len(estimate)
    names = np.asarray(estimate.index.astype(str))
    est = _positions(estimate.to_numpy(dtype=np.float64), names)
    true = _positions(truth.to_numpy(dtype=np.float64), names)
    order = np.argsort(est)
    above = true[order][None, :] < true[order][:, None]  # above[i, j]: j above i in the truth
    correct = np.tril(above, k=-1).sum(axis=1)[1:]  # over j above i in the estimate
    return float(2 / (n - 1) * (correct / np.arange(1, n)).sum() - 1)


def _positions(scores: np.ndarray, names: np.ndarray) -> np.ndarray:
    """0-based position of each run ordered by score descending, ties by name ascending."""
    positions = np.empty(len(scores), dtype=np.int64)
    positions[np.lexsort((names, -scores))] = np.arange(len(scores))
    return positions


def _aligned(x: pd.Series, y: pd.Series) -> tuple[pd.Series, pd.Series]:
    if set(x.index) != set(y.index):
        raise InputError(f"the two scorings cover different runs: {sorted(set(x.index) ^ set(y.index))[:3]}")
    if len(x) < 2:
        raise InputError(f"a correlation needs at least two runs, found {len(x)}")
    return x.astype(np.float64), y.reindex(x.index).astype(np.float64)


def means(values: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Mean over queries of every run: one row per run, one column per measure."""
    return pd.DataFrame(
        {name: pd.Series(_complete(frame, name).mean(axis=0), index=frame.columns) for name, frame in values.items()}
    )


def consistency(values: Mapping[str, pd.DataFrame]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Consistency of measures (thesis §4): Kendall's tau (symmetric) and tau_AP (row = the reference
    ordering, column = the estimate) between the run orderings by the mean of every two measures."""
    table = means(values)
    names = list(table.columns)
    tau = pd.DataFrame(np.nan, index=names, columns=names)
    ap = tau.copy()
    for x in names:
        for y in names:
            tau.loc[x, y] = kendall_tau(table[x], table[y])
            ap.loc[x, y] = tau_ap(table[y], table[x])
    return tau, ap


# -- stability -------------------------------------------------------------------------------------------------


def anova_f(values: pd.DataFrame) -> float:
    """F statistic of the runs in a two-way ANOVA without interaction (runs x queries): the mean square of the
    runs over the residual mean square (Carterette and Bennett 2008, Table 2; :mod:`~.anova`); infinite when
    the residual is 0."""
    x = _complete(values)
    if x.shape[1] < 2:
        raise InputError(f"an ANOVA needs at least two runs, found {x.shape[1]}")
    result = anova(x)
    return float(result.f[0]) if result.residual_variance > 0 else math.inf


def subsample(preferences: pd.DataFrame, fraction: float, rng: np.random.Generator) -> pd.DataFrame:
    """The preference rows left after removing ``fraction`` of them at random, query by query: every query
    keeps ceil((1 - fraction) n_q) of its n_q rows (so none is lost), chosen uniformly; rows keep their order."""
    if not 0 <= fraction < 1:
        raise InputError(f"the fraction of judgments removed must lie in [0, 1), not {fraction!r}")
    codes, _ = pd.factorize(preferences["query_id"], sort=True)
    order = np.lexsort((rng.random(len(codes)), codes))
    sizes = np.bincount(codes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    position = np.empty(len(codes), dtype=np.int64)
    position[order] = np.arange(len(codes)) - np.repeat(starts, sizes)
    keep = position < np.ceil((1 - fraction) * sizes[codes] - 1e-9)
    return preferences[keep]


def stability(
    runs,
    preferences: pd.DataFrame,
    measures,
    fractions: Sequence[float] = (0.5, 0.9),
    repeats: int = 10,
    seed: int = 0,
    qrels=None,
) -> pd.DataFrame:
    """Stability when preference judgments are removed (Carterette and Bennett 2008, Table 2).

    ``preferences``: the judgments, one row each (``query_id, doc_id_a, doc_id_b, preference``,
    as
    :func:`~ir_pref_measures.parsing.preferences.read_preferences` reads them); with ``qrels``, graded judgments kept
    whole and
    combined with them. For each fraction, ``repeats`` times: :func:`subsample`, re-evaluate ``runs`` with
    ``measures``. Returns per measure and fraction: ``F`` (:func:`anova_f`, all judgments), ``F reduced``
    (mean over repeats), ``tau`` (Kendall's tau between the run orderings by mean value, full vs reduced;
    mean, and ``tau min``), ``kept`` (judgments left). Seeded by ``seed``: the same call gives the same table.
    """
    from ir_pref_measures.experiment.runs import named_runs

    if int(repeats) != repeats or repeats < 1:
        raise InputError(f"repeats must be a positive integer, not {repeats!r}")
    rankings = named_runs(runs)
    graded = None if qrels is None else load_combined(qrels, None)
    # rows in one canonical order, so that the samples depend on the seed only, not on the order of the file
    table = tables.preferences(preferences)
    table = table.sort_values(list(tables.PREFERENCE_COLUMNS), kind="stable", ignore_index=True)

    def measured(rows: pd.DataFrame) -> dict[str, pd.DataFrame]:
        judged = Judgments.from_preferences(rows, checked=True)
        return measure_values(rankings, judged if graded is None else combine(graded, judged), measures)

    from ir_pref_measures.progress import progress

    with progress(1 + len(fractions) * int(repeats), "stability") as bar:
        full = measured(table)
        bar.update()
        full_means = means(full)
        rng = np.random.default_rng(seed)
        rows = []
        for fraction in fractions:
            found: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in full}
            kept = []
            for _ in range(int(repeats)):
                sample = subsample(table, fraction, rng)
                kept.append(len(sample))
                for name, frame in measured(sample).items():
                    found[name][0].append(anova_f(frame))
                    found[name][1].append(kendall_tau(full_means[name], means({name: frame})[name]))
                bar.update()
            for name, (f, tau) in found.items():
                rows.append(
                    {
                        "measure": name,
                        "removed": fraction,
                        "kept": float(np.mean(kept)),
                        "F": anova_f(full[name]),
                        "F reduced": float(np.mean(f)),
                        "tau": float(np.mean(tau)),
                        "tau min": float(np.min(tau)),
                    }
                )
    return pd.DataFrame(rows)


# -- preference precision-recall curves ------------------------------------------------------------------------


def pr_curves(runs, judgments, cutoffs: Sequence[int] = tuple(range(1, 101))) -> pd.DataFrame:
    """Preference precision-recall curves (Carterette and Bennett 2008, Fig. 1; Carterette, Bennett, Chapelle
    2008, Fig. 3): per run and cutoff k, the means over queries of ppref@k and rpref@k. Columns ``run, cutoff,
    ppref, rpref``."""
    cutoffs = sorted({int(k) for k in cutoffs})
    if not cutoffs or cutoffs[0] < 1:
        raise InputError(f"cutoffs must be positive integers, not {cutoffs[:3]}")
    names = [f"{m}@{k}" for k in cutoffs for m in ("ppref", "rpref")]
    table = means(measure_values(runs, judgments, names))
    return pd.DataFrame(
        {
            "run": np.repeat(table.index.to_numpy(), len(cutoffs)),
            "cutoff": np.tile(cutoffs, len(table)),
            "ppref": table[[f"ppref@{k}" for k in cutoffs]].to_numpy().ravel(),
            "rpref": table[[f"rpref@{k}" for k in cutoffs]].to_numpy().ravel(),
        }
    )
