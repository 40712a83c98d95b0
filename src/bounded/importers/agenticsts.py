"""The AgenticSTS release's run archive (`history.jsonl`, one JSON object per run).

Each row becomes one run: the experiment tag is the condition tag, `victory`/`defeat`
rows are completed games, and harness rows (`agent_abort`, `max_steps`, `interrupt`)
are kept as `failed` runs that never enter statistics. The release records no episode
seed, so a run's seed is its line number in the file. Importing twice updates the same
rows (run ids are the release's, prefixed `agenticsts:`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bounded.archive import Archive
from bounded.core import ConfigError, RunRecord, stable_hash

ENV_ID = "agenticsts/sts2"
EXPERIMENT = "agenticsts"
COMPLETED_OUTCOMES = ("victory", "defeat")
OUTCOME_FIELDS = (
    "outcome", "victory", "final_floor", "final_hp", "final_max_hp", "final_gold", "score",
    "fitness", "target_ascension", "actual_ascension", "character", "combats_won",
    "combats_total", "completion_reason", "end_reason", "ended_at", "total_actions",
)  # fmt: skip
CONTRACT_FIELDS = ("memory_enabled", "skills_enabled", "evolution_enabled")


class ImportSummary(BaseModel):
    """What an import did."""

    source: str
    """The file read."""
    imported: int
    """Rows written (new or updated)."""
    completed: int
    """Rows that are completed games."""
    tags: int
    """Distinct condition tags."""


def run_from_row(row: dict[str, Any], line: int, version: str) -> RunRecord:
    profile = row.get("model_profile") or {}
    contract_config = {field: profile.get(field, row.get(field)) for field in CONTRACT_FIELDS}
    completed = row.get("outcome") in COMPLETED_OUTCOMES
    return RunRecord(
        run_id=f"agenticsts:{row['run_id']}",
        env_id=ENV_ID,
        env_version=str(row.get("game_version") or "unknown"),
        contract="typed",
        contract_config=contract_config,
        contract_config_hash=stable_hash(contract_config),
        model=str(profile.get("strategic_model") or row.get("profile_label") or "unknown"),
        model_params=profile,
        seed=line,
        tag=row.get("experiment_tag") or "",
        experiment=EXPERIMENT,
        cell=row.get("experiment_tag") or "",
        status="completed" if completed else "failed",
        error=None if completed else f"harness outcome: {row.get('outcome')}",
        outcome={field: row[field] for field in OUTCOME_FIELDS if field in row},
        decisions=int(row.get("steps") or 0),
        model_calls=int(row.get("llm_calls") or 0),
        wall_s=float(row.get("duration_seconds") or 0.0),
        started_at=float(row["started_at"]),
        package_version=f"agenticsts import (bounded {version})",
    )


def read_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for line, text in enumerate(path.read_text().splitlines(), start=1):
        if not text.strip():
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}:{line}: not JSON: {exc.msg}") from exc
        missing = [f for f in ("run_id", "started_at", "outcome") if f not in row]
        if missing:
            raise ConfigError(f"{path}:{line}: missing {', '.join(missing)}")
        rows.append((line, row))
    return rows


def import_agenticsts(path: str | Path, archive: Archive) -> ImportSummary:
    """Load `history.jsonl` into the archive."""
    from bounded.version import __version__

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"no AgenticSTS history file at {path}")
    runs = [run_from_row(row, line, __version__) for line, row in read_rows(path)]
    for run in runs:
        archive.save_run(run)
    return ImportSummary(
        source=str(path),
        imported=len(runs),
        completed=sum(r.status == "completed" for r in runs),
        tags=len({r.tag for r in runs}),
    )


__all__ = ["ImportSummary", "import_agenticsts", "run_from_row"]
