"""A corpus of odd and bad inputs to the newer features: leaderboards, judges, RBO, ANOVA and Tukey, and the
parameters of the standard measures. Every case is a test, checked against an independent computation (an
oracle here or in ``tests/oracles``, or the same quantity at another scale) or an expected :class:`InputError`:

* a crash is any other exception;
* a silent result is a value where an error belongs, or a value that differs from the oracle;
* a refusal is an :class:`InputError` where a value belongs.

The command line and the API are asked the same questions and must give the same answer.
"""

from __future__ import annotations

import itertools
import math
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import run_cli
from oracles.bt import bradley_terry as direct_bradley_terry
from oracles.tied_rbo import direct as direct_rbo

import ir_pref_measures as ipm
from ir_pref_measures.agreement import panel
from ir_pref_measures.errors import InputError
from ir_pref_measures.leaderboards import rate
from ir_pref_measures.leaderboards.boards import encoded
from ir_pref_measures.measures.tied_rbo import rbo, rbo_of_scores
from ir_pref_measures.parsing.battles import read_battles
from ir_pref_measures.stats import anova, randomised_tukey, tukey_hsd

ELO_POINTS = 400 / math.log(10)
SCALES = [10.0**k for k in range(-300, 301, 50)]

# -- inputs ----------------------------------------------------------------------------------------------------------

RNG = np.random.default_rng(2024)
QUERIES = [f"q{i}" for i in range(6)]
DOCS = [f"d{i}" for i in range(10)]
QRELS = {q: {d: int(RNG.integers(0, 3)) for d in DOCS[:8]} for q in QUERIES}
RUNS = {
    name: {q: {d: float(s) for d, s in zip(DOCS, RNG.permutation(len(DOCS)) + shift, strict=True)} for q in QUERIES}
    for name, shift in (("r0", 0.0), ("r1", 0.5), ("r2", 1.0))
}
MATRIX = RNG.normal(size=(8, 4)) + np.array([0.0, 0.3, 0.5, 1.2])  # topics x systems, moderate differences
SYSTEMS = ["s1", "s2", "s3", "s4"]
BATTLES = pd.DataFrame(
    [
        (q, a, b, RNG.choice([a, b, "tie"], p=[0.5, 0.35, 0.15]))
        for q in QUERIES
        for a, b in itertools.combinations(SYSTEMS, 2)
        for _ in range(2)
    ],
    columns=["query_id", "system_a", "system_b", "winner"],
)


def ranked(run: dict) -> list[str]:
    """Docs by score descending, then doc id descending (the library's tie rule)."""
    return sorted(run, key=lambda d: (-run[d], [-ord(c) for c in d]))


def qrels_frame() -> pd.DataFrame:
    rows = [(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def run_frame(name: str = "r0") -> pd.DataFrame:
    rows = [(q, d, s) for q, docs in RUNS[name].items() for d, s in docs.items()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    return make_files(tmp_path_factory.mktemp("newer"))


def make_files(folder) -> dict[str, str]:
    """The input files of the cases, written in ``folder``."""
    paths = {"qrels": folder / "qrels.txt", "battles": folder / "battles.txt"}
    paths["qrels"].write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    for name, run in RUNS.items():
        paths[name] = folder / f"{name}.txt"
        lines = [f"{q} Q0 {d} {i} {run[q][d]} {name}\n" for q in QUERIES for i, d in enumerate(ranked(run[q]), 1)]
        paths[name].write_text("".join(lines))
    paths["battles"].write_text("".join(" ".join(row) + "\n" for row in BATTLES.itertuples(index=False)))
    paths["ties"] = folder / "ties.txt"
    paths["ties"].write_text("".join(f"{q} s1 s2 tie\n{q} s2 s3 tie\n{q} s1 s3 tie\n" for q in QUERIES))
    paths["unjudged"] = folder / "unjudged.txt"  # the judged queries, none of their judged docs
    paths["unjudged"].write_text("".join(f"{q} Q0 x{i} {i} {10 - i} u\n" for q in QUERIES for i in range(1, 4)))
    paths["elsewhere"] = folder / "elsewhere.txt"  # no judged query at all
    paths["elsewhere"].write_text("".join(f"z{i} Q0 d1 1 1.0 e\n" for i in range(3)))
    paths["half"] = folder / "half.txt"  # judged docs on half the queries
    paths["half"].write_text("".join(f"{q} Q0 {'d1' if i % 2 else 'x9'} 1 1.0 h\n" for i, q in enumerate(QUERIES)))
    paths["pairs"] = folder / "pairs.txt"
    paths["pairs"].write_text("".join(f"{q} d1 d2\n{q} d3 d2\n" for q in QUERIES))
    paths["log"] = folder / "log.txt"
    paths["log"].write_text("".join(f"@ {q} d1 d2 !\n@ {q} d3 d2 =\n@ {q} d2 d4 ?\n" for q in QUERIES))
    paths["self_pairs"] = folder / "self_pairs.txt"
    paths["self_pairs"].write_text("q1 d1 d2\nq1 d3 d3\n")
    paths["self_log"] = folder / "self_log.txt"
    paths["self_log"].write_text("@ q1 d1 d2 !\n@ q1 d4 d4 !\n")
    return {name: str(path) for name, path in paths.items()}


def cli(argv: list[str]) -> str:
    """The command's stdout; its message as an :class:`InputError` when it exits with status 2 (any other exception
    propagates: a crash)."""
    out, err, status = run_cli(argv)
    if status == 2:
        raise InputError(err)
    assert status == 0, err
    return out


# -- the cases -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """``call(files)``, expected to raise an :class:`InputError` whose message holds ``error``, or to return a
    value that ``check`` accepts (it asserts against the oracle)."""

    name: str
    call: Callable[[dict], object]
    error: str | None = None
    check: Callable[[object], None] | None = None


CASES: list[Case] = []


def bad(name: str, call: Callable[[dict], object], error: str) -> None:
    CASES.append(Case(name, call, error=error))


def good(name: str, call: Callable[[dict], object], check: Callable[[object], None]) -> None:
    CASES.append(Case(name, call, check=check))


# RBO: the arguments of both API functions, as the command refuses them

X, Y = ["a", "b", "c", "d"], ["b", "a", "e", "c"]
SCORES_X, SCORES_Y = [4.0, 3.0, 2.0, 1.0], [4.0, 3.0, 2.0, 1.0]
RBO_CALLS = {
    "rbo": lambda **kw: rbo(X, Y, **kw),
    "rbo_of_scores": lambda **kw: rbo_of_scores(X, SCORES_X, Y, SCORES_Y, **kw),
    "ipm.rbo": lambda **kw: ipm.rbo(X, Y, **kw),
}
for fn, call in RBO_CALLS.items():
    for p in (0, 0.0, 1, 1.0, -0.5, 1.5, math.nan, math.inf, "0.9", None, True):
        bad(f"{fn} p={p!r}", lambda f, call=call, p=p: call(p=p), "RBO persistence p")
    for ties in ("c", "", None, "W", 1, "ab"):
        bad(f"{fn} ties={ties!r}", lambda f, call=call, t=ties: call(p=0.9, ties=t), "RBO ties")
    for depth in (0, -1, 1.5, math.nan, math.inf, "3", True):
        bad(f"{fn} depth={depth!r}", lambda f, call=call, d=depth: call(p=0.9, depth=d), "RBO depth")
bad("rbo item twice", lambda f: rbo(["a", "b", "a"], Y, 0.9), "twice")
bad("rbo item twice across groups", lambda f: rbo(["a", {"a", "b"}], Y, 0.9), "twice")
bad("rbo empty tie group", lambda f: rbo(["a", set(), "b"], Y, 0.9), "empty tie group")
bad("rbo unhashable item", lambda f: rbo([{"a": 1}], Y, 0.9), "not hashable")
bad("rbo_of_scores item twice", lambda f: rbo_of_scores(["a", "a"], [2, 1], Y, SCORES_Y, 0.9), "twice")
bad("rbo_of_scores NaN score", lambda f: rbo_of_scores(X, [1, math.nan, 0, 2], Y, SCORES_Y, 0.9), "not a number")
bad("rbo_of_scores text score", lambda f: rbo_of_scores(X, [1, "2", 0, 3], Y, SCORES_Y, 0.9), "not a number")
bad("rbo_of_scores None score", lambda f: rbo_of_scores(X, [1, None, 0, 3], Y, SCORES_Y, 0.9), "not a number")
bad("rbo_of_scores fewer scores", lambda f: rbo_of_scores(X, [1, 2], Y, SCORES_Y, 0.9), "items but")
bad("rbo_of_scores more scores", lambda f: rbo_of_scores(X, SCORES_X, Y, [1, 2, 3, 4, 5], 0.9), "items but")
for option, value, text in (
    ("-p", "0", "must"),
    ("-p", "1", "must"),
    ("-p", "nan", "must"),
    ("--depth", "0", "at least"),
):
    bad(f"rbo command {option} {value}", lambda f, o=option, v=value: cli(["rbo", f["r0"], f["r1"], o, v]), text)
bad("rbo command --ties c", lambda f: cli(["rbo", f["r0"], f["r1"], "--ties", "c"]), "invalid choice")


def agrees_with_direct(x, y, p, ties):
    def check(value):
        expected = direct_rbo(x, y, p, ties)
        for score in ("ext", "min", "max", "res"):
            assert value[score] == pytest.approx(expected[score], rel=1e-9, abs=1e-12), score
        assert -1e-12 <= value["min"] <= value["ext"] + 1e-12 and value["max"] <= 1 + 1e-12

    return check


TIED_X, TIED_Y = ["a", {"b", "c"}, "d", "e"], [{"b", "a"}, "c", "f"]
for p in (1e-300, 1e-100, 1e-10, 0.1, 0.5, 0.9, 0.999):
    for ties in ("w", "a", "b"):
        good(
            f"rbo p={p} ties={ties}",
            lambda f, p=p, t=ties: rbo(TIED_X, TIED_Y, p, t),
            agrees_with_direct(TIED_X, TIED_Y, p, ties),
        )
good(
    "rbo p=1e-300 untied",
    lambda f: rbo(["a", "b", "c"], ["a", "c", "b"], 1e-300),
    agrees_with_direct(["a", "b", "c"], ["a", "c", "b"], 1e-300, "a"),
)

# RBO: scores of any scale give the same tie groups, so the same values


def same_as(reference: Callable[[], object], compare: Callable[[object, object], None]):
    def check(value):
        compare(value, reference())

    return check


def same_dict(value, expected):
    assert value.keys() == expected.keys()
    for key in value:
        assert value[key] == pytest.approx(expected[key], rel=1e-12, abs=1e-15), key


TIED_SCORES_X, TIED_SCORES_Y = [5.0, 4.0, 4.0, 2.0, 1.0], [3.0, 3.0, 2.5, 1.0]
ITEMS_X, ITEMS_Y = ["a", "b", "c", "d", "e"], ["b", "a", "c", "f"]


def scaled_rbo(scale: float) -> dict:
    xs, ys = (np.array(s) * scale for s in (TIED_SCORES_X, TIED_SCORES_Y))
    return rbo_of_scores(ITEMS_X, xs, ITEMS_Y, ys, 0.8, "b")


for scale in SCALES:
    good(
        f"rbo_of_scores scale {scale:g}", lambda f, s=scale: scaled_rbo(s), same_as(lambda: scaled_rbo(1.0), same_dict)
    )

# ANOVA and Tukey: bad matrices, bad levels; the same results at every scale

MATRIX_FUNCTIONS = {"anova": anova, "tukey_hsd": tukey_hsd, "randomised_tukey": lambda x: randomised_tukey(x, 200)}
BAD_MATRICES = {
    "ragged": ([[1.0, 2.0], [3.0]], "rows of different lengths"),
    "text": ([["a", "b"], ["c", "d"]], "matrix of numbers"),
    "numeric text": ([["1", "2"], ["3", "4"]], "matrix of numbers"),
    "booleans": ([[True, False], [False, True]], "matrix of numbers"),
    "one topic": ([[1.0, 2.0, 3.0]], "at least 2 x 2"),
    "one system": ([[1.0], [2.0]], "at least 2 x 2"),
    "3-d": (np.zeros((2, 2, 2)), "at least 2 x 2"),
    "NaN": ([[1.0, math.nan], [2.0, 3.0]], "no finite value"),
    "infinity": ([[1.0, math.inf], [2.0, 3.0]], "no finite value"),
    "None": ([[1.0, None], [2.0, 3.0]], "matrix of numbers"),
    "empty": ([], "at least 2 x 2"),
}
for fn, call in MATRIX_FUNCTIONS.items():
    for label, (matrix, text) in BAD_MATRICES.items():
        bad(f"{fn} {label}", lambda f, c=call, m=matrix: c(m), text)
for fn, call in (("tukey_hsd", tukey_hsd), ("randomised_tukey", lambda x, c: randomised_tukey(x, 200, confidence=c))):
    for confidence in (0, 1, 1.0, -0.1, math.nan, "0.95", True):
        bad(f"{fn} confidence={confidence!r}", lambda f, c=call, v=confidence: c(MATRIX, v), "confidence level")
for samples in (0, -5, 2.5, math.nan, "100"):
    bad(f"randomised_tukey samples={samples!r}", lambda f, s=samples: randomised_tukey(MATRIX, s), "samples")
bad("randomised_tukey rng=0", lambda f: randomised_tukey(MATRIX, 200, rng=0), "numpy.random.Generator")


def direct_anova(x: np.ndarray) -> tuple[float, float]:
    """F of systems and topics by the textbook formulas, cell by cell."""
    n, m = x.shape
    grand = sum(map(sum, x.tolist())) / (n * m)
    col = [sum(x[i][j] for i in range(n)) / n for j in range(m)]
    row = [sum(x[i][j] for j in range(m)) / m for i in range(n)]
    ss_sys = n * sum((c - grand) ** 2 for c in col)
    ss_top = m * sum((r - grand) ** 2 for r in row)
    ss_res = sum((x[i][j] - col[j] - row[i] + grand) ** 2 for i in range(n) for j in range(m))
    ms_res = ss_res / ((n - 1) * (m - 1))
    return ss_sys / (m - 1) / ms_res, ss_top / (n - 1) / ms_res


def anova_matches_direct(result) -> None:
    f_sys, f_top = direct_anova(MATRIX)
    assert result.f[0] == pytest.approx(f_sys, rel=1e-10) and result.f[1] == pytest.approx(f_top, rel=1e-10)


good("anova equals the textbook formulas", lambda f: anova(MATRIX), anova_matches_direct)


def same_anova(value, expected) -> None:
    np.testing.assert_allclose(value.f, expected.f, rtol=1e-10)
    np.testing.assert_allclose(value.p, expected.p, rtol=1e-9)


def same_pairs(scale: float):
    def compare(value, expected) -> None:
        np.testing.assert_allclose(value.p, expected.p, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(value.effect, expected.effect, rtol=1e-10)
        np.testing.assert_allclose(value.diff / scale, expected.diff, rtol=1e-10)
        np.testing.assert_allclose(value.margin / scale, expected.margin, rtol=1e-10)

    return compare


for scale in SCALES:
    good(f"anova scale {scale:g}", lambda f, s=scale: anova(MATRIX * s), same_as(lambda: anova(MATRIX), same_anova))
    good(
        f"tukey_hsd scale {scale:g}",
        lambda f, s=scale: tukey_hsd(MATRIX * s),
        same_as(lambda: tukey_hsd(MATRIX), same_pairs(scale)),
    )
    good(
        f"randomised_tukey scale {scale:g}",
        lambda f, s=scale: randomised_tukey(MATRIX * s, 300),
        same_as(lambda: randomised_tukey(MATRIX, 300), same_pairs(scale)),
    )

# leaderboards: the arguments of rate, the command's options, Bradley-Terry at every scale of the weights

RATE_BAD = [
    ({"seed": -1}, "seed=-1"),
    ({"seed": 1.5}, "seed=1.5"),
    ({"seed": math.nan}, "seed=nan"),
    ({"seed": "0"}, "seed='0'"),
    ({"level": 0}, "level=0"),
    ({"level": 1.0}, "level=1.0"),
    ({"level": math.nan}, "level=nan"),
    ({"level": "0.9"}, "level='0.9'"),
    ({"prior": -1.0}, "prior=-1.0"),
    ({"prior": math.nan}, "prior=nan"),
    ({"prior": math.inf}, "prior=inf"),
    ({"prior": "1"}, "prior='1'"),
    ({"rounds": -1}, "rounds=-1"),
    ({"rounds": 2.5}, "rounds=2.5"),
    ({"rounds": math.nan}, "rounds=nan"),
    ({"method": "glicko"}, "method='glicko'"),
    ({"resample": "topics"}, "resample='topics'"),
    ({"anchor": "s1", "anchor_rating": math.nan}, "anchor_rating=nan"),
    ({"anchor": "s1", "anchor_rating": math.inf}, "anchor_rating=inf"),
    ({"anchor": "s1", "anchor_rating": "high"}, "anchor_rating='high'"),
    ({"anchor_rating": 1200}, "needs an anchor"),
    ({"anchor": "nobody"}, "not one of the systems"),
    ({"anchor": 3}, "anchor=3"),
    ({"method": "elo", "k": math.nan}, "k=nan"),
    ({"method": "elo", "k": 0}, "k=0"),
    ({"method": "elo", "k": -4}, "k=-4"),
    ({"method": "elo", "k": math.inf}, "k=inf"),
    ({"method": "elo", "rounds": 10}, "does not go with method='elo'"),
    ({"method": "elo", "prior": 0.1}, "does not go with method='elo'"),
    ({"method": "elo", "seed": 1}, "does not go with method='elo'"),
    ({"method": "elo", "level": 0.9}, "does not go with method='elo'"),
    ({"method": "elo", "resample": "queries"}, "does not go with method='elo'"),
    ({"k": 8}, "does not go with method='bt'"),
]
for options, text in RATE_BAD:
    label = ", ".join(f"{k}={v!r}" for k, v in options.items())
    bad(f"rate {label}", lambda f, o=options: rate(BATTLES, **{"rounds": 0, **o}), text)
    bad(f"leaderboard {label}", lambda f, o=options: ipm.leaderboard(BATTLES, **o), text)
LEADERBOARD_CLI_BAD = [
    (["--seed", "-1"], "seed=-1"),
    (["--anchor", "s1=nan"], "anchor_rating=nan"),
    (["--anchor", "s1=inf"], "anchor_rating=inf"),
    (["--anchor", "s1=-inf"], "anchor_rating=-inf"),
    (["--anchor", "nobody=1200"], "not one of the systems"),
    (["--level", "1"], "must lie strictly between"),
    (["--prior", "-1"], "non-negative"),
    (["--prior", "nan"], "non-negative"),
    (["--method", "elo", "--rounds", "10"], "does not go with method='elo'"),
    (["--method", "elo", "--seed", "3"], "does not go with method='elo'"),
    (["--k", "8"], "does not go with method='bt'"),
    (["--method", "elo", "--k", "nan"], "k=nan"),
    (["--measure", "rpp"], "goes with --qrels"),
]
for options, text in LEADERBOARD_CLI_BAD:
    bad(f"leaderboard command {' '.join(options)}", lambda f, o=options: cli(["leaderboard", f["battles"], *o]), text)


def bt_direct(weight_scale: float) -> pd.Series:
    table = read_battles(BATTLES).assign(weight=weight_scale)
    names, a, b, _ = encoded(table)
    rows = list(zip(a.tolist(), b.tolist(), table["outcome"].tolist(), [1.0] * len(table), strict=True))
    return pd.Series(1000 + ELO_POINTS * direct_bradley_terry(rows, len(names)), index=names)


def ratings_of(weight_scale: float) -> pd.Series:
    table = ipm.leaderboard(BATTLES.assign(weight=weight_scale), rounds=0)
    return pd.Series(table["rating"].to_numpy(), index=table["system"].to_numpy())


def equal_ratings(value: pd.Series, expected: pd.Series) -> None:
    assert np.abs(value.reindex(expected.index) - expected).max() < 1e-6


for scale in SCALES:
    good(
        f"bradley-terry weights x {scale:g}",
        lambda f, s=scale: ratings_of(s),
        same_as(lambda: bt_direct(1.0), equal_ratings),
    )


def anchored(table: pd.DataFrame) -> None:
    assert table.set_index("system").loc["s1", "rating"] == pytest.approx(1200.0)


good(
    "leaderboard command --anchor s1=1200",
    lambda f: ipm.leaderboard(BATTLES, rounds=0, anchor="s1", anchor_rating=1200),
    anchored,
)


def elo_direct(k: float) -> pd.Series:
    ratings = dict.fromkeys(SYSTEMS, 1000.0)
    table = read_battles(BATTLES)
    for a, b, s in zip(table["system_a"], table["system_b"], table["outcome"], strict=True):
        e = 1 / (1 + 10 ** ((ratings[b] - ratings[a]) / 400))
        ratings[a] += k * (s - e)
        ratings[b] -= k * (s - e)
    return pd.Series(ratings)


def elo_of(k: float) -> pd.Series:
    table = ipm.leaderboard(BATTLES, method="elo", k=k)
    return pd.Series(table["rating"].to_numpy(), index=table["system"].to_numpy())


for k in (0.5, 4, 32):
    good(f"elo k={k}", lambda f, k=k: elo_of(k), same_as(lambda k=k: elo_direct(k), equal_ratings))

# no scores from nothing


def warns(text: str):
    def call(thunk):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = thunk()
        assert any(text in str(w.message) for w in caught), [str(w.message) for w in caught]
        return value

    return call


bad(
    "eval of a run sharing no judged query",
    lambda f: cli(["eval", f["qrels"], f["elsewhere"], "nDCG@10"]),
    "no query in common",
)
bad(
    "eval of a run with no judged doc",
    lambda f: cli(["eval", f["qrels"], f["unjudged"], "nDCG@10"]),
    "none of its retrieved documents is judged on 100% of queries",
)
bad(
    "leaderboard of a run with no judged doc",
    lambda f: cli(["leaderboard", "--qrels", f["qrels"], f["r0"], f["unjudged"]]),
    "none of its retrieved documents is judged on 100%",
)
bad(
    "leaderboard of a run sharing no query",
    lambda f: cli(["leaderboard", "--qrels", f["qrels"], f["r0"], f["elsewhere"]]),
    "no query in common",
)
bad(
    "battles_from_runs of unjudged runs",
    lambda f: ipm.leaderboards.boards.battles_from_runs([f["unjudged"], f["elsewhere"]], f["qrels"]),
    "judged",
)
good(
    "battles_from_runs warns with the share of queries",
    lambda f: warns("none of its retrieved documents is judged on 3 of the 6 judged queries (50%)")(
        lambda: ipm.leaderboards.boards.battles_from_runs([f["r0"], f["half"]], f["qrels"])
    ),
    lambda table: None if len(table) == len(QUERIES) else pytest.fail("a battle per query"),
)
good(
    "a leaderboard of ties only says so",
    lambda f: warns("battles are ties")(lambda: ipm.leaderboard(f["ties"], rounds=0)),
    lambda table: None if (table["rating"] == 1000).all() else pytest.fail("equal ratings"),
)

# judges


def aligned(f: dict):
    return panel.align({"A": f["pairs"], "B": f["log"]})


for fn in ("agreement", "reliability"):
    for options, text in (
        ({"confidence": 1.0}, "confidence=1.0"),
        ({"confidence": 0}, "confidence=0"),
        ({"confidence": math.nan}, "confidence=nan"),
        ({"confidence": "0.9"}, "confidence='0.9'"),
        ({"seed": -1}, "seed=-1"),
        ({"seed": 0.5}, "seed=0.5"),
        ({"seed": "a"}, "seed='a'"),
        ({"samples": 0}, "samples=0"),
        ({"samples": -1}, "samples=-1"),
        ({"samples": 2.5}, "samples=2.5"),
        ({"samples": math.nan}, "samples=nan"),
    ):
        bad(f"judges.{fn} {options}", lambda f, fn=fn, o=options: getattr(panel, fn)(aligned(f), **o), text)
for options, text in (
    (["--seed", "-1"], "seed=-1"),
    (["--confidence", "1"], "must lie strictly between"),
    (["--samples", "0"], "at least 1"),
    (["--statistic", "alpha"], "goes with --heatmap"),
    (["--reference", "A"], "--reference"),
    (["--show", "diagnostics", "--seed", "3"], "--seed"),
):
    bad(
        f"judges command {' '.join(options)}",
        lambda f, o=options: cli(["judges", f"A={f['pairs']}", f"B=log:{f['log']}", *o]),
        text,
    )
bad(
    "judges self-pair in a pairs file",
    lambda f: cli(["judges", f"A={f['self_pairs']}", f"B={f['pairs']}"]),
    "self_pairs.txt:2: doc 'd3' is compared with itself",
)
bad(
    "judges self-pair in a log",
    lambda f: cli(["judges", f"A=log:{f['self_log']}", f"B={f['pairs']}"]),
    "self_log.txt:2: doc 'd4' is compared with itself",
)


def lines_read(table: pd.DataFrame) -> None:
    row = table.set_index("judge").loc["B"]
    assert row["judgments"] == 3 * len(QUERIES) and row["unusable"] == len(QUERIES)


good(
    "judges diagnostics count the unusable lines read",
    lambda f: panel.diagnostics(panel.align({"A": f["pairs"], "B": "log:" + f["log"]})),
    lines_read,
)
good(
    "judges agreement at confidence 0.9",
    lambda f: panel.agreement(aligned(f), confidence=0.9, samples=50),
    lambda t: None if len(t) == 1 else pytest.fail("one pair of judges"),
)

# measure parameters: one check, one message, at every entry point


def eval_cli(measure: str):
    return lambda f: cli(["eval", f["qrels"], f["r0"], measure])


def calc_aggregate(measure: str):
    return lambda f: ir_measures.calc_aggregate([ir_measures.parse_measure(measure)], qrels_frame(), run_frame())


def experiment(measure: str):
    return lambda f: ipm.Experiment([run_frame()], qrels_frame(), [measure])


BAD_MEASURES = [
    ("P@0", "cutoff"),
    ("nDCG@0", "cutoff"),
    ("Judged@0", "cutoff"),
    ("RR@0", "cutoff"),
    ("R@0", "cutoff"),
    ("AP@0", "cutoff"),
    ("Success@0", "cutoff"),
    ("ERR@0", "cutoff"),
    ("RBP(p=0.8,rel=1)@0", "cutoff"),
    ("RBP(p=1.5,rel=1)", "p (RBO or RBP persistence, in (0, 1]) must be a number in (0, 1], not 1.5"),
    ("RBP(p=0.0,rel=1)", "must be a number in (0, 1]"),
    ("RBP(p=0.8,rel=0)", "rel"),
    ("RBP(p=0.8)", "rel (minimum grade of a relevant doc) must be given"),
    ("AP(rel=-1)", "rel (minimum grade of a relevant doc) must be an integer >= 1, not -1"),
    ("P(rel=0)@5", "rel"),
    ("nDCG(dcg='exp')", "dcg"),
    ("ppref@0", "cutoff"),
    ("PGC(p=1.5)", "must be a number in (0, 1]"),
    ("PGC(depth=0)", "depth"),
    ("PGC(cols=0)", "cols"),
    ("fpref(beta=0)", "beta"),
    ("nDCG@2.5", "cutoff"),
    ("AP(foo=1)", "unknown parameter"),
]
ENTRY_POINTS = {"eval": eval_cli, "calc_aggregate": calc_aggregate, "Experiment": experiment}
for measure, text in BAD_MEASURES:
    for entry, make in ENTRY_POINTS.items():
        if entry == "calc_aggregate" and measure in ("AP(rel=-1)", "nDCG@2.5", "RBP(p=0.8)", "AP(foo=1)"):
            continue  # ir_measures' own parser refuses these names (rel=-1, a float cutoff) before we see them
        bad(f"{entry} {measure}", make(measure), text)


def p_at(cutoff: int, rel: int = 1) -> float:
    """Mean over queries of relevant docs in the top ``cutoff`` / ``cutoff``."""
    values = []
    for q in QUERIES:
        top = ranked(RUNS["r0"][q])[:cutoff]
        values.append(sum(QRELS[q].get(d, 0) >= rel for d in top) / cutoff)
    return sum(values) / len(values)


def rbp(p: float, cutoff: int | None = None, rel: int = 1) -> float:
    """cwl_eval's RBP: sum of p^(r-1) (1-p) / (1 - p^1000) over relevant docs at rank r <= min(cutoff, 1000)."""
    values = []
    for q in QUERIES:
        docs = ranked(RUNS["r0"][q])[: cutoff or 1000]
        weights = [p ** (r - 1) * (1 - p) / (1 - p**1000) if p < 1 else 1 / 1000 for r in range(1, len(docs) + 1)]
        values.append(sum(w for w, d in zip(weights, docs, strict=True) if QRELS[q].get(d, 0) >= rel))
    return sum(values) / len(values)


def one_value(expected: float):
    def check(value):
        if isinstance(value, str):  # eval's summary line
            number = float(value.strip().split("\t")[-1])
            assert number == pytest.approx(expected, abs=5e-5)
        elif isinstance(value, pd.DataFrame):
            assert value.iloc[0, -1] == pytest.approx(expected, rel=1e-9)
        else:
            assert next(iter(value.values())) == pytest.approx(expected, rel=1e-9)

    return check


GOOD_MEASURES = [
    ("RBP(p=1,rel=1)", p_at(1000)),
    ("RBP(p=1.0,rel=1)@5", p_at(5) * 5 / 1000),
    ("RBP(p=0.5,rel=1)", rbp(0.5)),
    ("RBP(p=0.5,rel=2)@3", rbp(0.5, 3, 2)),
    ("P@5", p_at(5)),
    ("P(rel=2)@3", p_at(3, 2)),
    ("P@1", p_at(1)),
]
for measure, expected in GOOD_MEASURES:
    for entry in ("eval", "Experiment"):
        good(f"{entry} {measure}", ENTRY_POINTS[entry](measure), one_value(expected))
good("calc_aggregate P@5", calc_aggregate("P@5"), one_value(p_at(5)))
good("calc_aggregate RBP(p=0.5,rel=1)", calc_aggregate("RBP(p=0.5,rel=1)"), one_value(rbp(0.5)))

# experiment: options the table would not use


def experiment_with(**options):
    return lambda f: ipm.Experiment(
        [run_frame("r0"), run_frame("r1"), run_frame("r2")], qrels_frame(), ["P@5"], **options
    )


for options, text in (
    ({"perquery": True, "anova": True}, "perquery=True"),
    ({"perquery": True, "all_pairs": True, "test": "tukey"}, "perquery=True"),
    ({"perquery": True, "baseline": 0}, "perquery=True"),
    ({"perquery": True, "ci": 0.9}, "perquery=True"),
    ({"anova": True, "baseline": 0}, "anova"),
    ({"anova": True, "test": "tukey"}, "anova"),
    ({"all_pairs": True, "baseline": 0}, "all_pairs"),
    ({"test": "wilcoxon"}, "give a baseline"),
    ({"effect_size": True}, "give a baseline"),
    ({"seed": -1, "baseline": 0, "test": "permutation"}, "seed=-1"),
    ({"anova": True, "all_pairs": True}, "two tables"),
):
    bad(f"Experiment {options}", experiment_with(**options), text)
EXPERIMENT_CLI = [
    (["--perquery", "--anova"], "perquery=True"),
    (["--perquery", "--test", "tukey", "--all-pairs"], "perquery=True"),
    (["--seed", "-1", "--baseline", "r0", "--test", "permutation"], "seed=-1"),
    (["--seed", "3"], "--seed"),
    (["--samples", "100", "--baseline", "r0"], "--samples"),
    (["--alpha", "0.1", "--baseline", "r0"], "--alpha"),
]
for options, text in EXPERIMENT_CLI:
    bad(
        f"experiment command {' '.join(options)}",
        lambda f, o=options: cli(["experiment", f["qrels"], f["r0"], f["r1"], f["r2"], "-m", "P@5", *o]),
        text,
    )
good(
    "Experiment perquery='both' with anova",
    experiment_with(perquery="both", anova=True),
    lambda result: None if len(result) == 2 else pytest.fail("two tables"),
)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_case(case: Case, files):
    if case.error is not None:
        with pytest.raises(InputError, match=re.escape(case.error)):
            case.call(files)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = case.call(files)
        case.check(value)


def test_the_corpus_is_large():
    assert len(CASES) >= 320


def outcome(case: Case, files: dict[str, str]) -> str:
    """``ok``, ``crash`` (an exception other than InputError), ``silent`` (a value where an error belongs, or a wrong
    value) or ``refused`` (an InputError where a value belongs, or another message than expected)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = case.call(files)
    except InputError as error:
        if case.error is None:
            return "refused"
        return "ok" if case.error in str(error) else "refused"
    except Exception:
        return "crash"
    if case.error is not None:
        return "silent"
    try:
        case.check(value)
    except AssertionError:
        return "silent"
    return "ok"


if __name__ == "__main__":  # the tally: cd tests && python reliability/test_newer_features.py
    import collections
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        written = make_files(Path(folder))
        tally = collections.Counter(outcome(case, written) for case in CASES)
    print(f"{len(CASES)} cases: " + ", ".join(f"{tally[k]} {k}" for k in ("ok", "crash", "silent", "refused")))
