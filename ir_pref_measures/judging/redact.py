"""Secrets kept out of what is shown and stored: :func:`redact` replaces an API key by :data:`MASK` in a text (a
message, an endpoint's error body, a reason stored with an answer), :func:`redacted` in every text of a mapping.

An endpoint may repeat the key it refused in its error body (``"Incorrect API key provided: sk-..."``), as it was
sent, JSON-escaped or URL-encoded, and a message cut to a length may end inside it: each form is replaced by
:data:`MASK`, and so is a cut piece of the key (:data:`LEAST` characters or more) at either end of the text.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping

MASK = "[key]"
LEAST = 6  # a piece of the key this long or longer, cut at an end of the text, is masked too


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with every ``secrets`` (the API key) replaced by :data:`MASK` (module docstring)."""
    for secret in secrets:
        if not secret or not isinstance(text, str):
            continue
        forms = {secret, json.dumps(secret)[1:-1], urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret)}
        for form in sorted(forms, key=len, reverse=True):
            text = text.replace(form, MASK)
        for size in range(len(secret) - 1, LEAST - 1, -1):
            if text.endswith(secret[:size]):
                text = text[:-size] + MASK
            if text.startswith(secret[-size:]):
                text = MASK + text[size:]
    return text


def redacted(fields: Mapping[str, object], *secrets: str | None) -> dict[str, object]:
    """``fields`` with every text value passed through :func:`redact`."""
    return {name: redact(value, *secrets) if isinstance(value, str) else value for name, value in fields.items()}
