"""The LLM judge's batch mode (``--option mode=batch``) against a loopback mock of OpenAI's Batch API (``/files``,
``/batches``, the output file) and Anthropic's Message Batches, written here: the same exports as synchronous
mode, half the cost, a failed batch asked again, a run killed while polling that sends nothing again; and the
splitting of requests to the providers' limits."""

from __future__ import annotations

import email
import itertools
import json
import os
import re
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import run_cli
from judging.chat_server import ChatServer, completion, tokens
from judging.efforts import make_effort

from ir_pref_measures.judging.batches import LIMITS, request_line, split


class BatchServer:
    """Both providers' batch endpoints on loopback: each batch ends ``delay`` seconds after it is made (or fails,
    for the batches numbered in ``failing``, counted from 0), its requests answered by ``answer(messages)``.
    ``uploads`` counts the batches' requests sent (OpenAI's files, Anthropic's batches)."""

    def __init__(self, answer, delay: float = 0.2, failing: tuple[int, ...] = ()) -> None:
        self.answer, self.delay, self.failing = answer, delay, failing
        self.uploads = 0
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.ids = itertools.count()
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> BatchServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _new(self, kind: str, requests: list[dict]) -> dict:
        with self.lock:
            number = next(self.ids)
        batch = {"id": f"{kind}_{number}", "requests": requests, "ends": time.time() + self.delay}
        batch["failed"] = number in self.failing
        self.batches[batch["id"]] = batch
        return batch

    def _openai_state(self, batch: dict) -> dict:
        if time.time() < batch["ends"]:
            return {"id": batch["id"], "status": "in_progress"}
        if batch["failed"]:
            return {"id": batch["id"], "status": "failed"}
        lines = []
        for line in batch["requests"]:
            messages, model = line["body"]["messages"], line["body"]["model"]
            text = self.answer(messages)
            body = completion(model, text, tokens(messages[-1]["content"]), tokens(text))
            lines.append({"custom_id": line["custom_id"], "response": {"status_code": 200, "body": body}})
        self.files[f"out_{batch['id']}"] = b"".join(json.dumps(x).encode() + b"\n" for x in lines)
        return {"id": batch["id"], "status": "completed", "output_file_id": f"out_{batch['id']}"}

    def _anthropic_results(self, batch: dict) -> bytes:
        lines = []
        for request in batch["requests"]:
            params = request["params"]
            system = [{"role": "system", "content": params["system"]}] if "system" in params else []
            text = self.answer(system + params["messages"])
            usage = {"input_tokens": tokens(params["messages"][-1]["content"]), "output_tokens": tokens(text)}
            message = {"content": [{"type": "text", "text": text}], "usage": usage}
            lines.append({"custom_id": request["custom_id"], "result": {"type": "succeeded", "message": message}})
        return b"".join(json.dumps(x).encode() + b"\n" for x in lines)

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def _send(self, payload, raw: bytes | None = None) -> None:
                body = raw if raw is not None else json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path == "/v1/files":
                    message = email.message_from_bytes(
                        f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode() + body
                    )
                    content = next(p.get_payload(decode=True) for p in message.get_payload() if p.get_filename())
                    file_id = f"file_{len(server.files)}"
                    server.files[file_id] = content
                    with server.lock:
                        server.uploads += 1
                    return self._send({"id": file_id})
                if self.path == "/v1/batches":
                    content = server.files[json.loads(body)["input_file_id"]]
                    batch = server._new("batch", [json.loads(line) for line in content.splitlines()])
                    return self._send({"id": batch["id"], "status": "validating"})
                if self.path == "/v1/messages/batches":
                    with server.lock:
                        server.uploads += 1
                    batch = server._new("msgbatch", json.loads(body)["requests"])
                    return self._send({"id": batch["id"], "processing_status": "in_progress"})
                self.send_error(404)

            def do_GET(self) -> None:
                found = re.fullmatch(r"/v1/(batches|messages/batches|files)/(\w+)(/content|/results)?", self.path)
                if found is None:
                    return self.send_error(404)
                kind, name, tail = found.groups()
                if kind == "files":
                    return self._send(None, server.files[name])
                batch = server.batches[name]
                if kind == "batches":
                    return self._send(server._openai_state(batch))
                if tail == "/results":
                    return self._send(None, server._anthropic_results(batch))
                if time.time() < batch["ends"]:
                    return self._send({"id": name, "processing_status": "in_progress"})
                state = "canceled" if batch["failed"] else "ended"
                return self._send(
                    {"id": name, "processing_status": state, "results_url": f"{server.url}/{kind}/{name}/results"}
                )

        return Handler


def answer(messages) -> str:
    return "Passage 1" if sum(map(ord, messages[-1]["content"])) % 3 else "Passage 2"


def effort(folder, selector: str = "insertion") -> tuple[str, list[str]]:
    folder.mkdir(exist_ok=True)
    return make_effort(folder, selector, {"q1": 5, "q2": 4})


def judge_run(store: str, url: str, options: list[str]) -> list[str]:
    given = ["model=test-model", f"base_url={url}", "price_per_1k=1,2", *options]
    return ["judge", "run", store, "--judge", "llm", *[a for o in given for a in ("--option", o)]]


def cost_of(out: str) -> float:
    return float(re.search(r"; cost (\S+)$", out.strip()).group(1))


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_batch_mode_exports_what_sync_mode_exports_at_half_the_cost(tmp_path, provider):
    store, texts = effort(tmp_path / "sync")
    with ChatServer(answer) as chat:
        out, err, status = run_cli(judge_run(store, chat.url, texts))
    assert status == 0, err
    expected, sync_cost = run_cli(["judge", "export", store])[0], cost_of(out)
    store, texts = effort(tmp_path / "batch")
    with BatchServer(answer) as batches:
        options = ["mode=batch", f"batch_api={provider}", "poll=0.05", *texts]
        out, err, status = run_cli(judge_run(store, batches.url, options))
    assert status == 0, err
    assert run_cli(["judge", "export", store])[0] == expected and expected
    assert sync_cost > 0 and cost_of(out) == sync_cost / 2
    assert batches.uploads >= 2  # insertion: a batch per sweep


def test_a_failed_batch_is_no_answer_and_the_next_run_sends_it_again(tmp_path):
    store, texts = effort(tmp_path, "all")
    with BatchServer(answer, failing=(0,)) as batches:
        options = ["mode=batch", "poll=0.05", *texts]
        out, err, status = run_cli(judge_run(store, batches.url, options))
        assert status == 0, err
        assert "failed attempts: batch failed 32;" in out
        assert run_cli(["judge", "status", store])[0].count("unusable transport\t32") == 1  # 16 pairs, both orders
        _, err, status = run_cli(judge_run(store, batches.url, options))
        assert status == 0, err
    found = dict(row.split("\t") for row in run_cli(["judge", "status", store])[0].splitlines())
    assert (found["answers"], found["unanswered"], batches.uploads) == ("32", "0", 2)


def test_a_run_killed_while_polling_polls_the_same_batch_and_sends_nothing_again(tmp_path):
    store, texts = effort(tmp_path, "all")
    with BatchServer(answer, delay=3.0) as batches:
        options = ["mode=batch", "poll=0.1", *texts]
        command = [sys.executable, "-m", "ir_pref_measures", *judge_run(store, batches.url, options)]
        running = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ.copy())
        try:
            deadline = time.time() + 60
            while batches.uploads == 0 and time.time() < deadline and running.poll() is None:
                time.sleep(0.05)
            assert batches.uploads == 1
            time.sleep(0.3)  # polling
        finally:
            running.kill()
            running.wait()
        _, err, status = run_cli(judge_run(store, batches.url, options))
        assert status == 0, err
    found = dict(row.split("\t") for row in run_cli(["judge", "status", store])[0].splitlines())
    assert (found["answers"], found["unanswered"], batches.uploads) == ("32", "0", 1)


def test_150000_anthropic_requests_split_into_two_batches_within_both_limits():
    request = {
        "model": "m",
        "messages": [{"role": "system", "content": "judge"}, {"role": "user", "content": "x" * 300}],
    }
    lines = [request_line("anthropic", str(k), request) for k in range(150_000)]
    batches = split(lines, "anthropic")
    most, size = LIMITS["anthropic"]
    assert [len(b) for b in batches] == [most, 50_000] and (most, size) == (100_000, 256 * 1024 * 1024)
    assert list(itertools.chain.from_iterable(batches)) == list(range(150_000))
    assert all(sum(len(lines[k]) + 1 for k in b) <= size for b in batches)
    assert json.loads(lines[0])["params"]["system"] == "judge" and json.loads(lines[0])["params"]["max_tokens"] > 0


def test_requests_split_at_the_size_limit_before_the_count():
    lines = [b"x" * (40 * 1024 * 1024)] * 12  # 480 MB: two OpenAI batches of 200 MB at most, then one more
    batches = split(lines, "openai")
    assert [len(b) for b in batches] == [4, 4, 4]
    assert all(sum(len(lines[k]) + 1 for k in b) <= LIMITS["openai"][1] for b in batches)


def test_a_dead_batch_endpoint_stops_the_run_in_one_line(tmp_path, free_port):
    store, texts = effort(tmp_path, "all")
    url = f"http://127.0.0.1:{free_port}/v1"
    _, err, status = run_cli(judge_run(store, url, ["mode=batch", "poll=0.05", *texts]))
    assert status == 1 and "cannot be reached" in err and len(err.strip().splitlines()) == 1
