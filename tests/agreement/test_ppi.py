"""Prediction-powered evaluation of runs from aligned people's and LLM judgments: the inputs, the table, the checks
of the people's sample, and on DL 2021 (people vs GPT-4o) narrower intervals that cover the all-people value."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ir_pref_measures.agreement import align
from ir_pref_measures.agreement.ppi import ppi_table, ppi_values, subsample_experiment
from ir_pref_measures.errors import InputError
from ir_pref_measures.stats import ppi_mean

QUERIES = [f"q{k:02d}" for k in range(30)]


def _judges(rng, people_queries):
    """Graded truth per query over 6 docs; people label every pair by it, the LLM flips a quarter of them."""
    rows = []
    for q in QUERIES:
        grades = rng.integers(0, 4, 6)
        for i in range(6):
            for j in range(i + 1, 6):
                label = int(np.sign(grades[i] - grades[j]))
                if label:
                    llm = -label if rng.random() < 0.25 else label
                    rows.append((q, f"d{i}", f"d{j}", -label, -llm))
    table = pd.DataFrame(rows, columns=["query_id", "doc_id_a", "doc_id_b", "people", "llm"])
    people = table[table["query_id"].isin(people_queries)].rename(columns={"people": "preference"})
    return {
        "people": people.drop(columns="llm"),
        "llm": table.drop(columns="people").rename(columns={"llm": "preference"}),
    }


def _runs(rng):
    return {
        name: pd.DataFrame(
            {"query_id": np.repeat(QUERIES, 6), "doc_id": [f"d{i}" for i in range(6)] * 30, "score": rng.random(180)}
        )
        for name in ("A", "B", "C")
    }


def test_values_and_table():
    rng = np.random.default_rng(0)
    aligned = align(_judges(rng, QUERIES[:12]))
    values = ppi_values(aligned, _runs(rng), "ppref@5", people="people", llm="llm")
    assert list(values.sample) == QUERIES[:12] and list(values.unlabelled) == QUERIES[12:]
    y, yhat, yhat_u = values.arrays()
    assert y.shape == (12, 3) and yhat_u.shape == (18, 3)
    table = ppi_table(values, pairs=True)
    assert table["run"].tolist() == ["A", "B", "C", "A - B", "A - C", "B - C"]
    direct = ppi_mean(y[:, 0] - y[:, 2], yhat[:, 0] - yhat[:, 2], yhat_u[:, 0] - yhat_u[:, 2])
    row = table.set_index("run").loc["A - C"]
    assert row["ppi"] == pytest.approx(direct.estimate[0], abs=1e-12)
    assert row["ci low"] == pytest.approx(direct.lower[0], abs=1e-12)
    assert row["people mean"] == pytest.approx(y[:, 0].mean() - y[:, 2].mean(), abs=1e-12)


def test_the_people_sample_is_checked():
    rng = np.random.default_rng(1)
    judges = _judges(rng, QUERIES[:12])
    runs = _runs(rng)
    aligned = align(judges)
    with pytest.raises(InputError, match="too few"):
        ppi_values(aligned, runs, "ppref@5", people="people", llm="llm", sample=QUERIES[:5])
    with pytest.raises(
        InputError, match="the sample of people-judged queries holds 5 queries"
    ):  # not "people judged 5"
        ppi_values(aligned, runs, "ppref@5", people="people", llm="llm", sample=QUERIES[:5])
    with pytest.raises(InputError, match="people did not judge"):
        ppi_values(aligned, runs, "ppref@5", people="people", llm="llm", sample=QUERIES[10:20])
    with pytest.raises(InputError, match="not among the aligned judges"):
        ppi_values(aligned, runs, "ppref@5", people="crowd", llm="llm")
    llm_part = judges["llm"][judges["llm"]["query_id"].isin(QUERIES[5:])]
    with pytest.raises(InputError, match="not a subset of the LLM-judged queries"):
        ppi_values(align({"people": judges["people"], "llm": llm_part}), runs, "ppref@5", people="people", llm="llm")
    everything = _judges(rng, QUERIES)
    with pytest.raises(InputError, match="judged by the LLM alone"):
        ppi_values(align(everything), runs, "ppref@5", people="people", llm="llm")


def test_dl2021_people_and_gpt4o(data):
    """DL 2021: people's preferences (Yan et al.) and GPT-4o's on the same pairs. On a seeded sample of 20 queries
    as the people's, every run's PPI++ interval of Compatibility is narrower than the people-only one; over 100
    repeated samples the 95% intervals cover the all-people value at least at the nominal rate."""
    people = data("dueling_bandits_dl2021", "judgments.txt")
    gpt4o = data("dl_llm_prefs_arabzadeh", "llm_pref_judgments", "DL2021", "judge.human")
    runs = [data("dl_llm_prefs_arabzadeh", "runs", f"input.{r}.txt.gz") for r in ("p_bm25", "uogTrPot5", "NLE_P_v1")]
    aligned = align({"people": str(people), "gpt4o": f"log:{gpt4o}"})
    both = sorted(set(aligned.query_ids[aligned.query[aligned.labels[:, 1] != -128]].astype(str)))
    sample = np.random.default_rng(21).choice(both, 20, replace=False)
    runs = [str(r) for r in runs]
    table = ppi_table(ppi_values(aligned, runs, "Compatibility", people="people", llm="gpt4o", sample=sample))
    assert len(table) == 3
    assert ((table["ci high"] - table["ci low"]) < (table["people ci high"] - table["people ci low"])).all()
    experiment = subsample_experiment(
        aligned, runs, "Compatibility", people="people", llm="gpt4o", size=20, repetitions=100, seed=5
    )
    assert (experiment["coverage"] >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / 100)).all()
    assert (experiment["width"] < experiment["people width"]).all()


def test_dl2021_active_choice_keeps_coverage(data, on_real_data):
    """DL 2021, 100 samples of about 20 of the 46 queries drawn proportional to GPT-4o's uncertainty: the active
    (inverse-probability weighted) intervals of Compatibility cover the all-people value at the nominal 95% within
    3 standard errors, draws average about 20 queries, and the intervals stay narrower than people's alone in most
    draws on the real data. (Their widths against uniform draws: benchmarks/active_ppi_dl2021.py.)"""
    people = data("dueling_bandits_dl2021", "judgments.txt")
    gpt4o = data("dl_llm_prefs_arabzadeh", "llm_pref_judgments", "DL2021", "judge.human")
    runs = [str(data("dl_llm_prefs_arabzadeh", "runs", f"input.{r}.txt.gz")) for r in ("p_bm25", "uogTrPot5")]
    aligned = align({"people": str(people), "gpt4o": f"log:{gpt4o}"})
    table = subsample_experiment(
        aligned, runs, "Compatibility", people="people", llm="gpt4o", size=20, repetitions=100, seed=2,
        rule="uncertainty",
    )  # fmt: skip
    assert (table["coverage"] >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / 100)).all()
    assert abs(table["size"].iloc[0] - 20) < 1.5
    if on_real_data:  # the stand-ins' few queries say nothing about widths
        assert (table["narrower"] > 0.8).all()


def test_dl2021_stratified_choice_keeps_coverage_and_narrows(data, on_real_data):
    """DL 2021, 200 fixed-size samples of 20 of the 46 queries, 10 from each half by the number of pairs GPT-4o
    judged: the stratified intervals of ppref@10 cover the all-people value at the nominal 95% within 3 standard
    errors and, on the real data, are narrower on average than those of uniform samples of 20 (the full study:
    benchmarks/active_ppi_dl2021.py)."""
    people = data("dueling_bandits_dl2021", "judgments.txt")
    gpt4o = data("dl_llm_prefs_arabzadeh", "llm_pref_judgments", "DL2021", "judge.human")
    runs = [str(data("dl_llm_prefs_arabzadeh", "runs", f"input.{r}.txt.gz")) for r in ("p_bm25", "NLE_P_v1")]
    aligned = align({"people": str(people), "gpt4o": f"log:{gpt4o}"})
    tables = {
        rule: subsample_experiment(
            aligned, runs, "ppref@10", people="people", llm="gpt4o", size=20, repetitions=200, seed=3, rule=rule
        )
        for rule in ("uniform", "stratified")
    }
    assert (tables["stratified"]["coverage"] >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / 200)).all()
    assert "size" not in tables["stratified"]  # a fixed size: nothing to average
    if on_real_data:
        assert (tables["stratified"]["width"] < tables["uniform"]["width"]).all()


def test_the_stratified_rule_needs_room_in_every_stratum():
    rng = np.random.default_rng(2)
    aligned = align(_judges(rng, QUERIES))
    runs = _runs(rng)
    with pytest.raises(InputError, match="at least 2 labelled units and one unlabelled unit in every stratum"):
        subsample_experiment(aligned, runs, "ppref@5", people="people", llm="llm", size=10, rule="stratified", strata=6)
    with pytest.raises(InputError, match="uniform, uncertainty, stratified"):
        subsample_experiment(aligned, runs, "ppref@5", people="people", llm="llm", size=10, rule="neyman")
