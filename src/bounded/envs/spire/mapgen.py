"""Act maps: 15 floors on a 7-column grid, six crossing paths, typed rooms, a boss on top."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

WIDTH = 7
FLOORS = 15
PATHS = 6
TREASURE_ROW = 8
REST_ROW = FLOORS - 1


@dataclass
class Node:
    x: int
    y: int
    room: str = "monster"
    edges: set[int] = field(default_factory=set)
    """Columns of the nodes on the next floor this node leads to."""

    def to_json(self) -> dict[str, Any]:
        return {"x": self.x, "y": self.y, "room": self.room, "edges": sorted(self.edges)}


@dataclass
class ActMap:
    nodes: dict[tuple[int, int], Node]

    def row(self, y: int) -> list[Node]:
        return list(self.rows.get(y, ()))

    @cached_property
    def rows(self) -> dict[int, tuple[Node, ...]]:
        """The nodes of each floor by column (the map is fixed once generated)."""
        rows: dict[int, list[Node]] = {}
        for (_, y), node in self.nodes.items():
            rows.setdefault(y, []).append(node)
        return {y: tuple(sorted(row, key=lambda n: n.x)) for y, row in sorted(rows.items())}

    def to_json(self) -> list[dict[str, Any]]:
        return [self.nodes[k].to_json() for k in sorted(self.nodes, key=lambda k: (k[1], k[0]))]


def _room_weights(ascension: int) -> list[tuple[str, float]]:
    elite = 0.16 if ascension >= 1 else 0.10
    return [("monster", 0.47), ("event", 0.22), ("elite", elite), ("rest", 0.12), ("shop", 0.06)]


def _pick_room(rng: random.Random, y: int, parents: list[str], ascension: int) -> str:
    for _ in range(20):
        roll = rng.random() * sum(w for _, w in _room_weights(ascension))
        room = "monster"
        for name, weight in _room_weights(ascension):
            roll -= weight
            if roll < 0:
                room = name
                break
        if room in ("elite", "rest") and y < 5:
            continue
        if room == "rest" and y >= REST_ROW - 1:
            continue
        if room in ("elite", "rest", "shop") and room in parents:
            continue
        return room
    return "monster"


def generate(rng: random.Random, ascension: int) -> ActMap:
    nodes: dict[tuple[int, int], Node] = {}
    starts: list[int] = []
    for p in range(PATHS):
        x = rng.randrange(WIDTH)
        while p == 1 and x == starts[0]:
            x = rng.randrange(WIDTH)
        starts.append(x)
        for y in range(FLOORS):
            node = nodes.setdefault((x, y), Node(x, y))
            if y == FLOORS - 1:
                break
            options = [nx for nx in (x - 1, x, x + 1) if 0 <= nx < WIDTH]
            nx = rng.choice(options)
            node.edges.add(nx)
            x = nx
    parents: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for (x, y), node in nodes.items():
        for nx in node.edges:
            parents.setdefault((nx, y + 1), []).append((x, y))
    rows = ActMap(nodes).rows
    for y in range(FLOORS):
        for node in rows.get(y, ()):
            if y == 0:
                node.room = "monster"
            elif y == TREASURE_ROW:
                node.room = "treasure"
            elif y == REST_ROW:
                node.room = "rest"
            else:
                parent_rooms = [nodes[k].room for k in parents.get((node.x, y), [])]
                node.room = _pick_room(rng, y, parent_rooms, ascension)
    return ActMap(nodes)
