"""What a contract executes when the model's reply is unusable (malformed, or no action).

- `no-op` (the SKILL.state replication's `parse_response`, which "degrades to a no-op with
  a recorded parse_error"): the `noop` action, which an environment that supports it
  takes as doing nothing this decision (the warehouse: no report for the event, counted
  wrong). An environment that refuses it gets the first legal action instead, and the
  decision records the refusal.
- `first-legal`: the first legal action as the observation lists it (this toolkit's
  original behaviour).
"""

from __future__ import annotations

from typing import Literal

from bounded.core import Action, Observation

FallbackPolicy = Literal["no-op", "first-legal"]

NOOP_ACTION = Action(id="noop", label="no action: the reply was unusable")


def fallback_actions(policy: FallbackPolicy, obs: Observation) -> list[Action]:
    """The actions a contract with this policy executes for an unusable reply."""
    if policy == "no-op":
        return [NOOP_ACTION]
    return list(obs.legal[:1])
