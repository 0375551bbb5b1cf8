"""A small OpenAI-compatible chat server on loopback (``POST /v1/chat/completions``), real HTTP/1.1 with keep-alive,
for the LLM judge's tests and benchmark.

It answers each prompt with ``answer(messages)`` (a replay of a transcript, say), after ``delay`` seconds, and can
be told to fail: ``faults(messages, asked)`` names the fault of the ``asked``-th request (0-based) of that prompt,
or ``None`` to answer. Faults: ``429`` (with ``Retry-After: 0``), ``500``, ``503`` (or any other status),
``timeout`` (no answer for ``hang`` seconds, longer than the client waits), ``malformed`` (a truncated JSON body),
``empty`` (a 200 without a body), ``no-choices`` (``{}``), ``disconnect`` (the connection closed without a
response), ``slow`` (the right answer after ``slow`` seconds, within the client's timeout); ``echo`` (not drawn
among :data:`FAULTS`) is a 400 whose message repeats the request's ``Authorization`` header. A request asking for
``logprobs`` gets the choice's ``logprobs`` object that ``logprobs(messages, top_logprobs)`` returns, when given.
It counts requests and answers per prompt, and the requests in flight at most (``peak``); ``GET /v1/stats`` tells
them (``in_flight``, ``peak``, ``asked``). Run as a script (``python chat_server.py --delay 0.05``) it answers
``1`` to everything and prints its URL.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAULTS = ("429", "500", "503", "timeout", "malformed", "empty", "no-choices", "disconnect", "slow")


def prompt_key(messages: list[dict]) -> tuple:
    return tuple((m["role"], m["content"]) for m in messages)


def tokens(text: str) -> int:
    """The token count the server reports: words, a stand-in a test can recompute."""
    return len(text.split())


class _Server(ThreadingHTTPServer):
    request_queue_size = 1024  # connections waiting to be accepted (socketserver's default is 5)
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        """A client that hangs up (a judge run stopped, a request abandoned) is no fault of the server: nothing is
        printed, so what the tests read on stderr is what the command said; anything else is printed as before."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class ChatServer:
    def __init__(
        self,
        answer: Callable[[list[dict]], str],
        *,
        delay: float = 0.0,
        faults: Callable[[list[dict], int], str | None] | None = None,
        key: str | None = None,
        hang: float = 2.0,
        slow: float = 0.3,
        logprobs: Callable[[list[dict], int], dict] | None = None,
    ) -> None:
        self.answer, self.delay, self.faults, self.key, self.hang, self.slow = answer, delay, faults, key, hang, slow
        self.logprobs = logprobs
        self.asked: Counter = Counter()  # requests per prompt
        self.answered: Counter = Counter()  # well-formed answers per prompt
        self.faulted: Counter = Counter()  # faults served, by kind
        self.in_flight = self.peak = 0  # requests being served now, and at most
        self.lock = threading.Lock()
        self.httpd = _Server(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # the body must not wait for the ACK of the headers (40 ms delayed ACK)

            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                if self.path != "/v1/stats":
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                with server.lock:
                    stats = {"in_flight": server.in_flight, "peak": server.peak, "asked": sum(server.asked.values())}
                return self._send(200, stats)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                if server.key is not None and self.headers.get("Authorization") != f"Bearer {server.key}":
                    return self._send(401, {"error": {"message": "invalid key"}})
                with server.lock:
                    server.in_flight += 1
                    server.peak = max(server.peak, server.in_flight)
                try:
                    self._serve(json.loads(body))
                finally:
                    with server.lock:
                        server.in_flight -= 1

            def _serve(self, request: dict) -> None:
                key = prompt_key(request["messages"])
                with server.lock:
                    asked = server.asked[key]
                    server.asked[key] += 1
                fault = server.faults(request["messages"], asked) if server.faults else None
                if fault is not None:
                    with server.lock:
                        server.faulted[fault] += 1
                    if fault == "echo":
                        said = f"bad request by {self.headers.get('Authorization')}"
                        return self._send(400, {"error": {"message": said}})
                    if fault != "slow":
                        return self._fault(fault)
                    time.sleep(server.slow)
                if server.delay:
                    time.sleep(server.delay)
                text = server.answer(request["messages"])
                with server.lock:
                    server.answered[key] += 1
                user = request["messages"][-1]["content"]
                body = completion(request["model"], text, tokens(user), tokens(text))
                if request.get("logprobs") and server.logprobs is not None:
                    body["choices"][0]["logprobs"] = server.logprobs(
                        request["messages"], request.get("top_logprobs", 0)
                    )
                self._send(200, body)

            def _fault(self, fault: str) -> None:
                if fault.isdigit():
                    headers = {"Retry-After": "0"} if fault == "429" else {}
                    return self._send(int(fault), {"error": {"message": f"fault {fault}"}}, headers)
                if fault == "timeout":
                    time.sleep(server.hang)
                    self.close_connection = True
                    return None
                if fault == "disconnect":
                    self.close_connection = True
                    return None
                raw = {"malformed": b'{"id": "x", "choices": [{"index', "empty": b"", "no-choices": b"{}"}[fault]
                return self._send_raw(200, raw)

            def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
                self._send_raw(status, json.dumps(payload).encode(), headers)

            def _send_raw(self, status: int, raw: bytes, headers: dict | None = None) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

        return Handler


def completion(model: str, text: str, tokens_in: int, tokens_out: int) -> dict:
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out, "total_tokens": tokens_in + tokens_out},
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.05)
    args = parser.parse_args()
    with ChatServer(lambda messages: "1", delay=args.delay) as running:
        print(running.url, flush=True)
        threading.Event().wait()
