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
