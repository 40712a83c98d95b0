"""Response formats: which one a request sends, and whether a server's error proves it
refuses one (sniffed from the error's status and words; such a reply is never retried)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import openai

from bounded.core import JSON

SchemaMode = Literal["auto", "json_schema", "json_object", "none"]

JSON_OBJECT: JSON = {"type": "json_object"}
"""The `json` reply mode's response format: any JSON object."""


VALIDATION_WORDS = ("validation", "literal_error", "input should be", "not supported")
"""Words of a server's own statement that it rejects a request's value."""


def refuses_schema(exc: BaseException) -> bool:
    """Whether an error proves the server refuses the standard schema form: a 400 or 422
    whose message names `response_format` or `json_schema`, or any status whose message is
    a validation error naming both (llama-cpp-python's server answers 500 with
    "response_format.type: Input should be 'text' or 'json_object'"). Such a reply is
    deterministic: it is never retried."""
    if not isinstance(exc, openai.APIStatusError):
        return False
    text = f"{exc.message} {exc.body}".lower()
    if exc.status_code in (400, 422):
        return "response_format" in text or "json_schema" in text
    names_both = "response_format" in text and "json_schema" in text
    return names_both and any(word in text for word in VALIDATION_WORDS)


def refuses_format(exc: BaseException) -> bool:
    """Whether an error proves the server refuses the request's response format: what
    `refuses_schema` says, or a 400 or 422 naming `json_object` (a server that takes neither
    schema nor JSON object mode)."""
    if refuses_schema(exc):
        return True
    if not isinstance(exc, openai.APIStatusError) or exc.status_code not in (400, 422):
        return False
    return "json_object" in f"{exc.message} {exc.body}".lower()


def format_name(params: Mapping[str, Any]) -> str:
    """The response format a request's parameters send: `json_schema`, `json_object`,
    `json_object+schema` (llama.cpp's form) or `none`."""
    form = params.get("response_format")
    if not isinstance(form, Mapping):
        return "none"
    kind = str(form.get("type", "none"))
    return f"{kind}+schema" if kind == "json_object" and "schema" in form else kind


def response_format(schema: JSON, mode: SchemaMode) -> JSON:
    """`schema` as a request's response format: llama.cpp's `json_object` form with the
    schema, or the standard strict `json_schema` form."""
    if mode == "json_object":
        return {"type": "json_object", "schema": schema}
    return {
        "type": "json_schema",
        "json_schema": {"name": "reply", "schema": schema, "strict": True},
    }


__all__ = [
    "JSON_OBJECT",
    "VALIDATION_WORDS",
    "SchemaMode",
    "format_name",
    "refuses_format",
    "refuses_schema",
    "response_format",
]
