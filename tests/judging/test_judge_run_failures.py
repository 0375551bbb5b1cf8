"""``judge run`` when things go wrong: an endpoint that cannot be reached or refuses stops the run in one line
(exit 1); a prompt without a reply is no answer and is asked again by a resumed run; Ctrl-C stops in one line
(exit 130); answers are stored as they arrive, so SIGINT or SIGKILL at any moment loses none of them. Real
loopback servers (tests/judging/chat_server.py), the real ``openai`` client, the command in a process of its own
where a signal is sent."""

from __future__ import annotations

import hashlib
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import run_cli
from judging.chat_server import ChatServer

from ir_pref_measures.judging import Answer, Pair, Store
from ir_pref_measures.judging.database import Database

pytest.importorskip("openai")

KEY = "sk-secret-4242"


def said(messages) -> str:
    """The server's answer to a prompt: a fixed function of its text (a run and its resumption agree)."""
    return "12"[hashlib.sha256(messages[-1]["content"].encode()).digest()[0] % 2]


def effort(tmp_path, name: str = "effort.sqlite", queries: int = 2, docs: int = 4) -> tuple[str, list[str]]:
    """An effort of ``all`` pairs over ``queries`` x ``docs`` docs, and the ``--option`` arguments of its texts."""
    rng = np.random.default_rng(queries * 100 + docs)
    qrels = tmp_path / "qrels.txt"
    if not qrels.exists():
        lines = [f"q{q} 0 d{q}_{d} {rng.integers(1, 4)}\n" for q in range(queries) for d in range(docs)]
        qrels.write_text("".join(lines))
        (tmp_path / "queries.tsv").write_text("".join(f"q{q}\tquestion {q}?\n" for q in range(queries)))
        texts = [f"d{q}_{d}\tpassage {q} {' w' * d}\n" for q in range(queries) for d in range(docs)]
        (tmp_path / "docs.tsv").write_text("".join(texts))
    store = str(tmp_path / name)
    _, err, status = run_cli(["judge", "plan", store, "--selector", "all", "--qrels", str(qrels)])
    assert status == 0, err
    texts = [f"queries={tmp_path / 'queries.tsv'}", f"documents={tmp_path / 'docs.tsv'}", "model=m"]
    return store, texts


def llm_run(store: str, url: str, texts: list[str], *extra: str) -> list[str]:
    options = [*texts, f"base_url={url}", f"api_key={KEY}", *extra]
    return ["judge", "run", store, "--judge", "llm", *[a for o in options for a in ("--option", o)]]


def test_a_closed_port_stops_the_run_in_one_line_naming_the_url(tmp_path, free_port):
    store, texts = effort(tmp_path)
    url = f"http://127.0.0.1:{free_port}/v1"
    start = time.monotonic()
    out, err, status = run_cli(llm_run(store, url, texts))
    assert status == 1 and time.monotonic() - start < 10
    assert len(err.splitlines()) == 1 and url in err and "cannot be reached" in err and KEY not in err
    assert "asked" not in out
    with Store(store) as opened:
        assert opened.counts()["answers"] == 0 and opened.failures() == {}


def test_prompts_without_a_reply_are_asked_again_by_a_resumed_run(tmp_path):
    """A server that fails every request with 503: each prompt's answer is a transport failure, stored as such;
    8 prompts in a row stop the run (exit 1, one line). Resumed against a working server, every one of them is
    asked again and answered: the export equals that of a run that never failed."""
    store, texts = effort(tmp_path, queries=2, docs=5)  # 20 pairs, 40 prompts
    fast = ["attempts=2", "backoff=0.01", "concurrency=2"]
    with ChatServer(said, faults=lambda m, n: "503") as failing:
        _, err, status = run_cli(llm_run(store, failing.url, texts, *fast))
    assert status == 1 and len(err.splitlines()) == 1 and "gave no reply to 8 prompts in a row" in err
    assert failing.url in err and KEY not in err
    out, _, status = run_cli(["judge", "status", store])
    failed = dict(line.split("\t") for line in out.splitlines())
    assert status == 0 and failed["answers"] == "0" and int(failed["unusable transport"]) >= 7
    with Store(store) as opened:
        transport = opened.transport_failures()
        assert all(a.answer.reason.startswith("no answer after 2 attempt(s)") for a in transport)
        unanswered = {(a.answer.pair, a.answer.sample) for a in transport}
    with ChatServer(said) as working:
        out, err, status = run_cli(llm_run(store, working.url, texts, *fast))
        asked_again = {k for k, n in working.answered.items() if n == 1}
    assert status == 0 and "asked 20, answered 20" in out, err
    assert sum(working.asked.values()) == 40 and len(asked_again) == 40  # every prompt once, the failed ones too
    assert len(unanswered) == int(failed["unusable transport"])
    out, _, _ = run_cli(["judge", "status", store])
    counts = dict(line.split("\t") for line in out.splitlines())
    assert (counts["answers"], counts["unanswered"]) == ("40", "0")
    assert "unusable transport" not in counts  # every one answered since
    with Store(store) as opened:  # the failures kept, not answers
        assert {(a.answer.pair, a.answer.sample) for a in opened.transport_failures()} == unanswered
    whole, _ = effort(tmp_path, "whole.sqlite", queries=2, docs=5)
    with ChatServer(said) as working:
        assert run_cli(llm_run(whole, working.url, texts))[2] == 0
    assert run_cli(["judge", "export", store])[0] == run_cli(["judge", "export", whole])[0]


def test_a_refused_key_is_one_line_and_a_reply_repeating_the_key_is_stored_without_it(tmp_path):
    store, texts = effort(tmp_path, queries=1, docs=3)
    with ChatServer(said, key="the-right-key") as server:
        out, err, status = run_cli(llm_run(store, server.url, texts))
    assert status == 1 and len(err.splitlines()) == 1 and "HTTP 401" in err and server.url in err
    assert KEY not in err and "Traceback" not in err
    with ChatServer(said, faults=lambda m, n: "echo") as server:
        out, err, status = run_cli(llm_run(store, server.url, texts))
    assert status == 0, err
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT reason, raw, failure FROM answers").fetchall()
    assert len(rows) == 6 and all(failure == "request" and KEY not in reason + raw for reason, raw, failure in rows)
    assert all("[key]" in reason for reason, _, _ in rows)
    out, _, _ = run_cli(["judge", "status", store])
    assert "unusable request\t6" in out.splitlines()


OLD_ANSWERS = """CREATE TABLE IF NOT EXISTS answers (
        id INTEGER PRIMARY KEY, request_id INTEGER NOT NULL REFERENCES requests (id),
        query_id TEXT NOT NULL, first TEXT NOT NULL, second TEXT NOT NULL, judge TEXT NOT NULL,
        model TEXT NOT NULL, prompt_hash TEXT NOT NULL, sample INTEGER NOT NULL, answer TEXT NOT NULL,
        raw TEXT NOT NULL, reason TEXT NOT NULL, tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL,
        latency REAL NOT NULL, answered_at REAL NOT NULL, assessor TEXT NOT NULL,
        UNIQUE (request_id, judge, assessor, sample, first))"""


def test_a_store_made_before_the_failure_column_is_brought_up_to_date(store_location):
    """The column is added and made part of the key; an old transport failure is no longer an answer, and the
    answer that a resumed run stores for its prompt goes in beside it."""
    from ir_pref_measures.judging.store import SCHEMA

    old = Database(store_location)
    with old.transaction():
        for statement in SCHEMA:
            old.execute(OLD_ANSWERS if statement.startswith("CREATE TABLE IF NOT EXISTS answers") else statement)
        old.execute("INSERT INTO requests (query_id, first, second, round, judge, asked_by, asked_at) "
                    "VALUES ('q', 'a', 'b', 0, 'llm', '', 0)")  # fmt: skip
        rows = [
            ("a", "first", ""),
            ("b", "unusable", "no answer after 6 attempt(s); the last: connection failed (ConnectError)"),
        ]
        for first, answer, reason in rows:
            old.execute(
                "INSERT INTO answers (request_id, query_id, first, second, judge, model, prompt_hash, sample, "
                "answer, raw, reason, tokens_in, tokens_out, latency, answered_at, assessor) "
                "VALUES (1, 'q', ?, ?, 'llm', 'm', 'h', 0, ?, '', ?, 0, 0, 0, 0, '')",
                (first, "b" if first == "a" else "a", answer, reason),
            )
    old.close()
    with Store(store_location) as store:
        assert [a.answer.answer for a in store.answers()] == ["first"]
        assert store.failures() == {"transport": 1}
        assert store.counts() == {"requests": 1, "answers": 1, "unanswered": 0}
        store.record([(1, Answer(Pair("q", "b", "a"), "second", "llm", model="m", prompt_hash="h"))])
        assert [(a.answer.pair.first, a.answer.answer) for a in store.answers()] == [("a", "first"), ("b", "second")]
        assert [a.answer.reason[:15] for a in store.transport_failures()] == ["no answer after"]
    with Store(store_location) as store:  # opened again: nothing more to do
        assert len(store.answers()) == 2


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "ir_pref_measures", *args]


def _answers(path: str) -> int:
    try:
        with sqlite3.connect(path, timeout=60) as db:
            return db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
    except sqlite3.OperationalError:  # not made yet
        return 0


def _wait_for(path: str, process: subprocess.Popen, answers: int, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while _answers(path) < answers and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)


def test_ctrl_c_stops_an_llm_run_in_one_line_and_the_resumed_run_equals_an_uninterrupted_one(tmp_path):
    store, texts = effort(tmp_path, queries=3, docs=8)  # 84 pairs, 168 prompts
    with ChatServer(said, delay=0.05) as server:
        process = subprocess.Popen(
            _cli(*llm_run(store, server.url, texts, "concurrency=4")),
            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        _wait_for(store, process, 20)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
        stored = _answers(store)
        assert process.returncode == 130, err
        assert err.startswith("ir-pref-measures judge: interrupted:") and len(err.splitlines()) == 1, err
        assert f"keeps {stored} answers" in err and "run the same command again" in err and out == ""
        assert 20 <= stored < 168
        out, err, status = run_cli(llm_run(store, server.url, texts, "concurrency=4"))
        assert status == 0, err
        # each prompt answered once; those in flight at the interrupt (4 at most) were sent again
        assert sum(server.answered.values()) <= 168 + 4 and set(server.answered) == set(server.asked)
        assert len(server.answered) == 168
    whole, _ = effort(tmp_path, "whole.sqlite", queries=3, docs=8)
    with ChatServer(said) as server:
        assert run_cli(llm_run(whole, server.url, texts))[2] == 0
    assert run_cli(["judge", "export", store])[0] == run_cli(["judge", "export", whole])[0]
    with Store(store) as a, Store(whole) as b:
        assert a.counts() == b.counts() == {"requests": 84, "answers": 168, "unanswered": 0}


def test_ctrl_c_stops_a_simulated_run_in_one_line(tmp_path):
    rng = np.random.default_rng(3)
    (tmp_path / "qrels.txt").write_text(
        "".join(f"q{q:02d} 0 d{d:03d} {rng.integers(1, 4)}\n" for q in range(20) for d in range(40))
    )
    runs = {}
    for name in ("cut.sqlite", "whole.sqlite"):
        runs[name] = str(tmp_path / name)
        plan = ["judge", "plan", runs[name], "--selector", "random", "--batch", "7", "--qrels", "qrels.txt"]
        assert subprocess.run(_cli(*plan), cwd=tmp_path, capture_output=True).returncode == 0
    judging = ["--judge", "simulated", "--qrels", "qrels.txt", "--noise", "0.2", "--budget", "10000"]
    process = subprocess.Popen(
        _cli("judge", "run", runs["cut.sqlite"], *judging), cwd=tmp_path, stderr=subprocess.PIPE, text=True
    )
    _wait_for(runs["cut.sqlite"], process, 300)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and len(err.splitlines()) == 1 and "interrupted" in err, err
    for name in ("cut.sqlite", "whole.sqlite"):
        resumed = subprocess.run(_cli("judge", "run", runs[name], *judging), cwd=tmp_path, capture_output=True)
        assert resumed.returncode == 0, resumed.stderr
    exports = [subprocess.run(_cli("judge", "export", p), capture_output=True, text=True).stdout for p in runs.values()]
    assert exports[0] == exports[1] and len(exports[0].splitlines()) == 10_000


def test_sigkill_at_random_moments_of_an_llm_run_loses_no_paid_answer(tmp_path):
    """Killed three times at random moments and resumed: the server receives each prompt once, except those in
    flight at a kill (``concurrency`` at most per kill), which are sent again; the export equals an uninterrupted
    run's."""
    store, texts = effort(tmp_path, queries=3, docs=8)  # 168 prompts
    prompts, kills, concurrency = 168, 3, 4
    rng = np.random.default_rng(47)
    with ChatServer(said, delay=0.03) as server:
        arguments = _cli(*llm_run(store, server.url, texts, f"concurrency={concurrency}"))
        seen = []
        for _ in range(kills):
            process = subprocess.Popen(arguments, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            _wait_for(store, process, (seen[-1] if seen else 0) + int(rng.integers(5, 40)))
            process.send_signal(signal.SIGKILL)
            process.wait(60)
            seen.append(_answers(store))
        assert seen == sorted(seen) and seen[-1] < prompts  # each kill cut the work
        finished = subprocess.run(arguments, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert finished.returncode == 0, finished.stderr
        sent = sum(server.asked.values())
        assert len(server.asked) == prompts and prompts <= sent <= prompts + kills * concurrency
        assert sum(n > 1 for n in server.asked.values()) <= kills * concurrency
    whole, _ = effort(tmp_path, "whole.sqlite", queries=3, docs=8)
    with ChatServer(said) as server:
        assert run_cli(llm_run(whole, server.url, texts))[2] == 0
    assert run_cli(["judge", "export", store])[0] == run_cli(["judge", "export", whole])[0]
    with Store(store) as opened:
        assert opened.counts() == {"requests": 84, "answers": prompts, "unanswered": 0}
