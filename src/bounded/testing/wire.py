"""The fake endpoint on the wire: a real HTTP/1.1 server, one thread per connection,
serving `POST /v1/chat/completions` (the endpoint's script, `bounded.testing.replies`, each
fault written as a server or a network does it), `POST /v1/embeddings` (always answered,
with `text_vector` embeddings, for `rag`) and `GET /v1/models`; any other path (the
Responses API's `POST /v1/responses`, ...) is answered 404, as a real server answers it,
and (the endpoint's `api_key`) a request without the key 401.

Every loop is bounded: a drip by the reply's length, a hang by its length, and both end
when the endpoint closes; idle keep-alive connections time out. A reply is one write with
Nagle's algorithm off, so the client's delayed ACK never holds it back."""

from __future__ import annotations

import email.utils
import json
import socket
import struct
import threading
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from bounded.testing.replies import Reply, format_type, refuse_format

EMBEDDING_DIMENSIONS = 8


def text_vector(text: str) -> list[float]:
    """A deterministic embedding of `text`: its words hashed into `EMBEDDING_DIMENSIONS`
    buckets, so texts sharing words point alike."""
    vector = [0.0] * EMBEDDING_DIMENSIONS
    for word in text.lower().split():
        vector[sum(word.encode()) % EMBEDDING_DIMENSIONS] += 1.0
    return vector


def embeddings_body(body: Mapping[str, Any]) -> dict[str, Any]:
    """`POST /v1/embeddings`: one `text_vector` per input, in order, with usage."""
    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
    data = [
        {"object": "embedding", "index": i, "embedding": text_vector(text)}
        for i, text in enumerate(texts)
    ]
    tokens = sum(len(text.split()) for text in texts)
    usage = {"prompt_tokens": tokens, "total_tokens": tokens}
    return {"object": "list", "data": data, "model": body["model"], "usage": usage}


class Served(Protocol):
    """What the handler reads of the endpoint it serves (`bounded.testing.chat_endpoint`)."""

    api_key: str | None
    latency_s: float
    refuses: frozenset[str]
    stop: threading.Event
    embedding_requests: list[dict[str, Any]]

    def arrive(self, body: dict[str, Any]) -> None: ...

    def take(self) -> Reply: ...

    def take_refusal(self) -> None: ...

    def completion_body(self, request: Mapping[str, Any], reply: Reply) -> dict[str, Any]: ...


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    timeout = 10  # an idle keep-alive connection's thread ends after this
    endpoint: Served

    def do_GET(self) -> None:
        """`GET /v1/models`: one model, `fake` (what a preflight reaches)."""
        if self._refused_key():
            return
        if route(self.path) != "models":
            self._not_served()
            return
        model = {"id": "fake", "object": "model", "created": 0, "owned_by": "bounded"}
        self._send(200, {"object": "list", "data": [model]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if self._refused_key():
            return
        if route(self.path) == "embeddings":
            self.endpoint.embedding_requests.append(body)
            self._send(200, embeddings_body(body))
            return
        if route(self.path) != "chat/completions":  # the Responses API, completions, ...
            self._not_served()
            return
        self.endpoint.arrive(body)
        if self.endpoint.latency_s:
            self.endpoint.stop.wait(self.endpoint.latency_s)
        kind = format_type(body)
        if kind is not None and kind in self.endpoint.refuses:
            self.endpoint.take_refusal()
            self._answer(body, refuse_format(kind))
            return
        self._answer(body, self.endpoint.take())

    def _not_served(self) -> None:
        """404 for a path the endpoint does not serve, as a real server answers it (a client
        that tries the Responses API first learns to use chat completions)."""
        error = {"message": f"no route {self.command} {self.path}", "type": "not_found"}
        self._send(404, {"error": error})

    def _refused_key(self) -> bool:
        """Refuse a request without the endpoint's `api_key` (401, OpenAI's shape)."""
        key = self.endpoint.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return False
        error = {"message": "Incorrect API key provided.", "type": "invalid_request_error",
                 "code": "invalid_api_key"}  # fmt: skip
        self._send(401, {"error": error})
        return True

    def _answer(self, request: dict[str, Any], reply: Reply) -> None:
        if reply.kind == "reset":
            self.close_connection = True
            linger = struct.pack("ii", 1, 0)  # close with RST, not FIN
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
            self.connection.close()
        elif reply.kind == "hang":
            self.close_connection = True
            self.endpoint.stop.wait(reply.seconds)
        elif reply.kind == "drip":
            raw = self._raw(200, self.endpoint.completion_body(request, reply))
            self._drip(raw, reply.seconds)
        elif reply.kind == "late":
            if not self.endpoint.stop.wait(reply.seconds):
                self._send(200, self.endpoint.completion_body(request, reply))
        elif reply.kind == "status":
            self._send(reply.status, reply.body, self._headers(reply))
        else:
            self._send(200, self.endpoint.completion_body(request, reply))

    def _headers(self, reply: Reply) -> tuple[tuple[str, str], ...]:
        if reply.retry_after_date_s is None:
            return reply.headers
        when = email.utils.formatdate(time.time() + reply.retry_after_date_s, usegmt=True)
        return (*reply.headers, ("Retry-After", when))

    def _raw(self, code: int, payload: Any, headers: tuple[tuple[str, str], ...] = ()) -> bytes:
        data = json.dumps(payload).encode()
        head = [f"HTTP/1.1 {code} {self.responses.get(code, ('',))[0]}",
                "Content-Type: application/json", f"Content-Length: {len(data)}",
                *(f"{k}: {v}" for k, v in headers)]  # fmt: skip
        return ("\r\n".join(head) + "\r\n\r\n").encode() + data

    def _send(self, code: int, payload: Any, headers: tuple[tuple[str, str], ...] = ()) -> None:
        self.wfile.write(self._raw(code, payload, headers))

    def _drip(self, raw: bytes, every_s: float) -> None:
        self.close_connection = True
        for byte in raw:
            if self.endpoint.stop.wait(every_s):
                return
            try:
                self.connection.sendall(bytes([byte]))
            except OSError:  # the client gave up
                return

    def log_message(self, format: str, *args: Any) -> None:
        pass


SERVED = ("chat/completions", "embeddings", "models")
"""The routes the endpoint serves, under any prefix (`/v1/`)."""


def route(path: str) -> str | None:
    """The served route a request path names (its query string left out), or None."""
    bare = path.split("?", 1)[0].rstrip("/")
    return next((name for name in SERVED if bare == name or bare.endswith(f"/{name}")), None)


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 256  # a sweep opens its connections all at once

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hangs up (or is killed) mid-reply is expected here
