"""Access to the judging interface, all in one place: secret tokens and who holds them, CSRF tokens, the security
headers of every response and the limit on request bodies.

Each assessor has a secret token (their link ``/a/TOKEN``) and the admin page its own; tokens are 32 random bytes,
URL-safe. A :class:`Keyring` finds the holder of a token in constant time: it keeps the tokens' SHA-256 digests
and looks the digest of the token given up (so the time taken depends on the digest, which says nothing about how
much of a token is right), then compares the token found with :func:`hmac.compare_digest`. Every form carries a
CSRF token: an HMAC-SHA256, under the server's secret, of the token of the page that served it, so a form forged
on another page, or for another assessor, is refused.

Two ASGI middlewares wrap the app: :class:`SecurityHeaders` puts :data:`HEADERS` on every response (pages, static
files, refusals), and :class:`BodyLimit` refuses a request body larger than its limit with 413 before reading it:
at once when its ``Content-Length`` says so, else as soon as the bytes received pass the limit (a chunked body),
so a large upload is never read whole."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping

# the headers of every response (a response's own Cache-Control is kept: the static files may be revalidated)
HEADERS = {
    "content-security-policy": "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cache-control": "no-store",
}


def headers(form_targets: tuple[str, ...] = ()) -> dict[str, str]:
    """:data:`HEADERS`, the policy's ``form-action`` extended to the origins ``form_targets`` (a crowd study's
    completion URL, where a participant's last answer leads)."""
    if not form_targets:
        return dict(HEADERS)
    allowed = f"form-action 'self' {' '.join(form_targets)}"
    policy = HEADERS["content-security-policy"].replace("form-action 'self'", allowed)
    return HEADERS | {"content-security-policy": policy}


MAX_BODY = 64 * 1024  # bytes: a form of the interface is a few hundred


def new_token() -> str:
    """A fresh secret token (256 bits, URL-safe text)."""
    return secrets.token_urlsafe(32)


def same_token(expected: str, given: str) -> bool:
    """Constant-time comparison of two tokens."""
    return hmac.compare_digest(expected.encode(), given.encode())


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


class Keyring:
    """The holders of the secret tokens: ``assessors`` (``{name: token}``) and the ``admin``; every token its
    own."""

    def __init__(self, assessors: Mapping[str, str], admin: str) -> None:
        tokens = [*assessors.values(), admin]
        if len(set(tokens)) != len(tokens):
            raise ValueError("every assessor and the admin need tokens of their own")
        self._admin = admin
        self._holders: dict[bytes, tuple[str, str | None]] = {_digest(t): (t, n) for n, t in assessors.items()}
        self._holders[_digest(admin)] = (admin, None)

    def _holder(self, token: str) -> tuple[str, str | None] | None:
        found = self._holders.get(_digest(token))
        return found if found is not None and same_token(found[0], token) else None

    def assessor(self, token: str) -> str | None:
        """The assessor holding ``token``, or ``None`` (the admin's token is no assessor's)."""
        found = self._holder(token)
        return None if found is None else found[1]

    def is_admin(self, token: str) -> bool:
        """Whether ``token`` is the admin's."""
        found = self._holder(token)
        return found is not None and found[1] is None


def csrf_token(secret: bytes, token: str) -> str:
    """The CSRF token of the forms served to the holder of ``token``."""
    return hmac.new(secret, b"csrf:" + token.encode(), hashlib.sha256).hexdigest()


def csrf_ok(secret: bytes, token: str, given: object) -> bool:
    """Whether ``given`` is the CSRF token of ``token``'s forms."""
    return isinstance(given, str) and hmac.compare_digest(
        csrf_token(secret, token).encode(), given.encode("utf-8", "surrogatepass")
    )


class SecurityHeaders:
    """ASGI middleware: :data:`HEADERS` on every HTTP response (``Cache-Control`` only where the response has
    none)."""

    def __init__(self, app, headers: Mapping[str, str] = HEADERS) -> None:
        self.app = app
        self.headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message) -> None:
            if message["type"] == "http.response.start":
                own = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in self.headers if k not in own]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


class BodyTooLarge(Exception):
    """A request body passed the limit while it was being read."""


class BodyLimit:
    """ASGI middleware: a request whose body is larger than ``limit`` bytes gets 413, before the body is read."""

    def __init__(self, app, limit: int = MAX_BODY) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers", [])).get(b"content-length")
        if length is not None and (not length.strip().isdigit() or int(length) > self.limit):
            await self.refuse(send)
            return
        received = 0
        started = False

        async def limited():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise BodyTooLarge
            return message

        async def watched(message) -> None:
            nonlocal started
            started |= message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited, watched)
        except BodyTooLarge:
            if started:
                raise
            await self.refuse(send)

    async def refuse(self, send) -> None:
        text = f"request body too large: at most {self.limit} bytes\n".encode()
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(text)).encode())]
        await send({"type": "http.response.start", "status": 413, "headers": [*headers, (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": text})
