"""Crafter as text, after BALROG's Crafter observations (SmartPlay's language wrapper):
the nearest thing of each kind in the player's view with its direction and distance,
what the player faces, its four vitals out of 9 and what it holds. The words are our
own, read from Crafter's world (materials and creatures), not from its image.

Crafter's world is indexed `[x, y]` with y growing southwards: `move_up` is north.
The local view is the 9 x 7 cells the image shows (a 9 x 9 view less the two rows of
Crafter's inventory strip), the player in its middle.
"""

from __future__ import annotations

from typing import Any

VITALS = ("health", "food", "drink", "energy")
"""Crafter's vitals, each from 0 to 9; the player dies when health reaches 0."""
MAX_VITAL = 9


def _steps(count: int, word: str) -> str:
    return f"{count} step{'s' if count != 1 else ''} {word}"


def where(dx: int, dy: int) -> str:
    """An offset from the player in compass words: `2 steps north and 1 step west`."""
    parts = []
    if dy:
        parts.append(_steps(abs(dy), "north" if dy < 0 else "south"))
    if dx:
        parts.append(_steps(abs(dx), "west" if dx < 0 else "east"))
    return " and ".join(parts) or "here"


FACING = {(0, -1): "north", (0, 1): "south", (-1, 0): "west", (1, 0): "east"}


def thing_at(world: Any, pos: tuple[int, int]) -> str | None:
    """The name of what stands on a cell: a creature or plant, else the material; None
    outside the world."""
    material, obj = world[pos]
    if obj is not None:
        return type(obj).__name__.lower()
    return None if material is None else str(material)


def view_cells(player: Any, view: tuple[int, int]) -> list[tuple[int, int]]:
    """The offsets of the local view's cells (the player's own excluded)."""
    half_x, half_y = view[0] // 2, (view[1] - 2) // 2
    return [
        (dx, dy)
        for dy in range(-half_y, half_y + 1)
        for dx in range(-half_x, half_x + 1)
        if (dx, dy) != (0, 0)
    ]


def nearest_things(world: Any, player: Any, view: tuple[int, int]) -> list[tuple[str, int, int]]:
    """The nearest cell of each kind of thing in view, nearest first (ties: north before
    south, west before east): `(name, dx, dy)`."""
    px, py = int(player.pos[0]), int(player.pos[1])
    best: dict[str, tuple[int, int, int, int, int]] = {}
    for dx, dy in view_cells(player, view):
        name = thing_at(world, (px + dx, py + dy))
        if name is None or name == "player":
            continue
        key = (abs(dx) + abs(dy), dy, dx, dx, dy)
        if name not in best or key < best[name]:
            best[name] = key
    ranked = sorted(best.items(), key=lambda item: item[1])
    return [(name, key[3], key[4]) for name, key in ranked]


def facing_name(world: Any, player: Any) -> str:
    """What the player faces: the thing on the cell in front of it."""
    dx, dy = (int(v) for v in player.facing)
    target = (int(player.pos[0]) + dx, int(player.pos[1]) + dy)
    return thing_at(world, target) or "the edge of the world"


def inventory_items(inventory: dict[str, int]) -> dict[str, int]:
    """What the player holds (vitals excluded, nothing held omitted)."""
    return {k: int(v) for k, v in inventory.items() if k not in VITALS and v > 0}


def describe(world: Any, player: Any, view: tuple[int, int]) -> str:
    """The text of one decision: status, what is in view, what is in front, vitals, items."""
    lines: list[str] = []
    if player.health <= 0:
        lines.append("You died.")
    elif player.sleeping:
        lines.append("You are asleep: you wake when your energy is full (or when hurt).")
    seen = nearest_things(world, player, view)
    if seen:
        lines.append("You see (the nearest of each):")
        lines += [f"- {name} {where(dx, dy)}" for name, dx, dy in seen]
    else:
        lines.append("You see nothing around you.")
    dx, dy = (int(v) for v in player.facing)
    facing = FACING.get((dx, dy), "north")
    lines.append(f"You face {facing}; in front of you: {facing_name(world, player)}.")
    lines.append("")
    vitals = ", ".join(f"{v} {player.inventory[v]}/{MAX_VITAL}" for v in VITALS)
    lines.append(f"Your status: {vitals}.")
    items = inventory_items(player.inventory)
    held = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in items.items())
    lines.append(f"Your inventory: {held}." if held else "Your inventory is empty.")
    return "\n".join(lines)


__all__ = ["VITALS", "describe", "facing_name", "inventory_items", "nearest_things", "where"]
