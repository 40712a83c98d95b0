"""The bounded-state runtime as a library: bring tools and a task, get the `state` agent loop.

The tools and their environment live in `bounded.envs.tools`, the journaled `state`
contract in `bounded.contracts.journaled_state`; both are re-exported here.

A tool is a plain Python callable with a JSON schema for its keyword arguments. The
agent sees a fixed spec (the task, the tools, the merge rules), its own JSON state and
the latest tool results, nothing else; each reply carries a state patch and one or
more tool calls. Every patch is journaled, and with a journal path each episode
writes a `patches.jsonl` from which the state history can be replayed. The replies are
`constrained` (decoded under their schema) unless `reply` asks for another mode (the `state`
contract's own default is SKILL.state's free text: docs/replies.md).

    from bounded.agent import StateAgent, tool

    @tool
    def add(a: int, b: int) -> int:
        "Add two integers."
        return a + b

    result = StateAgent(model, [add]).run("What is 2 + 40? Finish with the answer.")
    result.answer, result.turns, result.state
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bounded.contracts.journaled_state import JournaledStateContract, PatchJournal, replay_patches
from bounded.contracts.state import JournalEntry
from bounded.core import JSON, RunRecord
from bounded.envs.tools import (
    Tool,
    ToolEnv,
    ToolEnvConfig,
    ToolError,
    ToolResult,
    schema_from_signature,
    tool,
)
from bounded.protocols import Model, ReplyMode

# -- the agent ------------------------------------------------------------------


class AgentResult(BaseModel):
    """What one run of the agent produced."""

    answer: str | None
    """The `finish` answer (None when the budget ran out first)."""
    stop_reason: str
    """`finish` or `max_turns`."""
    turns: int
    state: JSON
    """The agent's state at the end."""
    journal: list[JournalEntry]
    run: RunRecord
    """The runner's record: tokens, wall time, outcome."""


class StateAgent:
    """The bounded-state agent loop over a user's tools and model."""

    def __init__(
        self,
        model: Model,
        tools: Sequence[Tool | Callable[..., Any]],
        *,
        max_turns: int = 25,
        multi_action: bool = True,
        max_actions: int = 8,
        state_schema: JSON | None = None,
        initial_state: JSON | None = None,
        max_tokens: int = 1024,
        reply: ReplyMode = "constrained",
    ) -> None:
        self.model = model
        self.tools = list(tools)
        self.turns = {
            "max_turns": max_turns,
            "multi_action": multi_action,
            "max_actions": max_actions,
        }
        self.contract_settings: JSON = {"initial_state": initial_state or {}, "reply": reply}
        if state_schema is not None:
            self.contract_settings["state_schema"] = state_schema
        self.max_tokens = max_tokens

    def run(self, task: str, *, journal: str | Path | None = None, seed: int = 0) -> AgentResult:
        """Solve one task; with `journal`, write its `patches.jsonl` there as it goes."""
        from bounded.runner import run_episode

        env = ToolEnv(task, self.tools, **self.turns)
        contract = JournaledStateContract(journal, **self.contract_settings)
        record = run_episode(
            env,
            contract,
            self.model,
            seed=seed,
            env_id="bounded/ToolTask",
            max_tokens=self.max_tokens,
        )
        return AgentResult(
            answer=env.answer,
            stop_reason=env.stop_reason,
            turns=env.turn,
            state=contract.state,
            journal=list(contract.journal),
            run=record,
        )


def run_task(
    task: str,
    tools: Sequence[Tool | Callable[..., Any]],
    model: Model,
    *,
    journal: str | Path | None = None,
    **options: Any,
) -> AgentResult:
    """One call: `StateAgent(model, tools, **options).run(task, journal=journal)`."""
    return StateAgent(model, tools, **options).run(task, journal=journal)


__all__ = [
    "AgentResult",
    "JournaledStateContract",
    "PatchJournal",
    "StateAgent",
    "Tool",
    "ToolEnv",
    "ToolEnvConfig",
    "ToolError",
    "ToolResult",
    "replay_patches",
    "run_task",
    "schema_from_signature",
    "tool",
]
