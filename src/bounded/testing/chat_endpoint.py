"""The fake endpoint's state (`bounded.testing.endpoint` is its public face and command
line): its settings, its script of replies (`bounded.testing.replies`), what it received,
and the bodies of its good replies; `bounded.testing.wire` serves it."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from types import TracebackType
from typing import Any, Literal

from bounded.core import approx_tokens
from bounded.testing.player import PlayMode, play
from bounded.testing.replies import (
    Reply,
    drip,
    format_type,
    hang,
    late,
    ok,
    refuse_format,
    refuse_schema,
    reset,
    retry_after_date,
    status,
    thinking,
)
from bounded.testing.wire import Handler, QuietServer, text_vector

CONTENT = '{"action": {"id": "go_north"}}'
"""What a good reply says unless told otherwise (`plays = "content"`)."""
Plays = Literal["content"] | PlayMode
"""What a good reply says: the endpoint's `content`, or (`bounded.testing.player`) the first
legal action of the request, or a legal action drawn at random from the request and seed."""
USAGE: Mapping[str, Any] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
"""The `usage` of a good reply unless the endpoint is given another."""


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
