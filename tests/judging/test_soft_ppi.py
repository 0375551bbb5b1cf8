"""Soft preferences feeding prediction-powered inference: an LLM (a loopback OpenAI-compatible server) answers every
pair of an effort in both orders with log-probabilities whose p(first) is known (the true P(a > b) of the pair plus
a position bias of 0.15 for the doc shown first); people judge half the queries in the store, and every query in
another (people who follow the grades, or whose verdicts are drawn from the same P). ``store_ppi_table(...,
soft=DRAWS)`` uses the LLM's soft preferences as its prediction: another interval than the verdicts give, and in a
small Monte Carlo over people's samples the intervals cover the all-people value as often as they should; where
people disagree as the LLM's probabilities say, they are narrower than the verdicts' intervals."""

from __future__ import annotations

import io
import math
import re
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli
from judging.chat_server import ChatServer

from ir_pref_measures import judging
from ir_pref_measures.agreement import align, llm_values
from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import Answer, Pair, SimulatedJudge, Store
from ir_pref_measures.stats import ppi_mean

pytest.importorskip("openai")

QUERIES = [f"q{k:02d}" for k in range(40)]
DOCS = [f"d{i}" for i in range(5)]
BIAS = 0.15  # added to p(first) whichever doc is shown first
MEASURE = "Compatibility"
DRAWS = 100  # draws of the soft values whose intervals are checked
FEW = 6  # draws of the checks of the store's table
SAMPLE = QUERIES[::2]  # the people's queries


def strength(grades: dict[str, float], a: str, b: str) -> float:
    """The LLM's true P(a > b): logistic in the grade difference."""
    return 1.0 / (1.0 + math.exp(-1.5 * (grades[a] - grades[b])))


def logprobs_of(p: float) -> dict:
    """The answer token ``1`` or ``2`` (the likelier) with top candidates "1" (probability ``p``) and "2"."""
    top = [{"token": "1", "logprob": math.log(p)}, {"token": "2", "logprob": math.log(1 - p)}]
    said = top[0] if p >= 0.5 else top[1]
    return {"content": [{**said, "top_logprobs": top}]}


class CalibratedPeople:
    """People whose verdict on a pair is ``a`` with the LLM's true P(a > b) (drawn per pair, seeded by it)."""

    name = "people"

    def __init__(self, grades) -> None:
        self.grades = grades

    def answer(self, pair: Pair) -> str:
        a, b = sorted((pair.first, pair.second))
        a_wins = np.random.default_rng(zlib.crc32(f"{pair.query_id} {a} {b}".encode())).random()
        a_wins = a_wins < strength(self.grades[pair.query_id], a, b)
        return "first" if a_wins == (pair.first == a) else "second"

    def judge(self, pairs) -> list[Answer]:
        return [Answer(pair, self.answer(pair), self.name) for pair in pairs]


def people_of(kind: str, grades):
    """``graded``: people who follow the grades (5% of their verdicts flipped); ``calibrated``: CalibratedPeople."""
    return SimulatedJudge(grades, seed=9, noise=0.05, name="people") if kind == "graded" else CalibratedPeople(grades)


@pytest.fixture(scope="module", params=["graded", "calibrated"])
def effort(tmp_path_factory, request):
    """The effort (every pair of 5 graded docs of 40 queries) judged by the LLM with log-probabilities and by
    people (on ``SAMPLE``), three runs, the grades, a store of people's answers on every query, and the people's
    kind."""
    tmp = tmp_path_factory.mktemp("soft")
    rng = np.random.default_rng(5)
    grades = {q: {d: float(g) for d, g in zip(DOCS, rng.integers(0, 4, len(DOCS)), strict=True)} for q in QUERIES}
    (tmp / "qrels.txt").write_text("".join(f"{q} 0 {d} {int(g)}\n" for q in QUERIES for d, g in grades[q].items()))
    (tmp / "queries.tsv").write_text("".join(f"{q}\ttopic {q}\n" for q in QUERIES))
    (tmp / "docs.tsv").write_text("".join(f"{d}\tpassage {d}\n" for d in DOCS))
    runs = [str(tmp / f"{name}.run") for name in ("good", "fair", "poor")]
    for path, skill in zip(runs, (1.5, 0.5, 0.0), strict=True):  # scores: skill x grade + noise (ranks ignored)
        noise = rng.normal(size=(len(QUERIES), len(DOCS)))
        scores = [(q, d, skill * grades[q][d] + noise[i, j]) for i, q in enumerate(QUERIES) for j, d in enumerate(DOCS)]
        Path(path).write_text("".join(f"{q} Q0 {d} 0 {x:.6f} {Path(path).stem}\n" for q, d, x in scores))
    store = str(tmp / "effort.sqlite")
    judging.plan(store, "all", qrels=str(tmp / "qrels.txt"), seed=0)

    def p_first(messages) -> float:
        text = messages[-1]["content"]
        query = re.search(r"topic (q\d+)", text).group(1)
        first, second = re.findall(r"passage (d\d)", text)
        return min(0.99, strength(grades[query], first, second) + BIAS)

    given = ["model=m", "api_key=none", f"queries={tmp / 'queries.tsv'}", f"documents={tmp / 'docs.tsv'}"]
    with ChatServer(lambda m: "1" if p_first(m) >= 0.5 else "2", logprobs=lambda m, top: logprobs_of(p_first(m))) as s:
        options = [*given, f"base_url={s.url}", "logprobs=2", "concurrency=16"]
        argv = ["judge", "run", store, "--judge", "llm"]
        _, err, status = run_cli(argv + [x for o in options for x in ("--option", o)])
    assert status == 0, err
    people = people_of(request.param, grades)
    with Store(store) as opened:  # people judge the sample's questions, as the web desk stores their answers
        asked = [r for r in opened.requests() if r.pair.query_id in set(SAMPLE)]
        opened.record([(r.id, Answer(r.pair, people.answer(r.pair), "people", assessor="ann")) for r in asked])
    everyone = str(tmp / "people.sqlite")  # people's answers on every pair of every query: the all-people value
    judging.plan(everyone, "all", qrels=str(tmp / "qrels.txt"), seed=0)
    judging.run(everyone, people)
    return store, runs, grades, everyone, request.param


def test_the_soft_preferences_are_the_known_ones(effort):
    store, _, grades, _, _ = effort
    with Store(store) as opened:
        found = judging.soft_preferences(opened, "llm")
        asked = {(r.pair.query_id, r.pair.first, r.pair.second) for r in opened.requests()}
    assert set(found) == asked and len(asked) > 200
    for (q, a, b), p in found.items():  # the position bias cancels where p(first) is not clipped
        p_ab, p_ba = strength(grades[q], a, b) + BIAS, strength(grades[q], b, a) + BIAS
        if max(p_ab, p_ba) <= 0.99:
            assert p == pytest.approx(strength(grades[q], a, b), abs=1e-9)


def _frames(store):
    with Store(store) as opened:
        return judging.judge_frames(opened), judging.soft_preferences(opened, "llm")


def test_certain_preferences_give_the_verdicts_values(effort):
    """With P(a > b) of 0 or 1 as the verdicts say, every draw is the verdicts: the soft values are the hard ones."""
    store, runs, _, _, _ = effort
    frames, _ = _frames(store)
    aligned = align({"llm": frames["llm"]})
    verdicts = frames["llm"]
    certain = {
        (q, a, b): float(pref < 0)
        for q, a, b, pref in verdicts[["query_id", "doc_id_a", "doc_id_b", "preference"]].itertuples(index=False)
        if pref != 0
    }
    assert len(certain) > 100
    soft = judging.soft_values(aligned, certain, runs, MEASURE, llm="llm", draws=3)
    pd.testing.assert_frame_equal(soft, llm_values(aligned, runs, MEASURE, llm="llm"), check_exact=False, atol=1e-12)


def test_a_preference_reads_the_same_either_way_round(effort):
    """P(a > b) given as P(b > a) = 1 - P(a > b) gives the same values; another seed other draws."""
    store, runs, _, _, _ = effort
    frames, preferences = _frames(store)
    aligned = align({"llm": frames["llm"]})
    flipped = {(q, b, a): 1.0 - p for (q, a, b), p in preferences.items()}
    soft = judging.soft_values(aligned, preferences, runs, MEASURE, llm="llm", draws=FEW)
    pd.testing.assert_frame_equal(soft, judging.soft_values(aligned, flipped, runs, MEASURE, llm="llm", draws=FEW))
    other = judging.soft_values(aligned, preferences, runs, MEASURE, llm="llm", draws=FEW, seed=1)
    assert not np.allclose(soft.to_numpy(), other.to_numpy())


def test_soft_intervals_differ_from_the_hard_ones_and_cover(effort):
    store, runs, _, everyone, kind = effort
    frames, preferences = _frames(store)
    aligned = align({"people": frames["people"], "llm": frames["llm"]})
    soft_llm = judging.soft_values(aligned, preferences, runs, MEASURE, llm="llm", draws=DRAWS)
    hard_llm = llm_values(aligned, runs, MEASURE, llm="llm")
    assert soft_llm.index.equals(hard_llm.index) and len(soft_llm) > 30  # every query with a pair asked
    with Store(everyone) as opened:
        people_all = align({"people": judging.judge_frames(opened)["people"]})
    y = llm_values(people_all, runs, MEASURE, llm="people").reindex(soft_llm.index).to_numpy()
    assert np.abs(soft_llm.to_numpy() - hard_llm.to_numpy()).mean() > 0.01  # another prediction

    # the store's table (the effort's seed: 0) with a few draws: PPI++ on those draws' values
    few = judging.soft_values(aligned, preferences, runs, MEASURE, llm="llm", draws=FEW, seed=0)
    table = judging.store_ppi_table(store, runs, MEASURE, soft=FEW)
    verdicts = judging.store_ppi_table(store, runs, MEASURE)
    chosen = np.isin(few.index, SAMPLE)
    assert (table["n"] == chosen.sum()).all() and (table["N"] == (~chosen).sum()).all()
    y_sample = llm_values(aligned, runs, MEASURE, llm="people").reindex(few.index[chosen]).to_numpy()
    expected = ppi_mean(y_sample, few.to_numpy()[chosen], few.to_numpy()[~chosen])
    np.testing.assert_allclose(table["ppi"], expected.estimate, rtol=0, atol=1e-9)
    np.testing.assert_allclose(table["ci low"], expected.lower, rtol=0, atol=1e-9)
    np.testing.assert_allclose(table["llm mean"], few.mean(), rtol=0, atol=1e-9)
    assert not np.allclose(table["ppi"], verdicts["ppi"], atol=1e-4)
    out, err, status = run_cli(["ppi", "--store", store, "--runs", *runs, "--soft", str(FEW), "--format", "csv"])
    assert status == 0, err
    np.testing.assert_allclose(pd.read_csv(io.StringIO(out))["ppi"], table["ppi"], rtol=0, atol=1e-9)

    # coverage of the all-people mean over repeated people's samples of 20 of the 40 queries, and the widths
    rng = np.random.default_rng(11)
    covered, widths = np.zeros(y.shape[1]), np.zeros((2, y.shape[1]))
    repetitions = 400
    for _ in range(repetitions):
        chosen = np.zeros(len(y), dtype=bool)
        chosen[rng.choice(len(y), 20, replace=False)] = True
        for k, yhat in enumerate((soft_llm.to_numpy(), hard_llm.to_numpy())):
            got = ppi_mean(y[chosen], yhat[chosen], yhat[~chosen])
            widths[k] += got.upper - got.lower
            if k == 0:
                covered += (got.lower <= y.mean(axis=0)) & (y.mean(axis=0) <= got.upper)
    assert (covered / repetitions >= 0.9).all(), covered / repetitions
    if kind == "calibrated":  # people disagree where the LLM's probabilities say: the soft prediction is the better
        assert (widths[0] < widths[1]).all(), widths / repetitions


def test_a_store_without_log_probabilities_has_no_soft_preference(tmp_path):
    grades = {q: {d: float(i % 3) for i, d in enumerate(DOCS)} for q in QUERIES[:12]}
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {int(g)}\n" for q in grades for d, g in grades[q].items()))
    store = str(tmp_path / "effort.sqlite")
    judging.plan(store, "all", qrels=str(tmp_path / "qrels.txt"), seed=0)
    judging.run(store, SimulatedJudge(grades, seed=1, noise=0.2, name="gpt"))
    people = SimulatedJudge(grades, seed=9, name="people")
    with Store(store) as opened:
        answered = [r for r in opened.requests() if r.pair.query_id in QUERIES[:10]]
        opened.record([(r.id, Answer(r.pair, people.answer(r.pair), "people")) for r in answered])
    with pytest.raises(InputError, match="the LLM judge 'gpt' has no question with p\\(first\\) in both orders"):
        judging.store_ppi_table(store, [], MEASURE, soft=10)
    _, err, status = run_cli(["ppi", "--store", store, "--runs", "r.run", "--choose", "5", "--soft", "10"])
    assert status == 2 and "--soft gives the interval's prediction, not the draw of --choose" in err
    _, err, status = run_cli(["ppi", "people=a", "llm=b", "--runs", "r.run", "--soft", "10"])
    assert status == 2 and "--soft reads the log-probabilities of a judging store: give --store STORE" in err
