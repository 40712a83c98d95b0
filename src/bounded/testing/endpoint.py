"""A configurable OpenAI-compatible chat endpoint on 127.0.0.1, for tests and benchmarks.

`Endpoint` is a real HTTP/1.1 server, one thread per connection, serving
`POST /v1/chat/completions`, `POST /v1/embeddings` (always answered, with `text_vector`
embeddings, for `rag`) and `GET /v1/models`; any other path (the Responses API's
`POST /v1/responses`, ...) is answered 404, as a real server answers it, and (`api_key`) a
request without the endpoint's key 401. Every chat request waits `latency_s`, then takes
the next `Reply` of its script (`endpoint.play(status(429, retry_after="1"), ok())`),
then the `then` reply (by default `ok(content)`): a good reply with or without `usage`, a
reasoning model's reply, an error status with or without `Retry-After`, a connection
reset, a refusal of the json_schema form (or, `refuses`, of every request asking for a
`response_format` type it does not take), a reply dripped one byte at a time, a hang or a
late reply. It counts the calls, the most it had waiting at once, and (`record`) each
request's body and arrival time, so a test counts attempts and the waits between them.

Every loop is bounded: a drip by the reply's length, a hang by its length, and both end
when the endpoint closes; idle keep-alive connections time out. A reply is one write with
Nagle's algorithm off, so the client's delayed ACK never holds it back.

In a process (a context manager):

    with Endpoint(content='{"action": {"id": "wait"}}', latency_s=0.05) as endpoint:
        make_model("openai:m", base_url=endpoint.url)

In a process of its own (it prints its URL on the first line, then serves until
terminated), playing: every reply names the first legal action of its request
(`bounded.testing.player`; `--plays random --seed N`: one drawn at random), so a sweep can
be rehearsed end to end before paying; `--content` says one fixed thing instead:

    python -m bounded.testing.endpoint --latency 0.2 --port 8011 --usage counted
    python -m bounded.testing.endpoint --latency 0.1 --content '{"action": {"id": "wait"}}'
"""

from __future__ import annotations

import argparse
import email.utils
import json
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import pairwise
from types import TracebackType
from typing import Any, Literal

from bounded.core import approx_tokens
from bounded.testing.player import PlayMode, play

CONTENT = '{"action": {"id": "go_north"}}'
"""What a good reply says unless told otherwise (`plays = "content"`)."""
Plays = Literal["content"] | PlayMode
"""What a good reply says: the endpoint's `content`, or (`bounded.testing.player`) the first
legal action of the request, or a legal action drawn at random from the request and seed."""
USAGE: Mapping[str, Any] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
"""The `usage` of a good reply unless the endpoint is given another."""
EMBEDDING_DIMENSIONS = 8


@dataclass(frozen=True)
class Reply:
    """What the endpoint does with one chat request."""

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
    content: str | None = None
    """The reply's content; None: the endpoint's `content`."""
    reasoning: str = ""
    """A `reasoning_content` beside the content (a reasoning model's channel)."""
    reasoning_tokens: int | None = None
    """Usage's `completion_tokens_details.reasoning_tokens` (None: not reported)."""


def ok(*, usage: bool = True, content: str | None = None) -> Reply:
    return Reply(usage=usage, content=content)


def thinking(
    reasoning: str, *, content: str | None = None, tokens: int | None = None, usage: bool = True
) -> Reply:
    """A reasoning model's reply: `reasoning` on the `reasoning_content` channel, the reply
    in the content, and (`tokens`) the reasoning tokens in its usage, which then counts
    them in `completion_tokens` as OpenAI's does."""
    return Reply(usage=usage, content=content, reasoning=reasoning, reasoning_tokens=tokens)


def status(code: int, message: str = "busy", retry_after: str | None = None) -> Reply:
    headers = (("Retry-After", retry_after),) if retry_after is not None else ()
    return Reply("status", code, {"error": {"message": message, "type": "server"}}, headers)


def retry_after_date(code: int, in_s: float) -> Reply:
    """A `code` reply whose `Retry-After` is an HTTP date `in_s` seconds ahead."""
    return Reply("status", code, {"error": {"message": "slow down"}}, retry_after_date_s=in_s)


def refuse_schema(code: int = 400) -> Reply:
    """The server refuses the json_schema form: OpenAI's 400 shape, (422) a validation error
    for a `response_format` type it does not know, or (500) the same validation error as
    llama-cpp-python's server sends it."""
    if code == 500:  # what llama-cpp-python 0.3's server really answers
        message = (
            "1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', "
            "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"
        )
        return Reply(
            "status", 500, {"error": {"message": message, "type": "internal_server_error"}}
        )
    if code == 422:
        detail = {
            "loc": ["body", "response_format", "type"],
            "msg": "Input should be 'text' or 'json_object'",
            "type": "literal_error",
        }
        return Reply("status", 422, {"detail": [detail]})
    error = {
        "message": "Invalid parameter: 'response_format' of type 'json_schema' is not supported.",
        "type": "invalid_request_error",
        "param": "response_format",
    }
    return Reply("status", 400, {"error": error})


def refuse_format(kind: str) -> Reply:
    """The server refuses a `response_format` type it does not take (`json_schema` or
    `json_object`), in OpenAI's 400 shape."""
    error = {
        "message": f"Invalid parameter: 'response_format' of type '{kind}' is not supported.",
        "type": "invalid_request_error",
        "param": "response_format",
    }
    return Reply("status", 400, {"error": error})


def format_type(body: Mapping[str, Any]) -> str | None:
    """The `response_format` type of a request body (None: it sent none)."""
    form = body.get("response_format")
    return str(form.get("type")) if isinstance(form, Mapping) else None


def reset() -> Reply:
    """Read the request, then reset the connection (TCP RST) without a reply."""
    return Reply("reset")


def drip(every_s: float) -> Reply:
    """A good reply, status line and headers included, one byte every `every_s` seconds."""
    return Reply("drip", seconds=every_s)


def hang(for_s: float = 30.0) -> Reply:
    """Read the request and say nothing for `for_s` seconds, then close."""
    return Reply("hang", seconds=for_s)


def late(after_s: float, content: str | None = None) -> Reply:
    """A good reply after `after_s` seconds."""
    return Reply("late", seconds=after_s, content=content)


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


@dataclass
class Received:
    body: dict[str, Any]
    at: float
    """time.monotonic() when the request arrived."""


@dataclass
class Endpoint:
    """The endpoint: its settings, its script, what it received. Serving from construction
    until `close` (or the end of its `with` block)."""

    content: str = CONTENT
    """What a good reply says unless its `Reply` says otherwise (or `plays` chooses)."""
    plays: Plays = "content"
    """`first` or `random`: a good reply names a legal action of its request (the endpoint's
    `content` where the request shows none)."""
    seed: int = 0
    """The seed of `plays = "random"`."""
    port: int = 0
    """The port on 127.0.0.1 to serve on (0: any free one)."""
    counts_usage: bool = False
    """A good reply's `usage` counts its request's message words and its content as
    `bounded.core.approx_tokens` does (so reported and counted tokens agree), not `usage`."""
    latency_s: float = 0.0
    """How long every chat request waits before its reply is chosen."""
    usage: Mapping[str, Any] = field(default_factory=lambda: dict(USAGE))
    """A good reply's `usage`."""
    record: bool = True
    """Keep every request's body in `requests` (off: count them only)."""
    api_key: str | None = None
    """The key every request must carry (`Authorization: Bearer KEY`); any other is refused
    with 401, as OpenAI refuses a wrong key (None: every key is taken)."""
    refuses: frozenset[str] = frozenset()
    """`response_format` types every request with one is refused for (`refuse_format`),
    before its script is read: `{"json_schema"}` is a server without strict schemas,
    `{"json_schema", "json_object"}` one that takes neither."""
    then: Reply = field(default_factory=ok)
    script: deque[Reply] = field(default_factory=deque)
    requests: list[Received] = field(default_factory=list)
    embedding_requests: list[dict[str, Any]] = field(default_factory=list)
    """Bodies of `POST /v1/embeddings` (never scripted)."""
    calls: int = 0
    in_flight: int = 0
    """Chat requests waiting out their latency now."""
    most_in_flight: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = field(init=False)

    # The replies, for tests to script with the endpoint alone.
    ok = staticmethod(ok)
    thinking = staticmethod(thinking)
    status = staticmethod(status)
    retry_after_date = staticmethod(retry_after_date)
    refuse_schema = staticmethod(refuse_schema)
    refuse_format = staticmethod(refuse_format)
    reset = staticmethod(reset)
    drip = staticmethod(drip)
    hang = staticmethod(hang)
    late = staticmethod(late)
    text_vector = staticmethod(text_vector)

    def __post_init__(self) -> None:
        handler = type("BoundHandler", (Handler,), {"endpoint": self})
        self._server = QuietServer(("127.0.0.1", self.port), handler)
        self.url = f"http://127.0.0.1:{self._server.server_port}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def play(self, *replies: Reply, then: Reply | None = None) -> None:
        """Answer the next requests with `replies`, and every one after with `then`."""
        self.script.extend(replies)
        if then is not None:
            self.then = then

    def arrive(self, body: dict[str, Any]) -> None:
        with self.lock:
            self.calls += 1
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            if self.record:
                self.requests.append(Received(body, time.monotonic()))

    def take(self) -> Reply:
        """The reply to a request that has waited out its latency."""
        with self.lock:
            self.in_flight -= 1
            return self.script.popleft() if self.script else self.then

    def take_refusal(self) -> None:
        """A request refused for its format (`refuses`) leaves the script as it was."""
        with self.lock:
            self.in_flight -= 1

    @property
    def attempts(self) -> int:
        return self.calls

    def gaps(self) -> list[float]:
        """Seconds between consecutive requests."""
        return [b.at - a.at for a, b in pairwise(self.requests)]

    def forms(self) -> list[str | None]:
        """The `response_format` type of each request."""
        return [format_type(r.body) for r in self.requests]

    def reply_content(self, request: Mapping[str, Any], reply: Reply) -> str:
        if reply.content is not None:
            return reply.content
        if self.plays != "content":
            played = play(request, self.plays, self.seed)
            if played is not None:
                return played
        return self.content

    def reply_usage(self, request: Mapping[str, Any], content: str) -> dict[str, Any]:
        if not self.counts_usage:
            return dict(json.loads(json.dumps(self.usage)))
        messages = request.get("messages", [])
        prompt = sum(approx_tokens(str(m.get("content", ""))) for m in messages)
        completion = approx_tokens(content)
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }

    def completion_body(self, request: Mapping[str, Any], reply: Reply) -> dict[str, Any]:
        model = request.get("model", "")
        content = self.reply_content(request, reply)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if reply.reasoning:
            message["reasoning_content"] = reply.reasoning
        body: dict[str, Any] = {
            "id": "c1", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        }  # fmt: skip
        if reply.usage:
            usage = self.reply_usage(request, content)
            if reply.reasoning_tokens is not None:
                usage["completion_tokens"] += reply.reasoning_tokens
                usage["completion_tokens_details"] = {"reasoning_tokens": reply.reasoning_tokens}
            body["usage"] = usage
        return body

    def close(self) -> None:
        """End every wait (hangs, drips, latencies) and stop serving."""
        self.stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Endpoint:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    timeout = 10  # an idle keep-alive connection's thread ends after this
    endpoint: Endpoint

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


def usage_setting(text: str) -> tuple[str, Mapping[str, int] | None]:
    """`--usage`: `counted`, `none`, or a fixed `PROMPT,COMPLETION` pair of token counts."""
    if text in ("counted", "none"):
        return text, None
    prompt, comma, completion = text.partition(",")
    if not comma or not prompt.isdigit() or not completion.isdigit():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not counted, none or PROMPT,COMPLETION (two whole numbers)"
        )
    fixed = {"prompt_tokens": int(prompt), "completion_tokens": int(completion)}
    return "fixed", {**fixed, "total_tokens": int(prompt) + int(completion)}


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bounded.testing.endpoint",
        description="Serve an OpenAI-compatible chat endpoint on 127.0.0.1 until terminated; "
        "its URL is the first line of stdout. By default every reply names the first legal "
        "action of its request, so any environment plays.",
    )
    parser.add_argument(
        "--plays",
        choices=("first", "random"),
        default="first",
        help="the legal action a reply names: the first, or one drawn from --seed and the "
        "request (the same request gets the same reply)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the seed of --plays random")
    parser.add_argument(
        "--content", default=None, help="what every reply says instead of a legal action"
    )
    parser.add_argument("--port", type=int, default=0, help="port to serve on (0: a free one)")
    parser.add_argument(
        "--usage",
        type=usage_setting,
        default=("fixed", USAGE),
        metavar="counted|none|PROMPT,COMPLETION",
        help="the usage a reply reports: counted from the request as bounded counts tokens, "
        "none, or fixed counts (default 10,5)",
    )
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    parser.add_argument(
        "--api-key", default=None, help="refuse (401) every request without this key"
    )
    parser.add_argument(
        "--refuse",
        default="",
        help="response_format types to refuse, comma-separated (json_schema,json_object)",
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    arguments = parser().parse_args(argv)
    refuses = frozenset(kind for kind in arguments.refuse.split(",") if kind)
    usage_kind, fixed = arguments.usage
    try:
        endpoint = Endpoint(
            content=CONTENT if arguments.content is None else arguments.content,
            plays="content" if arguments.content is not None else arguments.plays,
            seed=arguments.seed,
            port=arguments.port,
            latency_s=arguments.latency,
            record=False,
            refuses=refuses,
            api_key=arguments.api_key,
            usage=fixed or USAGE,
            counts_usage=usage_kind == "counted",
            then=ok(usage=usage_kind != "none"),
        )
    except OSError as error:
        raise SystemExit(f"cannot serve on port {arguments.port}: {error.strerror}") from error
    print(endpoint.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        endpoint.close()


if __name__ == "__main__":
    main()
