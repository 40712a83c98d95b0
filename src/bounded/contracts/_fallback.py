"""What a contract executes when the model's reply is unusable (malformed, or no action).

- `no-op` (the SKILL.state replication's `parse_response`, which "degrades to a no-op with
  a recorded parse_error"): the `noop` action, which an environment that supports it
  takes as doing nothing this decision (the warehouse: no report for the event, counted
  wrong). An environment that refuses it gets the first legal action instead, and the
  decision records the refusal.
- `first-legal`: the first legal action as the observation lists it (this toolkit's
  original behaviour).
- `game-default`: the game's own default action (`Env.default_action()`, BALROG's: `esc`
  in NetHack, `Noop` in Crafter, `help` in TextWorld), as BALROG's `check_action_validity`
  does; the runner supplies it (no actions here), the first legal action where the game
  declares none.
"""

from __future__ import annotations

from typing import Literal

from bounded.core import Action, Observation

FallbackPolicy = Literal["no-op", "first-legal", "game-default"]

NOOP_ACTION = Action(id="noop", label="no action: the reply was unusable")


def fallback_actions(policy: FallbackPolicy, obs: Observation) -> list[Action]:
    """The actions a contract with this policy executes for an unusable reply."""
    if policy == "no-op":
        return [NOOP_ACTION]
    if policy == "game-default":
        return []
    return list(obs.legal[:1])
