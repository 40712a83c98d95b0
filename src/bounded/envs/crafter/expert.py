"""`CrafterExpert`: a scripted Crafter player that climbs the tech tree, for calibration,
banks and tests.

It plans on Crafter's world itself (the whole map, as minigrid's bot does for BabyAI),
breadth-first over walkable cells, and each decision takes the first step of a plan in
this order: attack an adjacent zombie or skeleton; drink, eat or sleep when a vital is
low; then the next unmet step of the tech tree (wood, a table, the wood pickaxe and
sword, a sapling planted, stone, a placed stone, the stone tools, coal, a furnace next
to the table, iron, the iron tools, a diamond), picking up the drink, cow and wake-up
achievements on the way. It answers in BALROG's action names; its only randomness (a
step when nothing is reachable) is seeded.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable

import crafter
import numpy as np

from bounded.core import Action, Observation
from bounded.envs.crafter.env import CrafterEnv

MOVES = {"Move West": (-1, 0), "Move East": (1, 0), "Move North": (0, -1), "Move South": (0, 1)}
WALKABLE = ("grass", "sand", "path")
HOSTILE = ("Zombie", "Skeleton")
COSTS = {name: dict(info["uses"]) for name, info in crafter.constants.place.items()}
SEARCH_LIMIT = 1_500
"""Cells a plan's breadth-first search visits before it gives up on a goal."""

Cell = tuple[int, int]
GoalTest = Callable[[Cell], Cell | None]
"""A cell to stand on -> the direction to face there (None: not a goal cell)."""


class CrafterExpert:
    """See the module docstring."""

    def __init__(self, env: CrafterEnv, seed: int = 0) -> None:
        self.env = env
        self.rng = random.Random(seed)

    def act(self, obs: Observation) -> Action:
        choice = self._choose()
        legal = {a.id: a for a in obs.legal}
        return legal.get(choice, obs.legal[0])

    # -- the plan -----------------------------------------------------------------------

    def _choose(self) -> str:
        player = self.env.player
        inv, done = player.inventory, player.achievements
        if player.sleeping:
            return "Noop"
        for step in (
            self._fight,
            lambda: self._collect("water") if inv["drink"] <= 3 else None,
            lambda: self._hunt("Cow") if inv["food"] <= 3 else None,
            lambda: "Sleep" if inv["energy"] <= 2 else None,
            lambda: self._collect("water") if not done["collect_drink"] else None,
            lambda: self._hunt("Cow", reach=12) if not done["eat_cow"] else None,
            lambda: self._place("Place Plant", ("grass",)) if inv["sapling"] else None,
            self._tech_tree,
            lambda: "Sleep" if inv["energy"] < 6 else None,
        ):
            action = step()
            if action is not None:
                return action
        return self._wander()

    def _tech_tree(self) -> str | None:
        inv, done = self.env.player.inventory, self.env.player.achievements
        table, furnace = COSTS["table"]["wood"], COSTS["furnace"]["stone"]
        if not self._near("table", 8):
            if inv["wood"] < table + 1:
                return self._collect("tree")
            return self._place("Place Table", WALKABLE)
        for tool, needs in (
            ("wood_pickaxe", {"wood": 1}),
            ("wood_sword", {"wood": 1}),
            ("stone_pickaxe", {"wood": 1, "stone": 1}),
            ("stone_sword", {"wood": 1, "stone": 1}),
        ):
            if not inv[tool]:
                return self._make(tool, needs, ("table",))
            if tool == "wood_sword" and not done["collect_sapling"]:
                return self._sapling()
            if tool == "stone_pickaxe" and not done["place_stone"]:
                return self._gather({"stone": 1}) or self._place("Place Stone", WALKABLE)
        if not self._near("furnace", 8):
            if inv["stone"] < furnace:
                return self._gather({"stone": furnace})
            return self._at_table(lambda: self._place("Place Furnace", WALKABLE))
        for tool in ("iron_pickaxe", "iron_sword"):
            if not inv[tool]:
                return self._make(tool, {"wood": 1, "coal": 1, "iron": 1}, ("table", "furnace"))
        return self._collect("diamond")

    # -- goals --------------------------------------------------------------------------

    def _gather(self, needs: dict[str, int]) -> str | None:
        """A step towards the first item short of `needs` (None: all held)."""
        material = {"wood": "tree"}
        for item, count in needs.items():
            if self.env.player.inventory[item] < count:
                return self._collect(material.get(item, item))
        return None

    def _make(self, tool: str, needs: dict[str, int], stations: tuple[str, ...]) -> str | None:
        missing = self._gather(needs)
        if missing is not None:
            return missing
        name = "Make " + tool.replace("_", " ").title()
        return self._route(lambda cell: (0, 0) if self._beside(cell, stations) else None, name)

    def _at_table(self, then: Callable[[], str | None]) -> str | None:
        if self._beside(self._here(), ("table",)):
            return then()
        return self._route(lambda cell: (0, 0) if self._beside(cell, ("table",)) else None, "Noop")

    def _collect(self, material: str) -> str | None:
        return self._route(self._facing_test(lambda c: self._material(c) == material), "Do")

    def _hunt(self, creature: str, reach: int | None = None) -> str | None:
        def is_target(cell: Cell) -> bool:
            obj = self.env.world[cell][1]
            return obj is not None and type(obj).__name__ == creature

        return self._route(self._facing_test(is_target), "Do", reach=reach)

    def _fight(self) -> str | None:
        here = self._here()
        for move, (dx, dy) in MOVES.items():
            obj = self.env.world[(here[0] + dx, here[1] + dy)][1]
            if obj is not None and type(obj).__name__ in HOSTILE:
                return "Do" if self._facing() == (dx, dy) else move
        return None

    def _sapling(self) -> str | None:
        return self._place("Do", ("grass",))

    def _place(self, action: str, onto: tuple[str, ...]) -> str | None:
        """`action` on a free cell of `onto` in front: do it, or step so that one is."""
        here, facing = self._here(), self._facing()
        if self._free(self._ahead(here, facing), onto):
            return action
        for move, step in MOVES.items():
            beside = self._ahead(here, step)
            if self._free(beside, WALKABLE) and self._free(self._ahead(beside, step), onto):
                return move
        return self._wander()

    # -- the map ------------------------------------------------------------------------

    def _here(self) -> Cell:
        pos = self.env.player.pos
        return int(pos[0]), int(pos[1])

    def _facing(self) -> Cell:
        dx, dy = self.env.player.facing
        return int(dx), int(dy)

    @staticmethod
    def _ahead(cell: Cell, step: Cell) -> Cell:
        return cell[0] + step[0], cell[1] + step[1]

    def _material(self, cell: Cell) -> str | None:
        material = self.env.world[cell][0]
        return None if material is None else str(material)

    def _free(self, cell: Cell, materials: tuple[str, ...]) -> bool:
        material, obj = self.env.world[cell]
        return obj is None and material in materials

    def _beside(self, cell: Cell, stations: tuple[str, ...]) -> bool:
        world, (x, y) = self.env.world, cell
        around = {self._material((x + dx, y + dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
        return world[cell][0] is not None and all(s in around for s in stations)

    def _near(self, material: str, distance: int) -> bool:
        world, (x, y) = self.env.world, self._here()
        area = world._mat_map[max(0, x - distance) : x + distance + 1,
                              max(0, y - distance) : y + distance + 1]  # fmt: skip
        return bool(np.any(area == world._mat_ids.get(material, -1)))

    def _facing_test(self, is_target: Callable[[Cell], bool]) -> GoalTest:
        def test(cell: Cell) -> Cell | None:
            for step in MOVES.values():
                if is_target(self._ahead(cell, step)):
                    return step
            return None

        return test

    def _route(self, goal: GoalTest, act: str, reach: int | None = None) -> str | None:
        """`act` when standing on a goal cell facing its direction (turning first), else
        the first step of the shortest walk to one; None when none is within reach."""
        start = self._here()
        face = goal(start)
        if face is not None:
            if face == (0, 0) or face == self._facing():
                return act
            return next(m for m, step in MOVES.items() if step == face)
        first: dict[Cell, str] = {start: ""}
        queue: deque[tuple[Cell, int]] = deque([(start, 0)])
        while queue and len(first) < SEARCH_LIMIT:
            cell, distance = queue.popleft()
            if reach is not None and distance >= reach:
                continue
            for move, step in MOVES.items():
                nxt = self._ahead(cell, step)
                if nxt in first or not self._free(nxt, WALKABLE):
                    continue
                first[nxt] = first[cell] or move
                if goal(nxt) is not None:
                    return first[nxt]
                queue.append((nxt, distance + 1))
        return None

    def _wander(self) -> str:
        here = self._here()
        moves = [m for m, step in MOVES.items() if self._free(self._ahead(here, step), WALKABLE)]
        return self.rng.choice(moves) if moves else "Noop"


__all__ = ["CrafterExpert"]
