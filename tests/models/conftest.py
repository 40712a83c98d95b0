"""A fault-injecting OpenAI-compatible server for the endpoint tests.

`fault_server` is a real HTTP/1.1 server on 127.0.0.1, in a thread, serving
`POST /v1/chat/completions` (and `POST /v1/embeddings`, always answered, for `rag`).
Each request takes the next fault of its script
(`server.play(server.status(429, retry_after="1"), server.ok())`), then the `then` fault
(a good reply by default): an error status with or without
`Retry-After`, a connection reset, a refusal of the json_schema form, a reply dripped one
byte at a time, a hang, a late reply, a reply without `usage`, a reasoning model's reply
(`thinking`: a `reasoning_content` beside the content, `reasoning_tokens` in its usage). It
records every request
(body and arrival time), so a test counts attempts and the waits between them. Every
loop is bounded: a drip by the reply's length, a hang by its length, and both end when
the fixture closes the server; idle keep-alive connections time out.
"""

from __future__ import annotations

import email.utils
import json
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import pairwise
from typing import Any

import pytest

REPLY = '{"action": {"id": "go_north"}}'
USAGE = {
    "prompt_tokens": 11,
    "completion_tokens": 5,
    "total_tokens": 16,
    "prompt_tokens_details": {"cached_tokens": 7},
}


@dataclass(frozen=True)
class Fault:
    """What the server does with one request."""

    kind: str = "ok"
    """ok, status, reset, drip, hang, late."""
    status: int = 200
    body: Any = None
    """The JSON body of an error status."""
    headers: tuple[tuple[str, str], ...] = ()
    retry_after_date_s: float | None = None
    """Send `Retry-After` as an HTTP date this many seconds after the request arrives."""
    seconds: float = 0.0
    """drip: between bytes; hang: how long; late: delay before a good reply."""
    usage: bool = True
    content: str = REPLY
    reasoning: str = ""
    """A `reasoning_content` beside the content (a reasoning model's channel)."""
    reasoning_tokens: int | None = None
    """Usage's `completion_tokens_details.reasoning_tokens` (None: not reported)."""


def ok(*, usage: bool = True, content: str = REPLY) -> Fault:
    return Fault(usage=usage, content=content)


def thinking(
    reasoning: str, *, content: str = REPLY, tokens: int | None = None, usage: bool = True
) -> Fault:
    """A reasoning model's reply: `reasoning` on the `reasoning_content` channel, the reply
    in the content, and (`tokens`) the reasoning tokens in its usage, which then counts
    them in `completion_tokens` as OpenAI's does."""
    return Fault(usage=usage, content=content, reasoning=reasoning, reasoning_tokens=tokens)


def status(code: int, message: str = "busy", retry_after: str | None = None) -> Fault:
    headers = (("Retry-After", retry_after),) if retry_after is not None else ()
    return Fault("status", code, {"error": {"message": message, "type": "server"}}, headers)


def retry_after_date(code: int, in_s: float) -> Fault:
    """A `code` reply whose `Retry-After` is an HTTP date `in_s` seconds ahead."""
    return Fault("status", code, {"error": {"message": "slow down"}}, retry_after_date_s=in_s)


def refuse_schema(code: int = 400) -> Fault:
    """The server refuses the json_schema form: OpenAI's 400 shape, (422) a validation error
    for a `response_format` type it does not know, or (500) the same validation error as
    llama-cpp-python's server sends it."""
    if code == 500:  # what llama-cpp-python 0.3's server really answers
        message = (
            "1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', "
            "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"
        )
        error = {"message": message, "type": "internal_server_error"}
        return Fault("status", 500, {"error": error})
    if code == 422:
        detail = {
            "loc": ["body", "response_format", "type"],
            "msg": "Input should be 'text' or 'json_object'",
            "type": "literal_error",
        }
        return Fault("status", 422, {"detail": [detail]})
    error = {
        "message": "Invalid parameter: 'response_format' of type 'json_schema' is not supported.",
        "type": "invalid_request_error",
        "param": "response_format",
    }
    return Fault("status", 400, {"error": error})


def reset() -> Fault:
    """Read the request, then reset the connection (TCP RST) without a reply."""
    return Fault("reset")


def drip(every_s: float) -> Fault:
    """A good reply, status line and headers included, one byte every `every_s` seconds."""
    return Fault("drip", seconds=every_s)


def hang(for_s: float = 30.0) -> Fault:
    """Read the request and say nothing for `for_s` seconds, then close."""
    return Fault("hang", seconds=for_s)


def late(after_s: float, content: str = REPLY) -> Fault:
    """A good reply after `after_s` seconds."""
    return Fault("late", seconds=after_s, content=content)


EMBEDDING_DIMENSIONS = 8


def text_vector(text: str) -> list[float]:
    """A deterministic embedding of `text`: its words hashed into `EMBEDDING_DIMENSIONS`
    buckets, so texts sharing words point alike."""
    vector = [0.0] * EMBEDDING_DIMENSIONS
    for word in text.lower().split():
        vector[sum(word.encode()) % EMBEDDING_DIMENSIONS] += 1.0
    return vector


@dataclass
class Received:
    body: dict[str, Any]
    at: float
    """time.monotonic() when the request arrived."""


@dataclass
class FaultServer:
    """The scripted server's state: its script, the requests it got, its stop signal."""

    script: deque[Fault] = field(default_factory=deque)
    then: Fault = field(default_factory=ok)
    requests: list[Received] = field(default_factory=list)
    embedding_requests: list[dict[str, Any]] = field(default_factory=list)
    """Bodies of `POST /v1/embeddings` (answered by `embeddings_body`, never faulted)."""
    stop: threading.Event = field(default_factory=threading.Event)
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    # The faults, for tests to script without importing this conftest.
    ok = staticmethod(ok)
    status = staticmethod(status)
    retry_after_date = staticmethod(retry_after_date)
    refuse_schema = staticmethod(refuse_schema)
    reset = staticmethod(reset)
    drip = staticmethod(drip)
    hang = staticmethod(hang)
    late = staticmethod(late)
    thinking = staticmethod(thinking)
    text_vector = staticmethod(text_vector)

    def play(self, *faults: Fault, then: Fault | None = None) -> None:
        """Answer the next requests with `faults`, and every one after with `then`."""
        self.script.extend(faults)
        if then is not None:
            self.then = then

    def take(self, body: dict[str, Any]) -> Fault:
        with self.lock:
            self.requests.append(Received(body, time.monotonic()))
            return self.script.popleft() if self.script else self.then

    @property
    def attempts(self) -> int:
        return len(self.requests)

    def gaps(self) -> list[float]:
        """Seconds between consecutive requests."""
        times = [r.at for r in self.requests]
        return [b - a for a, b in pairwise(times)]

    def forms(self) -> list[str | None]:
        """The `response_format` type of each request."""
        return [(r.body.get("response_format") or {}).get("type") for r in self.requests]


def embeddings_body(body: dict[str, Any]) -> dict[str, Any]:
    """`POST /v1/embeddings`: one `text_vector` per input, in order, with usage."""
    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
    data = [
        {"object": "embedding", "index": i, "embedding": text_vector(text)}
        for i, text in enumerate(texts)
    ]
    tokens = sum(len(text.split()) for text in texts)
    usage = {"prompt_tokens": tokens, "total_tokens": tokens}
    return {"object": "list", "data": data, "model": body["model"], "usage": usage}


def completion_body(model: str, fault: Fault) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": fault.content}
    if fault.reasoning:
        message["reasoning_content"] = fault.reasoning
    body: dict[str, Any] = {
        "id": "c1", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
    }  # fmt: skip
    if fault.usage:
        body["usage"] = dict(USAGE)
        if fault.reasoning_tokens is not None:
            body["usage"]["completion_tokens"] += fault.reasoning_tokens
            body["usage"]["completion_tokens_details"] = {
                "reasoning_tokens": fault.reasoning_tokens
            }
    return body


class FaultHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10  # an idle keep-alive connection's thread ends after this
    state: FaultServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path.endswith("/embeddings"):
            self.state.embedding_requests.append(body)
            self._send(200, embeddings_body(body))
            return
        fault = self.state.take(body)
        if fault.kind == "reset":
            self.close_connection = True
            linger = struct.pack("ii", 1, 0)  # close with RST, not FIN
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
            self.connection.close()
        elif fault.kind == "hang":
            self.close_connection = True
            self.state.stop.wait(fault.seconds)
        elif fault.kind == "drip":
            self._drip(self._raw(200, completion_body(body["model"], fault)), fault.seconds)
        elif fault.kind == "late":
            if not self.state.stop.wait(fault.seconds):
                self._send(200, completion_body(body["model"], fault))
        elif fault.kind == "status":
            self._send(fault.status, fault.body, self._headers(fault))
        else:
            self._send(200, completion_body(body["model"], fault))

    def _headers(self, fault: Fault) -> tuple[tuple[str, str], ...]:
        if fault.retry_after_date_s is None:
            return fault.headers
        when = email.utils.formatdate(time.time() + fault.retry_after_date_s, usegmt=True)
        return (*fault.headers, ("Retry-After", when))

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
            if self.state.stop.wait(every_s):
                return
            try:
                self.connection.sendall(bytes([byte]))
            except OSError:  # the client gave up
                return

    def log_message(self, format: str, *args: Any) -> None:
        pass


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hangs up mid-reply is what these tests do


PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


@pytest.fixture
def fault_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultServer]:
    for name in PROXY_VARIABLES:  # loopback, straight: not through a proxy of the machine's
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    state = FaultServer()
    handler = type("Handler", (FaultHandler,), {"state": state})
    server = QuietServer(("127.0.0.1", 0), handler)
    state.url = f"http://127.0.0.1:{server.server_port}/v1"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield state
    finally:
        state.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
