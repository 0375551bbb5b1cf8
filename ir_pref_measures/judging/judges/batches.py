"""Batch APIs: an LLM judge's prompts sent as a provider's batch, at half the price of synchronous requests.

Two providers: OpenAI's Batch API (``openai``: the prompts uploaded as a JSONL file to ``/files`` with purpose
``batch``, a batch made of it at ``/batches`` for ``/v1/chat/completions``, polled at ``/batches/{id}``, its
``output_file_id`` read from ``/files/{id}/content``; at most 50,000 requests or 200 MB a batch) and Anthropic's
Message Batches (``anthropic``: the requests posted to ``/messages/batches``, polled at ``/messages/batches/{id}``
until its ``processing_status`` is ``ended``, the results read from its ``results_url``; at most 100,000 requests
or 256 MB a batch). :func:`split` cuts the requests to those limits.

Each request has a ``custom_id`` (its place in the batch); a result is ``(text, tokens in, tokens out)`` or, for a
request that failed (an errored, expired or cancelled request, or a batch that failed), ``None`` with the reason.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence

from ir_pref_measures.errors import Stopped
from ir_pref_measures.judging.database import shown

# provider -> (requests, bytes) a batch at most
LIMITS = {"openai": (50_000, 200 * 1024 * 1024), "anthropic": (100_000, 256 * 1024 * 1024)}
PROVIDERS = tuple(LIMITS)
BATCH_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com/v1"}
ANTHROPIC_MAX_TOKENS = 1024  # Anthropic requires max_tokens: the default when the judge sets none
ANTHROPIC_VERSION = "2023-06-01"
ENDED = {"openai": ("completed",), "anthropic": ("ended",)}
FAILED = ("failed", "expired", "cancelled", "canceled")


def request_line(provider: str, custom_id: str, request: dict) -> bytes:
    """One request of a batch, as the provider's batch takes it (JSON, no line break): ``request`` is the chat
    request (``model``, ``messages``, sampling options)."""
    if provider == "openai":
        line = {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": request}
    else:
        params = {k: v for k, v in request.items() if k not in ("messages", "seed")}
        params.setdefault("max_tokens", ANTHROPIC_MAX_TOKENS)
        system = [m["content"] for m in request["messages"] if m["role"] == "system"]
        if system:
            params["system"] = "\n".join(system)
        params["messages"] = [m for m in request["messages"] if m["role"] != "system"]
        line = {"custom_id": custom_id, "params": params}
    return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode()


def split(lines: Sequence[bytes], provider: str) -> list[range]:
    """The batches of ``lines`` (each a request, without its line break) within the provider's limits
    (:data:`LIMITS`), in order: consecutive ranges of at most that many requests and bytes (a line break each)."""
    most, size = LIMITS[provider]
    batches, start, used = [], 0, 0
    for i, line in enumerate(lines):
        if len(line) + 1 > size:
            raise ValueError(f"request {i} alone is over the {provider} batch size of {size} bytes")
        if i - start == most or used + len(line) + 1 > size:
            batches.append(range(start, i))
            start, used = i, 0
        used += len(line) + 1
    if start < len(lines):
        batches.append(range(start, len(lines)))
    return batches


class BatchError(Stopped):
    """The batch endpoints refuse a request or cannot be reached: one line naming the URL (never the key); the
    batches sent are kept in the store, and the next run polls them."""


class BatchClient:
    """The batch endpoints of ``provider`` at ``base_url`` (OpenAI's or Anthropic's, or one that speaks either),
    through ``httpx``."""

    def __init__(self, provider: str, base_url: str, api_key: str | None, timeout: float) -> None:
        import httpx

        headers = {"authorization": f"Bearer {api_key}"} if provider == "openai" and api_key else {}
        if provider == "anthropic":
            headers = {"anthropic-version": ANTHROPIC_VERSION} | ({"x-api-key": api_key} if api_key else {})
        self.provider = provider
        self.http = httpx.Client(base_url=base_url.rstrip("/") + "/", headers=headers, timeout=timeout)

    def close(self) -> None:
        self.http.close()

    def _http(self, method: str, path: str, **options):
        """One request; a refusal, an error status or no connection stops the run (:class:`BatchError`)."""
        import httpx

        try:
            response = self.http.request(method, path, **options)
            response.raise_for_status()
        except httpx.HTTPStatusError as error:
            status = error.response.status_code
            raise BatchError(f"{shown(str(error.request.url))} answered HTTP {status} to the batch request") from None
        except httpx.HTTPError as error:
            raise BatchError(f"{shown(str(error.request.url))} cannot be reached ({type(error).__name__})") from None
        return response

    def _json(self, method: str, path: str, **options) -> dict:
        return self._http(method, path, **options).json()

    def submit(self, lines: Sequence[bytes]) -> str:
        """Send one batch of ``lines``; its id."""
        if self.provider == "openai":
            body = b"".join(line + b"\n" for line in lines)
            file = self._json("POST", "files", data={"purpose": "batch"}, files={"file": ("batch.jsonl", body)})
            made = {"input_file_id": file["id"], "endpoint": "/v1/chat/completions", "completion_window": "24h"}
            return self._json("POST", "batches", json=made)["id"]
        requests = [json.loads(line) for line in lines]
        return self._json("POST", "messages/batches", json={"requests": requests})["id"]

    def status(self, batch_id: str) -> tuple[str, dict]:
        """``("ended" | "failed" | "running", the batch)``."""
        path = f"batches/{batch_id}" if self.provider == "openai" else f"messages/batches/{batch_id}"
        batch = self._json("GET", path)
        state = batch.get("status") if self.provider == "openai" else batch.get("processing_status")
        if state in ENDED[self.provider]:
            return "ended", batch
        return ("failed" if state in FAILED else "running"), batch

    def results(self, batch: dict) -> dict[str, tuple[str, int, int] | tuple[None, str]]:
        """Each request's result by ``custom_id``: ``(text, tokens in, tokens out)``, or ``(None, reason)``."""
        found: dict[str, tuple[str, int, int] | tuple[None, str]] = {}
        if self.provider == "openai":
            for key in ("output_file_id", "error_file_id"):
                if batch.get(key):
                    response = self._http("GET", f"files/{batch[key]}/content")
                    found |= {row["custom_id"]: _openai(row) for row in _rows(response.content)}
            return found
        response = self._http("GET", batch["results_url"])
        return {row["custom_id"]: _anthropic(row) for row in _rows(response.content)}


def _rows(content: bytes) -> list[dict]:
    return [json.loads(line) for line in content.splitlines() if line.strip()]


def _openai(row: dict) -> tuple[str, int, int] | tuple[None, str]:
    response = row.get("response") or {}
    body = response.get("body") or {}
    if response.get("status_code") != 200 or not body.get("choices"):
        return None, f"the batch request failed: {row.get('error') or body.get('error') or response.get('status_code')}"
    content = body["choices"][0].get("message", {}).get("content") or ""
    usage = body.get("usage") or {}
    return content, int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))


def _anthropic(row: dict) -> tuple[str, int, int] | tuple[None, str]:
    result = row.get("result") or {}
    if result.get("type") != "succeeded":
        return None, f"the batch request {result.get('type', 'failed')}: {result.get('error', '')}".rstrip(": ")
    message = result.get("message") or {}
    content = "".join(part.get("text", "") for part in message.get("content", []) if part.get("type") == "text")
    usage = message.get("usage") or {}
    return content, int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))


def judge_in_batches(judge, pairs: Sequence, on_answer=None, done=()) -> list:
    """``judge.judge`` in batch mode (an :class:`~ir_pref_measures.judging.judges.llm.LLMJudge`): the prompts of
    ``pairs`` (those of ``done`` left out) sent as batches of ``judge.batch_api`` (:func:`split`), polled every
    ``judge.poll`` seconds and read back; one answer per prompt, in the order of ``judge.judge``, each handed to
    ``on_answer`` as its batch ends. A batch's id is kept in ``judge.ledger`` (the effort's store) under the hash of
    its requests as soon as it is sent, so that a run stopped meanwhile and started again polls that batch and sends
    nothing again. A request without a result, or of a batch that failed, is a ``transport`` failure (no answer:
    asked again, in a new batch, by the next run); a reply is read as a synchronous one is, at the batch price."""
    asked, at_once = judge.split(pairs, done)
    answers = [None] * (len(asked) + len(at_once))
    for index, answer in at_once:
        answers[index] = answer
        if on_answer is not None:
            on_answer(answer)
    provider = judge.batch_api
    lines = [request_line(provider, str(k), judge.request(prompt)) for k, (_, prompt) in enumerate(asked)]
    pending = {}
    client = judge.batch_client()
    try:
        for chunk in split(lines, provider):
            key = hashlib.sha256(provider.encode() + b"\n" + b"\n".join(lines[k] for k in chunk)).hexdigest()
            batch_id = judge.ledger.batch(key) if judge.ledger is not None else None
            if batch_id is None:
                batch_id = client.submit([lines[k] for k in chunk])
                if judge.ledger is not None:
                    judge.ledger.keep_batch(key, provider, batch_id)
            pending[batch_id] = (key, chunk)
        while pending:
            for batch_id, (key, chunk) in list(pending.items()):
                state, batch = client.status(batch_id)
                if state == "running":
                    continue
                results = client.results(batch) if state == "ended" else {}
                for k in chunk:
                    index, prompt = asked[k]
                    answers[index] = judge.from_batch(prompt, results.get(str(k)), state)
                    if on_answer is not None:
                        on_answer(answers[index])
                if judge.ledger is not None:
                    judge.ledger.forget_batch(key)  # read back: a prompt asked again goes in a new batch
                del pending[batch_id]
            if pending:
                time.sleep(judge.poll)
    finally:
        client.close()
    return [a for a in answers if a is not None]
