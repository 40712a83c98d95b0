"""A game whose players' skill is known exactly, for checks of coverage and level.

`DoorsEnv` is one decision: open one of `doors` doors. One door wins; which one, and
whether the game is `locked` (no door wins), is the seed's deal, so two players on one
seed share it (their outcomes are correlated, as real games' are). `DoorsExpert` opens
the winning door. A `bounded.contracts.expert:PlayerContract` of slip `s` with this
expert (`expert = "bounded.testing.known_skill:DoorsExpert"`) opens a uniformly random
door with probability `s`, so its chance to win is known:

    P(win) = (1 - locked) * ((1 - s) + s / doors)        (`win_rate`)

and two players' difference on a block of `doors` doors is `win_rate(a) - win_rate(b)`.
Blocks with different numbers of doors have different base rates: the design a
stratified paired test is for (`tests/analysis/test_known_skill.py`).
"""

from __future__ import annotations

import random
from typing import Any

from bounded.core import JSON, Action, Observation, Outcome


def win_rate(slip: float, doors: int, locked: float) -> float:
    """The chance that a player of slip `slip` wins a game of `doors` doors."""
    return (1.0 - locked) * ((1.0 - slip) + slip / doors)


class DoorsEnv:
    """One decision among `doors` doors; the seed deals the winning door and the lock.
    (`bounded.protocols.Env`'s members written out: `bounded.testing` sits beneath the
    environments' package.)"""

    instructions = "Open one door."
    version = "0"
    state_schema: JSON | None = None
    initial_state: JSON | None = None
    spec: Any = None
    thread_safe = True
    empty_action: str | None = None
    presentation = "bounded"

    def __init__(self, doors: int = 2, locked: float = 0.0) -> None:
        if doors < 1 or not 0.0 <= locked <= 1.0:
            raise ValueError(f"doors must be at least 1, locked in [0, 1]: got {doors}, {locked}")
        self.doors, self.locked = doors, locked
        self.winning, self.is_locked = 0, False
        self.opened: int | None = None

    def legal(self) -> list[Action]:
        if self.opened is not None:
            return []
        return [Action(id=f"door{index}") for index in range(self.doors)]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        deal = random.Random(f"doors:{seed}")
        self.is_locked = deal.random() < self.locked
        self.winning = deal.randrange(self.doors)
        self.opened = None
        return self.observe(), {}

    def observe(self) -> Observation:
        text = f"{self.doors} doors" if self.opened is None else f"opened door{self.opened}"
        return Observation(kind="doors", t=0 if self.opened is None else 1, text=text,
                           legal=self.legal(), state={"winning": self.winning})  # fmt: skip

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        chosen = action[0] if isinstance(action, list | tuple) else action
        self.opened = int(str(chosen.id).removeprefix("door"))
        return self.observe(), float(self.won()), True, False, {}

    def won(self) -> bool:
        return self.opened == self.winning and not self.is_locked

    def metrics(self) -> dict[str, Any]:
        return {"victory": self.won(), "score": float(self.won())}

    def outcome(self) -> Outcome:
        won = self.won()
        return Outcome(victory=won, score=float(won), progress=float(won),
                       ended_by="victory" if won else "defeat")  # fmt: skip

    def game_knowledge(self) -> None:
        return None

    def default_action(self) -> Action | None:
        return None

    def close(self) -> None:
        return None

    def save(self) -> dict[str, Any]:
        return {"winning": self.winning, "locked": self.is_locked, "opened": self.opened}

    def load(self, data: dict[str, Any]) -> None:
        self.winning, self.is_locked = data["winning"], data["locked"]
        self.opened = data["opened"]


class DoorsExpert:
    """Opens the winning door (it reads the observation's state, as a player who knows
    the game would)."""

    def act(self, obs: Observation) -> Action:
        return Action(id=f"door{obs.state['winning']}")


__all__ = ["DoorsEnv", "DoorsExpert", "win_rate"]
