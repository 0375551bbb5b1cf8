"""The chat transport shared by the LLM judges, seen through them: a cached reply of a logprobs run keeps its
p(first); an answer cache made before p(first) was kept still serves its replies; ``judge grade`` with ``--cache``,
killed (SIGKILL) and run again, asks no pair whose reply it received; a prompt the endpoint refuses has the
reason the ``openai`` client read from the refusal. Real loopback servers
(tests/judging/chat_server.py), real SQLite, the command in a process of its own where it is killed."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import run_cli
from judging.chat_server import ChatServer
from judging.test_confidence import effort, logprobs_of, shown_first

from ir_pref_measures.judging import LLMJudge, Pair, QueryText, Store, Texts


def judged(tmp_path, name: str, server: ChatServer, cache: str, *options: str) -> str:
    """An effort of the pair (a, b) of query q judged by the LLM judge at ``server`` with the answer cache."""
    (tmp_path / name).mkdir()
    return effort(tmp_path / name, server, "q a b\n", f"cache={cache}", *options)


def p_firsts(store: str) -> list:
    with Store(store) as opened:
        return sorted((row.answer.pair.first, row.answer.p_first, row.answer.cached) for row in opened.answers())


def test_a_cached_reply_of_a_logprobs_run_keeps_its_p_first(tmp_path):
    """p = 0.7 for (a, b) and 0.6 for (b, a): the second effort is answered from the cache, sends nothing, and has
    the same p(first) of each answer, so the same soft preference."""
    cache = str(tmp_path / "cache.sqlite")
    with ChatServer(lambda m: "1", logprobs=lambda m, top: logprobs_of({"a": 0.7, "b": 0.6}[shown_first(m)])) as server:
        first = judged(tmp_path, "first", server, cache, "logprobs=5")
        second = judged(tmp_path, "second", server, cache, "logprobs=5")
        assert sum(server.asked.values()) == 2
    found = p_firsts(second)
    assert [(shown, cached) for shown, _, cached in found] == [("a", True), ("b", True)]
    assert [p for _, p, _ in found] == [p for _, p, _ in p_firsts(first)]
    assert abs(found[0][1] - 0.7) < 1e-9 and abs(found[1][1] - 0.6) < 1e-9
    exports = [run_cli(["judge", "export", store, "--format", "soft"])[0] for store in (first, second)]
    assert exports[0] == exports[1] == "q a b 0.550000\n"


def test_an_answer_cache_made_before_p_first_still_serves_its_replies(tmp_path):
    """A cache whose table lacks the p_first column (as the cache made before it): its replies are hits, without a
    p(first); the column is added when the cache is opened, and a new reply keeps its p(first) there."""
    cache = str(tmp_path / "cache.sqlite")
    with ChatServer(lambda m: "1", logprobs=lambda m, top: logprobs_of(0.8)) as server:
        judged(tmp_path, "first", server, cache, "logprobs=5")
        with sqlite3.connect(cache) as db:
            db.execute("ALTER TABLE replies DROP COLUMN p_first")
        old = judged(tmp_path, "old", server, cache, "logprobs=5")
        assert sum(server.asked.values()) == 2
        assert [(p, cached) for _, p, cached in p_firsts(old)] == [(None, True), (None, True)]
        new = judged(tmp_path, "new", server, cache, "logprobs=3")  # another request: a miss
        assert sum(server.asked.values()) == 4
    with sqlite3.connect(cache) as db:
        kept = sorted(row[0] for row in db.execute("SELECT p_first FROM replies WHERE p_first IS NOT NULL"))
    assert len(kept) == 2 and all(abs(p - 0.8) < 1e-9 for p in kept)
    assert all(abs(p - 0.8) < 1e-9 and not cached for _, p, cached in p_firsts(new))


def replies(cache: str) -> int:
    """The replies kept in the answer cache so far (0 before it is made)."""
    try:
        with sqlite3.connect(f"file:{cache}?mode=ro", uri=True) as db:  # read only: never makes the file
            return db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_judge_grade_killed_and_run_again_asks_no_pair_already_answered(tmp_path):
    """``judge grade --cache``, killed (SIGKILL) after some replies, then run again: every pair whose reply reached
    the cache is not asked again; the qrels equal those of a grading never stopped."""
    pairs = 40
    (tmp_path / "pairs.qrels").write_text("".join(f"q 0 d{k} 0\n" for k in range(pairs)))
    (tmp_path / "queries.tsv").write_text("q\twhat is it?\n")
    (tmp_path / "docs.tsv").write_text("".join(f"d{k}\tpassage {k}\n" for k in range(pairs)))
    cache = str(tmp_path / "cache.sqlite")

    def passage(messages) -> str:
        return messages[-1]["content"].split("Passage: ")[1].split("\n")[0]

    def answer(messages) -> str:
        return f"##final score: {int(passage(messages).split()[1]) % 4} ({passage(messages)})"

    def argv(url: str, output: str, *cached: str) -> list[str]:
        options = ["model=m", f"base_url={url}", "api_key=none", "concurrency=2"]
        options += [f"queries={tmp_path / 'queries.tsv'}", f"documents={tmp_path / 'docs.tsv'}"]
        command = ["judge", "grade", "--qrels", str(tmp_path / "pairs.qrels"), "-o", str(tmp_path / output)]
        return command + [*cached] + [x for o in options for x in ("--option", o)]

    with ChatServer(answer, delay=0.05) as server:
        process = subprocess.Popen(
            [sys.executable, "-m", "ir_pref_measures", *argv(server.url, "cut.qrels", "--cache", cache)],
            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while replies(cache) < 10 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
        assert process.returncode == -signal.SIGKILL
        with sqlite3.connect(cache) as db:
            kept = {raw.split("(")[1].rstrip(")") for (raw,) in db.execute("SELECT raw FROM replies")}
        assert 10 <= len(kept) < pairs
        before = server.asked.copy()
        _, err, status = run_cli(argv(server.url, "cut.qrels", "--cache", cache))
        assert status == 0, err
        again = server.asked - before
    asked_again = sorted(passage([{"role": r, "content": c} for r, c in key]) for key in again)
    assert set(again.values()) == {1} and set(asked_again) == {f"passage {k}" for k in range(pairs)} - kept
    with ChatServer(answer) as server:
        _, err, status = run_cli(argv(server.url, "whole.qrels"))
        assert status == 0, err
    assert (tmp_path / "cut.qrels").read_text() == (tmp_path / "whole.qrels").read_text()
    assert len((tmp_path / "whole.qrels").read_text().splitlines()) == pairs


class _Refusing(BaseHTTPRequestHandler):
    """Answers every POST with the status and body of the server's ``said`` (a status 4xx and the body as
    bytes)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        status, body = self.server.said  # type: ignore[attr-defined]
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def openai_reason(url: str, status: int) -> str:
    """The reason of a refused prompt as the judge gave it through the ``openai`` client: ``HTTP {status}: `` and
    the client's error body (the ``message`` of a JSON ``error`` object, else the body, else its message), cut at
    200 characters."""
    import openai

    client = openai.OpenAI(api_key="none", base_url=url, max_retries=0)
    try:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    except openai.APIStatusError as error:
        body = error.body
        if isinstance(body, dict):
            body = body.get("message", body)
        return f"HTTP {status}: {str(body or error)[:200]}"
    raise AssertionError("the endpoint did not refuse")


@pytest.mark.parametrize(
    "body",
    [
        b'{"error": {"message": "prompt too long", "type": "invalid_request_error"}}',
        b'{"error": {"type": "no message"}}',
        b'{"detail": "not an error object"}',
        b'{"error": "a string"}',
        b'["a", "list"]',
        b"[]",
        b'"a JSON string"',
        b"plain text, not JSON " * 20,
        b"",
        b"   ",
    ],
)
def test_a_refused_prompt_reads_as_the_openai_client_reads_it(body):
    """A 4xx that refuses one prompt: its answer's reason is the endpoint's message as the ``openai`` client reads
    the body (the judge asked through it before)."""
    pytest.importorskip("openai")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    server.said = (400, body)  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        expected = openai_reason(url, 400)
        judge = LLMJudge(Texts({"q": QueryText("q")}, {"a": "a", "b": "b"}), model="m", base_url=url, samples=1)
        answers = judge.judge([Pair("q", "a", "b")])
    finally:
        server.shutdown()
        server.server_close()
    assert [(a.answer, a.failure) for a in answers] == [("unusable", "request")] * 2
    assert {a.reason for a in answers} == {expected}
