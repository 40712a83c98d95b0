"""The report's layer-attribution section: the per-layer table (per decision kind) and,
for every decision whose action changed without the layer, the original and the
counterfactual prompt side by side."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bounded.analysis.attribution import AttributionRow, attribution_table
from bounded.archive import Archive
from bounded.archive.counterfactuals import Counterfactual, counterfactual_prompt, counterfactuals
from bounded.core import Action, DecisionRecord, Segment

MAX_SHOWN_CHANGES = 300
"""Changed decisions embedded in the page (the first, in archive order)."""


def _actions(actions: Sequence[Action]) -> str:
    return (
        ", ".join(action.id + (f" {action.args}" if action.args else "") for action in actions)
        or "(none)"
    )


def _segments(segments: Sequence[Segment], texts: dict[str, int]) -> list[dict[str, Any]]:
    return [
        {"layer": s.layer, "role": s.role, "text": texts.setdefault(s.text, len(texts))}
        for s in segments
    ]


def change_id(row: Counterfactual) -> str:
    return f"{row.run_id[:12]}-{row.index}-{row.layer}-{row.variant}-{row.model}"


def change_payload(
    row: Counterfactual, record: DecisionRecord, texts: dict[str, int]
) -> dict[str, Any]:
    """One changed decision, both prompts with their replies and actions."""
    prompt = counterfactual_prompt(record.segments, row.layer, row.replacement)
    return {
        "id": change_id(row),
        "run_id": row.run_id,
        "index": row.index,
        "kind": row.kind,
        "layer": row.layer,
        "variant": row.variant,
        "model": row.model,
        "expert": _actions(row.expert_actions),
        "original": {
            "segments": _segments(record.segments, texts),
            "completion": record.completion.text if record.completion else "",
            "actions": _actions(row.original_actions),
            "agrees": row.original_agrees,
        },
        "counterfactual": {
            "segments": _segments(prompt.segments, texts),
            "completion": row.completion.text if row.completion else "",
            "actions": _actions(row.actions),
            "agrees": row.counterfactual_agrees,
            "parse_error": row.parse_error,
        },
    }


def row_key(row: AttributionRow | Counterfactual) -> str:
    return f"{row.layer}|{row.variant}|{row.model}"


def attribution_section(archive: Archive) -> dict[str, Any]:
    """What the template shows: `rows` (per layer, all kinds then each kind), `changes`
    (changed decisions by table row and kind), and the JSON of the side-by-side viewer."""
    rows = counterfactuals(archive)
    if not rows:
        return {"rows": [], "changes": {}, "payload": {"texts": [], "changes": {}}}
    changed = [row for row in rows if row.changed][:MAX_SHOWN_CHANGES]
    records: dict[str, dict[int, DecisionRecord]] = {}
    for run_id in {row.run_id for row in changed}:
        records[run_id] = {record.index: record for record in archive.decisions(run_id)}
    texts: dict[str, int] = {}
    payloads = {}
    links: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in changed:
        payloads[change_id(row)] = change_payload(row, records[row.run_id][row.index], texts)
        link = {"id": change_id(row), "label": f"{row.run_id[:8]} #{row.index}"}
        links.setdefault((row_key(row), row.kind), []).append(link)
        links.setdefault((row_key(row), "all"), [])
    return {
        "rows": [{"row": row, "key": row_key(row)} for row in attribution_table(rows)],
        "changes": {f"{key}|{kind}": items for (key, kind), items in links.items()},
        "payload": {"texts": list(texts), "changes": payloads},
    }


__all__ = ["attribution_section", "change_payload"]
