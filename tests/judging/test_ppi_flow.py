"""The flow of docs/ppi.md end to end on a real SQLite store: plan an effort, an LLM (a simulated judge, 30% of its
answers flipped) judges every pair, ``ppi --store --choose`` draws the queries for people, people answer them the
way the web desk writes answers (judge ``people``, an assessor, through the store's API), and ``ppi --store``
prints each run's and pair's interval with its effective sample size; plus the checks on the way."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from ir_pref_measures import judging, stats
from ir_pref_measures.agreement import align, llm_pair_counts, llm_values, ppi_values
from ir_pref_measures.commands import main
from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import Answer, SimulatedJudge, Store

QUERIES = [f"q{k:02d}" for k in range(40)]
DOCS = [f"d{i}" for i in range(6)]


@pytest.fixture
def effort(tmp_path):
    """A planned effort (every pair of 6 graded docs of 40 queries), three runs, and the graded truth."""
    rng = np.random.default_rng(3)
    grades = {q: {d: float(g) for d, g in zip(DOCS, rng.integers(0, 4, len(DOCS)), strict=True)} for q in QUERIES}
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {int(g)}\n" for q in QUERIES for d, g in grades[q].items()))
    runs = []
    for name, skill in (("good", 1.5), ("fair", 0.5), ("poor", 0.0)):
        lines = []
        for q in QUERIES:
            score = {d: skill * grades[q][d] + rng.normal() for d in DOCS}
            ranked = sorted(DOCS, key=lambda d: -score[d])
            lines += [f"{q} Q0 {d} {r + 1} {len(DOCS) - r} {name}\n" for r, d in enumerate(ranked)]
        path = tmp_path / f"{name}.run"
        path.write_text("".join(lines))
        runs.append(str(path))
    store = str(tmp_path / "effort.db")
    judging.plan(store, "all", qrels=str(qrels), seed=0)
    return store, runs, grades


def _people_answer(store_path: str, grades, queries) -> None:
    """People judge every question of ``queries``, as the web desk stores their answers."""
    people = SimulatedJudge(grades, seed=9, noise=0.05, name="people")
    with Store(store_path) as store:
        rows = [
            (r.id, Answer(r.pair, people.answer(r.pair), "people", assessor="ann"))
            for r in store.requests()
            if r.pair.query_id in set(queries)
        ]
        store.record(rows)


def _table(capsys, argv) -> pd.DataFrame:
    capsys.readouterr()
    assert main(argv) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


@pytest.mark.parametrize("rule", ["uncertainty", "uniform", "stratified"])
def test_the_documented_flow(effort, capsys, rule):
    store, runs, grades = effort
    judging.run(store, SimulatedJudge(grades, seed=1, noise=0.3, name="gpt"))  # the LLM judges every pair
    chosen = _table(
        capsys, ["ppi", "--store", store, "--runs", *runs, "--choose", "16", "--rule", rule, "--format", "csv"]
    )
    assert list(chosen.columns) == ["query_id", "probability"]
    assert 10 <= len(chosen) < len(QUERIES) and chosen["probability"].between(0, 1).all()
    _people_answer(store, grades, chosen["query_id"].astype(str))
    argv = ["ppi", "--store", store, "--runs", *runs, "-m", "Compatibility", "--pairs", "--format", "csv"]
    table = _table(capsys, argv)
    assert table["run"].tolist() == ["fair", "good", "poor", "fair - good", "fair - poor", "good - poor"]
    assert (table["n"] == len(chosen)).all() and (table["N"] == len(QUERIES) - len(chosen)).all()
    assert ((table["ci low"] < table["ppi"]) & (table["ppi"] < table["ci high"])).all()
    assert (table["effective n"] > 0).all()
    # the all-people value: people's judgments of every query (not given to the interval)
    _people_answer(store, grades, QUERIES)
    with pytest.warns(UserWarning, match=f"people's answers on {len(QUERIES) - len(chosen)} queries outside"):
        again = judging.store_ppi_table(store, runs, "Compatibility")
    np.testing.assert_allclose(again["ppi"], table["ppi"].iloc[:3], rtol=0, atol=1e-9)
    with Store(store) as opened:
        frames = judging.judge_frames(opened)
    truth = llm_values(align({"people": frames["people"]}), runs, "Compatibility", llm="people").mean().to_numpy()
    assert ((again["ci low"] < truth) & (truth < again["ci high"])).all()


def test_without_a_draw_the_people_queries_are_taken_as_uniform(effort, capsys):
    store, runs, grades = effort
    judging.run(store, SimulatedJudge(grades, seed=1, noise=0.3, name="gpt"))
    _people_answer(store, grades, QUERIES[::3])
    table = _table(capsys, ["ppi", "--store", store, "--runs", *runs, "--format", "csv"])
    assert (table["n"] == len(QUERIES[::3])).all()
    with Store(store) as opened:
        frames = judging.judge_frames(opened)
    assert set(frames) == {"gpt", "people"}
    assert set(frames["people"]["query_id"]) == set(QUERIES[::3])


def test_the_checks_on_the_way(effort, capsys):
    store, runs, grades = effort
    assert main(["ppi", "--store", store, "--runs", *runs]) == 2  # nothing judged yet
    assert "name the LLM judge of the store (judges besides 'people': none)" in capsys.readouterr().err
    judging.run(store, SimulatedJudge(grades, seed=1, noise=0.3, name="gpt"))
    with pytest.raises(InputError, match="no answer of the people's judge 'people' yet"):
        judging.store_ppi_table(store, runs, "Compatibility")
    chosen, _ = judging.choose_for_people(store, runs, "Compatibility", 12, seed=4)
    _people_answer(store, grades, list(chosen)[:-1])
    with pytest.raises(InputError, match="people have not judged 1 of the"):
        judging.store_ppi_table(store, runs, "Compatibility")
    with pytest.raises(InputError, match="the store was made with other settings"):
        judging.choose_for_people(store, runs, "Compatibility", 12, seed=5)
    assert main(["ppi", "people=x", "--store", store, "--runs", *runs]) == 2
    assert "--store takes --runs and no NAME=SOURCE judges" in capsys.readouterr().err
    assert main(["ppi", "--store", store, "--runs", *runs, "--width", "0.1", "--sample-size", "12"]) == 2
    assert "--sample-size, --width: options of NAME=SOURCE judges, not of --store" in capsys.readouterr().err
    assert main(["ppi", "people=a", "llm=b", "--runs", *runs, "--choose", "10"]) == 2
    assert "read a judging store: give --store STORE" in capsys.readouterr().err


def test_a_stratified_draw_is_estimated_by_stratified_ppi(effort):
    """``choose_for_people(rule="stratified")`` draws exactly K queries, each stratum (by the number of pairs the
    LLM judged) its proportional share, and the store's interval is stratified PPI on those strata."""
    store, runs, grades = effort
    judging.run(store, SimulatedJudge(grades, seed=1, noise=0.3, name="gpt"))
    chosen, probabilities = judging.choose_for_people(store, runs, "Compatibility", 16, rule="stratified", seed=3)
    with Store(store) as opened:
        frames = judging.judge_frames(opened)
    pairs = llm_pair_counts(align({"gpt": frames["gpt"]}), "gpt", QUERIES)
    strata = pd.Series(stats.score_strata(pairs.to_numpy(), 2), index=pairs.index)
    assert strata.loc[chosen].value_counts().sort_index().tolist() == [8, 8]  # 16 over two strata of 20
    np.testing.assert_allclose(probabilities.loc[QUERIES], 0.4, rtol=0, atol=1e-12)
    _people_answer(store, grades, chosen)
    table = judging.store_ppi_table(store, runs, "Compatibility")
    with Store(store) as opened:
        frames = judging.judge_frames(opened)
    values = ppi_values(align(frames), runs, "Compatibility", people="people", llm="gpt", sample=chosen)
    y, yhat, yhat_u = values.arrays()
    of = strata.loc[values.llm.index].to_numpy()
    direct = stats.stratified_ppi_mean(y, yhat, yhat_u, of[: len(y)], of[len(y) :])
    np.testing.assert_allclose(table["ppi"], direct.estimate, rtol=0, atol=1e-12)
    np.testing.assert_allclose(table["ci low"], direct.lower, rtol=0, atol=1e-12)
    with pytest.raises(InputError, match="a whole number of queries"):
        judging.choose_for_people(store, runs, "Compatibility", 16.5, rule="stratified")
