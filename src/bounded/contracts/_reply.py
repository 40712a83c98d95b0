"""Reply schemas and parsing shared by the contracts.

A reply is one JSON object. Its action part is built from the observation's legal
actions, so that constrained decoding can only name a legal action with valid
arguments, and parsing can check the same thing for unconstrained models.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema

from bounded.core import JSON, Action, Decision, Observation

REASONING_MAX_CHARS = 120


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


def reasoning_schema(max_chars: int = REASONING_MAX_CHARS) -> JSON:
    return {"type": "string", "maxLength": max_chars}


def decision_schema(obs: Observation, *, reasoning: bool = True, extra: JSON | None = None) -> JSON:
    """A reply object: optional reasoning, contract-specific fields, then the action(s)."""
    properties: JSON = {}
    if reasoning:
        properties["reasoning"] = reasoning_schema()
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


def extract_json_object(text: str) -> JSON:
    """The first JSON object in `text` (bare, fenced, or embedded in prose); raises ValueError.

    Strings may hold raw control characters (a line break where JSON wants `\\n`)."""
    candidates = [text.strip(), *(m.strip() for m in _FENCE.findall(text))]
    start = text.find("{")
    if start >= 0:
        candidates.append(text[start:])
    decoder = json.JSONDecoder(strict=False)  # a raw line break inside a string is common
    for candidate in candidates:
        if not candidate.startswith("{"):
            continue
        try:
            value, _ = decoder.raw_decode(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    raise ValueError("reply holds no JSON object")


def resolve_action(raw: Any, obs: Observation) -> Action:
    """Check one raw action against the legal list; raises ValueError naming the problem."""
    if isinstance(raw, str):
        raw = {"id": raw}
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        raise ValueError(f"action must be an object with a string id, got {raw!r}")
    legal = obs.legal_action(raw["id"])
    if legal is None:
        raise ValueError(f"action {raw['id']!r} is not legal now")
    args = raw.get("args") or {}
    if legal.schema_:
        try:
            jsonschema.validate(args, legal.schema_)
        except jsonschema.ValidationError as exc:
            raise ValueError(f"bad args for {legal.id!r}: {exc.message}") from exc
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
    """Parse a reply into a Decision (never raises: problems land in `parse_error`)."""
    try:
        reply = extract_json_object(text)
    except ValueError as exc:
        return Decision(parse_error=str(exc)), {}
    reasoning = reply.get("reasoning")
    decision = Decision(reasoning=reasoning if isinstance(reasoning, str) else "")
    try:
        decision.actions = parse_actions(reply, obs)
    except ValueError as exc:
        decision.parse_error = str(exc)
    return decision, reply
