"""``ir-pref-measures judge run --judge llm``: the LLM judge through the judge registry and the command line,
against a loopback OpenAI-compatible server, its answers stored in the effort's store in the order shown."""

from __future__ import annotations

import sqlite3

import pytest
from conftest import run_cli
from judging.chat_server import ChatServer
from judging.efforts import make_effort


def test_judge_run_with_the_llm_judge_stores_every_answer_of_both_orders(tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 1\n")
    (tmp_path / "queries.tsv").write_text("q1\twhat is a passage?\n")
    (tmp_path / "docs.tsv").write_text("d1\ta long passage\nd2\tpassage\nd3\tanother passage\n")
    store = str(tmp_path / "effort.sqlite")
    _, err, status = run_cli(["judge", "plan", store, "--selector", "all", "--qrels", str(tmp_path / "qrels.txt")])
    assert status == 0, err
    with ChatServer(lambda messages: "1") as server:  # always the passage shown first
        options = ["model=test-model", f"base_url={server.url}", "api_key=none"]
        options += [f"queries={tmp_path / 'queries.tsv'}", f"documents={tmp_path / 'docs.tsv'}"]
        _, err, status = run_cli(
            ["judge", "run", store, "--judge", "llm", *[a for o in options for a in ("--option", o)]]
        )
    assert status == 0, err
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT first, second, answer, judge, model FROM answers ORDER BY id").fetchall()
    assert len(rows) == 6  # three pairs, each asked in both orders
    assert {answer for _, _, answer, _, _ in rows} == {"first"} and {r[3:] for r in rows} == {("llm", "test-model")}
    assert {(a, b) for a, b, *_ in rows} == {(a, b) for a in ("d1", "d2", "d3") for b in ("d1", "d2", "d3") if a != b}
    out, _, status = run_cli(["judge", "export", store, "--format", "log"])
    assert status == 0 and len(out.splitlines()) == 3 and all(line.endswith(" =") for line in out.splitlines())


def _run_llm(store: str, url: str, *options: str, cache: str | None = None) -> tuple[str, str, int]:
    given = ["model=test-model", f"base_url={url}", *options]
    cached = ["--cache", cache] if cache else []
    return run_cli(["judge", "run", store, "--judge", "llm", *cached, *[a for o in given for a in ("--option", o)]])


def test_a_query_asks_its_next_round_without_waiting_for_a_slow_query(tmp_path):
    """Pipelined queries: while the slow query's first answers take a second, the fast query goes through rounds
    of its own (binary insertion: one question a round)."""
    import time

    store, texts = make_effort(tmp_path, "insertion", {"fast": 6, "slow": 3})

    def answer(messages):
        if "question slow" in messages[-1]["content"]:
            time.sleep(1.0)
        return "1"

    with ChatServer(answer) as server:
        _, err, status = _run_llm(store, server.url, *texts)
    assert status == 0, err
    with sqlite3.connect(store) as db:
        (first_slow,) = db.execute("SELECT MIN(answered_at) FROM answers WHERE query_id = 'slow'").fetchone()
        (fast_rounds,) = db.execute(
            "SELECT COUNT(DISTINCT r.round) FROM answers a JOIN requests r ON r.id = a.request_id "
            "WHERE a.query_id = 'fast' AND a.answered_at < ?",
            (first_slow,),
        ).fetchone()
    assert fast_rounds >= 3


def test_judge_run_keeps_concurrency_requests_in_flight_and_no_more(tmp_path):
    store, texts = make_effort(tmp_path, "all", {"q1": 8, "q2": 8})  # 56 pairs, 112 prompts
    with ChatServer(lambda messages: "2", delay=0.05) as server:
        _, err, status = _run_llm(store, server.url, "concurrency=5", *texts)
    assert status == 0, err
    assert server.peak == 5 and sum(server.asked.values()) == 112


def test_judge_run_and_status_report_prompts_attempts_retries_failures_tokens_and_cost(tmp_path):
    from judging.chat_server import tokens

    store, texts = make_effort(tmp_path, "all", {"q1": 3})  # 3 pairs, 6 prompts
    with ChatServer(
        lambda messages: "Passage 2", faults=lambda messages, asked: "503" if asked == 0 else None
    ) as server:
        out, err, status = _run_llm(store, server.url, "backoff=0", "price_per_1k=1,2", *texts)
        sent = list(server.asked)
    assert status == 0, err
    tokens_in = sum(tokens(dict(key)["user"]) for key in sent)  # the server's count: words of the user message
    cost = (tokens_in * 1 + 6 * 2 * 2) / 1000  # "Passage 2": two words out per prompt
    line = out.splitlines()[-1]
    assert line.startswith(
        "usage: 6 prompts (0 without an answer, 0 from the cache), 12 attempts, 6 retries, failed attempts: HTTP 503 6"
    )
    assert f"tokens {tokens_in} in, 12 out; cost {cost:.6g}" in line
    shown, err, status = run_cli(["judge", "status", store])
    assert status == 0, err
    found = dict(row.split("\t") for row in shown.splitlines())
    assert [found[f"usage {name}"] for name in ("prompts", "attempts", "retries", "tokens in", "tokens out")] == [
        "6", "12", "6", str(tokens_in), "12",
    ]  # fmt: skip
    assert float(found["usage cost"]) == pytest.approx(cost) and found["usage cached"] == "0"


def test_a_second_effort_with_the_answer_cache_sends_nothing_and_exports_the_same(tmp_path):
    cache = str(tmp_path / "cache.sqlite")
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    exports, sent = [], []
    for folder in ("a", "b"):
        store, texts = make_effort(tmp_path / folder, "insertion", {"q1": 5, "q2": 4})
        with ChatServer(lambda messages: "Passage 1" if len(messages[-1]["content"]) % 2 else "2") as server:
            out, err, status = _run_llm(store, server.url, "price_per_1k=1", *texts, cache=cache)
            sent.append(sum(server.asked.values()))
        assert status == 0, err
        exports.append(run_cli(["judge", "export", store, "--format", "log"])[0])
        shown = dict(row.split("\t") for row in run_cli(["judge", "status", store])[0].splitlines())
    assert sent[0] > 0 and sent[1] == 0
    assert exports[0] == exports[1] and exports[0]
    assert f"usage: {sent[0]} prompts (0 without an answer, {sent[0]} from the cache), 0 attempts" in out
    assert out.endswith("tokens 0 in, 0 out; cost 0\n")
    assert (shown["usage cached"], shown["usage prompts"], shown["usage cost"]) == (str(sent[0]), str(sent[0]), "0.0")


@pytest.mark.parametrize(
    "changed",
    ["model=other-model", "temperature=0.5", "max_tokens=5", "preset=Better for {query}? 1: {first} 2: {second}"],
)
def test_a_changed_prompt_model_or_sampling_option_misses_the_cache(tmp_path, changed):
    cache = str(tmp_path / "cache.sqlite")
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    sent = []
    for folder, options in (("a", []), ("b", [changed])):
        store, texts = make_effort(tmp_path / folder, "all", {"q1": 3})
        with ChatServer(lambda messages: "1") as server:
            _, err, status = _run_llm(store, server.url, *texts, *options, cache=cache)
            sent.append(sum(server.asked.values()))
        assert status == 0, err
    assert sent == [6, 6]


def test_the_answer_cache_is_never_a_judging_store(tmp_path):
    store, texts = make_effort(tmp_path, "all", {"q1": 3})
    with ChatServer(lambda messages: "1") as server:
        _, err, status = _run_llm(store, server.url, *texts, cache=store)
    assert status == 2 and "a judging store, not an answer cache" in err and len(err.strip().splitlines()) == 1
