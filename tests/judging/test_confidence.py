"""Confidence from log-probabilities: p(first) read from an OpenAI-compatible endpoint's ``logprobs`` (a loopback
server), stored, combined over both orders into P(a > b) with a tie band, exported as soft preferences; the
position consistency and preference fairness of a judge (Shi et al. 2024) on a simulated judge with a known
position bias."""

from __future__ import annotations

import math

import hypothesis.strategies as st
import numpy as np
import pytest
from conftest import run_cli
from hypothesis import given
from judging.chat_server import ChatServer

from ir_pref_measures.agreement import position_consistency, preference_fairness
from ir_pref_measures.judging import Answer, Pair, SimulatedJudge, Store, preset, soft_outcome, soft_preference, status

pytest.importorskip("openai")

AC = preset("arabzadeh-clarke")


def logprobs_of(p: float, said: str = "1", first_token: str = "") -> dict:
    """A ``logprobs`` object as OpenAI's chat completions return it: an optional token before the answer, then the
    answer token ``said`` with top candidates "1" (probability ``p``) and " 2" (``1 - p``), and a lower one."""
    top = [{"token": "1", "logprob": math.log(p)}, {"token": " 2", "logprob": math.log(1 - p)}]
    top.append({"token": "Passage", "logprob": -30.0})
    content = [{"token": first_token, "logprob": -0.01, "top_logprobs": []}] if first_token else []
    return {
        "content": content + [{"token": said, "logprob": math.log(p if said == "1" else 1 - p), "top_logprobs": top}]
    }


def effort(tmp_path, server: ChatServer, pairs: str, *options: str) -> str:
    (tmp_path / "pairs.txt").write_text(pairs)
    (tmp_path / "queries.tsv").write_text("q\twhat is it?\n")
    (tmp_path / "docs.tsv").write_text("a\tpassage a\nb\tpassage b\nc\tpassage c\n")
    store = str(tmp_path / "effort.sqlite")
    _, err, status = run_cli(["judge", "plan", store, "--selector", "list", "--pairs", str(tmp_path / "pairs.txt")])
    assert status == 0, err
    given = ["model=m", f"base_url={server.url}", "api_key=none", f"queries={tmp_path / 'queries.tsv'}"]
    given += [f"documents={tmp_path / 'docs.tsv'}", *options]
    _, err, status = run_cli(["judge", "run", store, "--judge", "llm", *[x for o in given for x in ("--option", o)]])
    assert status == 0, err
    return store


def shown_first(messages) -> str:
    return messages[-1]["content"].split("Passage 1:\npassage ")[1][0]


def test_p_07_and_06_give_055_a_tie_in_a_band_of_01(tmp_path):
    """p = 0.7 for (a, b) and 0.6 for (b, a): P(a > b) = 0.55, a tie with band 0.1 and a preference of a with
    0.05; without logprobs asked nothing is stored and the soft format has nothing to write."""
    asked = []

    def logprobs(messages, top):
        asked.append(top)
        return logprobs_of({"a": 0.7, "b": 0.6}[shown_first(messages)])

    with ChatServer(lambda messages: "1", logprobs=logprobs) as server:
        store = effort(tmp_path, server, "q a b\n", "logprobs=5")
    assert asked == [5, 5]
    out, _, status = run_cli(["judge", "export", store, "--format", "soft"])
    assert status == 0 and out == "q a b 0.550000\n"
    out, _, _ = run_cli(["judge", "export", store, "--format", "carterette", "--tie-band", "0.1"])
    assert out == "q a b 0\n"
    out, _, _ = run_cli(["judge", "export", store, "--format", "carterette", "--tie-band", "0.05"])
    assert out == "q a b -1\n"
    out, _, _ = run_cli(["judge", "export", store, "--format", "carterette"])
    assert out == "q a b 0\n"  # the rule: both orders said "1", they disagree
    out, _, _ = run_cli(["judge", "status", store])
    assert "position consistency\t0.0" in out and "preference fairness\t-1.0" in out
    (tmp_path / "off").mkdir()
    with ChatServer(lambda messages: "1", logprobs=logprobs) as server:
        store = effort(tmp_path / "off", server, "q a b\n")
    assert len(asked) == 2  # not asked
    out, err, status = run_cli(["judge", "export", store, "--format", "soft"])
    assert status == 0 and out == ""


@pytest.mark.parametrize(
    ("logprobs", "expected"),
    [
        (logprobs_of(0.7), 0.7),
        (logprobs_of(0.25, said=" 2", first_token="The answer is"), 0.25),
        ({"content": [{"token": "1", "logprob": 0.0}]}, 1.0),  # no top candidates: the token itself
        ({"content": [{"token": "None", "logprob": -0.1, "top_logprobs": []}]}, None),  # no answer token
        (None, None),
        ({"content": "garbage"}, None),
    ],
)
def test_p_first_of_an_answer(tmp_path, logprobs, expected):
    with ChatServer(lambda messages: "2", logprobs=lambda messages, top: logprobs) as server:
        store = effort(tmp_path, server, "q a b\n", "logprobs=2")
    with Store(store) as opened:
        found = [row.answer.p_first for row in opened.answers()]
    assert found == [expected, expected] if expected is None else found == pytest.approx([expected, expected])


@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_soft_preference_is_the_mean_of_both_orders_and_the_band_is_symmetric(p_ab, p_ba, band):
    assert soft_preference(p_ab, p_ba) == pytest.approx(1 - soft_preference(p_ba, p_ab))
    assert (
        soft_outcome(p_ab, p_ba, band)
        == {"first": "second", "second": "first", "tie": "tie"}[soft_outcome(p_ba, p_ab, band)]
    )
    assert (soft_outcome(p_ab, p_ba, band) == "tie") == (abs(p_ab - p_ba) <= band + 1e-9)


def test_position_consistency_of_a_judge_with_position_bias_02():
    """50,000 pairs of unequal grades, no noise, no ties, position bias 0.2: PC = 0.800 +/- 0.005 (and PF,
    every inconsistency choosing the doc shown first, -0.2)."""
    rng = np.random.default_rng(3)
    grades = {str(q): {f"d{k}": float(g) for k, g in enumerate(rng.permutation(100))} for q in range(500)}
    every = [(i, j) for i in range(100) for j in range(i + 1, 100)]
    pairs = []
    for q in grades:  # 100 distinct pairs a query, each shown either way
        for k in rng.choice(len(every), size=100, replace=False):
            i, j = every[k] if rng.random() < 0.5 else every[k][::-1]
            pairs.append(Pair(q, f"d{i}", f"d{j}"))
    assert len(pairs) == 50_000 and all(grades[p.query_id][p.first] != grades[p.query_id][p.second] for p in pairs)
    judge = SimulatedJudge(grades, seed=1, position_bias=0.2)
    answers = judge.judge(pairs + [p.swapped() for p in pairs])
    shown = [(a.pair.query_id, a.pair.first, a.pair.second, a.answer) for a in answers]
    assert position_consistency(shown) == pytest.approx(0.8, abs=0.005)
    assert preference_fairness(shown) == pytest.approx(-0.2, abs=0.005)


def test_a_fair_and_a_recency_judge():
    both = [("q", "a", "b", "first"), ("q", "b", "a", "second")]  # a both times: consistent
    recency = [("q", "a", "b", "second"), ("q", "b", "a", "second"), ("q", "c", "d", "tie"), ("q", "d", "c", "tie")]
    assert position_consistency(both) == 1.0 and preference_fairness(both) == 0.0
    assert position_consistency(recency) == 0.5 and preference_fairness(recency) == 0.5
    assert math.isnan(position_consistency([("q", "a", "b", "first")]))  # one order only: no instance


def test_status_scores_each_judge_on_the_answers_it_gave(tmp_path):
    """An LLM that always picks the doc shown first (PC 0, PF -1) and people who never do (PC 1, PF 0) in one store:
    each judge scored on its own answers; a prompt that never reached the LLM (a text missing, the request
    refused) is no instance of it."""
    pairs = [Pair("q", "a", "b"), Pair("q", "b", "a"), Pair("q", "c", "d"), Pair("q", "d", "c")]
    path = str(tmp_path / "both.sqlite")
    with Store(path) as store:
        asked = store.ask(pairs, 0, "llm")
        llm = [Answer(r.pair, "first", "llm") for r in asked[:2]]
        llm += [Answer(asked[2].pair, "unusable", "llm", failure="text")]
        llm += [Answer(asked[3].pair, "unusable", "llm", failure="request")]
        people = [Answer(r.pair, "first" if r.pair.first in "ac" else "second", "people") for r in asked]
        store.record([(r.id, a) for r, a in zip(asked + asked, llm + people, strict=True)])
    found = status(path)
    assert found["position consistency (llm)"] == 0.0 and found["preference fairness (llm)"] == -1.0
    assert found["position consistency (people)"] == 1.0 and found["preference fairness (people)"] == 0.0
    assert "position consistency" not in found
