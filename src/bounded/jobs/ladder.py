"""The ascension ladder (auto mode): climb after a victory, retry after a defeat.

Each run plays at the ladder's current level; a victory (the environment's own
`Outcome.victory`) moves the next run one level up, a defeat replays the same level.
Between runs the contract's postrun learning writes its stores (or not, with
`postrun=False`), so a ladder under `self-evolve` measures how far learning carries an
agent. The ladder stops after `runs` runs, or once the top level is won; its endpoint
(the level it stands at, and the highest level won) is reported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from bounded.contracts.base import ContractWrapper
from bounded.core import JSON, DecisionRecord, Outcome
from bounded.core import victory_of as won
from bounded.protocols import Contract, Model
from bounded.runner.build import build_contract, build_model, play
from bounded.runner.spec import GameSpec


def next_level(level: int, victory: bool, top: int) -> int:
    """The level of the next run: one up after a victory (capped at `top`), else the same."""
    return min(level + 1, top) if victory else level


def ascension(level: int) -> JSON:
    """The environment options of a ladder level, by default spire's ascension."""
    return {"ascension": level}


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


class WithoutPostrun(ContractWrapper):
    """A contract whose postrun does nothing: the ladder with learning switched off.
    Everything else (proposals, queues, replay) is the wrapped contract's."""

    def postrun(self, trajectory: Sequence[DecisionRecord], outcome: Outcome) -> None:
        return None

    def config_dict(self) -> JSON:
        return {**self.inner.config_dict(), "postrun_enabled": False}


def run_ladder(
    spec: GameSpec,
    *,
    runs: int,
    start: int = 0,
    top: int = 10,
    postrun: bool = True,
    level_options: Callable[[int], JSON] = ascension,
    archive: Any = None,
    model: Model | None = None,
    contract: Contract | None = None,
    on_step: Callable[[LadderStep], None] | None = None,
) -> LadderResult:
    """Play up to `runs` games of `spec` on the ladder; run i uses seed `spec.seed + i` and
    the environment options `level_options(level)` over the spec's.

    One contract plays every run (built from the spec unless given), so what postrun
    learns in memory carries to the next run; one model too.
    """
    if not 0 <= start <= top:
        raise ValueError(f"start level {start} is outside 0..{top}")
    learner = contract if contract is not None else build_contract(spec)
    player: Contract = learner if postrun else WithoutPostrun(learner)
    llm = model if model is not None else build_model(spec)
    result = LadderResult(start=start, top=top, endpoint=start)
    level = start
    for index in range(runs):
        run_spec = spec.model_copy(
            update={
                "seed": spec.seed + index,
                "env_options": {**spec.env_options, **level_options(level)},
                "tag": f"{spec.run_tag}-A{level}",
            }
        )
        record = play(run_spec, archive=archive, model=llm, contract=player)
        step = LadderStep(
            index=index,
            ascension=level,
            seed=run_spec.seed,
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


__all__ = [
    "LadderResult",
    "LadderStep",
    "WithoutPostrun",
    "ascension",
    "next_level",
    "run_ladder",
    "won",
]
