"""`TextEnv`: the base of bounded's environments, with the optional hooks' defaults.

A bounded environment is a Gymnasium environment whose observations are `Observation`s
and whose actions are `Action`s (or a plan of several). Subclass `TextEnv` and implement
`reset`, `step`, `metrics`, `outcome`, `save` and `load`; the rest has a default here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gymnasium

from bounded.core import JSON, Action, Observation, Outcome

if TYPE_CHECKING:
    from bounded.stores.knowledge import GameKnowledge


class TextEnv(gymnasium.Env[Observation, Action]):
    """Defaults for the optional members of `bounded.core.Env`."""

    instructions: str = ""
    version: str = "0"
    state_schema: JSON | None = None
    initial_state: JSON | None = None

    def metrics(self) -> dict[str, Any]:
        """The episode's measurements (default: none)."""
        return {}

    def outcome(self) -> Outcome:
        """Default: the `victory` and `score` the metrics report, progress 1 on a victory."""
        metrics = self.metrics()
        victory = metrics.get("victory") is True
        score = metrics.get("score")
        return Outcome(
            victory=victory,
            score=float(score) if isinstance(score, int | float) else float(victory),
            progress=1.0 if victory else 0.0,
        )

    def game_knowledge(self) -> GameKnowledge | None:
        """Default: the typed contract knows nothing of this game beyond the observations."""
        return None


__all__ = ["TextEnv"]
