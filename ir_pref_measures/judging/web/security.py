"""Access to the judging interface: secret tokens and CSRF tokens.

Each assessor has a secret token (their link ``/a/TOKEN``) and the admin page its own; tokens are 32 random bytes,
URL-safe, compared in constant time. Every form carries a CSRF token: an HMAC-SHA256, under the server's secret, of
the token of the page that served it, so a form forged on another page, or for another assessor, is refused."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token() -> str:
    """A fresh secret token (256 bits, URL-safe text)."""
    return secrets.token_urlsafe(32)


def csrf_token(secret: bytes, token: str) -> str:
    """The CSRF token of the forms served to the holder of ``token``."""
    return hmac.new(secret, b"csrf:" + token.encode(), hashlib.sha256).hexdigest()


def csrf_ok(secret: bytes, token: str, given: str | None) -> bool:
    """Whether ``given`` is the CSRF token of ``token``'s forms."""
    return given is not None and hmac.compare_digest(csrf_token(secret, token), given)


def same_token(expected: str, given: str) -> bool:
    """Constant-time comparison of two tokens."""
    return hmac.compare_digest(expected.encode(), given.encode())
