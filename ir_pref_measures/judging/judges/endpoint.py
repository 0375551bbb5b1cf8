"""The endpoint options the LLM judges share, parsed and checked once.

Both the pairwise judge (:mod:`~ir_pref_measures.judging.judges.llm`) and the graded one
(:mod:`~ir_pref_measures.judging.judges.graded`) take them: the model, where the endpoint is and its key, the
requests in flight, the attempts of a prompt with their timeout and backoff, the price of the tokens and the answer
cache. :meth:`Endpoint.transport` builds the :class:`~ir_pref_measures.judging.judges.transport.ChatTransport` a
judge asks through.

The base URL and the key come from the options or the environment (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``); one of
the two is needed (a local server needs no key; OpenAI needs one). The key is never shown (not in the ``repr``).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.judges.cache import AnswerCache
from ir_pref_measures.judging.judges.transport import ChatTransport
from ir_pref_measures.judging.judges.usage import Accounts, prices


@dataclass(frozen=True)
class Endpoint:
    """The shared options of the LLM judges (module docstring), checked when made: ``concurrency`` and
    ``attempts`` integers >= 1, ``timeout``, ``backoff`` and ``max_backoff`` seconds >= 0, ``price_per_1k`` one
    price or ``input,output`` prices of 1,000 tokens; ``base_url`` and ``api_key`` as given, else from the
    environment."""

    model: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    concurrency: int = 8
    attempts: int = 6
    timeout: float = 60.0
    backoff: float = 0.5
    max_backoff: float = 30.0
    price_per_1k: float | tuple[float, float] | str = 0.0
    seed: int = 0
    cache: str | os.PathLike | None = None

    def __post_init__(self) -> None:
        if not self.model:
            raise InputError("the LLM judge needs a model name (option model)")
        for option, value in (("concurrency", self.concurrency), ("attempts", self.attempts)):
            if not isinstance(value, int) or value < 1:
                raise InputError(f"option {option} of the LLM judge: {value!r} is not an integer >= 1")
        for option in ("timeout", "backoff", "max_backoff"):
            seconds = getattr(self, option)
            if not (isinstance(seconds, int | float) and math.isfinite(seconds) and seconds >= 0):
                raise InputError(f"option {option} of the LLM judge: {seconds!r} is not a number of seconds >= 0")
            object.__setattr__(self, option, float(seconds))
        prices(self.price_per_1k)
        object.__setattr__(self, "base_url", self.base_url or os.environ.get("OPENAI_BASE_URL") or None)
        object.__setattr__(self, "api_key", self.api_key or os.environ.get("OPENAI_API_KEY") or None)
        if self.api_key is None and self.base_url is None:
            raise InputError(
                "the LLM judge has no endpoint: give base_url (or set OPENAI_BASE_URL) for a local server, "
                "or api_key (or set OPENAI_API_KEY) for OpenAI"
            )

    def transport(self, kept: str = "the answers received are kept") -> ChatTransport:
        """A transport to this endpoint with accounts of its own and the answer cache of ``cache`` (opened now);
        ``kept``: what becomes of the replies received, said when the run stops."""
        return ChatTransport(
            base_url=self.base_url,
            api_key=self.api_key,
            accounts=Accounts(self.price_per_1k),
            attempts=self.attempts,
            timeout=self.timeout,
            backoff=self.backoff,
            max_backoff=self.max_backoff,
            seed=self.seed,
            cache=AnswerCache(self.cache) if self.cache else None,
            kept=kept,
        )


ENDPOINT_OPTIONS = frozenset(f.name for f in fields(Endpoint))
