"""The LLM judge: preference questions asked of any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, the
llama.cpp server) through the chat transport (:mod:`~ir_pref_measures.judging.judges.transport`; the optional
extra ``ir-pref-measures[llm]``). The judge makes the prompts of its preset and reads the replies; the transport
asks them, the accounting (:mod:`~ir_pref_measures.judging.judges.usage`) counts what they cost.

Each pair is asked in the orders of its preset (both, by default) and ``samples`` times per order, each prompt
once per sample, with at most ``concurrency`` requests in flight (asyncio; each of ``concurrency`` workers has an
HTTP client of its own with one kept-alive connection). A
rate limit (429), a server error (5xx, 408, 409), a timeout, a lost connection, or a body that is malformed or
empty is retried after an exponential backoff with full jitter (``backoff * 2**retry`` seconds at most, capped at
``max_backoff``; a ``Retry-After`` header of a 429 is honoured), up to ``attempts`` attempts in all; after the last
the prompt's answer is ``unusable`` with the reason. A refused key or an unknown model (401, 403, 404) stops the
run (:class:`EndpointError`): every other request would fail the same way. Any other 4xx (a prompt too long, say)
is that prompt's ``unusable`` answer. A pair whose query or document text is missing is not asked: each of its
prompts gets an ``unusable`` answer saying which text is missing.

Each ``unusable`` answer names its kind of failure (``Answer.failure``): ``transport`` when no reply was received
(connection failed, timeouts, 5xx or 429 after every attempt, a malformed body), which is no answer and is asked
again by a resumed run; ``content`` (a reply that reads as no answer), ``request`` (another 4xx) and ``text`` (a
text missing) are final. A transport failure that repeats stops the run (:class:`EndpointError`) rather than
spending the effort on failures: a prompt that cannot connect (refused, DNS, TLS) on
:data:`UNREACHABLE_ATTEMPTS` attempts in a row, or :data:`FAILED_PROMPTS` prompts in a row without a reply.
Answers are handed back as they arrive (``on_answer`` of :meth:`LLMJudge.ajudge`), so a caller can store each
at once.

The base URL and the key come from the options or the environment (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``); the
key is never logged, stored or shown (a reply or a message repeating it has it replaced by ``[key]``). Tokens are
counted from each response's ``usage``; with a price per 1,000 tokens the judge also counts the cost. With an
answer ``cache`` (:mod:`~ir_pref_measures.judging.judges.cache`), a prompt whose reply is kept there is not sent: its
answer is read from the kept reply, marked ``cached``, at no cost; each reply received is kept there. In batch mode
(``mode="batch"``) the prompts go as the provider's batches instead, at half the price
(:mod:`~ir_pref_measures.judging.judges.batches`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import math
import os
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.judges.batches import BATCH_URLS, PROVIDERS, BatchClient, judge_in_batches
from ir_pref_measures.judging.judges.confidence import p_first
from ir_pref_measures.judging.judges.endpoint import Endpoint
from ir_pref_measures.judging.judges.presets import Preset, preset
from ir_pref_measures.judging.judges.transport import (
    FAILED_PROMPTS,
    UNREACHABLE_ATTEMPTS,
    EndpointError,
    Reply,
)
from ir_pref_measures.judging.judges.usage import Usage
from ir_pref_measures.judging.protocol import Answer, Pair
from ir_pref_measures.judging.texts import Texts
from ir_pref_measures.progress import progress

if TYPE_CHECKING:
    import httpx

    from ir_pref_measures.judging.judges.stream import Stream

__all__ = ["FAILED_PROMPTS", "OPTIONS", "UNREACHABLE_ATTEMPTS", "EndpointError", "LLMJudge", "llm_judge_from_options"]


def _text(value: str) -> str:
    return value


def true_or_false(value: str) -> bool:
    if value.lower() not in ("true", "false", "yes", "no", "1", "0"):
        raise ValueError(value)
    return value.lower() in ("true", "yes", "1")


# name -> (the type of a value given as text, default, meaning): the options of llm_judge_from_options (and `judge run`)
OPTIONS: dict[str, tuple[Callable[[str], object], object, str]] = {
    "model": (_text, None, "the model name the endpoint serves (required)"),
    "preset": (_text, "arabzadeh-clarke", "a preset name, or a prompt template with {query}, {first}, {second}"),
    "base_url": (_text, None, "the endpoint, e.g. http://localhost:8000/v1 (default: $OPENAI_BASE_URL, else OpenAI)"),
    "api_key": (_text, None, "the key (default: $OPENAI_API_KEY; a local endpoint given by base_url needs none)"),
    "samples": (int, 1, "answers asked per order of each pair"),
    "concurrency": (int, 8, "requests in flight at most"),
    "attempts": (int, 6, "attempts per prompt before its answer is unusable"),
    "timeout": (float, 60.0, "seconds before a request is abandoned (and retried)"),
    "backoff": (float, 0.5, "seconds of the first retry's backoff at most (doubled at each retry, full jitter)"),
    "max_backoff": (float, 30.0, "seconds of backoff at most"),
    "price_per_1k": (_text, 0.0, "the price of 1,000 tokens: one number, or 'input,output'"),
    "temperature": (float, None, "sampling temperature (default: the endpoint's)"),
    "max_tokens": (int, None, "tokens per answer at most (default: the endpoint's)"),
    "seed": (int, 0, "seeds the jitter; sent to the endpoint as seed + sample with send_seed"),
    "send_seed": (
        true_or_false,
        False,
        "send the seed with each request (endpoints that support it sample reproducibly)",
    ),
    "name": (_text, "llm", "the judge id stored with each answer"),
    "logprobs": (int, 0, "top log-probabilities asked per token (0: none); each answer's p(first) is read from them"),
    "cache": (_text, None, "an answer cache shared by efforts: a SQLite file (made if missing) or a PostgreSQL URL"),
    "mode": (_text, "sync", "sync (a request per prompt) or batch (the provider's batch API, at half the price)"),
    "batch_api": (_text, "openai", "batch mode: the provider's batch API, openai or anthropic"),
    "poll": (float, 30.0, "batch mode: seconds between two polls of a batch"),
}


@dataclass(frozen=True)
class _Prompt:
    pair: Pair  # in the order shown
    sample: int
    messages: tuple  # the chat messages, or () when a text is missing
    missing: str = ""


class LLMJudge:
    """An LLM as a judge (see the module's docstring; the options are :data:`OPTIONS`)."""

    def __init__(
        self,
        texts: Texts,
        *,
        model: str,
        preset: str | Preset = "arabzadeh-clarke",
        base_url: str | None = None,
        api_key: str | None = None,
        samples: int = 1,
        concurrency: int = 8,
        attempts: int = 6,
        timeout: float = 60.0,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        price_per_1k: float | tuple[float, float] = 0.0,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int = 0,
        send_seed: bool = False,
        name: str = "llm",
        cache: str | os.PathLike | None = None,
        mode: str = "sync",
        batch_api: str = "openai",
        poll: float = 30.0,
        progress: bool = False,
        logprobs: int = 0,
    ) -> None:
        for option, value, least in (("samples", samples, 1), ("logprobs", logprobs, 0)):
            if not isinstance(value, int) or value < least:
                raise InputError(f"option {option} of the LLM judge: {value!r} is not an integer >= {least}")
        self.preset = _preset(preset)
        self.endpoint = Endpoint(
            model=model,
            base_url=base_url,
            api_key=api_key,
            concurrency=concurrency,
            attempts=attempts,
            timeout=timeout,
            backoff=backoff,
            max_backoff=max_backoff,
            price_per_1k=price_per_1k,
            seed=seed,
            cache=cache,
        )
        self.texts = texts
        self.model, self.name = model, name
        self.samples, self.concurrency, self.attempts = samples, concurrency, attempts
        self.timeout, self.backoff = self.endpoint.timeout, self.endpoint.backoff
        self.max_backoff = self.endpoint.max_backoff
        self.temperature, self.max_tokens = temperature, max_tokens
        self.seed, self.send_seed = seed, send_seed
        self.logprobs = logprobs  # top log-probabilities asked per token: p(first) (judging.confidence)
        self.show_progress = progress
        self.base_url, self._api_key = self.endpoint.base_url, self.endpoint.api_key
        if mode not in ("sync", "batch"):
            raise InputError(f"option mode of the LLM judge: {mode!r} is not sync or batch")
        if batch_api not in PROVIDERS:
            raise InputError(f"option batch_api of the LLM judge: {batch_api!r} is not one of {', '.join(PROVIDERS)}")
        if not (isinstance(poll, int | float) and math.isfinite(poll) and poll >= 0):
            raise InputError(f"option poll of the LLM judge: {poll!r} is not a number of seconds >= 0")
        self.mode, self.batch_api, self.poll = mode, batch_api, float(poll)
        self.ledger = None  # where batch ids are kept (the effort's store: keep_batches_in)
        self.transport = self.endpoint.transport()
        self.accounts, self.cache = self.transport.accounts, self.transport.cache
        self.price_in, self.price_out = self.accounts.price_in, self.accounts.price_out

    @property
    def usage(self) -> Usage:
        """What the judge has spent (:class:`~ir_pref_measures.judging.judges.usage.Usage`)."""
        return self.accounts.usage

    def __repr__(self) -> str:  # never the key
        return f"LLMJudge(model={self.model!r}, preset={self.preset.name!r}, base_url={self.base_url!r})"

    # -- the Judge protocol --

    def judge(
        self,
        pairs: Sequence[Pair],
        on_answer: Callable[[Answer], None] | None = None,
        done: Collection[tuple[Pair, int]] = (),
    ) -> list[Answer]:
        """One :class:`Answer` per prompt: for each pair in order, each order of the preset, each sample
        (``on_answer`` and ``done`` as in :meth:`ajudge`)."""
        if self.mode == "batch":
            return judge_in_batches(self, pairs, on_answer, done)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.ajudge(pairs, on_answer, done))
        with ThreadPoolExecutor(1) as worker:  # inside a running loop (a notebook): a thread runs its own loop
            return worker.submit(asyncio.run, self.ajudge(pairs, on_answer, done)).result()

    @property
    def streams(self) -> bool:
        """Whether a judging run may stream its prompts (:meth:`stream`): in sync mode; in batch mode a run asks
        each sweep's prompts as batches."""
        return self.mode == "sync"

    def keep_batches_in(self, ledger) -> None:
        """Keep the ids of the batches sent in ``ledger`` (a :class:`~ir_pref_measures.judging.store.Store`), so
        that a run stopped while its batches are processed resumes polling them and sends none again."""
        self.ledger = ledger

    def prompts_of(self, pair: Pair) -> list[tuple[Pair, int]]:
        """The prompts of ``pair``: ``(pair as shown, sample)`` for each order of the preset and each sample."""
        return [(shown, sample) for shown in self.preset.orders(pair) for sample in range(self.samples)]

    async def ajudge(
        self,
        pairs: Sequence[Pair],
        on_answer: Callable[[Answer], None] | None = None,
        done: Collection[tuple[Pair, int]] = (),
    ) -> list[Answer]:
        """:meth:`judge` as a coroutine: ``concurrency`` workers, each with a client of one kept-alive connection
        (a shared pool of many connections costs several times the CPU per request), take the prompts in turn.
        ``on_answer(answer)`` is called with each answer as it arrives; the prompts of ``done`` (``(pair as
        shown, sample)``, answered before) are not asked and not returned."""
        asked, at_once = self.split(pairs, done)
        answers: list[Answer | None] = [None] * (len(asked) + len(at_once))
        for index, answer in at_once:
            answers[index] = answer
            if on_answer is not None:
                on_answer(answer)
        waiting = collections.deque(asked)
        bar = progress(len(waiting), f"LLM judge ({self.model})", self.show_progress)

        async def take() -> tuple[int, _Prompt] | None:
            return waiting.popleft() if waiting else None

        def give(index: int, answer: Answer) -> None:
            answers[index] = answer
            if on_answer is not None:
                on_answer(answer)
            bar.update(1)

        workers = [asyncio.ensure_future(self.work(take, give)) for _ in range(min(self.concurrency, len(waiting)))]
        try:
            await asyncio.gather(*workers)
        finally:
            for worker in workers:
                worker.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.gather(*workers, return_exceptions=True)
            bar.close()
        return [a for a in answers if a is not None]

    def split(
        self, pairs: Sequence[Pair], done: Collection[tuple[Pair, int]] = ()
    ) -> tuple[list[tuple[int, _Prompt]], list[tuple[int, Answer]]]:
        """The prompts of ``pairs`` (those of ``done`` left out), numbered in order, split into those to ask and
        the answers given at once: the ``unusable`` answer of each prompt whose text is missing."""
        prompts = [p for p in self._prompts(pairs) if (p.pair, p.sample) not in done]
        asked = [(i, p) for i, p in enumerate(prompts) if not p.missing]
        return asked, [(i, self._missing(p)) for i, p in enumerate(prompts) if p.missing]

    async def work(
        self, take: Callable[[], Awaitable[tuple[Any, _Prompt] | None]], give: Callable[[Any, Answer], None]
    ) -> None:
        """One worker: a client with one kept-alive connection (a shared pool of many connections costs several
        times the CPU per request) asks the prompts ``take`` hands out, ``(key, prompt)``, until it hands out
        ``None``, and gives each answer to ``give(key, answer)`` as it arrives."""
        client = self.transport.client()
        try:
            while (taken := await take()) is not None:
                key, prompt = taken
                give(key, await self._ask(client, prompt))
        finally:
            await client.aclose()

    def stream(self) -> Stream:
        """A stream of prompts to this judge for a whole run (:class:`~ir_pref_measures.judging.judges.stream.Stream`):
        pairs submitted at any time, ``concurrency`` requests in flight across all of them."""
        from ir_pref_measures.judging.judges.stream import Stream

        return Stream(self)

    # -- the prompts --

    def _prompts(self, pairs: Sequence[Pair]) -> list[_Prompt]:
        prompts = []
        for pair in pairs:
            missing = self.texts.missing(pair)
            query = self.texts.query(pair.query_id)
            for shown in self.preset.orders(pair):
                messages = () if missing else self._messages(query, shown)
                prompts += [_Prompt(shown, sample, messages, missing) for sample in range(self.samples)]
        return prompts

    def _messages(self, query, shown: Pair) -> tuple:
        first, second = self.texts.document(shown.first), self.texts.document(shown.second)
        assert first is not None and second is not None, "asked only of pairs whose texts are there (missing)"
        messages = self.preset.messages(query, first, second)
        return tuple(messages)

    def _answer(self, prompt: _Prompt, answer: str, **details) -> Answer:
        for name in ("raw", "reason"):
            if name in details:
                details[name] = self._redact(details[name])
        return Answer(
            prompt.pair,
            answer,
            self.name,
            sample=prompt.sample,
            model=self.model,
            prompt_hash=self.preset.prompt_hash,
            **details,
        )

    # -- the requests --

    def request(self, prompt: _Prompt) -> dict:
        """The chat request of ``prompt``: model, messages and the sampling options."""
        request: dict[str, object] = {"model": self.model, "messages": [dict(m) for m in prompt.messages]}
        if self.temperature is not None:
            request["temperature"] = self.temperature
        if self.max_tokens is not None:
            request["max_tokens"] = self.max_tokens
        if self.send_seed:
            request["seed"] = self.seed + prompt.sample
        if self.logprobs:
            request["logprobs"], request["top_logprobs"] = True, self.logprobs
        return request

    async def _ask(self, client: httpx.AsyncClient, prompt: _Prompt) -> Answer:
        """One prompt asked through the transport (:meth:`~.transport.ChatTransport.ask`); its answer."""
        confidence = self._confidence if self.logprobs else None
        reply = await self.transport.ask(client, self.request(prompt), prompt.sample, confidence)
        if not isinstance(reply, Reply):
            return self._answer(prompt, "unusable", reason=reply.reason, failure=reply.failure, attempts=reply.attempts)
        if reply.cached:
            return self._reply(prompt, reply.raw, cached=True, p_first=reply.p_first)
        return self._reply(
            prompt,
            reply.raw,
            tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out,
            latency=reply.latency,
            attempts=reply.attempts,
            cost=reply.cost,
            p_first=reply.p_first,
        )

    def _confidence(self, logprobs: object) -> float | None:
        """p(first) read from a reply's log-probabilities (:func:`~.confidence.p_first`)."""
        return p_first(logprobs, self.preset.labels)

    def _delay(self, attempt: int, retry_after: float) -> float:
        """The wait before ``attempt`` (:meth:`~.transport.ChatTransport.delay`)."""
        return self.transport.delay(attempt, retry_after)

    def batch_client(self) -> BatchClient:
        """The client of the batch endpoints of ``batch_api`` at ``base_url`` (else the provider's)."""
        return BatchClient(self.batch_api, self.base_url or BATCH_URLS[self.batch_api], self._api_key, self.timeout)

    def from_batch(self, prompt: _Prompt, result: tuple | None, state: str) -> Answer:
        """The answer of ``prompt`` from its batch ``result`` (:func:`.batches.judge_in_batches`): a reply read as
        a synchronous one is, at the batch price; none (``state`` says why) a transport failure."""
        if result is None or result[0] is None:
            kind = f"batch {state}" if result is None else "batch request failed"
            self.usage.failures[kind] = self.usage.failures.get(kind, 0) + 1
            self.accounts.failed()
            reason = result[1] if result else f"no result: the batch {state}"
            return self._answer(prompt, "unusable", reason=reason, failure="transport", attempts=1)
        raw, tokens_in, tokens_out = result
        self.usage.attempts += 1
        cost = self.accounts.count(tokens_in, tokens_out, batch=True)
        return self._reply(prompt, raw, tokens_in=tokens_in, tokens_out=tokens_out, attempts=1, cost=cost)

    def _reply(self, prompt: _Prompt, raw: str, **details) -> Answer:
        """The answer read from a reply's text ``raw`` (``unusable``, a ``content`` failure, when it reads as none)."""
        answer = self.preset.read(raw)
        unusable = answer == "unusable"
        reason = "the response could not be read as an answer" if unusable else ""
        return self._answer(prompt, answer, raw=raw, reason=reason, failure="content" if unusable else "", **details)

    def _missing(self, prompt: _Prompt) -> Answer:
        """The ``unusable`` answer of a prompt not asked: a text is missing."""
        return self._answer(prompt, "unusable", reason=prompt.missing, failure="text")

    @property
    def url(self) -> str:
        """The endpoint as it may be shown (without a password)."""
        return self.transport.url

    def _redact(self, text: str) -> str:
        """``text`` with the key replaced by ``[key]`` (:meth:`~.transport.ChatTransport.redact`)."""
        return self.transport.redact(text)

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        """The price of ``tokens_in`` input and ``tokens_out`` output tokens at ``price_per_1k``."""
        return self.accounts.cost(tokens_in, tokens_out)


def _preset(value: str | Preset) -> Preset:
    try:
        return preset(value)
    except ValueError as error:
        raise InputError(f"option preset of the LLM judge: {error}") from None


def llm_judge_from_options(options: dict) -> LLMJudge:
    """An :class:`LLMJudge` from command-line style options (:data:`OPTIONS`, values as strings or typed), with
    ``texts`` (a :class:`Texts`) or ``queries`` and ``documents`` (a file or an ir_datasets ID each, see
    :func:`~ir_pref_measures.judging.texts.load_texts`)."""
    texts, typed = read_options(options, OPTIONS)
    return LLMJudge(texts, **typed)


def read_options(options: Mapping[str, object], known: Collection[str]) -> tuple[Texts, dict[str, Any]]:
    """The texts and the typed options (:data:`OPTIONS`) of command-line style ``options`` naming only ``known``
    options: ``texts`` (a :class:`Texts`) or ``queries`` and ``documents`` (a file or an ir_datasets ID each)."""
    from ir_pref_measures.judging.texts import load_texts

    options = dict(options)
    texts: Any = options.pop("texts", None)
    if texts is None:
        if "queries" not in options or "documents" not in options:
            raise InputError(
                "the LLM judge needs the texts: options queries and documents (a file or an ir_datasets ID)"
            )
        texts = load_texts(options.pop("queries"), options.pop("documents"))
    if not options.get("model"):
        raise InputError("the LLM judge needs a model name (option model)")
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise InputError(f"unknown option(s) of the LLM judge: {', '.join(unknown)}; known: {', '.join(known)}")
    return texts, {name: _typed(name, value) for name, value in options.items()}


def _typed(name: str, value):
    """An option given as text converted to its type (:data:`OPTIONS`); other values as they are."""
    kind = OPTIONS[name][0]
    if not isinstance(value, str):
        return value
    try:
        return kind(value)
    except ValueError:
        raise InputError(f"option {name} of the LLM judge: {value!r} is not a {kind.__name__}") from None


def __getattr__(name: str):
    """``make_judge``: the old name of :func:`llm_judge_from_options` (warns once; removed in the next release)."""
    if name == "make_judge":
        from ir_pref_measures.errors import renamed

        renamed("ir_pref_measures.judging.llm.make_judge", "llm_judge_from_options")
        return llm_judge_from_options
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
