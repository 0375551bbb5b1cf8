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
