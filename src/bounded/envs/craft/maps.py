"""Maps: base locations of both sides on a plane, in game distance units.

The player's bases are listed in the order the built-in routines expand (main,
natural, third, ...); the enemy's are the same layout rotated half a turn about the
centre, as on two-player ladder maps. Maps differ in rush distance and in how far
apart the expansions lie.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Point = tuple[float, float]


@dataclass(frozen=True)
class MapSpec:
    """A two-player map: its size and the player's base positions (the enemy's mirror them)."""

    name: str
    width: float
    height: float
    bases: tuple[Point, ...]
    description: str

    def enemy_bases(self) -> tuple[Point, ...]:
        return tuple((self.width - x, self.height - y) for x, y in self.bases)

    @property
    def middle(self) -> Point:
        return (self.width / 2, self.height / 2)

    @property
    def rush_distance(self) -> float:
        return distance(self.bases[0], self.enemy_bases()[0])


def distance(a: Point, b: Point) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


MAPS: dict[str, MapSpec] = {
    m.name: m
    for m in (
        MapSpec(
            "crossroads",
            160,
            160,
            ((24, 24), (48, 30), (30, 62), (70, 44), (24, 100), (96, 24)),
            "Compact two-player map: short rush distance, natural close to the main, "
            "third and fourth bases in a line towards the centre.",
        ),
        MapSpec(
            "longbridge",
            220,
            150,
            ((22, 22), (28, 58), (64, 26), (62, 70), (104, 20), (20, 118)),
            "Wide map: long rush distance; the natural sits behind the main's ramp and "
            "the later bases spread along the map's edge.",
        ),
        MapSpec(
            "highlands",
            190,
            190,
            ((28, 28), (60, 24), (26, 70), (72, 70), (110, 30), (30, 120)),
            "Medium map with two equally near third bases and open lanes through the centre.",
        ),
    )
}
"""The maps by name."""

DEFAULT_MAP = "crossroads"
