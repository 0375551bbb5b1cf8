"""The transport of chat requests to an OpenAI-compatible endpoint, shared by the LLM judges (pairwise prompts,
:mod:`~ir_pref_measures.judging.judges.llm`; graded labels, :mod:`~ir_pref_measures.judging.judges.graded`).

:class:`ChatTransport` owns everything between a chat request and its reply: the clients (``httpx``, one
kept-alive connection per worker: a shared pool of many connections costs several times the CPU per request; one
TLS context for all), the attempts of a prompt with their backoff (full jitter, a ``Retry-After`` of a 429
honoured), the failures that stop a run (:class:`EndpointError`: a refused key, an unknown model, an endpoint that
cannot be reached on :data:`UNREACHABLE_ATTEMPTS` attempts in a row or that gives no reply to
:data:`FAILED_PROMPTS` prompts in a row), the answer cache (:mod:`~ir_pref_measures.judging.judges.cache`) and the
accounting (:mod:`~ir_pref_measures.judging.judges.usage`). An HTTP attempt fails as the ``openai`` client
classifies it (:func:`post_chat`): a status the endpoint answers, a timeout, no connection, a body that is no chat
completion. The judges build the requests and read the replies.

The requests go to ``{base_url}/chat/completions`` (``base_url`` by default OpenAI's, ``https://api.openai.com/v1``)
with the key as a bearer token and the organisation and project of ``OPENAI_ORG_ID`` and ``OPENAI_PROJECT_ID`` when
set, as the ``openai`` client sends them; proxies and certificates are read from the environment (``HTTPS_PROXY``,
``SSL_CERT_FILE``, ...) by ``httpx``.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ir_pref_measures.errors import InputError, Stopped
from ir_pref_measures.judging import database
from ir_pref_measures.judging.judges.cache import AnswerCache, cache_key
from ir_pref_measures.judging.judges.usage import Accounts
from ir_pref_measures.judging.redact import redact

if TYPE_CHECKING:
    import ssl

    import httpx

RETRIED_STATUS = (408, 409, 429)  # and every 5xx
FATAL_STATUS = (401, 403, 404)
UNREACHABLE_ATTEMPTS = 3  # attempts of one prompt in a row that cannot connect (refused, DNS, TLS): the run stops
FAILED_PROMPTS = 8  # prompts in a row without a reply after every attempt: the run stops
OPENAI_URL = "https://api.openai.com/v1"
MISSING_CLIENT = "the LLM judge needs the httpx client: pip install 'ir-pref-measures[llm]'"


class EndpointError(Stopped):
    """The endpoint refuses every request (a wrong key, a model it does not serve, a wrong URL) or cannot be
    reached: one line naming the URL (never the key)."""


@dataclass(frozen=True)
class Failure:
    """A failed attempt: its ``kind`` (``HTTP 429``, ``timeout``, ...), what to show, whether it is retried, the
    seconds the endpoint asked to wait and whether no connection was made."""

    kind: str
    detail: str
    retried: bool = True
    wait: float = 0.0  # seconds the endpoint asked to wait (Retry-After)
    unreachable: bool = False  # no connection made (refused, DNS, TLS)


@dataclass(frozen=True)
class Reply:
    """The reply to a prompt: its text, tokens, log-probabilities (``None`` when absent), p(first) as the judge's
    ``confidence`` reads it, the attempts it took, the seconds of the last, its cost and whether it came from the
    answer cache (then no attempts, no tokens, no cost)."""

    raw: str
    tokens_in: int = 0
    tokens_out: int = 0
    p_first: float | None = None
    attempts: int = 0
    latency: float | None = None
    cost: float = 0.0
    cached: bool = False


@dataclass(frozen=True)
class Unanswered:
    """A prompt without a reply: ``failure`` ``request`` (the endpoint refused this prompt) or ``transport`` (no
    reply after every attempt), the reason and the attempts made."""

    failure: str
    reason: str
    attempts: int


def read_completion(body) -> tuple[str, int, int, object]:
    """The text of a chat completion's first choice (``""`` for a choice without content), its token counts and
    its ``logprobs`` (``None`` when absent); a body that is not a chat completion raises ``ValueError``."""
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("no choices in the response")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else 0
    if content is not None and not isinstance(content, str):
        raise ValueError("no text in the response's first choice")
    usage = body.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    counts = _count_of(usage, "prompt_tokens"), _count_of(usage, "completion_tokens")
    return content or "", *counts, choices[0].get("logprobs")


def _count_of(usage: dict, name: str) -> int:
    value = usage.get(name)
    return value if isinstance(value, int) and value >= 0 else 0


def retry_after(response: httpx.Response) -> float:
    """The seconds of a ``Retry-After`` header (0 when absent or a date)."""
    try:
        return max(0.0, float(response.headers.get("retry-after", "0")))
    except (TypeError, ValueError):
        return 0.0


def error_message(status: int, text: str) -> str:
    """The endpoint's message of an HTTP error of body ``text``, at most 200 characters, as the ``openai`` client
    reads it: the ``message`` of a JSON body's ``error`` object, else the body, else ``Error code: {status}``."""
    text = text.strip()
    body: Any = text
    try:
        body = json.loads(text)
        whole = f"Error code: {status} - {body}"
    except ValueError:
        whole = text or f"Error code: {status}"
    if isinstance(body, dict):
        body = body.get("error", body)
    if isinstance(body, dict):
        body = body.get("message", body)
    return str(body or whole)[:200]


async def post_chat(
    client: httpx.AsyncClient, request: dict, url: str, timeout: float, redact: Callable[[str], str]
) -> tuple[str, int, int, object] | Failure:
    """One chat request of ``client`` to ``url``: the response's text, token counts and log-probabilities, or why
    it failed (and whether to retry); an endpoint refusing every request (:data:`FATAL_STATUS`) raises
    :class:`EndpointError`, its message passed through ``redact``."""
    import httpx

    try:
        response = await client.post("chat/completions", json=request)
    except httpx.TimeoutException:
        return Failure("timeout", f"timeout after {timeout:g} s")
    except httpx.HTTPError as error:
        detail = f"connection failed ({type(error).__name__})"
        return Failure("connection", detail, unreachable=isinstance(error, httpx.ConnectError))
    status = response.status_code
    if not response.is_success:
        said = error_message(status, response.text)
        if status in FATAL_STATUS:
            hint = "check base_url and the model name" if status == 404 else "check the key"
            raise EndpointError(f"{url} refused the request: HTTP {status} ({redact(' '.join(said.split()))}); {hint}")
        retried = status in RETRIED_STATUS or status >= 500
        wait = retry_after(response) if status == 429 else 0.0
        return Failure(f"HTTP {status}", f"HTTP {status}: {said}", retried, wait)
    try:
        return read_completion(json.loads(response.content))
    except (ValueError, TypeError, KeyError) as error:  # json's errors are ValueErrors
        return Failure("malformed", f"malformed response ({error})")


def delay(attempt: int, retry_after: float, backoff: float, max_backoff: float, rng: np.random.Generator) -> float:
    """The wait before ``attempt``, full jitter: uniform in [0, min(max_backoff, backoff * 2**(attempt - 1))],
    at least a 429's ``Retry-After`` (capped at max_backoff)."""
    bound = min(max_backoff, backoff * 2 ** (attempt - 1))
    wait = float(rng.uniform(0.0, bound)) if bound > 0 else 0.0
    return max(wait, min(max_backoff, retry_after))


class ChatTransport:
    """Chat requests to the endpoint at ``base_url`` (module docstring): ``attempts`` per prompt, each abandoned
    after ``timeout`` seconds, the backoff of :func:`delay` seeded by ``seed``, replies kept in and read from
    ``cache`` (an :class:`~.cache.AnswerCache`, or none), their tokens counted in ``accounts``. ``kept`` says, in
    the message of an :class:`EndpointError`, what becomes of the replies received."""

    def __init__(
        self,
        *,
        base_url: str | None,
        api_key: str | None,
        accounts: Accounts,
        attempts: int = 6,
        timeout: float = 60.0,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        seed: int = 0,
        cache: AnswerCache | None = None,
        kept: str = "the answers received are kept",
    ) -> None:
        self.base_url, self._api_key = base_url, api_key
        self.attempts, self.timeout = attempts, float(timeout)
        self.backoff, self.max_backoff = float(backoff), float(max_backoff)
        self.accounts, self.cache, self.kept = accounts, cache, kept
        self._rng = np.random.default_rng(seed)
        self._tls: ssl.SSLContext | None = None
        self._streak = 0  # prompts in a row without a reply

    @property
    def url(self) -> str:
        """The endpoint as it may be shown (without a password)."""
        return database.shown(self.base_url or OPENAI_URL)

    def redact(self, text: str) -> str:
        """``text`` with the key replaced by ``[key]`` in every form (:func:`~.redact.redact`)."""
        return redact(text, self._api_key) if self._api_key and text else text

    def delay(self, attempt: int, retry_after: float) -> float:
        """The wait before ``attempt`` (:func:`delay`, with this transport's backoff and generator)."""
        return delay(attempt, retry_after, self.backoff, self.max_backoff, self._rng)

    def client(self) -> httpx.AsyncClient:
        """A client of one kept-alive connection (one per worker), sharing one TLS context with the others
        (loading the CA bundle is slow)."""
        try:
            import httpx
        except ImportError:
            raise InputError(MISSING_CLIENT) from None
        if self._tls is None:
            self._tls = httpx.create_ssl_context()
        headers = {"authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        for header, variable in (("openai-organization", "OPENAI_ORG_ID"), ("openai-project", "OPENAI_PROJECT_ID")):
            if os.environ.get(variable):
                headers[header] = os.environ[variable]
        return httpx.AsyncClient(
            base_url=(self.base_url or OPENAI_URL).rstrip("/") + "/",
            headers=headers,
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
            timeout=self.timeout,
            verify=self._tls,
            follow_redirects=True,
        )

    async def ask(
        self,
        client: httpx.AsyncClient,
        request: dict,
        sample: int = 0,
        confidence: Callable[[object], float | None] | None = None,
    ) -> Reply | Unanswered:
        """``request`` (a chat request: model, messages, sampling options) asked by ``client`` until a reply
        comes or the attempts are spent; a reply kept in the cache (under the request and ``sample``) is not
        asked. ``confidence`` reads p(first) from a reply's log-probabilities."""
        key = cache_key(request, sample) if self.cache is not None else ""
        kept = await self.cache.get(key) if self.cache is not None else None
        if kept is not None:  # paid for before
            self.accounts.usage.prompts += 1
            self.accounts.usage.cached += 1
            return Reply(kept[0], p_first=kept[3], cached=True)
        failure = Failure("", "")
        unreachable = 0  # attempts in a row that could not connect
        usage = self.accounts.usage
        for attempt in range(self.attempts):
            if attempt:
                usage.retries += 1
                await asyncio.sleep(self.delay(attempt, failure.wait))
            usage.attempts += 1
            start = time.perf_counter()
            result = await post_chat(client, request, self.url, self.timeout, self.redact)
            if isinstance(result, Failure):
                failure = result
                usage.failures[failure.kind] = usage.failures.get(failure.kind, 0) + 1
                unreachable = unreachable + 1 if failure.unreachable else 0
                if unreachable >= min(self.attempts, UNREACHABLE_ATTEMPTS):
                    raise EndpointError(
                        f"{self.url} cannot be reached: {failure.detail} on {unreachable} attempt(s) in a row; "
                        f"nothing more is asked ({self.kept})"
                    )
                if not failure.retried:
                    self._streak = 0  # a reply, refusing this prompt only
                    return self._unanswered("request", failure.detail, attempt + 1)
                continue
            self._streak = 0
            raw, tokens_in, tokens_out, logprobs = result
            p_first = confidence(logprobs) if confidence is not None else None
            cost = self.accounts.count(tokens_in, tokens_out)
            if self.cache is not None:
                await self.cache.put(key, request["model"], self.redact(raw), tokens_in, tokens_out, p_first)
            latency = time.perf_counter() - start
            return Reply(raw, tokens_in, tokens_out, p_first, attempt + 1, latency, cost)
        self._streak += 1
        if self._streak >= FAILED_PROMPTS:
            raise EndpointError(
                f"{self.url} gave no reply to {self._streak} prompts in a row, each after {self.attempts} "
                f"attempt(s) (the last: {self.redact(failure.detail)}); nothing more is asked ({self.kept})"
            )
        reason = f"no answer after {self.attempts} attempt(s); the last: {failure.detail}"
        return self._unanswered("transport", reason, self.attempts)

    def _unanswered(self, failure: str, reason: str, attempts: int) -> Unanswered:
        self.accounts.failed()
        return Unanswered(failure, self.redact(reason), attempts)
