"""Run and decision records to and from their rows in the archive's tables.

A run row holds its JSON fields (`_RUN_JSON_FIELDS`) as text, keyed by the run's id and
an integer key of its own. A decision row holds its run's integer key, its layers,
completions and actions by their keys in the shared tables (`bounded.archive.shared`),
and its prompt as the prompt writer stored it (`bounded.archive.prompts`).
"""

from __future__ import annotations

import functools
import json
import sqlite3
from typing import Any

from bounded.archive.schema import _RUN_JSON_FIELDS
from bounded.archive.shared import Shared, compact
from bounded.core import DecisionRecord, RunRecord, Segment


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


UNCHANGING = ("run_id", "started_at", "experiment", "cell", "seed", "tag")
"""The columns of a run row that its indexes hold (`bounded.archive.schema`), which a game
never changes once its row is written: a run's row is updated without them when they are
stored as they are (each decision's write), so that no index is rewritten."""


def upsert_run(db: sqlite3.Connection, run: RunRecord) -> None:
    """Insert or update a run's row inside the caller's transaction."""
    row = run.model_dump()
    for field in _RUN_JSON_FIELDS:
        row[field] = _dumps(row[field])
    update, upsert = _run_statements(tuple(row))
    if db.execute(update, row).rowcount == 0:
        db.execute(upsert, row)


@functools.cache
def _run_statements(columns: tuple[str, ...]) -> tuple[str, str]:
    """An update of the row whose unchanging columns are as given, and an upsert."""
    changing = ", ".join(f"{c} = :{c}" for c in columns if c not in UNCHANGING)
    same = " AND ".join(f"{c} IS :{c}" for c in UNCHANGING if c != "run_id")
    update = f"UPDATE runs SET {changing} WHERE run_id = :run_id AND {same}"
    placeholders = ", ".join(f":{c}" for c in columns)
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c != "run_id")
    # An upsert, not INSERT OR REPLACE: a replace deletes the row and cascades to decisions.
    upsert = (
        f"INSERT INTO runs ({', '.join(columns)}) VALUES ({placeholders}) "
        f"ON CONFLICT (run_id) DO UPDATE SET {updates}"
    )
    return update, upsert


def run_from_row(row: sqlite3.Row) -> RunRecord:
    """The run a `runs` row holds."""
    data = dict(row)
    del data["id"]
    for field in _RUN_JSON_FIELDS:
        data[field] = json.loads(data[field])
    return RunRecord.model_validate(data)


def decision_row(
    db: sqlite3.Connection,
    shared: Shared,
    run: int,
    record: DecisionRecord,
    prompt: tuple[int, bytes],
) -> dict[str, Any]:
    """The `decisions` row of `record` (of the run keyed `run`), its shared values stored
    inside the caller's transaction; `prompt`: the prompt writer's base and prompt."""
    base, stored_prompt = prompt
    return {
        "run": run,
        "idx": record.index,
        "format_version": record.format_version,
        "t": record.t,
        "kind": record.kind,
        "tokens_by_layer": shared.layers_column(db, record.tokens_by_layer),
        "prompt_tokens": record.prompt_tokens,
        "completion": shared.completion_column(db, record.completion),
        "actions": shared.pack_actions(db, record.actions),
        "model": record.model,
        "reasoning": record.reasoning,
        "state_patch": None if record.state_patch is None else compact(record.state_patch),
        "parse_error": record.parse_error,
        "fallback": int(record.fallback),
        "reward": record.reward,
        "latency_s": record.latency_s,
        "info": compact(record.info),
        "extra_completions": shared.extra_column(db, record.extra_completions),
        "prompt_base": base,
        "prompt": stored_prompt,
    }


def decision_from_row(
    db: sqlite3.Connection,
    shared: Shared,
    run_id: str,
    row: sqlite3.Row,
    segments: list[Segment],
) -> DecisionRecord:
    """The decision a `decisions` row of run `run_id` holds, with its prompt's segments."""
    return DecisionRecord(
        format_version=row["format_version"],
        run_id=run_id,
        index=row["idx"],
        t=row["t"],
        kind=row["kind"],
        segments=segments,
        tokens_by_layer=shared.layers_of(db, row["tokens_by_layer"]),
        prompt_tokens=row["prompt_tokens"],
        completion=shared.completion_of(db, row["completion"]),
        actions=shared.unpack_actions(db, row["actions"]),
        model=row["model"],
        reasoning=row["reasoning"],
        state_patch=json.loads(row["state_patch"]) if row["state_patch"] else None,
        parse_error=row["parse_error"],
        fallback=bool(row["fallback"]),
        reward=row["reward"],
        latency_s=row["latency_s"],
        info=json.loads(row["info"]),
        extra_completions=shared.extra_of(db, row["extra_completions"]),
    )


__all__ = ["decision_from_row", "decision_row", "run_from_row", "upsert_run"]
