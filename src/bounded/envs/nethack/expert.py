"""`NetHackExpert`: a scripted explore-and-descend player, for calibration, banks and tests.

Each command decision, in order: pray when HP is very low (once per 1,000 turns); eat
when hungry; go down when standing on a staircase down; travel to a staircase down it
has seen on this level; attack an adjacent hostile monster; otherwise walk towards the
nearest unexplored place (breadth-first over the map it sees: floor, corridors, doors,
items; no diagonal step through a doorway); with nothing left to explore, search for
hidden passages, then wander. Questions get a cautious answer (yes only to praying,
the first food offered when eating), windows are continued, other prompts escaped.
It plays only what `obs.legal` lists; its only randomness is seeded.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field

from bounded.core import Action, Observation
from bounded.envs.nethack.vocabulary import DELTAS

WALKABLE = frozenset('.#<>{_%)[?/=!("*$+`0^') | frozenset("abcdefghijklmnopqrstuvwxyz")
WALKABLE |= frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ&';:@")
"""Map characters the hero may step on (or attack into); walls `|` `-` only at doors."""
SEARCHES_BEFORE_WANDERING = 20
PRAYER_GAP = 1_000
BLOCKED_AFTER = 4
"""Failed moves into one cell before the explorer routes around it."""


@dataclass
class _Level:
    visited: set[tuple[int, int]] = field(default_factory=set)
    stairs_down: tuple[int, int] | None = None
    travel_failed_from: set[tuple[int, int]] = field(default_factory=set)
    blocked: set[tuple[int, int]] = field(default_factory=set)
    failures: dict[tuple[int, int], int] = field(default_factory=dict)


class NetHackExpert:
    """Explore the level, find the staircase down, descend (see the module docstring)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.levels: dict[tuple[int, int], _Level] = {}
        self.last_prayer = -PRAYER_GAP
        self.searches = 0
        self.last_position: tuple[int, int] | None = None
        self.last_move: str | None = None
        self.travelling_from: tuple[int, int] | None = None
        self.picked = False
        self.peaceful_until = -1

    def act(self, obs: Observation) -> Action:
        legal = {a.id: a for a in obs.legal}
        choice = self._choose(obs, legal)
        return legal[choice] if choice in legal else next(iter(legal.values()))

    # -- per mode -----------------------------------------------------------------------

    def _choose(self, obs: Observation, legal: dict[str, Action]) -> str:
        kind = obs.kind
        if kind == "more":
            return "more"
        if kind == "choice":
            return self._answer(obs, legal)
        if kind == "position":
            if not self.picked and "pick staircase down" in legal:
                self.picked = True
                return "pick staircase down"
            return "confirm"
        if kind != "command":
            return "esc"
        return self._command(obs, legal)

    def _answer(self, obs: Observation, legal: dict[str, Action]) -> str:
        text = str(obs.state.get("message", "")).lower()
        if "really attack" in text:
            self.peaceful_until = int(obs.state.get("turn", 0)) + 30
            return "answer n" if "answer n" in legal else "esc"
        if "pray" in text and "answer y" in legal:
            return "answer y"
        if "what do you want to eat" in text:
            letters = [a for a in legal if a.startswith("answer ") and a[-1].isalpha()]
            return letters[0] if letters else "esc"
        return "answer n" if "answer n" in legal else "esc"

    def _command(self, obs: Observation, legal: dict[str, Action]) -> str:
        state = obs.state
        here = (int(state["x"]), int(state["y"]))
        level = self.levels.setdefault((int(state["dungeon"]), int(state["dlvl"])), _Level())
        rows: list[str] = list(state["map"])
        self._remember(level, rows, here)
        if self.last_move and self.last_position == here:
            # A door opening, a fight or a pet in the way also keep the hero in place:
            # only a cell refused again and again is taken for blocked.
            target = _moved(here, self.last_move)
            level.failures[target] = level.failures.get(target, 0) + 1
            if level.failures[target] >= BLOCKED_AFTER:
                level.blocked.add(target)
        self.last_position, self.last_move = here, None
        hp, max_hp, turn = int(state["hp"]), int(state["max_hp"]), int(state["turn"])
        if hp < max(6, max_hp // 7) and turn - self.last_prayer >= PRAYER_GAP:
            self.last_prayer = turn
            return "pray"
        if state.get("hunger") in ("hungry", "weak", "fainting") and _has_food(state):
            return "eat"
        if level.stairs_down == here:
            return "down"
        if self.travelling_from is not None:
            if self.travelling_from == here:
                level.travel_failed_from.add(here)
            self.travelling_from = None
        if level.stairs_down is not None and here not in level.travel_failed_from:
            self.travelling_from, self.picked = here, False
            return "travel"
        attack = self._attack(state, turn)
        if attack is not None:
            return attack
        return self._explore(level, rows, here, {tuple(d) for d in state.get("doors", [])})

    def _remember(self, level: _Level, rows: list[str], here: tuple[int, int]) -> None:
        level.visited.add(here)
        for y, row in enumerate(rows):
            x = row.find(">")
            if x >= 0:
                level.stairs_down = (x, y)

    def _attack(self, state: dict, turn: int) -> str | None:
        if turn < self.peaceful_until:
            return None
        for monster in state.get("monsters", []):
            dx, dy = int(monster["dx"]), int(monster["dy"])
            if max(abs(dx), abs(dy)) == 1:
                return next(name for name, delta in DELTAS.items() if delta == (dx, dy))
        return None

    def _explore(
        self, level: _Level, rows: list[str], here: tuple[int, int], doors: set[tuple[int, int]]
    ) -> str:
        step = _first_step(rows, here, doors, level)
        if step is not None:
            self.searches = 0
            self.last_move = step
            return step
        if self.searches < SEARCHES_BEFORE_WANDERING:
            self.searches += 1
            return "search"
        self.searches = 0
        level.blocked.clear()
        level.failures.clear()
        self.last_move = self.rng.choice(sorted(DELTAS))
        return self.last_move


def _moved(here: tuple[int, int], direction: str) -> tuple[int, int]:
    dx, dy = DELTAS[direction]
    return here[0] + dx, here[1] + dy


def _has_food(state: dict) -> bool:
    food = ("food ration", "apple", "orange", "cookie", "cram", "lembas", "tin", "banana")
    return any(any(word in item for word in food) for item in state.get("inventory", []))


def _char(rows: list[str], x: int, y: int) -> str:
    if 0 <= y < len(rows) and 0 <= x < len(rows[y]):
        return rows[y][x]
    return " "


def _walkable(rows: list[str], cell: tuple[int, int], doors: set[tuple[int, int]]) -> bool:
    char = _char(rows, *cell)
    return char in WALKABLE or (cell in doors and char in "|-")


def _frontier(rows: list[str], cell: tuple[int, int], level: _Level) -> bool:
    if cell in level.visited:
        return False
    x, y = cell
    return any(
        _char(rows, x + dx, y + dy) == " " and 0 <= y + dy < len(rows) for dx, dy in DELTAS.values()
    )


def _first_step(
    rows: list[str], here: tuple[int, int], doors: set[tuple[int, int]], level: _Level
) -> str | None:
    """The first move of a shortest path to the nearest unexplored cell (None: none left)."""
    queue: deque[tuple[tuple[int, int], str | None]] = deque([(here, None)])
    seen = {here}
    while queue:
        cell, first = queue.popleft()
        if first is not None and _frontier(rows, cell, level):
            return first
        for name, (dx, dy) in DELTAS.items():
            nxt = (cell[0] + dx, cell[1] + dy)
            diagonal = dx != 0 and dy != 0
            if nxt in seen or nxt in level.blocked or not _walkable(rows, nxt, doors):
                continue
            if diagonal and (nxt in doors or cell in doors):
                continue
            seen.add(nxt)
            queue.append((nxt, first or name))
    return None


__all__ = ["NetHackExpert"]
