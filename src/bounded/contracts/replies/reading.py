"""Reply schemas and parsing shared by the contracts.

A reply is one JSON object. Its action part is built from the observation's legal
actions, so that constrained decoding can only name a legal action with valid
arguments, and parsing can check the same thing for unconstrained models.

Any text a model returns is survived: lone surrogates (which UTF-8, SQLite and JSON
writers refuse) are replaced by U+FFFD, JSON nested deeper than `MAX_JSON_DEPTH` is
refused before it is decoded (so parsing never recurses unboundedly), numbers JSON cannot
hold (NaN, Infinity, overflowing floats, integers too long to convert) are refused, and
what a reply carries into a decision is cut to its schema's limits. Each repair is
recorded on the decision (`Decision.extra`: `surrogates_replaced`, `cut`).
"""

from __future__ import annotations

import json
import math
import re
import reprlib
from typing import Annotated, Any, Literal

import jsonschema
from pydantic import Field

from bounded.core import INVALID_KEY, JSON, Action, Decision, Observation
from bounded.protocols import EMBEDDED_REASONING_CHARS
from bounded.validation import validate

REASONING_MAX_CHARS = EMBEDDED_REASONING_CHARS
"""The embedded model's reasoning budget, and the helpers' default cap (`reasoning_schema`,
`decision_schema`), as before the budget became the model's."""

ReasoningChars = Annotated[int, Field(ge=1)] | Literal["model"] | None
"""The `reasoning_chars` setting of every contract that asks for reasoning: a cap in
characters on the reply's `reasoning` (its schema's `maxLength`, so a server that decodes
under the schema stops the model there), `model` (the default: the model's own budget, see
`bounded.contracts.replies.policy.reasoning_chars_in_force`), or None: no cap."""

MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects a reply may hold; deeper replies are parse errors."""

MESSAGE_MAX_CHARS = 200
"""Longest quotation of a reply's content in a parse error."""

REPLACEMENT_CHARACTER = "\ufffd"

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxlevel = 3


def brief(value: Any) -> str:
    """A short repr of reply content for a message (never the whole of a huge value)."""
    return _SHORT.repr(value)


def clip(text: str, limit: int = MESSAGE_MAX_CHARS) -> str:
    """`text` cut to `limit` characters, marked with an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def scrub(text: str) -> tuple[str, int]:
    """`text` with every lone surrogate replaced by U+FFFD, and how many were replaced.

    (A well-formed pair is one code point in a Python string, so any code point left in
    the surrogate range is lone: `json.loads('"\\ud800"')` makes one.)"""
    return _LONE_SURROGATE.subn(REPLACEMENT_CHARACTER, text)


def scrub_json(value: Any) -> tuple[Any, int]:
    """A JSON value with lone surrogates replaced in every string and key, and the count.

    Recursive: call it on values whose depth is bounded (decoded replies are, by
    `MAX_JSON_DEPTH`)."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list):
        items = [scrub_json(item) for item in value]
        return [item for item, _ in items], sum(n for _, n in items)
    if isinstance(value, dict):
        total, clean = 0, {}
        for key, item in value.items():
            new_key, n_key = scrub(key) if isinstance(key, str) else (key, 0)
            clean[new_key], n_item = scrub_json(item)
            total += n_key + n_item
        return clean, total
    return value, 0


def json_depth(value: Any) -> int:
    """How deeply arrays and objects nest in a JSON value (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return deepest


def nests_deeper(text: str, limit: int) -> bool:
    """Whether the brackets of `text` outside JSON strings nest deeper than `limit`.

    A linear scan (strings are dropped by a regular expression first), so a reply of any
    depth is measured without recursion before the decoder sees it."""
    skeleton = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    if len(skeleton) <= limit:
        return False
    depth = 0
    for char in skeleton:
        if char in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise ValueError(f"number {clip(literal, 40)} overflows a float")
    return value


def note_scrubbed(decision: Decision, replaced: int) -> None:
    """Record on a decision that lone surrogates of its reply were replaced."""
    if replaced:
        decision.extra["surrogates_replaced"] = (
            decision.extra.get("surrogates_replaced", 0) + replaced
        )


def cut_text(decision: Decision, field: str, text: str, limit: int) -> str:
    """`text` cut to `limit` characters; a cut is recorded on the decision
    (`extra["cut"][field]` = the original length)."""
    if len(text) <= limit:
        return text
    decision.extra.setdefault("cut", {})[field] = len(text)
    return text[:limit]


def closed_object(properties: JSON) -> JSON:
    """The JSON schema of an object with exactly these properties, all required."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def action_with_args_schema(action: Action) -> JSON:
    """`{"id": <this action>, "args": {...}}` for an action whose arguments the agent fills in."""
    return {
        "type": "object",
        "properties": {"id": {"const": action.id}, "args": action.schema_},
        "required": ["id", "args"],
        "additionalProperties": False,
    }


def action_schema(legal: list[Action]) -> JSON:
    """JSON schema of one action object `{"id": ..., "args": {...}}` naming a legal action."""
    plain = [a.id for a in legal if not a.schema_]
    branches: list[JSON] = []
    if plain:
        branches.append(
            {
                "type": "object",
                "properties": {"id": {"type": "string", "enum": plain}},
                "required": ["id"],
                "additionalProperties": False,
            }
        )
    branches.extend(action_with_args_schema(a) for a in legal if a.schema_)
    if not branches:
        return {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


def actions_property(obs: Observation) -> tuple[str, JSON]:
    """The reply's action field: `action` (one) or `actions` (an ordered plan)."""
    one = action_schema(obs.legal)
    if obs.max_actions <= 1:
        return "action", one
    return "actions", {"type": "array", "items": one, "minItems": 1, "maxItems": obs.max_actions}


def reasoning_schema(max_chars: int | None = REASONING_MAX_CHARS) -> JSON:
    """The reply's reasoning field: a string of at most `max_chars` (None: any length)."""
    if max_chars is None:
        return {"type": "string"}
    return {"type": "string", "maxLength": max_chars}


def decision_schema(
    obs: Observation,
    *,
    reasoning: bool = True,
    extra: JSON | None = None,
    reasoning_chars: int | None = REASONING_MAX_CHARS,
) -> JSON:
    """A reply object: optional reasoning (capped at `reasoning_chars`, None: uncapped),
    contract-specific fields, then the action(s)."""
    properties: JSON = {}
    if reasoning:
        properties["reasoning"] = reasoning_schema(reasoning_chars)
    properties.update(extra or {})
    key, schema = actions_property(obs)
    properties[key] = schema
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


_DECODER = json.JSONDecoder(
    strict=False,  # a raw line break inside a string is common
    parse_constant=_refuse_constant,
    parse_float=_finite_float,
)


def decode_reply(text: str, *, max_depth: int = MAX_JSON_DEPTH) -> tuple[JSON, int]:
    """The first JSON object in `text` (bare, fenced, or embedded in prose), with lone
    surrogates replaced, and how many were replaced (in the text and in decoded strings).

    Raises ValueError naming the problem: no object, nesting deeper than `max_depth`, or
    a number JSON cannot hold. Strings may hold raw control characters (a line break
    where JSON wants `\\n`)."""
    text, replaced = scrub(text)
    candidates = [text.strip(), *(m.strip() for m in _FENCE.findall(text))]
    start = text.find("{")
    if start >= 0:
        candidates.append(text[start:])
    problem = "reply holds no JSON object"
    for candidate in dict.fromkeys(candidates):  # each distinct candidate once, in order
        if not candidate.startswith("{"):
            continue
        if nests_deeper(candidate, max_depth):
            problem = f"reply nests JSON deeper than {max_depth} levels"
            continue
        try:
            value, _ = _DECODER.raw_decode(candidate)
        except json.JSONDecodeError:
            continue
        except ValueError as exc:  # NaN, an overflowing float, an integer too long
            problem = f"reply is not valid JSON: {clip(str(exc))}"
            continue
        if isinstance(value, dict):
            clean, decoded = scrub_json(value)
            return clean, replaced + decoded
    raise ValueError(problem)


def extract_json_object(text: str) -> JSON:
    """The first JSON object in `text` (see `decode_reply`); raises ValueError."""
    return decode_reply(text)[0]


class NotLegalError(ValueError):
    """A reply that names an action outside the legal set (an invalid action, as BALROG
    counts them), with what it named."""

    def __init__(self, candidate: str) -> None:
        super().__init__(f"action {brief(candidate)} is not legal now")
        self.candidate = candidate


def note_invalid(decision: Decision, candidate: str) -> None:
    """Record on a decision that its reply named an action outside the legal set
    (`INVALID_KEY`, each name cut to `MESSAGE_MAX_CHARS`)."""
    decision.extra.setdefault(INVALID_KEY, []).append(clip(candidate))


def keeps_schema(reply: JSON, schema: JSON) -> bool:
    """Whether a decoded reply is valid under a reply schema."""
    try:
        validate(reply, schema)
    except (jsonschema.ValidationError, jsonschema.SchemaError):
        return False
    return True


def resolve_action(raw: Any, obs: Observation) -> Action:
    """Check one raw action against the legal list; raises ValueError naming the problem."""
    if isinstance(raw, str):
        raw = {"id": raw}
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        raise ValueError(f"action must be an object with a string id, got {brief(raw)}")
    legal = obs.legal_action(raw["id"])
    if legal is None:
        raise NotLegalError(raw["id"])
    args = raw.get("args") or {}
    if not isinstance(args, dict):
        raise ValueError(f"args for {legal.id!r} must be an object, got {type(args).__name__}")
    if legal.schema_:
        try:
            validate(args, legal.schema_)
        except jsonschema.ValidationError as exc:
            raise ValueError(f"bad args for {legal.id!r}: {clip(exc.message)}") from exc
    return legal.with_args(args)


def parse_actions(reply: JSON, obs: Observation) -> list[Action]:
    """The reply's action(s), each checked; raises ValueError."""
    if "actions" in reply:
        raw_list = reply["actions"]
        if not isinstance(raw_list, list) or not raw_list:
            raise ValueError("actions must be a non-empty list")
        if len(raw_list) > obs.max_actions:
            raise ValueError(f"{len(raw_list)} actions given, at most {obs.max_actions} allowed")
        return [resolve_action(item, obs) for item in raw_list]
    if "action" in reply:
        return [resolve_action(reply["action"], obs)]
    raise ValueError("reply names no action")


def parse_decision(text: str, obs: Observation) -> tuple[Decision, JSON]:
    """Parse a reply into a Decision (never raises: problems land in `parse_error`).

    Lone surrogates are replaced (`extra["surrogates_replaced"]`); the reasoning is kept
    whole, however long (what is resent of it later: `resent_reply`)."""
    try:
        reply, replaced = decode_reply(text)
    except ValueError as exc:
        decision = Decision(parse_error=str(exc), reply_object=None)
        note_scrubbed(decision, scrub(text)[1])
        return decision, {}
    decision = Decision(reply_object=reply)
    note_scrubbed(decision, replaced)
    reasoning = reply.get("reasoning")
    if isinstance(reasoning, str):
        decision.reasoning = reasoning
    try:
        decision.actions = parse_actions(reply, obs)
    except NotLegalError as exc:
        decision.parse_error = str(exc)
        note_invalid(decision, exc.candidate)
    except ValueError as exc:
        decision.parse_error = str(exc)
    return decision, reply


def resent_reply(text: str, reply: JSON, decision: Decision, limit: int | None) -> str:
    """A reply as a contract resends it in later prompts: `text` as the model wrote it,
    unless its reasoning is longer than `limit`; then the reply object again with the
    reasoning cut to `limit`, and the cut recorded (`extra["cut"]["reasoning"]` = the
    original length). The decision's own reasoning stays whole."""
    reasoning = reply.get("reasoning")
    if limit is None or not isinstance(reasoning, str) or len(reasoning) <= limit:
        return text
    cut = dict(reply, reasoning=cut_text(decision, "reasoning", reasoning, limit))
    return json.dumps(cut, ensure_ascii=False)
