"""The one transport of an `openai:` model: JSON POSTs on a kept-alive connection, every
socket operation ending by its call's deadline.

The SDK's `chat.completions.create` spent about 3 ms of CPU a call on a loopback endpoint
(it walks every message through its type transforms, then httpx, then builds a pydantic
reply), where a plain POST of the same body costs about 0.2 ms: on a 2-core driver that
capped a sweep near a few hundred decisions a second whatever the server could do.
`Poster` sends the body the SDK sends (a chat request, or an embeddings request), over one
`http.client` connection per thread that is kept alive between calls, and returns the
reply's JSON as a dict for the model to read what it needs. What the retry policy reads
stays the SDK's: a status other than 2xx becomes the SDK's own status error for it
(`BadRequestError`, `RateLimitError`, `InternalServerError`, ..., with the response's
headers for `Retry-After`), a timeout `openai.APITimeoutError`, a broken connection
`openai.APIConnectionError`. The SDK's client itself (`bounded_client`) gives the base URL,
the headers and those errors, and serves only the preflight's `GET /models`.

Deadlines are enforced at the socket: within `ending_by(ends)` every connect, send and
receive is given at most the time left (`bounded_timeout`), so a server that drips a byte
at a time or never answers cannot hold a call past its deadline, and nothing is left
behind: no thread runs on. (The alternatives fall short: httpx's own timeouts are per
operation, so a drip renews them; streaming checks a clock only between chunks, never while
the status line or headers drip; a watchdog thread can abandon a request but not stop it.)
A host name is resolved before the deadline applies. A kept-alive connection the server has
closed while idle is opened again before it is used; a request that finds it closed anyway
is sent once more on a fresh one (no reply was read).
"""

from __future__ import annotations

import functools
import http.client
import json
import os
import select
import socket
import ssl
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpx2
import openai

_ATTEMPT_ENDS: ContextVar[float | None] = ContextVar("bounded_attempt_ends", default=None)
"""The monotonic time by which the attempt in progress in this thread must end."""

WRITE_CHUNK = 64 * 1024
"""Bytes written per bounded write, so that a large request is bounded as it goes."""

HEADERS = frozenset(
    {"Accept", "Content-Type", "User-Agent", "OpenAI-Organization", "OpenAI-Project"}
)
"""The SDK's default headers that are sent (when set); its authorization is added."""

STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)
"""What a request meets on a kept-alive connection the server has closed."""


@contextmanager
def ending_by(ends: float) -> Iterator[None]:
    """Every socket operation of this thread's requests inside ends by `ends` (monotonic)."""
    token = _ATTEMPT_ENDS.set(ends)
    try:
        yield
    finally:
        _ATTEMPT_ENDS.reset(token)


def bounded_timeout(timeout: float | None, error: type[Exception]) -> float | None:
    """An operation's timeout cut to the time its attempt has left; `error` when none is."""
    ends = _ATTEMPT_ENDS.get()
    if ends is None:
        return timeout
    left = ends - time.monotonic()
    if left <= 0:
        raise error("the call's deadline passed")
    return left if timeout is None else min(timeout, left)


class DeadlineSocket(socket.socket):
    """A socket whose every send and receive ends by its attempt's deadline."""

    base_timeout: float | None = None

    def _bound(self) -> None:
        self.settimeout(bounded_timeout(self.base_timeout, TimeoutError))

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        self._bound()
        return super().recv_into(buffer, nbytes, flags)

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        self._bound()
        return super().recv(bufsize, flags)

    def sendall(self, data: Any, flags: int = 0) -> None:
        view = memoryview(data).cast("B")
        for start in range(0, len(view), WRITE_CHUNK):
            self._bound()
            super().sendall(view[start : start + WRITE_CHUNK], flags)


class DeadlineSSLSocket(ssl.SSLSocket):
    """A TLS socket whose every send and receive ends by its attempt's deadline."""

    base_timeout: float | None = None

    def _bound(self) -> None:
        self.settimeout(bounded_timeout(self.base_timeout, TimeoutError))

    def recv_into(self, buffer: Any, nbytes: int | None = None, flags: int = 0) -> int:
        self._bound()
        return super().recv_into(buffer, nbytes, flags)

    def recv(self, buflen: int = 1024, flags: int = 0) -> bytes:
        self._bound()
        return super().recv(buflen, flags)

    def sendall(self, data: Any, flags: int = 0) -> None:
        view = memoryview(data).cast("B")
        for start in range(0, len(view), WRITE_CHUNK):
            self._bound()
            super().sendall(view[start : start + WRITE_CHUNK], flags)


def deadline_connect(timeout: float) -> Any:
    """`socket.create_connection` for `http.client`, the connect bounded by the deadline
    and the connection a `DeadlineSocket`."""

    def connect(address: tuple[str, int], _unused: Any = None, source: Any = None) -> socket.socket:
        limit = bounded_timeout(timeout, TimeoutError)
        raw = socket.create_connection(address, limit, source)
        sock = DeadlineSocket(raw.family, raw.type, raw.proto, fileno=raw.detach())
        sock.base_timeout = timeout
        return sock

    return connect


def closed_by_peer(sock: socket.socket | None) -> bool:
    """Whether an idle kept-alive connection has been closed by the server (it is readable:
    an idle HTTP/1.1 connection has nothing to read but its end)."""
    if sock is None:
        return True
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The default TLS context with deadline-bounded sockets, built once per process (it
    loads the machine's CA certificates: about 18 ms of CPU) and shared by every
    connection; an `SSLContext` may be used by many threads."""
    context = ssl.create_default_context()
    context.sslsocket_class = DeadlineSSLSocket
    return context


class Poster:
    """POSTs JSON requests under `{base_url}` for one SDK client (whose base URL, headers
    and status errors it uses): `chat/completions` unless told another path."""

    def __init__(self, client: openai.OpenAI, timeout_s: float, proxy: str | None) -> None:
        self.client = client
        self.timeout_s = timeout_s
        self.base = str(client.base_url).rstrip("/")
        self.url = self.base + "/chat/completions"
        target = urllib.parse.urlsplit(self.url)
        self.tls = target.scheme == "https"
        self.host = target.hostname or ""
        self.port = target.port or (443 if self.tls else 80)
        self.prefix = target.path.removesuffix("/chat/completions")
        self.query = f"?{target.query}" if target.query else ""
        self.proxy = urllib.parse.urlsplit(proxy) if proxy else None
        defaults = client.default_headers.items()
        sent = {k: v for k, v in defaults if k in HEADERS and isinstance(v, str)}
        self.headers = {**sent, **client.auth_headers}
        """The SDK's headers a server reads (its own telemetry headers left out: each
        header costs CPU on every call)."""
        self._local = threading.local()

    def post(self, body: dict[str, Any], path: str = "chat/completions") -> dict[str, Any]:
        """The reply's JSON; the SDK's errors for a failed request."""
        data = json.dumps(body).encode()
        url = f"{self.base}/{path}"
        try:
            status, headers, content = self._exchange(data, path)
        except TimeoutError as exc:
            raise openai.APITimeoutError(request=httpx2.Request("POST", url)) from exc
        except (OSError, http.client.HTTPException) as exc:
            request = httpx2.Request("POST", url)
            raise openai.APIConnectionError(message=str(exc), request=request) from exc
        if not 200 <= status < 300:
            request = httpx2.Request("POST", url)
            response = httpx2.Response(status, headers=headers, content=content, request=request)
            raise self.client._make_status_error_from_response(response)  # the SDK's own errors
        try:
            reply = json.loads(content)
        except ValueError as exc:
            request = httpx2.Request("POST", url)
            raise openai.APIResponseValidationError(
                httpx2.Response(status, headers=headers, content=content, request=request),
                content.decode(errors="replace")[:200],
                message=f"the reply is not JSON: {exc}",
            ) from exc
        if not isinstance(reply, dict):
            return {}
        return reply

    def _exchange(self, data: bytes, path: str) -> tuple[int, list[tuple[str, str]], bytes]:
        """One request and its whole reply, on this thread's connection (opened again when
        the server closed it while idle, and once more when a request finds it closed)."""
        connection = self._connection()
        reused = connection.sock is not None
        try:
            return self._send(connection, data, path)
        except STALE:
            connection.close()
            if not reused:
                raise
            return self._send(connection, data, path)

    def _send(
        self, connection: http.client.HTTPConnection, data: bytes, path: str
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        if self.proxy is not None and not self.tls:
            target = f"{self.base}/{path}"
        else:
            target = f"{self.prefix}/{path}{self.query}"
        try:
            connection.request("POST", target, data, self.headers)
            response = connection.getresponse()
            content = response.read()
        except BaseException:
            connection.close()
            raise
        if response.will_close:
            connection.close()
        return response.status, response.getheaders(), content

    def _connection(self) -> http.client.HTTPConnection:
        connection: http.client.HTTPConnection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._local.connection = self._open()
        elif connection.sock is not None and closed_by_peer(connection.sock):
            connection.close()
        return connection

    def _open(self) -> http.client.HTTPConnection:
        host, port = self.host, self.port
        if self.proxy is not None:
            host, port = self.proxy.hostname or "", self.proxy.port or 80
        connection: http.client.HTTPConnection
        if self.tls:
            connection = http.client.HTTPSConnection(host, port, context=tls_context())
        else:
            connection = http.client.HTTPConnection(host, port)
        if self.proxy is not None and self.tls:
            connection.set_tunnel(self.host, self.port)
        # the attribute through which http.client opens its socket
        connection._create_connection = deadline_connect(self.timeout_s)  # type: ignore[attr-defined]
        return connection


ChatPoster = Poster
"""The name it had when it posted chat requests only."""


# -- the SDK's client: the base URL, the headers and the errors ---------------------------

DEFAULT_BASE_URL = "https://api.openai.com/v1"
"""Where the SDK goes without a `base_url` or `$OPENAI_BASE_URL`."""


def environment_proxy(url: str) -> str | None:
    """The proxy `$HTTPS_PROXY`/`$HTTP_PROXY`/`$ALL_PROXY` name for `url`, unless
    `$NO_PROXY` exempts its host (what the SDK's own client would use)."""
    parts = urllib.parse.urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return proxy


_HTTP_CLIENTS: dict[tuple[int, str | None], openai.DefaultHttpxClient] = {}
_HTTP_CLIENTS_LOCK = threading.Lock()


def shared_http_client(proxy: str | None) -> openai.DefaultHttpxClient:
    """The SDK's HTTP client (the preflight's `GET /models`), one per proxy in a process
    and shared by its `openai:` models. Building one loads the machine's CA certificates
    into a TLS context, about 18 ms of CPU: a sweep of many short games in one process
    paid that for every game, and 128 games starting at once in a worker's threads waited
    on each other's. httpx's client is thread-safe; each request carries its own timeout."""
    key = (os.getpid(), proxy)  # a forked process builds its own
    with _HTTP_CLIENTS_LOCK:
        client = _HTTP_CLIENTS.get(key)
        if client is None:
            client = openai.DefaultHttpxClient(proxy=proxy)
            _HTTP_CLIENTS[key] = client
        return client


def bounded_client(base_url: str | None, api_key: str, timeout_s: float) -> openai.OpenAI:
    """The SDK's client (base URL, headers, status errors), without the SDK's own retries."""
    url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    return openai.OpenAI(
        base_url=base_url,
        api_key=api_key,
        timeout=timeout_s,
        max_retries=0,
        http_client=shared_http_client(environment_proxy(url)),
    )


__all__ = [
    "ChatPoster",
    "Poster",
    "bounded_client",
    "bounded_timeout",
    "ending_by",
    "environment_proxy",
    "shared_http_client",
    "tls_context",
]
