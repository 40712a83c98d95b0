"""A deterministic model for tests of the loop: replies come from a list or a function.

A reply given as a dict is the reply object. Where a response format is asked for
(`constrained`, `json` reply modes) it is sent as JSON; in `text` mode it is written in the
form the contract's text rule reads, as a model following the prompt's instruction would
(`as_text`): inside a `<decision>` tag, as reasoning then a ```json block, as `<ACTION
NAME>` tags, or as BALROG's agents answer. A scripted model reads no prompt as a model
does, so in the `json` and `text` modes the runner tells it the reply's schema and the
call's text rule (`reads_reply_schema`): a reply function is called with that schema, so a
script that answers from the schema (the schema filler) plays in every mode. A reply given
as a string is sent as it is."""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from bounded.core import DEFAULT_MAX_TOKENS, JSON, Completion, approx_tokens
from bounded.protocols import ModelBase, TextRule

Reply = str | JSON

KEPT_CALLS = 1_000
"""Calls a scripted model keeps in `calls` by default."""
ReplyFunction = Callable[[list[dict[str, str]], JSON | None], Reply]


class ScriptedModel(ModelBase):
    """Returns the given replies in order (dicts are sent as JSON), cycling when `cycle` is set.

    With a function instead of a list, each reply is `fn(messages, constraint)`, which
    lets a test answer from what the prompt holds; `constraint` is the reply's schema in
    every mode (see the module's docstring). The latest `keep_calls` calls are kept in
    `calls` (None: every one), so that a long game played with it holds no more than a
    short one; `calls_made` counts them all.
    """

    reads_reply_schema = True
    """The runner tells this model the reply's schema and text rule in `json` and `text`
    mode too."""

    def __init__(
        self,
        replies: Iterable[Reply] | ReplyFunction = (),
        *,
        cycle: bool = False,
        id: str = "scripted",
        keep_calls: int | None = KEPT_CALLS,
    ) -> None:
        self.id = id
        self.context_window: int | None = None
        self._function = replies if callable(replies) else None
        self._replies: list[Reply] = [] if callable(replies) else list(replies)
        self._cycle = cycle
        self._next = 0
        self.calls: deque[dict[str, Any]] = deque(maxlen=keep_calls)
        self.calls_made = 0

    def _reply(self, messages: list[dict[str, str]], constraint: JSON | None) -> Reply:
        if self._function is not None:
            return self._function(messages, constraint)
        if self._next >= len(self._replies):
            if not self._cycle or not self._replies:
                raise RuntimeError(f"scripted model ran out of replies after {self._next} calls")
            self._next = 0
        reply = self._replies[self._next]
        self._next += 1
        return reply

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        constraint: JSON | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        seed: int | None = None,
        reply_schema: JSON | None = None,
        text_rule: TextRule | None = None,
    ) -> Completion:
        self.calls.append({"messages": messages, "constraint": constraint})
        self.calls_made += 1
        reply = self._reply(messages, reply_schema if reply_schema is not None else constraint)
        if isinstance(reply, str):
            text = reply
        elif constraint is not None:
            text = json.dumps(reply)
        else:
            text = as_text(reply, text_rule)
        prompt_tokens = sum(approx_tokens(m["content"]) for m in messages)
        return Completion(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=approx_tokens(text),
            model=self.id,
            finish_reason="stop",
        )


_TAGGED = re.compile(r"^<(.*)>$")


def action_ids(reply: JSON) -> list[str]:
    """The ids a reply object names, in order (`action`, `actions` or `decisions`; a
    decision written `<NAME>` is `NAME`)."""
    one = [reply["action"]] if "action" in reply else []
    raw = reply.get("actions", reply.get("decisions", one))
    ids = []
    for item in raw if isinstance(raw, list) else []:
        name = item.get("id") if isinstance(item, dict) else item
        if isinstance(name, str):
            tagged = _TAGGED.match(name)
            ids.append(tagged.group(1) if tagged else name)
    return ids


def as_text(reply: JSON, rule: TextRule | None) -> str:
    """A reply object written in the form `rule` reads (`bounded.contracts.replies.rules`), as a
    model following the prompt's instruction would; JSON where no rule is given."""
    body = json.dumps(reply)
    prose = str(reply.get("reasoning") or reply.get("analysis") or "")
    names = action_ids(reply)
    first = names[0] if names else ""
    written = {
        "decision-tag": f"{prose}\n<decision>{body}</decision>",
        "json-block": f"{prose}\n```json\n{body}\n```",
        "action-tags": f"{prose}\nDecisions:\n"
        + "\n".join(f"{n}: <{name}>" for n, name in enumerate(names)),
        "balrog-robust": f"<|ACTION|>{first}<|END|>",
        "balrog-robust-cot": f"{prose}\n<|ACTION|>{first}<|END|>",
        "balrog-cot": f"{prose}\nACTION: {first}",
        "balrog-naive": first,
    }
    return written.get(rule or "", body).strip()


def minimal_instance(schema: JSON) -> Any:
    """The simplest value a JSON schema accepts: first enum/const/branch, required keys only,
    minimum sizes and bounds. For tests that need some valid reply to any constraint."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return minimal_instance(schema[key][0])
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = kind[0]
    if kind == "object":
        properties = schema.get("properties", {})
        return {
            key: minimal_instance(properties.get(key, {})) for key in schema.get("required", [])
        }
    if kind == "array":
        return [minimal_instance(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "string":
        return "x" * schema.get("minLength", 0)
    if kind == "boolean":
        return False
    return None


def schema_filler(id: str = "scripted:minimal") -> ScriptedModel:
    """A scripted model whose every reply is the minimal instance of the constraint."""
    return ScriptedModel(lambda _messages, constraint: minimal_instance(constraint or {}), id=id)


def first_option(schema: Any) -> Any:
    """The first enum (or const) value found anywhere in a JSON schema, depth first."""
    if isinstance(schema, dict):
        if "enum" in schema:
            return schema["enum"][0]
        if "const" in schema:
            return schema["const"]
        schema = list(schema.values())
    if isinstance(schema, list):
        for item in schema:
            found = first_option(item)
            if found is not None:
                return found
    return None
