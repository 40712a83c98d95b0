"""The fake endpoint's script: what it does with one chat request (`Reply`), a good reply
or a reasoning model's, and the faults a client must survive: an error status with or
without `Retry-After`, a refusal of a `response_format`, a connection reset, a reply
dripped one byte at a time, a hang, a late reply. `bounded.testing.endpoint.Endpoint`
plays them in order (`endpoint.play(status(429, retry_after="1"), ok())`);
`bounded.testing.wire` puts them on the wire."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


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
