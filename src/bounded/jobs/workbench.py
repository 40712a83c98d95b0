"""Running the workbench suite: one episode per task, one table row per episode.

`run_suite` is what `bounded run workbench --task all --contract ... --model ...` calls;
each episode is a `GameSpec` played by `bounded.runner.play`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bounded.contracts.journaled_state import JournaledStateContract
from bounded.core import JSON
from bounded.envs.workbench import REPLY_TOKENS
from bounded.envs.workbench.tasks import select_tasks
from bounded.protocols import Contract, Model
from bounded.runner.build import play
from bounded.runner.spec import GameSpec

WORKBENCH_MAX_TOKENS = REPLY_TOKENS
"""A workbench turn's reply token limit (`bounded.envs.workbench.REPLY_TOKENS`)."""

ENV_ID = "bounded/Workbench-v0"


class SuiteRow(BaseModel):
    """One task's episode in a suite run."""

    task: str
    outcome: str
    """`pass`, `fail`, or `error` (the episode crashed; see `verdict`)."""
    turns: int = 0
    tool_calls: int = 0
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    stop_reason: str = ""
    """`finish`, `max_turns`, or the error's type."""
    verdict: str = ""
    """The oracle's reason (or the error message)."""
    run_id: str = ""


ModelSource = Model | Callable[[str], Model]


def _journaled(name: str, config: JSON | None, journal: Path | None) -> Contract | None:
    """The `state` contract writing its patches to `journal`, when one is asked for."""
    if name == "state" and journal is not None:
        return JournaledStateContract(journal, **(config or {}))
    return None


def task_spec(
    task: str,
    *,
    contract: str = "state",
    contract_config: JSON | None = None,
    multi_action: bool = True,
    max_turns: int = 25,
    max_actions: int = 8,
    seed: int = 0,
    tag: str = "",
    max_tokens: int = WORKBENCH_MAX_TOKENS,
) -> GameSpec:
    """The game of one task's episode."""
    return GameSpec(
        env=ENV_ID,
        env_options={
            "task": task,
            "multi_action": multi_action,
            "max_turns": max_turns,
            "max_actions": max_actions,
        },
        contract=contract,
        contract_config=contract_config or {},
        seed=seed,
        tag=tag or f"workbench/{task}",
        max_tokens=max_tokens,
    )


def run_task_episode(
    task: str,
    model: Model,
    *,
    contract: str = "state",
    contract_config: JSON | None = None,
    archive: Any = None,
    journal_dir: Path | None = None,
    **settings: Any,
) -> SuiteRow:
    """One episode of one task through the runner; crashes become an `error` row.

    `settings` are `task_spec`'s (multi_action, max_turns, max_actions, seed, tag,
    max_tokens)."""
    started = time.perf_counter()
    spec = task_spec(task, contract=contract, contract_config=contract_config, **settings)
    journal = journal_dir / f"{task}.patches.jsonl" if journal_dir else None
    try:
        record = play(
            spec,
            archive=archive,
            model=model,
            contract=_journaled(contract, contract_config, journal),
        )
    except Exception as exc:
        seconds = time.perf_counter() - started
        return SuiteRow(
            task=task,
            outcome="error",
            seconds=seconds,
            stop_reason=type(exc).__name__,
            verdict=str(exc),
        )
    outcome = record.outcome
    return SuiteRow(
        task=task,
        outcome="pass" if outcome.get("passed") else "fail",
        turns=int(outcome.get("turns", 0)),
        tool_calls=int(outcome.get("tool_calls", 0)),
        seconds=round(record.wall_s, 2),
        prompt_tokens=record.prompt_tokens,
        completion_tokens=record.completion_tokens,
        stop_reason=str(outcome.get("stop_reason", "")),
        verdict=str(outcome.get("verdict", "")),
        run_id=record.run_id,
    )


def run_suite(
    model: ModelSource,
    *,
    tasks: str = "all",
    contract: str = "state",
    on_row: Callable[[SuiteRow], None] | None = None,
    **options: Any,
) -> list[SuiteRow]:
    """Run each selected task once; `model` is a Model or a factory `task -> Model`.

    `options` go to `run_task_episode` (contract_config, multi_action, max_turns,
    max_actions, seed, archive, tag, max_tokens, journal_dir).
    """
    rows = []
    for task in select_tasks(tasks):
        chosen = model(task) if callable(model) and not hasattr(model, "complete") else model
        row = run_task_episode(task, chosen, contract=contract, **options)  # type: ignore[arg-type]
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows


COLUMNS = ("task", "outcome", "turns", "calls", "seconds", "prompt tok", "compl tok", "stop")


def format_table(rows: list[SuiteRow]) -> str:
    """A plain-text table of a suite run, with a totals line."""
    body = [
        (
            r.task,
            r.outcome,
            str(r.turns),
            str(r.tool_calls),
            f"{r.seconds:.1f}",
            str(r.prompt_tokens),
            str(r.completion_tokens),
            r.stop_reason,
        )
        for r in rows
    ]
    passed = sum(r.outcome == "pass" for r in rows)
    body.append(
        (
            "total",
            f"{passed}/{len(rows)}",
            str(sum(r.turns for r in rows)),
            str(sum(r.tool_calls for r in rows)),
            f"{sum(r.seconds for r in rows):.1f}",
            str(sum(r.prompt_tokens for r in rows)),
            str(sum(r.completion_tokens for r in rows)),
            "",
        )
    )
    widths = [max(len(c), *(len(row[i]) for row in body)) for i, c in enumerate(COLUMNS)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in body]
    return "\n".join(lines)
