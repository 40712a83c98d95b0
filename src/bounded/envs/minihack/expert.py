"""`MiniHackExpert`: NetHack's explore-and-descend player on MiniHack's levels.

MiniHack ends an episode with success once the hero stands on the stairs down, and its
tasks lack NetHack's `travel`: with `>` in sight the player walks the shortest path to it
(avoiding water and lava `}`), otherwise it explores as `NetHackExpert` does; an action
the task lacks (`search` in a maze) becomes a seeded random move. It crosses no lava, so
Quest's river stops it.
"""

from __future__ import annotations

from collections import deque

from bounded.core import Action, Observation
from bounded.envs.nethack.expert import WALKABLE, NetHackExpert
from bounded.envs.nethack.vocabulary import DELTAS

Cell = tuple[int, int]


class MiniHackExpert(NetHackExpert):
    """See the module docstring."""

    def _command(self, obs: Observation, legal: dict[str, Action]) -> str:
        state = obs.state
        rows = [str(row) for row in state.get("map", [])]
        here = (int(state["x"]), int(state["y"]))
        stairs = _find(rows, ">")
        if stairs is not None:
            step = _step_towards(rows, here, stairs)
            if step in legal:
                return step
        choice = super()._command(obs, legal)
        if choice in legal:
            return choice
        moves = sorted(d for d in DELTAS if d in legal)
        return self.rng.choice(moves) if moves else next(iter(legal))


def _find(rows: list[str], char: str) -> Cell | None:
    for y, row in enumerate(rows):
        x = row.find(char)
        if x >= 0:
            return x, y
    return None


def _step_towards(rows: list[str], here: Cell, goal: Cell) -> str | None:
    """The first move of a shortest walk from `here` to `goal` over walkable cells."""
    queue: deque[tuple[Cell, str | None]] = deque([(here, None)])
    seen = {here}
    while queue:
        cell, first = queue.popleft()
        if cell == goal:
            return first
        for name, (dx, dy) in DELTAS.items():
            nxt = (cell[0] + dx, cell[1] + dy)
            x, y = nxt
            inside = 0 <= y < len(rows) and 0 <= x < len(rows[y])
            if nxt in seen or not inside or rows[y][x] not in WALKABLE:
                continue
            seen.add(nxt)
            queue.append((nxt, first or name))
    return None


__all__ = ["MiniHackExpert"]
