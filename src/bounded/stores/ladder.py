"""The ascension ladder (auto mode): climb after a victory, retry after a defeat.

Each run plays at the ladder's current level; a victory moves the next run one level
up, a defeat replays the same level. Between runs the contract's postrun learning
writes its stores (or not, with `postrun=False`), so a ladder under `self-evolve`
measures how far learning carries an agent. The ladder stops after `runs` runs, or
once the top level is won; its endpoint (the level it stands at, and the highest
level won) is reported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from bounded.core import (
    JSON,
    Completion,
    Contract,
    Decision,
    DecisionRecord,
    Env,
    Model,
    Observation,
    Prompt,
    StepResult,
)


def next_level(level: int, victory: bool, top: int) -> int:
    """The level of the next run: one up after a victory (capped at `top`), else the same."""
    return min(level + 1, top) if victory else level


class LadderStep(BaseModel):
    """One run of the ladder."""

    index: int
    ascension: int
    seed: int
    run_id: str
    victory: bool
    outcome: JSON = Field(default_factory=dict)


class LadderResult(BaseModel):
    """A whole ladder: its runs and where it ended."""

    start: int
    top: int
    steps: list[LadderStep] = Field(default_factory=list)
    endpoint: int
    """The level the ladder stands at after its last run (the next run's level)."""
    highest_won: int | None = None
    """The highest level with a victory, None when no run was won."""
    completed: bool = False
    """True when the top level was won."""

    @property
    def victories(self) -> int:
        return sum(step.victory for step in self.steps)


class WithoutPostrun:
    """A contract whose postrun does nothing: the ladder with learning switched off."""

    def __init__(self, inner: Contract) -> None:
        self.inner = inner
        self.name = inner.name

    def reset(self, episode: JSON) -> None:
        self.inner.reset(episode)

    def assemble(self, obs: Observation) -> Prompt:
        return self.inner.assemble(obs)

    def reply_schema(self, obs: Observation) -> JSON:
        return self.inner.reply_schema(obs)

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        return self.inner.parse(completion, obs)

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        self.inner.commit(obs, decision, result)

    def postrun(self, trajectory: list[DecisionRecord]) -> None:
        return None

    def config_dict(self) -> JSON:
        return {**self.inner.config_dict(), "postrun_enabled": False}

    def store_hashes(self) -> dict[str, str]:
        return self.inner.store_hashes()


def won(outcome: JSON) -> bool:
    """Whether an episode outcome (`env.metrics()`) is a victory."""
    return bool(outcome.get("victory")) or outcome.get("outcome") == "victory"


def run_ladder(
    make_env: Callable[[int], Env],
    contract: Contract,
    model: Model,
    *,
    runs: int,
    start: int = 0,
    top: int = 10,
    seed: int = 0,
    postrun: bool = True,
    archive: Any = None,
    tag: str = "ladder",
    env_id: str = "",
    on_step: Callable[[LadderStep], None] | None = None,
) -> LadderResult:
    """Play up to `runs` episodes on the ladder; run i uses seed `seed + i`.

    `make_env(level)` builds the environment at an ascension level, e.g.
    `lambda a: bounded.envs.make("spire", ascension=a)`.
    """
    from bounded.runner import run_episode

    if not 0 <= start <= top:
        raise ValueError(f"start level {start} is outside 0..{top}")
    player: Contract = contract if postrun else WithoutPostrun(contract)
    result = LadderResult(start=start, top=top, endpoint=start)
    level = start
    for index in range(runs):
        record = run_episode(
            make_env(level),
            player,
            model,
            seed=seed + index,
            env_id=env_id,
            tag=f"{tag}-A{level}" if tag else "",
            archive=archive,
        )
        step = LadderStep(
            index=index,
            ascension=level,
            seed=seed + index,
            run_id=record.run_id,
            victory=won(record.outcome),
            outcome=record.outcome,
        )
        result.steps.append(step)
        if on_step is not None:
            on_step(step)
        if step.victory:
            result.highest_won = max(result.highest_won or 0, level)
        if step.victory and level == top:
            result.completed = True
            break
        level = next_level(level, step.victory, top)
    result.endpoint = level
    return result
