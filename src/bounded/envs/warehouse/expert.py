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
_EVENTS = re.compile(r"Event (\d+) of \d+: (STORE|SHIP|WAIT)(?: shelf (\d+))?")


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


def transcript_reading_reply(
    messages: list[dict[str, str]], constraint: Any = None
) -> dict[str, Any]:
    """A `transcript`-contract reply that recounts every event the prompt still shows (its
    own earlier replies are not read): for a scripted model in tests of the loop."""
    events: dict[int, tuple[str, int]] = {}
    for message in messages:
        if message["role"] == "user":
            for index, kind, shelf in _EVENTS.findall(message["content"]):
                events[int(index)] = (kind, int(shelf or 0))
    if not events:
        raise ValueError("not a warehouse prompt")
    occupied: set[int] = set()
    shipped = 0
    for _, (kind, shelf) in sorted(events.items()):
        if kind == "STORE":
            occupied.add(shelf)
        elif kind == "SHIP":
            occupied.discard(shelf)
            shipped += 1
    counts = {"occupied": len(occupied), "shipped": shipped}
    return {"reasoning": "", "action": {"id": "report", "args": counts}}


def counting_reply(messages: list[dict[str, str]], constraint: Any = None) -> dict[str, Any]:
    """The reply of a warehouse player for either contract: the state keeper's on a
    `state` prompt, the transcript reader's otherwise (as a model:
    `bounded.jobs.scripted_players:counting_model`)."""
    if _STATE.search(messages[-1]["content"]):
        return state_keeping_reply(messages, constraint)
    return transcript_reading_reply(messages, constraint)
