"""``ir-pref-measures judge run --judge llm``: the LLM judge through the judge registry and the command line,
against a loopback OpenAI-compatible server, its answers stored in the effort's store in the order shown."""

from __future__ import annotations

import sqlite3

from conftest import run_cli
from judging.chat_server import ChatServer


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


def _effort(tmp_path, selector: str, docs: dict[str, int]) -> tuple[str, list[str]]:
    """An effort of ``selector`` over ``docs`` graded docs per query; the texts' options of the LLM judge."""
    with open(tmp_path / "qrels.txt", "w") as qrels, open(tmp_path / "docs.tsv", "w") as texts:
        for q, n in docs.items():
            qrels.writelines(f"{q} 0 {q}d{d} {1 + d % 3}\n" for d in range(n))
            texts.writelines(f"{q}d{d}\tpassage {d} of {q}\n" for d in range(n))
    (tmp_path / "queries.tsv").write_text("".join(f"{q}\tquestion {q}\n" for q in docs))
    store = str(tmp_path / "effort.sqlite")
    _, err, status = run_cli(["judge", "plan", store, "--selector", selector, "--qrels", str(tmp_path / "qrels.txt")])
    assert status == 0, err
    return store, [f"queries={tmp_path / 'queries.tsv'}", f"documents={tmp_path / 'docs.tsv'}"]


def _run_llm(store: str, url: str, *options: str) -> tuple[str, str, int]:
    given = ["model=test-model", f"base_url={url}", *options]
    return run_cli(["judge", "run", store, "--judge", "llm", *[a for o in given for a in ("--option", o)]])


def test_a_query_asks_its_next_round_without_waiting_for_a_slow_query(tmp_path):
    """Pipelined queries: while the slow query's first answers take a second, the fast query goes through rounds
    of its own (binary insertion: one question a round)."""
    import time

    store, texts = _effort(tmp_path, "insertion", {"fast": 6, "slow": 3})

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
    store, texts = _effort(tmp_path, "all", {"q1": 8, "q2": 8})  # 56 pairs, 112 prompts
    with ChatServer(lambda messages: "2", delay=0.05) as server:
        _, err, status = _run_llm(store, server.url, "concurrency=5", *texts)
    assert status == 0, err
    assert server.peak == 5 and sum(server.asked.values()) == 112
