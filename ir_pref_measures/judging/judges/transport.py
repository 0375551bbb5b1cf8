"""The LLM judge's transport: the classification of a failed HTTP attempt (retried or fatal, the wait the endpoint
asks for, no connection at all), the error of an endpoint that refuses every request, and the reading of a chat
completion (its text, token counts and log-probabilities) from an OpenAI-compatible endpoint's body.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ir_pref_measures.errors import Stopped

RETRIED_STATUS = (408, 409, 429)  # and every 5xx
FATAL_STATUS = (401, 403, 404)


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


def retry_after(error) -> float:
    """The seconds of a ``Retry-After`` header (0 when absent or a date)."""
    try:
        return max(0.0, float(error.response.headers.get("retry-after", "0")))
    except (AttributeError, TypeError, ValueError):
        return 0.0


def message(error) -> str:
    """The endpoint's message of an HTTP error, at most 200 characters."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        body = body.get("message", body)
    return str(body or error)[:200]


async def post_chat(
    client, request: dict, url: str, timeout: float, redact: Callable[[str], str]
) -> tuple[str, int, int, object] | Failure:
    """One chat request of ``client`` to ``url``: the response's text, token counts and log-probabilities, or why
    it failed (and whether to retry); an endpoint refusing every request (:data:`FATAL_STATUS`) raises
    :class:`EndpointError`, its message passed through ``redact``."""
    import httpx
    import openai

    try:
        response = await client.post("/chat/completions", body=request, cast_to=httpx.Response)
        return read_completion(json.loads(response.content))
    except openai.APIStatusError as error:
        status = error.status_code
        if status in FATAL_STATUS:
            hint = "check base_url and the model name" if status == 404 else "check the key"
            detail = redact(" ".join(message(error).split()))
            raise EndpointError(f"{url} refused the request: HTTP {status} ({detail}); {hint}") from None
        retried = status in RETRIED_STATUS or status >= 500
        wait = retry_after(error) if status == 429 else 0.0
        return Failure(f"HTTP {status}", f"HTTP {status}: {message(error)}", retried, wait)
    except openai.APITimeoutError:
        return Failure("timeout", f"timeout after {timeout:g} s")
    except openai.APIConnectionError as error:
        cause = error.__cause__ or error
        detail = f"connection failed ({type(cause).__name__})"
        return Failure("connection", detail, unreachable=isinstance(cause, httpx.ConnectError))
    except (ValueError, TypeError, KeyError) as error:  # json's errors are ValueErrors
        return Failure("malformed", f"malformed response ({error})")


def delay(attempt: int, retry_after: float, backoff: float, max_backoff: float, rng: np.random.Generator) -> float:
    """The wait before ``attempt``, full jitter: uniform in [0, min(max_backoff, backoff * 2**(attempt - 1))],
    at least a 429's ``Retry-After`` (capped at max_backoff)."""
    bound = min(max_backoff, backoff * 2 ** (attempt - 1))
    wait = float(rng.uniform(0.0, bound)) if bound > 0 else 0.0
    return max(wait, min(max_backoff, retry_after))
