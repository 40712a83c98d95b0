"""Text shared by contracts: the legal-action list and the reply-format instructions."""

from __future__ import annotations

import json

from bounded.core import JSON, Observation


def render_legal(obs: Observation, *, limit: int = 60) -> str:
    """One line per legal action: its id, label and (compactly) its argument schema."""
    lines = []
    for action in obs.legal[:limit]:
        line = f"- {action.id}"
        if action.label:
            line += f": {action.label}"
        if action.schema_:
            props = action.schema_.get("properties", {})
            line += " (args: " + ", ".join(f"{k}: {v.get('type', 'any')}" for k, v in props.items())
            line += ")"
        lines.append(line)
    if len(obs.legal) > limit:
        lines.append(f"- ... {len(obs.legal) - limit} more")
    if obs.max_actions > 1:
        lines.append(f"You may give up to {obs.max_actions} actions, executed in order.")
    return "Legal actions:\n" + "\n".join(lines)


def render_observation(obs: Observation) -> str:
    return f"{obs.text}\n\n{render_legal(obs)}" if obs.legal else obs.text


def reply_format(schema: JSON) -> str:
    """How to answer, shown to the model: the reply's JSON keys in order."""
    keys = list(schema.get("properties", {}))
    return (
        "Answer with one JSON object and nothing else, with the keys "
        + ", ".join(f'"{k}"' for k in keys)
        + ' in that order. An action is {"id": "<legal id>", "args": {...}} (args only when '
        "the action lists some)."
    )


def compact_json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)
