"""What a run's actions did: how many its decisions gave, and how many did something.

An effective action is any action other than the environment's declared do-nothing
action (`Env.empty_action`: craft's `EMPTY ACTION`, Crafter's `Noop`). Two agents that
decide at the same cadence can act at very different rates (a Chain-of-Summarization
queue that runs dry plays the empty action until its next call), so a comparison reads
the effective rate, not the count of decisions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bounded.core import JSON, Action


@dataclass
class ActionTally:
    """Counts of a run's actions, kept as it is played (and rebuilt on a resume)."""

    empty_action: str | None
    decisions: int = 0
    given: int = 0
    effective: int = 0

    def add(self, actions: Iterable[Action]) -> None:
        """Count one decision's executed actions."""
        self.decisions += 1
        for action in actions:
            self.given += 1
            self.effective += action.id != self.empty_action

    def outcome(self) -> JSON:
        """The counts as a run's outcome holds them."""
        per_decision = self.effective / self.decisions if self.decisions else 0.0
        return {
            "actions_given": self.given,
            "effective_actions": self.effective,
            "effective_action_rate": per_decision,
        }


__all__ = ["ActionTally"]
