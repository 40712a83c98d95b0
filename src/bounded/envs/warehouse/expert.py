"""A scripted warehouse clerk that keeps exact counts: the accuracy ceiling (1.0)."""

from __future__ import annotations

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
