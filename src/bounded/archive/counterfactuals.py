"""The `counterfactuals` table: a decision re-asked with one prompt layer removed (or
replaced), beside the original, with the expert's action in the replayed state.

One row per (decision, layer, variant, model, settings): `variant` is `removed` or
`replaced:<sha-256 prefix of the text>`, and `settings_hash` covers the generation
settings, so an attribution that is run again (or was killed) skips what it already has.
The table is created with the archive's schema (`bounded.archive.schema`); an older
archive opened read-only may lack it and reads as having no counterfactuals.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from bounded.core import JSON, Action, Completion, Prompt, Segment

if TYPE_CHECKING:
    from bounded.archive.sqlite import Archive


class Counterfactual(BaseModel):
    """One re-asked decision."""

    run_id: str
    index: int
    layer: str
    """The layer removed (or replaced)."""
    variant: str = "removed"
    """`removed`, or `replaced:<hash>` when the layer's text was replaced."""
    model: str
    """The model spec asked."""
    settings_hash: str
    settings: JSON = Field(default_factory=dict)
    """Generation settings (max_tokens, temperature, seed) and the model's own id."""
    replacement: str | None = None
    """The text put in the layer's place (None: the layer was removed)."""
    kind: str
    """The decision's kind."""
    original_actions: list[Action]
    actions: list[Action]
    """The counterfactual's actions (the first legal action when its reply was unusable)."""
    fallback: bool = False
    parse_error: str | None = None
    completion: Completion | None = None
    expert_actions: list[Action]
    """What the environment's expert does in the replayed state."""
    changed: bool
    original_agrees: bool
    counterfactual_agrees: bool
    created_at: float = Field(default_factory=time.time)


def counterfactual_prompt(
    segments: Sequence[Segment], layer: str, replacement: str | None = None
) -> Prompt:
    """The archived prompt with every segment of `layer` dropped, or the first replaced by
    `replacement` (in its place and role) and the others dropped."""
    kept: list[Segment] = []
    replaced = False
    for segment in segments:
        if segment.layer != layer:
            kept.append(segment)
        elif replacement is not None and not replaced:
            kept.append(Segment(layer=layer, role=segment.role, text=replacement))
            replaced = True
    return Prompt(segments=kept)


Key = tuple[str, int, str, str, str, str]
"""(run_id, index, layer, variant, model, settings_hash)."""


def key_of(row: Counterfactual) -> Key:
    return (row.run_id, row.index, row.layer, row.variant, row.model, row.settings_hash)


def _actions_json(actions: list[Action]) -> str:
    return json.dumps([a.model_dump(by_alias=True) for a in actions], sort_keys=True)


def add_counterfactual(archive: Archive, row: Counterfactual) -> None:
    """Write one counterfactual (replacing an earlier row with the same key)."""
    values = {
        "run_id": row.run_id,
        "idx": row.index,
        "layer": row.layer,
        "variant": row.variant,
        "model": row.model,
        "settings_hash": row.settings_hash,
        "settings": json.dumps(row.settings, sort_keys=True),
        "replacement": row.replacement,
        "kind": row.kind,
        "original_actions": _actions_json(row.original_actions),
        "actions": _actions_json(row.actions),
        "fallback": int(row.fallback),
        "parse_error": row.parse_error,
        "completion": row.completion.model_dump_json() if row.completion else None,
        "expert_actions": _actions_json(row.expert_actions),
        "changed": int(row.changed),
        "original_agrees": int(row.original_agrees),
        "counterfactual_agrees": int(row.counterfactual_agrees),
        "created_at": row.created_at,
    }
    columns = ", ".join(values)
    marks = ", ".join(f":{name}" for name in values)
    with archive.transaction() as db:
        db.execute(f"INSERT OR REPLACE INTO counterfactuals ({columns}) VALUES ({marks})", values)


def counterfactuals(archive: Archive, run_id: str | None = None) -> list[Counterfactual]:
    """The archive's counterfactuals (of one run, or all), in decision order."""
    where, params = ("WHERE run_id = ?", (run_id,)) if run_id else ("", ())
    rows = archive.execute(
        f"SELECT * FROM counterfactuals {where} ORDER BY run_id, idx, layer, variant, model",
        params,
    )
    return [_from_row(row) for row in rows]


def iter_counterfactuals(archive: Archive) -> Iterator[Counterfactual]:
    """The archive's counterfactuals in decision order, read a page at a time
    (`bounded.archive.queries.ROWS_PER_PAGE`): a caller that counts them holds one page."""
    from bounded.archive.queries import _stream

    rows = _stream(
        archive, "SELECT * FROM counterfactuals ORDER BY run_id, idx, layer, variant, model"
    )
    return (_from_row(row) for row in rows)


def done_keys(archive: Archive, run_id: str | None = None) -> set[Key]:
    """The keys already written (of one run, or all): what a resumed attribution skips."""
    return {key_of(row) for row in counterfactuals(archive, run_id)}


def _from_row(row: sqlite3.Row) -> Counterfactual:
    def actions(column: str) -> list[Action]:
        return [Action.model_validate(a) for a in json.loads(row[column])]

    completion: Any = row["completion"]
    return Counterfactual(
        run_id=row["run_id"],
        index=row["idx"],
        layer=row["layer"],
        variant=row["variant"],
        model=row["model"],
        settings_hash=row["settings_hash"],
        settings=json.loads(row["settings"]),
        replacement=row["replacement"],
        kind=row["kind"],
        original_actions=actions("original_actions"),
        actions=actions("actions"),
        fallback=bool(row["fallback"]),
        parse_error=row["parse_error"],
        completion=Completion.model_validate_json(completion) if completion else None,
        expert_actions=actions("expert_actions"),
        changed=bool(row["changed"]),
        original_agrees=bool(row["original_agrees"]),
        counterfactual_agrees=bool(row["counterfactual_agrees"]),
        created_at=row["created_at"],
    )


__all__ = [
    "Counterfactual",
    "add_counterfactual",
    "counterfactual_prompt",
    "counterfactuals",
    "done_keys",
    "key_of",
]
