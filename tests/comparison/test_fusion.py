"""Aggregation: MC4 (as pref_aggregate, and converged), Borda, win rate, mean; the aggregate API and command."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ir_pref_measures import compare
from ir_pref_measures.commands import main
from ir_pref_measures.comparison.fusion import (
    above_in_scores,
    aggregate,
    borda,
    borda_with_ties,
    majority_losses,
    mc4,
    order_runs,
    win_rate,
)
from ir_pref_measures.errors import InputError


def tool_mc4(orderings: np.ndarray, iterations: int = 10) -> np.ndarray:
    """MC4 in floats, step by step as specs §7 describes pref_aggregate's loop."""
    n = orderings.shape[1]
    place = {(q, r): t for q, row in enumerate(orderings) for t, r in enumerate(row)}
    margin = np.zeros((n, n))
    for q in range(len(orderings)):
        for a in range(n):
            for b in range(n):
                margin[a, b] += (place[q, a] < place[q, b]) - (place[q, a] > place[q, b])
    chain = np.where(margin < 0, 1.0 / n, 0.0)
    np.fill_diagonal(chain, 1.0 - (margin < 0).sum(axis=1) / n)
    e = np.ones(n)
    for _ in range(iterations):
        e = np.array([sum(e[a] * chain[a, b] for a in range(n)) for b in range(n)])
    return e


@pytest.mark.parametrize("seed", range(5))
def test_mc4_matches_the_tool_loop(seed):
    rng = np.random.default_rng(seed)
    orderings = np.array([rng.permutation(6) for _ in range(9)])
    np.testing.assert_allclose(mc4(orderings), tool_mc4(orderings), rtol=1e-12)


def test_converged_mc4_is_the_damped_stationary_distribution():
    orderings = np.array([[0, 1, 2, 3], [0, 2, 1, 3], [1, 0, 2, 3]])  # 0 beats all by majority, 3 loses all
    pi = mc4(orderings, iterations=None, damping=0.15)
    loses = majority_losses(orderings)
    chain = loses / 4.0
    np.fill_diagonal(chain, 1 - loses.sum(axis=1) / 4.0)
    chain = 0.85 * chain + 0.15 / 4
    np.testing.assert_allclose(pi @ chain, pi, atol=1e-15)
    assert pi.sum() == pytest.approx(1.0) and (pi > 0).all()
    assert list(order_runs(pi[None, :], ["a", "b", "c", "d"])[0]) == [0, 1, 2, 3]
    assert mc4(orderings)[3] == 0.25**10  # ten undamped steps: the loser of every majority decays towards 0


def test_borda_and_win_rate_and_name_ties():
    orderings = np.array([[0, 1, 2], [1, 0, 2]])
    assert borda(orderings).tolist() == [5, 5, 2]
    assert order_runs(np.array([[5.0, 5.0, 2.0]]), ["a", "b", "c"])[0].tolist() == [1, 0, 2]  # tie: larger id
    run_i, run_j = np.array([0, 0, 1]), np.array([1, 2, 2])
    assert win_rate(run_i, run_j, np.array([1.0, 0.0, -0.5]), 3).tolist() == [0.75, 0.0, 0.75]


def test_aggregate_api_orders_runs_and_ignores_run_order():
    rng = np.random.default_rng(3)
    qrels = pd.DataFrame(
        {"query_id": np.repeat(["q1", "q2", "q3"], 5), "doc_id": [f"d{k}" for k in range(15)], "relevance": 1}
    )
    runs = {}
    for strength, name in enumerate(["weak", "mid", "strong"]):
        scores = rng.normal(size=15) + strength * np.where(np.arange(15) % 2 == 0, 3.0, 0.0)
        runs[name] = pd.DataFrame(
            {"query_id": qrels.query_id, "doc_id": [f"d{k // 5 * 5 + (k + 2) % 5}" for k in range(15)], "score": scores}
        )
    table = compare(runs, qrels, measures=["rpp", "ap"], perquery=True)
    result = aggregate(table)
    assert set(result.method) == {"mc4", "borda", "win_rate", "mean"}
    reversed_table = compare(dict(reversed(runs.items())), qrels, measures=["rpp", "ap"], perquery=True)
    again = aggregate(reversed_table)
    pd.testing.assert_frame_equal(result[["measure", "method", "run"]], again[["measure", "method", "run"]])
    with pytest.raises(InputError, match="perquery=True"):
        aggregate(compare(runs, qrels, measures=["rpp"]))


def test_aggregate_command_without_metric_lines_still_orders(tmp_path, capsys):
    """pref_aggregate prints nothing for a file without metric lines (specs §8.4); we aggregate."""
    lines = [
        {"qid": "1", "runi": "a", "runj": "b", "sample": 0, "type": "preference", "rpp": 0.5},
        {"qid": "2", "runi": "a", "runj": "b", "sample": 0, "type": "preference", "rpp": -0.25},
        {"qid": "all", "runi": "a", "runj": "b", "sample": 0, "rpp": 0.125},
    ]
    path = tmp_path / "prefs.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n")
    assert main(["aggregate", "-P", str(path), "-q"]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert out == [
        {"qid": "1", "sample": 0, "rpp": ["a", "b"]},
        {"qid": "2", "sample": 0, "rpp": ["b", "a"]},
        {"qid": "all", "sample": 0, "rpp": {"type": "preference", "mc4": ["b", "a"], "borda": ["b", "a"]}},
    ]


def test_aggregate_command_rejects_bad_lines(tmp_path, capsys):
    path = tmp_path / "prefs.jsonl"
    path.write_text('{"qid": "1", "runi": "a", "runj": "b", "type": "preference", "rpp": 1}\nnot json\n')
    assert main(["aggregate", "-P", str(path)]) == 2
    assert "prefs.jsonl:2" in capsys.readouterr().err


def test_borda_with_ties_is_the_mean_of_the_places_and_borda_without_ties():
    rng = np.random.default_rng(5)
    scores = rng.normal(size=(6, 4))
    orderings = np.argsort(-scores, axis=1, kind="stable")
    assert borda_with_ties(scores).tolist() == borda(orderings).astype(float).tolist()
    tied = np.array([[1.0, 1.0, 1.0, 0.0]])  # three runs share places 1-3: (4 + 3 + 2) / 3 points each
    assert borda_with_ties(tied).tolist() == [3.0, 3.0, 3.0, 1.0]
    assert (above_in_scores(tied) == above_in_scores(tied).T).sum() == 4 * 4 - 3 * 2  # a tie is neither above


def _three_way_tie_table(names: list[str]) -> pd.DataFrame:
    """Per query, the first two runs of ``names`` beat the third by 1, and tie with each other; in a third query
    all three tie."""
    a, b, c = names
    rows = []
    for query in ("q1", "q2"):
        rows += [(query, a, b, 0.0), (query, a, c, 1.0), (query, b, c, 1.0)]
    rows += [("q3", a, b, 0.0), ("q3", a, c, 0.0), ("q3", b, c, 0.0)]
    return pd.DataFrame(rows, columns=["query_id", "run_i", "run_j", "rpp"])


@pytest.mark.parametrize("rename", [{}, {"BERT2": "zBERT2"}, {"BERT2": "aBERT2", "CKNRM": "zCKNRM"}])
def test_aggregate_keeps_ties_whatever_the_names(rename):
    """Renaming a run changes no score and no place: tied runs share their place (the library's rule), where
    pref_aggregate breaks ties by the larger run id."""
    names = ["BERT2", "CKNRM", "BM25"]
    base = aggregate(_three_way_tie_table(names))
    renamed = aggregate(_three_way_tie_table([rename.get(n, n) for n in names]))
    back = {v: k for k, v in rename.items()}
    renamed["run"] = renamed["run"].map(lambda r: back.get(r, r))
    key = ["measure", "method", "run"]
    pd.testing.assert_frame_equal(
        base.sort_values(key).reset_index(drop=True), renamed.sort_values(key).reset_index(drop=True)
    )
    for method in ("mc4", "borda", "win_rate", "mean"):
        places = base[base.method == method].set_index("run")["place"]
        assert places["BERT2"] == places["CKNRM"] == 1 and places["BM25"] == 3, method
