"""An out-of-tree environment whose record declares a bank recipe: `bounded bank tally`
builds its episodic bank, and `bounded tally-target` is its own command, with nothing in
bounded edited.

The game: count up to the target shown (2, 3 or 4 by the seed) with `add`, then `stop`;
stopping on the target wins. The recipe plays `games` games alternating two strategies,
`exact` (stops on the target) and `over` (adds one too many), and keeps the wins.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from bounded import (
    Action,
    BankGame,
    BankPlan,
    BankRecipe,
    Choices,
    EnvRecord,
    Observation,
    Outcome,
    TextEnv,
)

ACTIONS = ("add", "stop")


class TallyEnv(TextEnv):
    instructions = "Count up to the target, then stop."
    version = "1"

    def __init__(self) -> None:
        self.target, self.count, self.stopped = 2, 0, False
        self.init_spaces(self.choices, kinds=("tally", "over"))

    def choices(self) -> Choices:
        return Choices(legal=self.observe().legal)

    def observe(self) -> Observation:
        if self.stopped:
            return Observation(kind="over", t=self.count, text="Stopped.")
        return Observation(
            kind="tally",
            t=self.count,
            state={"count": self.count, "target": self.target},
            text=f"Count {self.count} of {self.target}.",
            legal=[Action(id=name) for name in ACTIONS],
        )

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.target, self.count, self.stopped = 2 + (seed or 0) % 3, 0, False
        return self.observe(), {}

    def step(self, action):
        chosen = self.resolve_action(action)
        chosen = chosen[0] if isinstance(chosen, list | tuple) else chosen
        if chosen.id == "add":
            self.count += 1
        self.stopped = chosen.id == "stop"
        return self.observe(), 0.0, self.stopped, False, {}

    def outcome(self) -> Outcome:
        won = self.stopped and self.count == self.target
        return Outcome(victory=won, score=float(self.count), progress=float(won))

    def save(self) -> dict[str, Any]:
        return {"target": self.target, "count": self.count, "stopped": self.stopped}

    def load(self, data: dict[str, Any]) -> None:
        self.target, self.count, self.stopped = data["target"], data["count"], data["stopped"]


class TallyExpert:
    """Adds until the target (`exact`) or one past it (`over`), then stops."""

    def __init__(self, strategy: str) -> None:
        self.extra = 1 if strategy == "over" else 0

    def act(self, obs: Observation) -> Action:
        goal = obs.state["target"] + self.extra
        return Action(id="add" if obs.state["count"] < goal else "stop")


def tally_bank_plan(
    games: Annotated[int, typer.Option(help="Games the expert plays.")] = 4,
    seed: Annotated[int, typer.Option(help="First game seed.")] = 0,
) -> BankPlan:
    """Build the tally bank from the expert's winning games."""
    planned = []
    for number in range(games):
        strategy = ("exact", "over")[number % 2]
        planned.append(
            BankGame({}, seed + number, strategy, lambda _env, s=strategy: TallyExpert(s))
        )
    return BankPlan(planned, {"env": "tally/Tally-v0", "games": games, "seed": seed})


def tally_bank_report(bank: Any, played: Any, out: Path) -> str:
    return f"tally: kept {len(bank.game_info)} of {len(played)} games, {len(bank)} entries -> {out}"


def tally_target(seed: Annotated[int, typer.Option(help="The game's seed.")] = 0) -> None:
    """Print the target of a seed's game."""
    typer.echo(f"target {2 + seed % 3}")


TALLY_BANK = BankRecipe(plan=tally_bank_plan, report=tally_bank_report)

TALLY_RECORD = EnvRecord(
    name="tally",
    env_id="tally/Tally-v0",
    entry_point="tally_plugin:TallyEnv",
    summary="Count to the target and stop.",
    bank="tally_plugin:TALLY_BANK",
    commands={"tally-target": "tally_plugin:tally_target"},
)
