"""BabyAI as text, after BALROG's BabyAI-Text observations: one line per thing the agent
sees in its 7 x 7 egocentric view ("a red ball 2 steps left and 1 step forward", "a wall
3 steps forward", "a closed blue door 1 step right and 2 steps forward"), and what it
carries. BALROG takes these lines from the BabyAI-Text package; this is our own
rendering of the same view (minigrid's `gen_obs`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from minigrid.core.constants import IDX_TO_COLOR, IDX_TO_OBJECT

_SKIPPED = frozenset({"unseen", "empty", "floor", "agent"})
_DOOR_STATES = ("open", "closed", "locked")


def _steps(count: int, word: str) -> str:
    return f"{count} step{'s' if count != 1 else ''} {word}"


def where(dx: int, forward: int) -> str:
    """A view position relative to the agent: `2 steps left and 1 step forward`."""
    parts = []
    if dx:
        parts.append(_steps(abs(dx), "left" if dx < 0 else "right"))
    if forward:
        parts.append(_steps(forward, "forward"))
    return " and ".join(parts) or "here"


def _name(cell: np.ndarray) -> str:
    kind = IDX_TO_OBJECT[int(cell[0])]
    color = IDX_TO_COLOR[int(cell[1])]
    if kind == "door":
        return f"{_DOOR_STATES[int(cell[2])]} {color} door"
    if kind in ("wall", "lava", "goal"):
        return kind
    return f"{color} {kind}"


def _article(name: str) -> str:
    return ("an " if name[0] in "aeiou" else "a ") + name


def describe(image: np.ndarray, carrying: Any = None) -> list[str]:
    """The lines of one view (`image[x, y]`, the agent at the bottom middle facing up):
    what it carries, the nearest wall ahead, left and right, then every object and door,
    nearest first."""
    width, height = image.shape[0], image.shape[1]
    ax, ay = width // 2, height - 1
    lines = []
    if carrying is not None:
        lines.append(f"You carry {_article(f'{carrying.color} {carrying.type}')}")
    walls = []
    for dx, dy in ((0, -1), (-1, 0), (1, 0)):
        x, y = ax + dx, ay + dy
        while 0 <= x < width and 0 <= y < height:
            if IDX_TO_OBJECT[int(image[x, y, 0])] == "wall":
                walls.append(f"a wall {where(x - ax, ay - y)}")
                break
            x, y = x + dx, y + dy
    things = []
    for x in range(width):
        for y in range(height):
            kind = IDX_TO_OBJECT[int(image[x, y, 0])]
            if kind in _SKIPPED or kind == "wall" or (x, y) == (ax, ay):
                continue
            distance = abs(x - ax) + (ay - y)
            things.append(
                (distance, y, x, f"{_article(_name(image[x, y]))} {where(x - ax, ay - y)}")
            )
    lines += walls + [text for *_, text in sorted(things)]
    return lines


__all__ = ["describe", "where"]
