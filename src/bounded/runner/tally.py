"""What a run's actions did: how many its decisions gave, how many did something, and how
many the harness chose because the reply was unusable.

An effective action is an action the agent chose (its decision carried it) other than the
environment's declared do-nothing action (`Env.empty_action`: craft's `EMPTY ACTION`,
Crafter's `Noop`). An action the harness executed because the reply was unusable (the
contract's fallback: a no-op, the game's default, the first legal action, the empty
action; `DecisionRecord.fallback`) is never effective, on any environment: an agent whose
every reply is unusable acts at rate 0, whether or not its environment declares an empty
action.

Three rates per decision:

- `effective_action_rate`: effective actions per decision (above 1 where a decision
  carries a plan of several actions);
- `acting_rate`: the share of decisions that carried at least one effective action, the
  rate the parity report compares (`bounded.analysis.parity`): it measures how often the
  agent acts, not how long its plans are, so a Chain-of-Summarization queue that runs dry
  (empty actions until its next call) and an agent idling on fallbacks both show, while
  two policies that plan different lengths do not;
- `fallback_rate`: the share of decisions whose actions the harness chose.
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
    acting: int = 0
    """Decisions that carried at least one effective action."""
    fallbacks: int = 0
    """Decisions whose actions the harness chose (the reply was unusable)."""

    def add(self, actions: Iterable[Action], fallback: bool = False) -> None:
        """Count one decision's executed actions (`fallback`: the harness chose them)."""
        self.decisions += 1
        listed = list(actions)
        self.given += len(listed)
        if fallback:
            self.fallbacks += 1
            return
        effective = sum(action.id != self.empty_action for action in listed)
        self.effective += effective
        self.acting += effective > 0

    def outcome(self) -> JSON:
        """The counts as a run's outcome holds them."""
        decisions = self.decisions

        def share(count: int) -> float:
            return count / decisions if decisions else 0.0

        return {
            "actions_given": self.given,
            "effective_actions": self.effective,
            "effective_action_rate": share(self.effective),
            "acting_rate": share(self.acting),
            "fallback_decisions": self.fallbacks,
            "fallback_rate": share(self.fallbacks),
        }


__all__ = ["ActionTally"]
