"""The security module: token lookup, CSRF, the headers of every response and the limit on request bodies (over
real HTTP: uvicorn on loopback)."""

from __future__ import annotations

import re
import socket
import time

import httpx
import pytest

from ir_pref_measures.judging.web.security import HEADERS, MAX_BODY, Keyring, csrf_ok, csrf_token, new_token

pytest.importorskip("starlette")


def token_of(link: str) -> str:
    return link.rsplit("/", 1)[1]


def test_the_keyring_finds_each_holder_and_nobody_else():
    ann, ben, admin = new_token(), new_token(), new_token()
    keys = Keyring({"ann": ann, "ben": ben}, admin)
    assert keys.assessor(ann) == "ann" and keys.assessor(ben) == "ben"
    assert keys.assessor(admin) is None and keys.is_admin(admin)
    assert not keys.is_admin(ann) and not keys.is_admin(ann[:-1])
    for wrong in ("", ann[:-1], ann + "x", ann.upper(), "\udcff", admin + " "):
        assert keys.assessor(wrong) is None
        assert not keys.is_admin(wrong)
    with pytest.raises(ValueError):
        Keyring({"ann": ann, "ben": ann}, admin)
    with pytest.raises(ValueError):
        Keyring({"ann": ann}, ann)


def test_csrf_tokens_belong_to_one_token_and_one_secret():
    secret, token = b"s" * 32, new_token()
    good = csrf_token(secret, token)
    assert csrf_ok(secret, token, good)
    assert not csrf_ok(secret, new_token(), good)
    assert not csrf_ok(b"t" * 32, token, good)
    for wrong in (None, "", "é", "\udcff", good[:-1], good.upper(), b"bytes"):
        assert not csrf_ok(secret, token, wrong)


def responses(s) -> dict[str, httpx.Response]:
    """One response of each kind the server gives: pages, static files, refusals."""
    alice = token_of(s.links["alice"])
    admin = token_of(s.links["admin"])
    with httpx.Client(base_url=s.url) as client:
        return {
            "assessor page": client.get(f"/a/{alice}"),
            "admin page": client.get(f"/admin/{admin}"),
            "export": client.get(f"/admin/{admin}/export/pairs"),
            "stylesheet": client.get("/static/style.css"),
            "script": client.get("/static/judge.js"),
            "forbidden": client.get("/a/not-a-token"),
            "not found": client.get("/nowhere"),
            "too large": client.post(f"/a/{alice}/answer", content=b"x" * (MAX_BODY + 1)),
        }


@pytest.fixture
def every_response(server):
    return responses(server())


@pytest.mark.parametrize("header", sorted(HEADERS))
def test_every_response_carries_each_security_header(every_response, header):
    for kind, response in every_response.items():
        if header == "cache-control" and kind in ("stylesheet", "script"):
            assert response.headers[header] == "no-cache", kind  # revalidated by their ETag
            continue
        assert response.headers.get(header) == HEADERS[header], (kind, header)


def test_the_policy_allows_the_pages_own_files_only(every_response):
    policy = every_response["assessor page"].headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'self'" and directives["style-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'" and directives["form-action"] == "'self'"
    assert "unsafe-inline" not in policy
    assert every_response["stylesheet"].headers["content-type"].startswith("text/css")
    assert every_response["script"].headers["content-type"].startswith("text/javascript")


def test_static_files_are_revalidated_by_their_etag(server):
    s = server()
    with httpx.Client(base_url=s.url) as client:
        first = client.get("/static/style.css")
        again = client.get("/static/style.css", headers={"If-None-Match": first.headers["etag"]})
        assert client.get("/static/nothing.css").status_code == 404
        assert client.get("/static/../app.py").status_code == 404
    assert first.status_code == 200 and again.status_code == 304 and again.content == b""


def read_response(sock: socket.socket, timeout: float) -> bytes:
    sock.settimeout(timeout)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return data


def test_a_large_body_gets_413_before_it_is_sent(server):
    """A 2 MB body announced by its Content-Length is refused on its headers alone: the server answers before a
    byte of the body is sent, and closes the connection."""
    s = server()
    alice = token_of(s.links["alice"])
    with socket.create_connection(("127.0.0.1", s.port), timeout=10) as sock:
        head = (
            f"POST /a/{alice}/answer HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 2097152\r\n\r\n"
        )
        t0 = time.monotonic()
        sock.sendall(head.encode())
        reply = read_response(sock, timeout=10)
        elapsed = time.monotonic() - t0
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert elapsed < 10  # no body was sent at all: a server waiting for it would never have answered


def test_a_streamed_large_body_is_cut_off_at_the_limit(server):
    """A chunked body (no Content-Length) is counted as it arrives: 413 once it passes the limit, long before
    2 MB are read."""
    s = server()
    alice = token_of(s.links["alice"])
    chunk = b"x" * 16384
    sent = 0
    with socket.create_connection(("127.0.0.1", s.port), timeout=10) as sock:
        sock.sendall(
            f"POST /a/{alice}/answer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded"
            "\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
        )
        reply = b""
        sock.settimeout(0.05)
        while sent < 2 * 1024 * 1024 and not reply:
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
                reply = sock.recv(65536)
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                break
        reply += read_response(sock, timeout=10) if b"\r\n\r\n" not in reply else b""
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert sent < 1024 * 1024, f"the server read {sent} bytes before refusing"


def test_an_oversized_form_is_refused_and_a_small_one_accepted(server):
    s = server()
    alice = token_of(s.links["alice"])
    with httpx.Client(base_url=s.url) as client:
        page = client.get(f"/a/{alice}").text
        fields = dict(re.findall(r'name="(csrf|assignment)" value="([^"]*)"', page))
        big = client.post(
            f"/a/{alice}/answer", data={**fields, "answer": "left"}, files={"upload": ("big.bin", b"x" * (8 << 20))}
        )
        assert big.status_code == 413
        assert client.post(f"/a/{alice}/answer", data={**fields, "answer": "left"}).status_code == 303


def test_an_unknown_token_is_refused_before_its_body_is_read(server):
    """A form to an unknown token is refused on its path: the server answers without waiting for the body."""
    s = server()
    with socket.create_connection(("127.0.0.1", s.port), timeout=10) as sock:
        head = (
            "POST /a/not-a-token/answer HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {MAX_BODY}\r\n\r\n"
        )
        sock.sendall(head.encode())
        reply = read_response(sock, timeout=10)
    assert reply.startswith(b"HTTP/1.1 403"), reply[:200]
