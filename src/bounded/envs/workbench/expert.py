"""The reference solver: plays a task's scripted solution, as an Expert or as a model.

`WorkbenchExpert(task)` returns the next calls of the task's `good` (or `bad`) solution,
as many per turn as the observation allows. `expert_replies(task)` gives the same calls as
replies that fit whatever reply schema the contract asks for (`reasoning`,
`state_patch`, `action` or `actions`); `bounded.jobs.scripted_players.expert_model(task)`
wraps them as a scripted model, so the full loop (contract, parser, runner, environment,
oracle) can be tested without a language model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bounded.core import JSON, Action, Observation
from bounded.envs.workbench.tasks import load_task

if TYPE_CHECKING:
    from bounded.envs.workbench.engine import WorkbenchEnv


class WorkbenchExpert:
    """Replays a reference solution of one task (named, or the task of the environment it
    is given, whose game it reads), chunked into turns."""

    def __init__(self, task: str | WorkbenchEnv, which: str = "good") -> None:
        name = task if isinstance(task, str) else task.task_def.name
        self.calls = load_task(name).solution(which)
        self.next = 0

    def chunk(self, size: int) -> list[Action]:
        """The next `size` calls (the last call, `finish`, repeats once the script is spent)."""
        if self.next >= len(self.calls):
            return [Action(id="finish")]
        chosen = self.calls[self.next : self.next + max(size, 1)]
        self.next += len(chosen)
        return chosen

    def act(self, obs: Observation) -> list[Action]:
        if obs.state.get("turn") == 0:
            self.next = 0
        return self.chunk(obs.max_actions)


def _reply(constraint: JSON | None, calls: list[Action], turn: int) -> JSON:
    properties = (constraint or {}).get("properties", {"action": {}})
    raw = [{"id": a.id, "args": dict(a.args)} for a in calls]
    reply: JSON = {}
    for key in properties:
        if key == "reasoning":
            reply[key] = f"reference solution, turn {turn}"
        elif key == "state_patch":
            reply[key] = {"next": f"reference turn {turn}"}
        elif key == "actions":
            reply[key] = raw
        elif key == "action":
            reply[key] = raw[0]
    return reply


def expert_replies(
    task: str, which: str = "good"
) -> Callable[[list[dict[str, str]], JSON | None], JSON]:
    """Replies (`fn(messages, constraint)`) that answer every decision with the reference
    solution's next calls (as a model: `bounded.jobs.scripted_players:expert_model`)."""
    expert = WorkbenchExpert(task, which)
    turn = 0

    def answer(messages: list[dict[str, str]], constraint: JSON | None) -> JSON:
        nonlocal turn
        turn += 1
        properties = (constraint or {}).get("properties", {})
        size = properties.get("actions", {}).get("maxItems", 1) if "actions" in properties else 1
        return _reply(constraint, expert.chunk(size), turn)

    return answer
