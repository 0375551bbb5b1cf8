"""Leaderboards: Bradley-Terry ratings against a direct solve and FastChat's recorded outputs, online Elo against
FastChat, identifiability, the bootstrap, battle files and the other inputs."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import data_path, testdata_path
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.bt import bradley_terry as direct_bradley_terry

from ir_pref_measures import compare
from ir_pref_measures.errors import InputError
from ir_pref_measures.leaderboards import ratings
from ir_pref_measures.leaderboards.boards import (
    battles_from_compare,
    battles_from_values,
    encoded,
    leaderboard,
    rate,
)
from ir_pref_measures.leaderboards.intervals import unit_points
from ir_pref_measures.parsing.battles import read_battles

DATA = Path(__file__).parents[1] / "data" / "leaderboard"
GENERATED = ("generated_small", "generated_many", "generated_sparse")
RUNS = {
    "dl19_rpp": ("dl19", ("ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50")),
    "dl21_rpp": ("dl21", ("p_bm25", "uogTrPot5", "NLE_P_v1")),
}
ELO_POINTS = 400 / math.log(10)  # Elo points per unit of natural log-strength


def battle_set(name: str) -> pd.DataFrame:
    """A battle set of the reference CSVs, as the script that recorded them made it."""
    if name in RUNS:
        year, runs = RUNS[name]
        folder = testdata_path("dl_llm_prefs_arabzadeh")
        table = compare(
            {r: folder / "runs" / f"input.{r}.txt.gz" for r in runs},
            folder / f"qrels.{year}-passage.txt",
            measures=["rpp"],
            perquery=True,
        )
        return battles_from_compare(table, "rpp")
    return read_battles(DATA / f"{name}.battles.gz")


def direct(battles: pd.DataFrame, prior: float = 0.0) -> pd.Series:
    table = read_battles(battles) if "outcome" not in battles.columns else battles
    names, a, b, _ = encoded(table)
    rows = list(zip(a.tolist(), b.tolist(), table["outcome"].tolist(), table["weight"].tolist(), strict=True))
    return pd.Series(1000 + ELO_POINTS * direct_bradley_terry(rows, len(names), prior), index=names)


def reference(file: str, name: str) -> pd.Series:
    table = pd.read_csv(DATA / file, dtype={"system": str})
    table = table[table["set"] == name]
    return pd.Series(table["rating"].to_numpy(), index=table["system"].to_numpy())


def ours(battles, **options) -> pd.Series:
    table = leaderboard(battles, rounds=0, **options)
    return pd.Series(table["rating"].to_numpy(), index=table["system"].to_numpy())


@pytest.mark.parametrize("name", [*GENERATED, *RUNS])
def test_bradley_terry_is_the_exact_maximum_and_fastchat_agrees(name):
    battles = battle_set(name)
    rating = ours(battles)
    exact = direct(battles).reindex(rating.index)
    assert np.abs(rating - exact).max() < 1e-6
    fastchat = reference("fastchat_bt.csv", name).reindex(rating.index)
    assert np.abs(rating - fastchat).max() < 1e-2
    assert abs(rating.mean() - 1000) < 1e-9


@pytest.mark.parametrize("name", [*GENERATED, *RUNS])
def test_online_elo_is_fastchats(name):
    rating = ours(battle_set(name), method="elo")
    assert np.abs(rating - reference("fastchat_elo.csv", name).reindex(rating.index)).max() < 1e-9


def random_battles(draw_seed: int, systems: int, n: int, ties: float = 0.1, weighted: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(draw_seed)
    beta = rng.normal(0, 1.5, systems)
    a = rng.integers(0, systems, n)
    b = (a + rng.integers(1, systems, n)) % systems
    p = 1 / (1 + np.exp(beta[b] - beta[a]))
    u = rng.random(n)
    winner = np.where(u < ties, "tie", np.where(rng.random(n) < p, "a", "b"))
    frame = pd.DataFrame(
        {
            "query_id": rng.integers(0, 9, n).astype(str),
            "system_a": [f"s{k}" for k in a],
            "system_b": [f"s{k}" for k in b],
            "winner": winner,
        }
    )
    if weighted:
        frame["weight"] = rng.choice([0.5, 1.0, 2.0, 3.0], n)
    return frame


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 7), st.integers(5, 120), st.booleans(), st.sampled_from([0.0, 0.3]))
def test_bradley_terry_equals_the_direct_solve_on_random_battles(seed, systems, n, weighted, prior):
    battles = random_battles(seed, systems, n, weighted=weighted)
    names, a, b, _ = encoded(read_battles(battles))
    table = read_battles(battles)
    points = ratings.points_matrix(a, b, table["outcome"].to_numpy(), table["weight"].to_numpy(), len(names))
    if prior == 0 and ratings.identifiability(points, names) is not None:
        with pytest.raises(InputError, match="maximum-likelihood|not connected|at least two"):
            ours(battles)
        return
    rating = ours(battles, prior=prior)
    assert np.abs(rating - direct(battles, prior).reindex(rating.index)).max() < 1e-6


def test_weights_multiply_battles_and_order_and_names_do_not_matter():
    battles = random_battles(5, 5, 200, weighted=False)
    weighted = battles.iloc[:100].assign(weight=[1.0, 3.0] * 50)
    repeated = pd.concat([battles.iloc[:100:2], *[battles.iloc[1:100:2]] * 3], ignore_index=True)
    assert np.abs(ours(weighted) - ours(repeated).reindex(ours(weighted).index)).max() < 1e-9
    shuffled = battles.sample(frac=1, random_state=3)
    assert np.abs(ours(battles) - ours(shuffled).reindex(ours(battles).index)).max() < 1e-9
    renamed = battles.assign(system_a="x" + battles["system_a"], system_b="x" + battles["system_b"])
    assert np.allclose(ours(renamed).to_numpy(), ours(battles).to_numpy(), atol=1e-9)


def test_a_tie_is_half_a_win_each_way():
    ties = pd.DataFrame({"query_id": "q", "system_a": ["x", "x"], "system_b": ["y", "y"], "winner": ["tie", "tie"]})
    half = pd.DataFrame({"query_id": "q", "system_a": ["x", "y"], "system_b": ["y", "x"], "winner": ["a", "a"]})
    ring = pd.DataFrame({"query_id": "q", "system_a": ["x", "y", "x"], "system_b": ["y", "z", "z"], "winner": "a"})
    ring = pd.concat([ring, ring.assign(winner="b").iloc[[2]]], ignore_index=True)
    assert np.allclose(ours(ties), [1000, 1000]) and np.allclose(ours(half), [1000, 1000])
    assert ours(pd.concat([ring, ties])).index.tolist() == ["x", "y", "z"]


def test_disconnected_and_undefeated_are_named_not_rated():
    met = pd.DataFrame(
        {"query_id": "q", "system_a": ["a1", "a2", "b1", "b2"], "system_b": ["a2", "a1", "b2", "b1"], "winner": "a"}
    )
    with pytest.raises(InputError, match=r"not connected.*\{a1, a2\}; \{b1, b2\}"):
        ours(met)
    undefeated = pd.concat(
        [
            met.iloc[:2],
            pd.DataFrame({"query_id": "q", "system_a": ["a1", "c"], "system_b": ["c", "a2"], "winner": ["b", "a"]}),
        ]
    )
    with pytest.raises(InputError, match="system c never lost a battle"):
        ours(undefeated)
    rated = ours(undefeated, prior=0.5)
    assert rated.index[0] == "c" and np.isfinite(rated).all()
    assert np.abs(rated - direct(undefeated, 0.5).reindex(rated.index)).max() < 1e-6
    pair = pd.DataFrame({"query_id": "q", "system_a": ["x"], "system_b": ["y"], "winner": ["a"]})
    with pytest.raises(InputError, match="system x never lost a battle; system y never won a battle"):
        ours(pair)


def test_bootstrap_is_seeded_and_its_intervals_hold_the_rating():
    battles = read_battles(DATA / "generated_small.battles.gz")
    first = leaderboard(battles, rounds=200, seed=7)
    pd.testing.assert_frame_equal(first, leaderboard(battles, rounds=200, seed=7))
    assert not first.equals(leaderboard(battles, rounds=200, seed=8))
    assert (first["ci low"] <= first["rating"]).all() and (first["rating"] <= first["ci high"]).all()
    assert (first["rank low"] <= first["rank"]).all() and (first["rank"] <= first["rank high"]).all()
    by_query = leaderboard(battles, rounds=200, resample="queries")
    assert ((by_query["ci high"] - by_query["ci low"]) > 0).all()
    result = rate(battles, rounds=200)
    above = result.above().to_numpy()
    assert np.allclose((above + above.T)[~np.eye(len(above), dtype=bool)], 1.0)
    anchored = leaderboard(battles, rounds=50, anchor="sys03", anchor_rating=1200)
    row = anchored.set_index("system").loc["sys03"]
    assert row["rating"] == row["ci low"] == row["ci high"] == 1200


def test_query_units_add_up_to_the_points_matrix():
    table = read_battles(DATA / "generated_sparse.battles.gz")
    names, a, b, query = encoded(table)
    outcome, weight = table["outcome"].to_numpy(), table["weight"].to_numpy()
    units = unit_points(query, a, b, outcome, weight, int(query.max()) + 1, len(names))
    total = np.asarray(units.sum(axis=0)).reshape(len(names), len(names))
    assert np.allclose(total, ratings.points_matrix(a, b, outcome, weight, len(names)))
    first = query == 0
    one = ratings.points_matrix(a[first], b[first], outcome[first], weight[first], len(names))
    assert np.allclose(units[[0]].toarray().reshape(len(names), -1), one)


def test_a_bootstrap_round_without_a_maximum_is_an_error(testdata):
    with pytest.raises(InputError, match=r"bootstrap round \d+ \(resampling queries\).*never"):
        leaderboard(battle_set("dl21_rpp"), rounds=200, resample="queries")
    assert len(leaderboard(battle_set("dl21_rpp"), rounds=200, resample="queries", prior=0.1)) == 3


def test_win_rates_and_counts():
    battles = pd.DataFrame(
        {"query_id": "q", "system_a": ["x", "x", "y", "z"], "system_b": ["y", "y", "x", "x"], "winner": "a"}
    )
    battles.loc[3, "winner"] = "tie"
    result = rate(battles, rounds=0, prior=1.0)
    assert result.win_rates().loc["x", "y"] == pytest.approx(2 / 3)
    assert result.win_rates().loc["x", "z"] == 0.5 and math.isnan(result.win_rates().loc["y", "z"])
    table = result.table().set_index("system")
    assert table.loc["x", ["battles", "wins", "ties", "losses"]].tolist() == [4, 2, 1, 1]
    assert np.allclose(result.predicted().to_numpy() + result.predicted().to_numpy().T, 1.0)


def test_battles_from_values_and_compare():
    values = pd.DataFrame(
        {"name": ["r1", "r2", "r3"] * 2, "qid": ["q1"] * 3 + ["q2"] * 3, "measure": "AP", "value": [3, 1, 1, 0, 2, 1]}
    )
    battles = battles_from_values(values)
    assert battles["winner"].tolist() == ["a", "a", "tie", "b", "b", "a"]
    with pytest.raises(InputError, match="no value of 'AP' on query 'q2'"):
        battles_from_values(values.iloc[:-1])
    table = pd.DataFrame({"query_id": ["1", "all"], "run_i": "r1", "run_j": "r2", "rpp": [-0.5, -0.5]})
    assert battles_from_compare(table).to_dict("records") == [
        {"query_id": "1", "system_a": "r1", "system_b": "r2", "winner": "b"}
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q1 x y x\nq2 x y z\n", "line: 'q2 x y z'"),
        ("q1 x y x\nq2 x x x\n", "system 'x' battles itself"),
        ("q1 b y b\n", "winner 'b' is ambiguous: it reads as a and as b"),
        ("q1 x y x 1\nq2 x y x\n", ":2: "),
        ("q1 x y x -1\n", "weight -1 is not a positive number"),
        ("# nothing\n", "no data lines"),
    ],
)
def test_bad_battle_files(tmp_path, text, message):
    path = tmp_path / "battles.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=str(path)) as error:
        read_battles(path)
    assert message in str(error.value)


def test_battle_file_forms(tmp_path):
    path = tmp_path / "battles.txt"
    path.write_text("# a log\nq1 x y x\nq1 y z tie\n\nq2 x z b 2.5\n".replace("q1 y z tie", "q1 y z tie 1"))
    with pytest.raises(InputError):
        read_battles(path)
    path.write_text("# a log\nq1 x y x\nq1 y z tie\n\nq2 x z b\n")
    table = read_battles(path)
    assert table["outcome"].tolist() == [1.0, 0.5, 0.0] and table["line"].tolist() == [2, 3, 5]
    frame = pd.DataFrame({"query_id": [1], "system_a": ["x"], "system_b": ["y"], "winner": ["model_b"], "weight": [2]})
    assert read_battles(frame)[["outcome", "weight"]].values.tolist() == [[0.0, 2.0]]
    with pytest.raises(InputError, match="row 0: winner 'w'"):
        read_battles(frame.assign(winner="w"))


OUTSIDE = __import__("tempfile").gettempdir()


def cli(*argv: str) -> tuple[int, str, str]:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "ir_pref_measures", "leaderboard", *argv],
        capture_output=True,
        text=True,
        check=False,
        cwd=OUTSIDE,  # not the checkout, whose ir_pref_measures folder would shadow the installed package
    )
    return done.returncode, done.stdout, done.stderr


def test_cli_rates_a_battle_file_and_runs(tmp_path):
    status, out, err = cli(str(DATA / "generated_small.battles.gz"), "--rounds", "50", "--format", "csv")
    assert status == 0, err
    table = pd.read_csv(__import__("io").StringIO(out))
    expected = leaderboard(read_battles(DATA / "generated_small.battles.gz"), rounds=50)
    assert table["system"].tolist() == expected["system"].tolist()
    assert np.allclose(table["rating"], expected["rating"]) and np.allclose(table["ci low"], expected["ci low"])
    status, out, err = cli(str(DATA / "generated_small.battles.gz"), "--method", "elo", "--anchor", "sys00=1100")
    assert status == 0 and "1100.0000" in out
    folder = testdata_path("dl_llm_prefs_arabzadeh")
    runs = [str(folder / "runs" / f"input.{r}.txt.gz") for r in RUNS["dl19_rpp"][1]]
    status, out, err = cli(
        "--qrels", str(folder / "qrels.dl19-passage.txt"), *runs, "--rounds", "20", "--format", "csv"
    )
    assert status == 0, err
    rating = pd.read_csv(__import__("io").StringIO(out)).set_index("system")["rating"]
    reference_ = reference("fastchat_bt.csv", "dl19_rpp")
    assert np.abs(rating.to_numpy() - reference_.reindex([s.removesuffix(".txt") for s in rating.index])).max() < 1e-2


def test_cli_refuses_unidentifiable_battles_with_status_2(tmp_path):
    path = tmp_path / "battles.txt"
    path.write_text("q1 a1 a2 a1\nq1 a2 a1 a2\nq2 b1 b2 b1\nq2 b2 b1 tie\n")
    status, out, err = cli(str(path))
    assert status == 2 and out == ""
    assert "never met: {a1, a2}; {b1, b2}" in err
    path.write_text("q1 x y x\nq1 y z y\nq2 z y z\n")
    status, out, err = cli(str(path))
    assert status == 2 and "system x never lost a battle" in err and "--prior" in err
    status, out, err = cli(str(path), "--prior", "1", "--rounds", "10", "--plot", str(tmp_path / "f.png"))
    assert status == 0 and out.splitlines()[1].split()[0] == "x" and (tmp_path / "f.png").stat().st_size > 0


def test_aggregate_rates_the_lines_of_compare(tmp_path):
    """``aggregate --method bt|elo`` on ``compare -q``'s lines: the leaderboard of the same per-query preferences."""
    import io
    import json
    import subprocess
    import sys

    folder = data_path("dl_llm_prefs_arabzadeh")
    qrels, runs = (
        str(folder / "qrels.dl19-passage.txt"),
        [str(folder / "runs" / f"input.{r}.txt.gz") for r in RUNS["dl19_rpp"][1]],
    )
    lines = tmp_path / "prefs.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "ir_pref_measures", "compare", "-R", qrels, "-q", *runs],
        capture_output=True,
        text=True,
        check=True,
        cwd=OUTSIDE,
    )
    lines.write_text(done.stdout)
    done_compare = done.stdout
    for method, options in (("bt", {"rounds": 1000, "seed": 3}), ("elo", {})):
        argv = ["aggregate", "-P", str(lines), "--method", method, "-m", "rpp", "--seed", "3"]
        done = subprocess.run(
            [sys.executable, "-m", "ir_pref_measures", *argv], capture_output=True, text=True, cwd=OUTSIDE
        )
        assert done.returncode == 0, done.stderr
        found = pd.DataFrame([json.loads(line) for line in io.StringIO(done.stdout)])
        rows = [json.loads(line) for line in done_compare.splitlines()]
        rows = [row for row in rows if row.get("type") == "preference"]  # not the metric lines, not the summary
        battles = pd.DataFrame(
            {
                "query_id": [row["qid"] for row in rows],
                "system_a": [row["runi"] for row in rows],
                "system_b": [row["runj"] for row in rows],
                "winner": ["a" if row["rpp"] > 0 else "b" if row["rpp"] < 0 else "tie" for row in rows],
            }
        )
        expected = leaderboard(battles, method=method, **options)
        assert found["system"].tolist() == expected["system"].tolist()
        assert np.allclose(found["rating"], expected["rating"], rtol=0, atol=1e-9)
    done = subprocess.run(
        [sys.executable, "-m", "ir_pref_measures", "aggregate", "-P", str(lines), "--method", "bt", "-m", "nosuch"],
        capture_output=True,
        text=True,
        cwd=OUTSIDE,
    )
    assert done.returncode == 2 and "no 'nosuch'" in done.stderr
