"""Connecting to a Dask scheduler within a time bound: ``distributed.Client`` bounds the TCP connection but not the
handshake after it (a server that accepts and never answers holds it forever, one that answers garbage can make it
allocate exabytes). :func:`connect` checks the address with a bounded handshake of its own, then starts the client
under the same bound; anything but a scheduler answering in time is one :class:`InputError` naming the address."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
import threading
import time
from typing import TYPE_CHECKING

from ir_pref_measures.errors import InputError

if TYPE_CHECKING:
    from distributed import Client

TIMEOUT_SETTING = "distributed.comm.timeouts.connect"  # Dask's setting (default 30 s): the default bound
TCP_SCHEMES = ("tcp", "tls", "ws", "wss")  # addresses HOST:PORT reached over TCP: refused and DNS errors come at once
HANDSHAKE_LIMIT = 1 << 20  # bytes: Dask's handshake is a few hundred; a larger length prefix is not Dask's protocol
SILENCE = 1.0  # seconds: a TCP server silent this long (at most a quarter of the bound) is not sending a handshake
HTTP_REQUEST = b"GET / HTTP/1.0\r\n\r\n"  # sent to a silent server: an HTTP server answers, and is no scheduler


def connect_timeout(timeout=None) -> float:
    """The bound in seconds: ``timeout`` (seconds, or a Dask time such as ``"30s"``), else Dask's
    ``distributed.comm.timeouts.connect`` (30 s unless configured, e.g. by
    ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=10s``)."""
    import dask
    import distributed  # noqa: F401  (distributed's defaults enter dask.config when it is imported)
    from dask.utils import parse_timedelta

    value = dask.config.get(TIMEOUT_SETTING) if timeout is None else timeout
    try:
        seconds = None if isinstance(value, bool) else parse_timedelta(value, "s")
    except (TypeError, ValueError, KeyError):
        seconds = None
    if seconds is None or not 0 < seconds < float("inf"):
        where = "the Dask timeout" if timeout is not None else f"Dask's {TIMEOUT_SETTING}"
        raise InputError(f"{where} {value!r} is not a positive number of seconds")
    return float(seconds)


def connect(address: str, timeout=None):
    """A ``distributed.Client`` of the scheduler at ``address`` (``tcp://HOST:PORT``; ``tls://``, ``ws://``,
    ``wss://`` as well), within ``timeout`` seconds (default :func:`connect_timeout`'s: Dask's
    ``distributed.comm.timeouts.connect``, 30 s). ``distributed.Client`` bounds the TCP connection but not the
    handshake after it, and reads a length prefix of any size; so the address is first checked by a bounded
    handshake of its own (in a thread with its own event loop, closed before this returns), then the client
    connects. Anything but a scheduler answering in time is an :class:`InputError` naming the address: a
    malformed address, a host name that does not resolve, a refused connection, a server that does not
    answer, answers something other than Dask's protocol (an HTTP server, random bytes), closes the
    connection, or is a Dask worker."""
    seconds = connect_timeout(timeout)
    deadline = time.monotonic() + seconds
    if not isinstance(address, str):
        raise InputError(f"a Dask scheduler address is a string (tcp://HOST:PORT), not {type(address).__name__}")
    _check_scheduler(address, seconds)
    client_type = _bounded_client()
    client = client_type.__new__(client_type)  # kept, so that a failed start can be closed (its loop thread stopped)
    try:
        client_type.__init__(client, address, timeout=max(deadline - time.monotonic(), 0.01))
    except Exception as error:
        _close_failed(client)
        if isinstance(error, InputError):
            raise
        raise InputError(f"Dask scheduler {address}: {_why(error, seconds)}") from None
    return client


@functools.cache
def _bounded_client() -> type[Client]:
    """``distributed.Client`` with its connection to the scheduler, handshake included, bounded by its timeout
    (a scheduler that answered the check, then hangs, cannot hold the client)."""
    from distributed import Client

    class BoundedClient(Client):
        async def _ensure_connected(self, timeout=None):
            connecting = super()._ensure_connected(timeout=timeout)
            return await (connecting if timeout is None else asyncio.wait_for(connecting, timeout))

    return BoundedClient


def _close_failed(client) -> None:
    """Stop what a client that failed to start left running (``close`` skips a client already marked closed)."""
    with contextlib.suppress(Exception):
        client.close(timeout=1)
    runner = getattr(client, "_loop_runner", None)
    if runner is not None:
        with contextlib.suppress(Exception):
            runner.stop()


def _why(error: BaseException, seconds: float) -> str:
    """Why a connection failed, in words (one line)."""
    from distributed.comm import CommClosedError

    if isinstance(error, TimeoutError | asyncio.TimeoutError) or "Timed out" in str(error):
        return (
            f"no answer within {seconds:g} s (is it a Dask scheduler? the bound: --dask-timeout SECONDS, "
            f"or Dask's {TIMEOUT_SETTING})"
        )
    if isinstance(error, ConnectionRefusedError):
        return "connection refused (no scheduler listens there)"
    if isinstance(error, socket.gaierror):
        return f"the host name does not resolve ({error.strerror or error})"
    if isinstance(error, CommClosedError | ConnectionResetError | EOFError | asyncio.IncompleteReadError):
        return "the server closed the connection before a Dask scheduler's answer"
    if isinstance(error, OSError):
        return f"cannot connect ({' '.join(str(error).split())})"
    detail = " ".join(str(error).split())[:120]
    return f"the server does not answer in Dask's protocol ({type(error).__name__}{': ' if detail else ''}{detail})"


def _host_port(address: str) -> tuple[str, str, int | None]:
    """``(scheme, host, port)`` of an address (host and port only for the TCP schemes); an :class:`InputError`
    for a malformed one."""
    from distributed.comm import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    def malformed(what: str) -> InputError:
        return InputError(f"{address!r} is not a Dask scheduler address ({what}; expected tcp://HOST:PORT)")

    scheme, location = parse_address(address)
    try:
        get_backend(scheme)
    except ValueError:
        raise malformed(f"unknown scheme {scheme!r}") from None
    if scheme not in TCP_SCHEMES:
        return scheme, location, None
    try:
        host, port = parse_host_port(location)
    except ValueError:
        after_host = location.rpartition("]")[2]  # an IPv6 host is in brackets
        port_text = after_host.rpartition(":")[2] if ":" in after_host else ""
        raise malformed(f"the port {port_text!r} is not a number" if port_text else "no port") from None
    if not host:
        raise malformed("no host")
    if not 0 < port < 65536:
        raise malformed(f"the port {port} is out of range")
    return scheme, host, port


def _check_scheduler(address: str, seconds: float) -> None:
    """An :class:`InputError` unless a Dask scheduler at ``address`` completes a handshake and says it is one,
    within ``seconds``. Runs in a thread of its own (the caller may be inside an event loop, as in Jupyter)."""
    scheme, host, port = _host_port(address)
    outcome: list = []

    def check() -> None:
        try:
            outcome.append(asyncio.run(asyncio.wait_for(_handshake(address, scheme, host, port, seconds), seconds)))
        except BaseException as error:  # reported in the caller's thread below
            outcome.append(error)

    thread = threading.Thread(target=check, name="ir-pref-measures: Dask scheduler check", daemon=True)
    thread.start()
    thread.join(seconds + 1)  # the event loop is closed once wait_for has given up (plus a name lookup in flight)
    found = outcome[0] if outcome else TimeoutError()
    if isinstance(found, str):
        raise InputError(f"Dask scheduler {address}: {found}")
    if isinstance(found, BaseException):
        raise InputError(f"Dask scheduler {address}: {_why(found, seconds)}")


async def _handshake(address: str, scheme: str, host: str, port: int | None, seconds: float) -> str | None:
    """``None`` for a Dask scheduler, else what is there instead (raises what the connection raises)."""
    from distributed.comm import connect as open_comm
    from distributed.security import Security

    if port is not None:  # a plain TCP connection first: a refused port or an unknown host fails at once
        reader, writer = await asyncio.open_connection(host, port)
        try:
            if scheme == "tcp":  # a Dask server sends its handshake first, a length prefix to begin
                try:
                    first = await asyncio.wait_for(reader.readexactly(8), min(SILENCE, seconds / 4))
                except asyncio.TimeoutError:  # silent so far: an HTTP server waits for a request, and answers it
                    writer.write(HTTP_REQUEST)
                    first = await reader.readexactly(8)
                size = int.from_bytes(first, "little")
                if not 0 < size <= HANDSHAKE_LIMIT:
                    return f"the server does not answer in Dask's protocol (it announces a message of {size} bytes)"
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
    comm = await open_comm(address, timeout=seconds, **Security().get_connection_args("client"))
    try:
        await comm.write({"op": "identity", "reply": True})
        identity = await comm.read()
    finally:
        comm.abort()
    kind = identity.get("type") if isinstance(identity, dict) else None
    if isinstance(kind, str) and "scheduler" in kind.lower():
        return None
    if isinstance(kind, str):
        return f"this is a Dask {kind.lower()}, not a scheduler (give the scheduler's address)"
    return "the server does not answer in Dask's protocol (no identity)"
