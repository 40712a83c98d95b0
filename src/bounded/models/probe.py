"""Which response formats an OpenAI-compatible endpoint takes, and so which reply modes it
can play (`bounded models probe URL`).

One short request per format (strict `json_schema`, llama.cpp's `json_object` with a schema,
`json_object`, none), each under the model's retry policy: a reply that proves the server
refuses the format (`refuses_format`) marks it refused, any other failure marks it failed
(the probe says nothing about that format). A reply that comes back is checked against the
format asked, so a server that takes a format and ignores it is named too.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import openai

from bounded.core import JSON
from bounded.models.openai_compat import (
    JSON_OBJECT,
    OpenAICompatModel,
    one_line,
    refuses_format,
)
from bounded.protocols import ReplyMode

PROBE_SCHEMA: JSON = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}
PROBE_MESSAGES = [{"role": "user", "content": 'Reply with the JSON object {"ok": true}.'}]
PROBE_TOKENS = 16

FORMATS: dict[str, JSON | None] = {
    "json_schema": {
        "type": "json_schema",
        "json_schema": {"name": "probe", "schema": PROBE_SCHEMA, "strict": True},
    },
    "json_object+schema": {"type": "json_object", "schema": PROBE_SCHEMA},
    "json_object": dict(JSON_OBJECT),
    "none": None,
}
"""The formats probed, by the name runs record (`model_params["reply"]["response_format"]`)."""

MODE_FORMATS: dict[ReplyMode, tuple[str, ...]] = {
    "constrained": ("json_schema", "json_object+schema"),
    "json": ("json_object",),
    "text": ("none",),
}
"""The formats each reply mode can be played with, in the order a run asks for them."""


@dataclass(frozen=True)
class FormatResult:
    """What the endpoint did with one format: `accepted`, `refused` or `failed`."""

    format: str
    verdict: str
    detail: str = ""
    kept: bool | None = None
    """Whether the reply kept to the format (a JSON object; with the schema, `{"ok": ...}`);
    None: no reply, or no format asked."""
    usage: bool | None = None
    """Whether the reply carried `usage` (None: no reply)."""


def kept_to(reply: str, form: JSON | None) -> bool | None:
    """Whether a probe's reply keeps to the format it asked for."""
    if form is None:
        return None
    try:
        value = json.loads(reply)
    except ValueError:
        return False
    if not isinstance(value, dict):
        return False
    with_schema = form.get("type") == "json_schema" or "schema" in form
    return not with_schema or isinstance(value.get("ok"), bool)


def probe_format(model: OpenAICompatModel, name: str) -> FormatResult:
    """Ask once in format `name` (see `FORMATS`)."""
    form = FORMATS[name]
    params: dict[str, Any] = {"max_tokens": PROBE_TOKENS, "temperature": 0.0}
    if form is not None:
        params["response_format"] = form
    deadline = time.monotonic() + model.retry.timeout_s
    try:
        response = model._request(PROBE_MESSAGES, params, deadline)
    except openai.OpenAIError as exc:
        verdict = "refused" if form is not None and refuses_format(exc) else "failed"
        return FormatResult(name, verdict, one_line(f"{type(exc).__name__}: {exc}", 160))
    text, usage = reply_text_and_usage(response)
    return FormatResult(name, "accepted", one_line(text, 80), kept_to(text, form), usage)


def reply_text_and_usage(response: Any) -> tuple[str, bool]:
    """A chat completion's first message text, and whether it carried `usage` (the client
    hands back the reply's JSON)."""
    if not isinstance(response, dict):
        return "", False
    choices = response.get("choices") or []
    message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
    text = message.get("content") if isinstance(message, dict) else None
    return (text if isinstance(text, str) else ""), response.get("usage") is not None


def probe(model: OpenAICompatModel) -> list[FormatResult]:
    """Every format of `FORMATS`, in order."""
    return [probe_format(model, name) for name in FORMATS]


def playable_modes(results: list[FormatResult]) -> dict[ReplyMode, str | None]:
    """Each reply mode and the first format that plays it (None: the endpoint takes none)."""
    accepted = {r.format for r in results if r.verdict == "accepted"}
    return {
        mode: next((f for f in formats if f in accepted), None)
        for mode, formats in MODE_FORMATS.items()
    }


__all__ = ["FORMATS", "FormatResult", "playable_modes", "probe", "probe_format"]
