"""Many systems at once: the topic-blocked two-way ANOVA, the Tukey HSD test and the randomised Tukey HSD test,
against R's ``aov`` / ``TukeyHSD`` (recorded in tests/data/tukey/ by make_reference.R), statsmodels, high-precision
quadrature, scipy's paired t-test and direct enumerations of the shuffles."""

from __future__ import annotations

import io
import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import testdata_path
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats
from statsmodels.stats.multitest import multipletests

import ir_pref_measures as ipm
from ir_pref_measures import Experiment, anova, meta
from ir_pref_measures.commands import main
from ir_pref_measures.errors import InputError
from ir_pref_measures.experiment import render
from ir_pref_measures.stats import studentized_range, tukey

REFERENCE = Path(__file__).parents[1] / "data" / "tukey"
SAKAI = "sakai_table_5_1"
GENERATED = ("gen_3x20", "gen_5x50", "gen_8x10", "gen_12x60", "gen_20x100", "gen_20x100b")
seeds = st.integers(0, 2**32 - 1)


def matrix(name: str) -> tuple[np.ndarray, list[str]]:
    """The topics x systems scores of a reference matrix (systems in R's factor order) and the systems."""
    path = testdata_path("stats", "sakai_table_5_1.csv") if name == SAKAI else REFERENCE / f"{name}.csv"
    wide = pd.read_csv(path, dtype={"topic": str, "system": str}).pivot(index="topic", columns="system")["score"]
    return wide.to_numpy(), list(wide.columns)


def recorded(name: str, kind: str) -> pd.DataFrame:
    return pd.read_csv(REFERENCE / f"{name}.{kind}.csv", skipinitialspace=True)  # R pads numbers with spaces


# -- the two-way ANOVA ----------------------------------------------------------------------------------------


def test_sakai_table_5_1():
    x, _ = matrix(SAKAI)
    result = anova(x)
    assert round(float(result.f[0]), 4) == 2.4749
    assert round(float(result.p[0]), 4) == 0.0976
    assert round(result.residual_variance, 6) == 0.021886


@pytest.mark.parametrize("name", [SAKAI, *GENERATED])
def test_anova_is_rs(name):
    x, _ = matrix(name)
    ours, theirs = anova(x).table(), recorded(name, "anova")
    assert list(ours["source"]) == list(theirs["source"])
    np.testing.assert_array_equal(ours["df"], theirs["df"])
    for column in ("sum sq", "mean sq", "F"):
        np.testing.assert_allclose(ours[column], theirs[column], rtol=1e-9, equal_nan=True)
    np.testing.assert_allclose(ours["p-value"], theirs["p-value"], rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name", [SAKAI, *GENERATED])
def test_anova_is_statsmodels(name):
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    x, systems = matrix(name)
    frame = pd.DataFrame(
        {"score": x.ravel(), "system": np.tile(systems, len(x)), "topic": np.repeat(np.arange(len(x)), x.shape[1])}
    )
    theirs = anova_lm(ols("score ~ C(system) + C(topic)", frame).fit())
    ours = anova(x).table()
    for column, their_column in {"df": "df", "sum sq": "sum_sq", "mean sq": "mean_sq", "F": "F"}.items():
        np.testing.assert_allclose(ours[column], theirs[their_column], rtol=1e-9, equal_nan=True)
    np.testing.assert_allclose(ours["p-value"], theirs["PR(>F)"], rtol=1e-8, atol=1e-12, equal_nan=True)


# -- the Tukey HSD test ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [SAKAI, *GENERATED])
def test_tukey_hsd_is_rs(name):
    x, systems = matrix(name)
    ours, theirs = tukey.tukey_hsd(x).frame(systems), recorded(name, "tukey")
    assert list(ours["run"]) == list(theirs["run"].astype(str))
    assert list(ours["vs"]) == list(theirs["vs"].astype(str))
    for column, their_column in {"diff": "diff", "ci low": "lwr", "ci high": "upr"}.items():
        np.testing.assert_allclose(ours[column], theirs[their_column], rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours["p-value"], theirs["p adj"], rtol=0, atol=1e-9)


def test_tukey_hsd_p_is_within_1e_7_of_the_precise_value():
    """R's algorithm, and so ours, is accurate to about 1e-7 with 20 systems (high-precision quadrature)."""
    x, systems = matrix("gen_20x100")
    ours = tukey.tukey_hsd(x).frame(systems).set_index(["run", "vs"])
    precise = pd.read_csv(REFERENCE / "gen_20x100.precise.csv").set_index(["run", "vs"])
    assert len(precise) == 10
    np.testing.assert_allclose(ours.loc[precise.index, "p-value"], precise["p adj"], rtol=0, atol=1e-7)


@settings(max_examples=15, deadline=None)
@given(seed=seeds, n=st.integers(11, 40))
def test_tukey_hsd_of_two_systems_is_the_paired_t_test(seed, n):
    """With two systems the studentized range is sqrt(2) |t|: the Tukey HSD test is the paired t-test (R's
    algorithm is accurate to 1e-9 there from 10 df; below, test_studentized_range_is_scipys)."""
    x = np.random.default_rng(seed).random((n, 2)).round(3)
    expected = scipy_stats.ttest_rel(x[:, 1], x[:, 0])
    result = tukey.tukey_hsd(x)
    if np.isnan(expected.pvalue):
        assert np.isnan(result.p[0]) or result.p[0] == 0.0
    else:
        np.testing.assert_allclose(result.p, [expected.pvalue], rtol=0, atol=1e-8)


@settings(max_examples=10, deadline=None)
@given(seed=seeds, m=st.integers(2, 6), n=st.integers(2, 30))
def test_topic_effects_change_nothing(seed, m, n):
    """The tests are topic-blocked: adding a constant to every system's score on a topic changes no result."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, m))
    shifted = x + rng.normal(0, 5, size=(n, 1))
    for field in ("diff", "margin", "p", "effect"):
        np.testing.assert_allclose(
            getattr(tukey.tukey_hsd(shifted), field), getattr(tukey.tukey_hsd(x), field), rtol=1e-6, atol=1e-9
        )
    assert anova(shifted).f[0] == pytest.approx(anova(x).f[0], rel=1e-6)


def test_effect_size_and_margin_are_sakais():
    x, _ = matrix(SAKAI)
    result = tukey.tukey_hsd(x)
    variance = anova(x).residual_variance
    np.testing.assert_allclose(result.effect, result.diff / math.sqrt(variance), rtol=1e-15)
    expected = scipy_stats.studentized_range.ppf(0.95, 3, 38) * math.sqrt(variance / 20)
    np.testing.assert_allclose(result.margin, expected, rtol=1e-9)
    np.testing.assert_allclose(result.high - result.low, 2 * result.margin, rtol=1e-12)


def test_bad_matrices_are_input_errors():
    with pytest.raises(InputError, match="at least 2 x 2"):
        tukey.tukey_hsd(np.ones((5, 1)))
    with pytest.raises(InputError, match="no finite value for system 1 on topic 0"):
        tukey.tukey_hsd(np.array([[0.1, np.nan], [0.2, 0.3]]))
    with pytest.raises(InputError, match="confidence level"):
        tukey.tukey_hsd(np.ones((3, 3)), confidence=1.0)
    with pytest.raises(InputError, match="unknown test"):
        tukey.all_pairs(np.ones((3, 3)), "scheffe")


# -- the studentized range distribution -----------------------------------------------------------------------


def test_studentized_range_is_rs():
    """R's ptukey(q, nmeans, df, lower.tail = FALSE) on a grid (make_ptukey.R), every interval length and the
    infinite df of its algorithm."""
    grid = pd.read_csv(REFERENCE / "ptukey.csv")
    assert len(grid) == 18 * 19 * 23 and np.isinf(grid["df"]).any()
    for (k, df), rows in grid.groupby(["nmeans", "df"]):
        np.testing.assert_allclose(studentized_range.sf(rows["q"], k, df), rows["p"], rtol=0, atol=1e-12)


def test_studentized_range_quantile_is_rs():
    """R's qtukey(p, nmeans, df) on a grid (make_ptukey.R): its secant steps, NaN where they fail."""
    grid = pd.read_csv(REFERENCE / "qtukey.csv")
    assert len(grid) == 4 * 7 * 23 and grid["q"].isna().any()
    ours = [studentized_range.ppf(p, int(k), df) for p, k, df in grid[["p", "nmeans", "df"]].itertuples(index=False)]
    np.testing.assert_allclose(ours, grid["q"], rtol=0, atol=1e-10, equal_nan=True)


@pytest.mark.parametrize("k", [2, 3, 5, 8, 20, 50])
@pytest.mark.parametrize(("df", "tolerance"), [(2, 5e-3), (5, 1e-4), (10, 3e-6), (29, 1e-6), (63, 1e-6), (1881, 1e-6)])
def test_studentized_range_is_scipys(k, df, tolerance):
    """scipy integrates adaptively to about 1e-10; R's algorithm is accurate to about 1e-6 from 10 to 25,000 df,
    coarser in the far upper tail below (its first interval of the chi variable): 1e-3 at 2 df, 1e-5 at 5; the
    critical value to about twice that, relative."""
    q = np.concatenate([[0.0, 0.01, 0.3], np.random.default_rng(k * df).uniform(0, 8, 5), [10.0, 15.0, 30.0]])
    ours, theirs = studentized_range.sf(q, k, df), scipy_stats.studentized_range.sf(q, k, df)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=tolerance)
    critical = studentized_range.ppf(0.95, k, df)
    assert critical == pytest.approx(scipy_stats.studentized_range.ppf(0.95, k, df), rel=2 * tolerance)


@pytest.mark.parametrize("df", [5, 30, 100, 1881, 20000])
def test_studentized_range_of_two_groups_is_the_t_distribution(df):
    """P(Q >= q; 2, df) = P(|T_df| >= q / sqrt(2))."""
    q = np.array([0.01, 0.5, 1, 2, 3, 4, 5, 7, 10])
    np.testing.assert_allclose(studentized_range.sf(q, 2, df), 2 * scipy_stats.t.sf(q / np.sqrt(2), df), atol=1e-7)
    assert studentized_range.ppf(0.95, 2, df) == pytest.approx(np.sqrt(2) * scipy_stats.t.isf(0.025, df), rel=1e-7)


@settings(max_examples=20, deadline=None)
@given(seed=seeds, k=st.integers(2, 30), df=st.sampled_from([2, 7, 100, 101, 800, 801, 5000, 5001, 25001]))
def test_range_cdf_and_the_outer_rule_are_the_direct_sums(seed, k, df):
    """The vectorised rules equal R's loops written out one node at a time (module docstring of the algorithm)."""
    q = np.random.default_rng(seed).uniform(0, 9, 4)
    np.testing.assert_allclose(studentized_range.sf(q, k, df), [1 - direct_ptukey(v, k, df) for v in q], atol=1e-14)


@pytest.mark.parametrize("df", [2, 5, 50, math.inf])
def test_studentized_range_at_the_edges(df):
    expected = [np.nan, 0, 1, 1]
    np.testing.assert_array_equal(studentized_range.sf(np.array([np.nan, np.inf, 0.0, -1.0]), 4, df), expected)


def test_fewer_than_2_df_is_nan_as_r():
    assert np.isnan(studentized_range.sf(np.array([0.5, 3.0]), 3, 1)).all()
    assert np.isnan(studentized_range.ppf(0.95, 3, 1))
    assert np.isnan(tukey.tukey_hsd(np.array([[0.1, 0.3], [0.4, 0.2]])).p).all()  # 2 x 2: 1 residual df


def direct_wprob(w: float, k: int) -> float:
    """R's ``wprob`` one node at a time: P(range of k standard normals < w)."""
    x, a = np.polynomial.legendre.leggauss(12)
    half = w / 2
    if half >= 8:
        return 1.0
    total = math.erf(half / math.sqrt(2)) ** k
    parts = 2 if w > 3 else 3
    step = (8 - half) / parts
    for part in range(parts):
        middle = half + (part + 0.5) * step
        for node, weight in zip(x, a, strict=True):
            z = middle + step / 2 * node
            bracket = scipy_stats.norm.cdf(z) - scipy_stats.norm.cdf(z - w)
            if z * z <= 60 and bracket >= math.exp(-30 / (k - 1)):
                total += step * k / math.sqrt(2 * math.pi) * weight * math.exp(-z * z / 2) * bracket ** (k - 1)
    return 0.0 if total <= math.exp(-30) else min(total, 1.0)


def direct_ptukey(q: float, k: int, df: float) -> float:
    """R's ``ptukey`` (lower tail) one interval and node at a time."""
    if df > 25_000:
        return direct_wprob(q, k)
    x, a = np.polynomial.legendre.leggauss(16)
    length = 1.0 if df <= 100 else 0.5 if df <= 800 else 0.25 if df <= 5000 else 0.125
    constant = df / 2 * math.log(df) - df * math.log(2) - math.lgamma(df / 2) + math.log(length)
    total = 0.0
    for i in range(1, 51):
        interval = 0.0
        for node, weight in zip(x, a, strict=True):
            u = (2 * i - 1) * length + node * length
            log_density = constant + (df / 2 - 1) * math.log(u) - u * df / 4
            if log_density >= -30:
                interval += direct_wprob(q * math.sqrt(u / 2), k) * weight * math.exp(log_density)
        if i * length >= 1 and interval <= 1e-14:
            break
        total += interval
    return min(total, 1.0)


# -- the randomised Tukey HSD test ----------------------------------------------------------------------------


def direct(x: np.ndarray) -> np.ndarray:
    """The exact randomised Tukey HSD p-values by the definition: every shuffle of the systems within each topic,
    one after the other, p = share of shuffles whose range of system means is at least the pair's |difference|."""
    n, m = x.shape
    i, j = np.triu_indices(m, k=1)
    observed = np.abs(x.sum(axis=0)[j] - x.sum(axis=0)[i])  # sums: n times the means, exact in eighths
    count, total = np.zeros(len(i)), 0
    for orders in itertools.product(itertools.permutations(range(m)), repeat=n):
        sums = np.array([x[t, list(order)] for t, order in enumerate(orders)]).sum(axis=0)
        count += sums.max() - sums.min() >= observed
        total += 1
    return count / total


def eighths(seed: int, n: int, m: int) -> np.ndarray:
    """Scores in eighths: their sums are exact, so ties between shuffles are exact ties."""
    return np.random.default_rng(seed).integers(0, 9, size=(n, m)) / 8


@settings(max_examples=12, deadline=None)
@given(seed=seeds, shape=st.sampled_from([(4, 3), (10, 2), (2, 4), (3, 3)]))
def test_exact_randomised_tukey_is_the_enumeration(seed, shape):
    x = eighths(seed, *shape)
    ranges, exact = tukey.shuffled_ranges(x, tukey.SAMPLES, np.random.default_rng(0))
    assert exact and len(ranges) == math.factorial(shape[1]) ** shape[0]
    np.testing.assert_array_equal(tukey.randomised_tukey(x).p, direct(x))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sampled_randomised_tukey_is_within_3_standard_errors(seed):
    x = eighths(seed, 6, 3)  # 6^6 = 46,656 shuffles: more than B, so sampled
    exact = direct(x)
    samples = 5_000
    sampled = tukey.randomised_tukey(x, samples, np.random.default_rng(seed))
    error = np.sqrt(exact * (1 - exact) / samples) + 1 / (samples + 1)
    assert (np.abs(sampled.p - exact) <= 3 * error).all(), (sampled.p, exact)


def test_randomised_tukey_is_deterministic_for_a_seed():
    x, _ = matrix("gen_5x50")
    first = tukey.randomised_tukey(x, 2_000, np.random.default_rng(7))
    again = tukey.randomised_tukey(x, 2_000, np.random.default_rng(7))
    other = tukey.randomised_tukey(x, 2_000, np.random.default_rng(8))
    np.testing.assert_array_equal(first.p, again.p)
    np.testing.assert_array_equal(first.margin, again.margin)
    assert not np.array_equal(first.p, other.p)
    np.testing.assert_array_equal(tukey.randomised_tukey(x, 2_000).p, tukey.randomised_tukey(x, 2_000).p)


@settings(max_examples=20, deadline=None)
@given(seed=seeds, shape=st.sampled_from([(4, 3), (5, 2), (2, 4)]))
def test_randomised_interval_excludes_0_only_for_significant_pairs(seed, shape):
    """Exact: a difference beyond the interval's margin has p <= 1 - confidence."""
    result = tukey.randomised_tukey(eighths(seed, *shape), confidence=0.9)
    assert (result.p[np.abs(result.diff) > result.margin] <= 0.1).all()


# -- the experiment table -------------------------------------------------------------------------------------


@pytest.fixture
def dl19(data, tmp_path):
    """Six systems on DL 2019: its three runs and, for each, the run with every two neighbours of its top 20
    swapped (the DL 2021 runs of the test data retrieve no DL 2019 document: no scores from nothing)."""
    folder = data("dl_llm_prefs_arabzadeh")
    runs = {}
    for path in sorted((folder / "runs").glob("input.ICT-*.txt.gz")):
        name = path.name.split(".")[1]
        runs[name] = str(path)
        frame = ipm.read_run(str(path)).sort_values(["query_id", "score"], ascending=[True, False])
        rank = frame.groupby("query_id").cumcount().to_numpy()
        swapped = np.where(rank < 20, rank ^ 1, rank)  # 0 <-> 1, 2 <-> 3, ... within the top 20
        lines = [
            f"{q} Q0 {d} {r + 1} {-r} swapped\n"
            for q, d, r in zip(frame.query_id, frame.doc_id, swapped.tolist(), strict=True)
        ]
        runs[f"{name}-swapped"] = str(tmp_path / f"{name}-swapped.txt")
        Path(runs[f"{name}-swapped"]).write_text("".join(lines))
    return runs, str(folder / "qrels.dl19-passage.txt")


def per_query(runs, qrels, measure="nDCG@10") -> np.ndarray:
    long = Experiment(runs, qrels, [measure], perquery=True)
    return long.pivot(index="qid", columns="name", values="value")[list(runs)].to_numpy()


def test_tukey_in_the_table_is_the_pair_of_the_family(dl19):
    runs, qrels = dl19
    names = list(runs)
    x = per_query(runs, qrels)
    table = Experiment(runs, qrels, ["nDCG@10"], baseline=names[2], test="tukey", ci=0.9, effect_size=True)
    family = tukey.tukey_hsd(x, confidence=0.9)
    for r in range(len(names)):
        row = table.iloc[r]
        if r == 2:
            assert np.isnan(row["nDCG@10 p-value"])
            continue
        k = [(int(i), int(j)) for i, j in zip(family.i, family.j, strict=True)].index((min(r, 2), max(r, 2)))
        diff = x[:, r].mean() - x[:, 2].mean()
        assert row["nDCG@10 p-value"] == pytest.approx(family.p[k], rel=1e-12)
        assert row["nDCG@10 diff ci low"] == pytest.approx(diff - family.margin[k], abs=1e-12)
        assert row["nDCG@10 diff ci high"] == pytest.approx(diff + family.margin[k], abs=1e-12)
        assert row["nDCG@10 effect size"] == pytest.approx(diff / math.sqrt(anova(x).residual_variance), rel=1e-12)


def test_all_pairs_table(dl19, on_real_data):
    runs, qrels = dl19
    names = list(runs)
    x = per_query(runs, qrels)
    pairs = Experiment(runs, qrels, ["nDCG@10"], test="randomised-tukey", samples=2_000, seed=3, all_pairs=True)
    expected = tukey.randomised_tukey(x, 2_000, np.random.default_rng(3)).frame(names)
    pd.testing.assert_frame_equal(pairs.drop(columns="measure"), expected)
    assert (pairs["measure"] == "nDCG@10").all() and len(pairs) == 15
    # another test: all pairs, one correction over them
    t = Experiment(runs, qrels, ["nDCG@10"], test="t", correction="holm", all_pairs=True)
    i, j = np.triu_indices(len(names), k=1)
    p = [scipy_stats.ttest_rel(x[:, b], x[:, a]).pvalue for a, b in zip(i, j, strict=True)]
    np.testing.assert_allclose(t["p-value"], p, rtol=1e-10)
    tested = np.isfinite(p)  # runs that score the same on every query have no test: left out
    assert tested.sum() == 15 or not on_real_data
    np.testing.assert_allclose(t["p-value corrected"][tested], multipletests(np.array(p)[tested], method="holm")[1])
    np.testing.assert_allclose(t["diff"], x[:, j].mean(axis=0) - x[:, i].mean(axis=0), rtol=1e-12)
    custom = Experiment(runs, qrels, ["nDCG@10"], test=scipy_stats.ttest_rel, all_pairs=True)
    np.testing.assert_allclose(custom["p-value"], p, rtol=1e-10)


def test_anova_table(dl19):
    runs, qrels = dl19
    table = Experiment(runs, qrels, ["nDCG@10", "P@10"], anova=True)
    assert list(table["measure"]) == ["nDCG@10"] * 3 + ["P@10"] * 3
    expected = anova(per_query(runs, qrels, "P@10")).table()
    pd.testing.assert_frame_equal(table.iloc[3:].drop(columns="measure").reset_index(drop=True), expected)


def test_several_baselines_share_one_correction(dl19):
    runs, qrels = dl19
    names = list(runs)
    x = per_query(runs, qrels)
    table = Experiment(runs, qrels, ["nDCG@10"], baseline=names[:2], test="t", correction="holm")
    family = {frozenset((r, b)) for b in (0, 1) for r in range(len(names)) if r != b}  # 9 distinct pairs
    ordered = sorted(tuple(sorted(pair)) for pair in family)
    p = [scipy_stats.ttest_rel(x[:, a], x[:, b]).pvalue for a, b in ordered]
    corrected = dict(zip(ordered, multipletests(p, method="holm")[1], strict=True))
    for b, baseline in enumerate(names[:2]):
        column = table[f"nDCG@10 p-value corrected vs {baseline}"]
        for r in range(len(names)):
            expected = np.nan if r == b else corrected[tuple(sorted((r, b)))]
            np.testing.assert_allclose(column[r], expected, rtol=1e-10)


def test_bad_combinations_are_input_errors(dl19):
    runs, qrels = dl19
    with pytest.raises(InputError, match="no correction"):
        Experiment(runs, qrels, ["nDCG@10"], baseline=0, test="tukey", correction="holm")
    with pytest.raises(InputError, match="relative to one baseline"):
        Experiment(runs, qrels, ["nDCG@10", "rpp"], baseline=0, test="tukey")
    with pytest.raises(InputError, match="one at a time"):
        Experiment(runs, qrels, ["nDCG@10"], all_pairs=True, anova=True)


def test_latex_marks_significance_from_tukey(dl19):
    runs, qrels = dl19
    table = Experiment(runs, qrels, ["nDCG@10"], baseline=0, test="tukey")
    alpha = float(np.nanmedian(table["nDCG@10 p-value"])) + 1e-12  # some rows significant, some not
    latex = render(table, "latex", alpha=alpha)
    assert "Tukey HSD test over all pairs of runs" in latex and "adjusted p-value" in latex
    marked = [name for name in table["name"] if f"{name.replace('_', chr(92) + '_')} & " in latex]
    assert len(marked) == len(table)
    significant = table["nDCG@10 p-value"] < alpha
    lines = [line for line in latex.splitlines() if "&" in line][1:]
    assert [("uparrow" in line or "downarrow" in line) for line in lines] == list(significant)


def test_command(capsys, dl19):
    runs, qrels = dl19
    arguments = ["experiment", qrels, *runs.values(), "-m", "nDCG@10", "--test", "randomised-tukey"]
    assert main([*arguments, "--samples", "500", "--all-pairs", "--format", "csv"]) == 0
    shown = pd.read_csv(io.StringIO(capsys.readouterr().out))
    expected = Experiment(list(runs.values()), qrels, ["nDCG@10"], test="randomised-tukey", samples=500, all_pairs=True)
    pd.testing.assert_frame_equal(shown, expected, check_dtype=False, rtol=1e-12)
    assert main([*arguments[:-2], "--anova"]) == 0
    assert "residual" in capsys.readouterr().out
    assert main([*arguments, "--all-pairs", "--format", "latex"]) == 2
    assert "not a latex table of runs" in capsys.readouterr().err
    with pytest.raises(InputError, match="not the all-pairs or ANOVA table"):
        render(expected, "html")


# -- discriminative power -------------------------------------------------------------------------------------


def test_discriminative_power_by_randomised_tukey():
    x, systems = matrix("gen_8x10")
    values = pd.DataFrame(x, columns=systems)
    found = meta.sensitivity(values, "randomised-tukey", 0.05, samples=2_000, seed=5)
    p = tukey.randomised_tukey(x, 2_000, np.random.default_rng(5)).p
    assert (found.pairs, found.significant) == (28, int((p < 0.05).sum()))
    np.testing.assert_array_equal(found.p_values.to_numpy()[np.triu_indices(8, k=1)], p)
    assert found.p_values.equals(found.p_values.T)
    table = meta.sensitivity_table({"a": values}, "tukey")
    assert table["significant"].iloc[0] == int((tukey.tukey_hsd(x).p < 0.05).sum())
