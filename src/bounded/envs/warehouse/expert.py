"""Scripted warehouse players that keep exact counts: the accuracy ceiling (1.0)."""

from __future__ import annotations

import json
import re
from typing import Any

from bounded.core import Action, Observation


class WarehouseExpert:
    def __init__(self) -> None:
        self.occupied: set[int] = set()
        self.shipped = 0

    def act(self, obs: Observation) -> Action:
        event, shelf = obs.state["event"], obs.state["shelf"]
        if obs.state["index"] == 0:
            self.occupied, self.shipped = set(), 0
        if event == "STORE":
            self.occupied.add(shelf)
        elif event == "SHIP":
            self.occupied.discard(shelf)
            self.shipped += 1
        return obs.legal[0].with_args({"occupied": len(self.occupied), "shipped": self.shipped})


_STATE = re.compile(r"Your state: (\{.*\})")
_EVENT = re.compile(r"Event \d+ of \d+: (\w+)")


def state_keeping_reply(messages: list[dict[str, str]], constraint: Any = None) -> dict[str, Any]:
    """A `state`-contract reply of a perfect state keeper, read from the prompt alone: for a
    scripted model in tests of the loop."""
    latest = messages[-1]["content"]
    match_state, match_event = _STATE.search(latest), _EVENT.search(latest)
    if match_state is None or match_event is None:
        raise ValueError("not a state-contract warehouse prompt")
    state = json.loads(match_state.group(1))
    occupied, shipped = state.get("occupied", 0), state.get("shipped", 0)
    if match_event.group(1) == "STORE":
        occupied += 1
    elif match_event.group(1) == "SHIP":
        occupied, shipped = occupied - 1, shipped + 1
    counts = {"occupied": occupied, "shipped": shipped}
    return {"reasoning": "", "state_patch": counts, "action": {"id": "report", "args": counts}}
