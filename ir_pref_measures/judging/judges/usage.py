"""The LLM judge's accounting: what a judge has spent (prompts, HTTP attempts, retries, failures by kind, tokens,
cost) and the prices it is charged (per 1,000 input and output tokens; a batch API at :data:`BATCH_SHARE` of them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ir_pref_measures.errors import InputError

BATCH_SHARE = 0.5  # the share of the price a batch API charges


@dataclass
class Usage:
    """What a judge has spent: prompts answered, HTTP attempts, retries, tokens, cost, the prompts that stayed
    without an answer after every attempt (``failed``) and the failed attempts by kind."""

    prompts: int = 0
    attempts: int = 0
    retries: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    failed: int = 0
    failures: dict[str, int] = field(default_factory=dict)  # failed attempts by kind (HTTP 429, timeout, ...)
    cached: int = 0  # prompts answered from the answer cache (counted in prompts, at no cost)


def prices(value: float | tuple[float, float] | str) -> tuple[float, float]:
    """``price_per_1k`` as (input, output) prices of 1,000 tokens."""
    parts: list = (
        value.split(",") if isinstance(value, str) else list(value) if isinstance(value, list | tuple) else [value] * 2
    )
    try:
        prices = [float(p) for p in parts]
    except (TypeError, ValueError):
        prices = []
    if len(prices) == 1:
        prices *= 2
    if len(prices) != 2 or not all(math.isfinite(p) and p >= 0 for p in prices):
        raise InputError(f"option price_per_1k of the LLM judge: {value!r} is not a price or 'input,output' prices")
    return prices[0], prices[1]


class Accounts:
    """A judge's :class:`Usage` and the prices it is charged (``price_per_1k``, see :func:`prices`): what each
    prompt spent is counted here, by the transport (:mod:`~ir_pref_measures.judging.judges.transport`) and by the
    batch mode (:mod:`~ir_pref_measures.judging.judges.batches`, at :data:`BATCH_SHARE` of the price)."""

    def __init__(self, price_per_1k: float | tuple[float, float] | str = 0.0) -> None:
        self.price_in, self.price_out = prices(price_per_1k)
        self.usage = Usage()
        self._batch_tokens = (0, 0)  # tokens in and out paid at the batch price

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        """The price of ``tokens_in`` input and ``tokens_out`` output tokens."""
        return (tokens_in * self.price_in + tokens_out * self.price_out) / 1000

    def count(self, tokens_in: int, tokens_out: int, batch: bool = False) -> float:
        """Count an answered prompt's tokens (paid at the batch price with ``batch``); its cost. The cost of the
        usage is computed from the totals, so it does not depend on the answers' order."""
        usage = self.usage
        usage.prompts += 1
        usage.tokens_in += tokens_in
        usage.tokens_out += tokens_out
        if batch:
            self._batch_tokens = (self._batch_tokens[0] + tokens_in, self._batch_tokens[1] + tokens_out)
        batched = self.cost(*self._batch_tokens)
        synced = self.cost(usage.tokens_in - self._batch_tokens[0], usage.tokens_out - self._batch_tokens[1])
        usage.cost = synced + batched * BATCH_SHARE
        return self.cost(tokens_in, tokens_out) * (BATCH_SHARE if batch else 1.0)

    def failed(self) -> None:
        """Count a prompt that got no answer."""
        self.usage.prompts += 1
        self.usage.failed += 1
