"""Crafter as BALROG shows it (`presentation="balrog"`): BALROG's instruction prompt, its
action descriptions, and the two texts of its Crafter language wrapper, read at BALROG
commit af7d1f1 (`balrog/environments/crafter/`):

- the long-term context, kept in BALROG's history: what is in the 9 x 7 local view, one
  line per kind of thing (the nearest of each, kinds in the order the view is scanned:
  column by column from the west, each from the north), `- tree 4 steps to your
  north-west` (the Manhattan distance, the compass words joined by `-`), then what the
  player faces (`You face grass at your front.`), after `You are sleeping, ...` or
  `You died.` when so;
- the short-term context, shown with the current observation only: the four vitals out
  of 9 and the inventory.

The view is cut from Crafter's semantic map exactly as BALROG cuts it, including its
numpy slicing at the world's edge (a negative start leaves the cut empty).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bounded.envs.crafter.describe import VITALS

ACTION_DESCRIPTIONS: dict[str, str] = {
    "Noop": "do nothing",
    "Move West": "move west on flat ground",
    "Move East": "move east on flat ground",
    "Move North": "move north on flat ground",
    "Move South": "move south on flat ground",
    "Do": "Multiuse action to collect material, drink from lake and hit creature in front",
    "Sleep": "sleep when energy level is below maximum",
    "Place Stone": "place a stone in front",
    "Place Table": "place a table",
    "Place Furnace": "place a furnace",
    "Place Plant": "place a plant",
    "Make Wood Pickaxe": "craft a wood pickaxe with a nearby table and wood in inventory",
    "Make Stone Pickaxe": "craft a stone pickaxe with a nearby table, wood, and stone in inventory",
    "Make Iron Pickaxe": (
        "craft an iron pickaxe with a nearby table and furnace, wood, coal, and iron in inventory"
    ),
    "Make Wood Sword": "craft a wood sword with a nearby table and wood in inventory",
    "Make Stone Sword": "craft a stone sword with a nearby table, wood, and stone in inventory",
    "Make Iron Sword": (
        "craft an iron sword with a nearby table and furnace, wood, coal, and iron in inventory"
    ),
}
"""BALROG's Crafter vocabulary in its order, with BALROG's description of each action."""

ACHIEVEMENT_TITLES = (
    "Collect Wood", "Place Table", "Eat Cow", "Collect Sapling", "Collect Drink",
    "Make Wood Pickaxe", "Make Wood Sword", "Place Plant", "Defeat Zombie", "Collect Stone",
    "Place Stone", "Eat Plant", "Defeat Skeleton", "Make Stone Pickaxe", "Make Stone Sword",
    "Wake Up", "Place Furnace", "Collect Coal", "Collect Iron", "Make Iron Pickaxe",
    "Make Iron Sword", "Collect Diamond",
)  # fmt: skip
"""The achievements as BALROG's instruction prompt lists them, in its order."""

INSTRUCTION_PROMPT = """\
You are an agent playing Crafter. The following are the only valid actions you can take \
in the game, followed by a short description of each action:

{actions}.

These are the game achievements you can get:
{achievements}

In a moment I will present a history of actions and observations from the game.
Your goal is to get as far as possible by completing all the achievements.

PLAY!"""

SLEEPING = "You are sleeping, and will not be able take actions until energy is full."
OUT_OF_MAP = "Error, you are out of the map."


def instruction_prompt() -> str:
    """BALROG's Crafter instruction prompt (`get_instruction_prompt`)."""
    actions = ",\n".join(f"{name}: {text}" for name, text in ACTION_DESCRIPTIONS.items())
    achievements = "\n".join(f"{i}. {title}" for i, title in enumerate(ACHIEVEMENT_TITLES, 1))
    return INSTRUCTION_PROMPT.format(actions=actions, achievements=achievements)


def item_names(game: Any) -> list[str]:
    """The name of each id of Crafter's semantic map: its materials (`None` first), then
    its creature and plant classes, lower-cased."""
    names = {index: str(material) for material, index in game._world._mat_ids.items()}
    names |= {index: cls.__name__.lower() for cls, index in game._sem_view._obj_ids.items()}
    return [names[index] for index in range(len(names))]


def _direction(dx: int, dy: int) -> str:
    words = ["north" if dy < 0 else "south"] if dy else []
    words += ["west" if dx < 0 else "east"] if dx else []
    distance = abs(dx) + abs(dy)
    return f"{distance} step{'s' if distance > 1 else ''} to your {'-'.join(words)}"


def _local_view(game: Any) -> np.ndarray:
    semantic = game._sem_view()
    (px, py), (vx, vy) = (int(v) for v in game._player.pos), game._view
    return semantic[px - vx // 2 : px + vx // 2 + 1, py - vy // 2 + 1 : py + vy // 2]


def _facing(view: np.ndarray, center: tuple[int, int], facing: Any, names: list[str]) -> str:
    tx, ty = center[0] + int(facing[0]), center[1] + int(facing[1])
    if 0 <= tx < view.shape[0] and 0 <= ty < view.shape[1]:
        return f"You face {names[view[tx, ty]]} at your front."
    return "You face nothing at your front."


def _seen(view: np.ndarray, center: tuple[int, int], names: list[str]) -> list[str]:
    """The nearest cell of each kind, kinds in the order they are first met."""
    nearest: dict[str, tuple[int, int, int]] = {}
    for x in range(view.shape[0]):
        for y in range(view.shape[1]):
            name = names[view[x, y]]
            if name == "player":
                continue
            dx, dy = x - center[0], y - center[1]
            distance = abs(dx) + abs(dy)
            if name not in nearest or distance < nearest[name][0]:
                nearest[name] = (distance, dx, dy)
    return [f"- {name} {_direction(dx, dy)}" for name, (_, dx, dy) in nearest.items()]


def long_term_context(game: Any) -> str:
    """BALROG's long-term context for Crafter: status, what is in view, what is in front."""
    player = game._player
    names = item_names(game)
    px, py = (int(v) for v in player.pos)
    if names[game._sem_view()[px, py]] != "player":
        return OUT_OF_MAP
    view = _local_view(game)
    center = (game._view[0] // 2, game._view[1] // 2 - 1)
    seen = _seen(view, center, names)
    lines = ["You see:", *seen] if seen else ["You see nothing away from you."]
    body = "\n".join(lines) + "\n\n" + _facing(view, center, player.facing, names)
    if player.sleeping:
        return f"{SLEEPING}\n\n\n\n{body}"
    if player.health <= 0:
        return f"You died.\n\n\n\n{body}"
    return body


def short_term_context(inventory: dict[str, int]) -> str:
    """BALROG's short-term context for Crafter: the vitals, then what is held."""
    vitals = "\n".join(f"- {name}: {inventory[name]}/9" for name in VITALS)
    held = [f"- {k}: {v}" for k, v in inventory.items() if k not in VITALS and v != 0]
    items = "Your inventory:\n" + "\n".join(held) if held else "You have nothing in your inventory."
    return f"Your status:\n{vitals}\n\n{items}"


__all__ = [
    "ACTION_DESCRIPTIONS",
    "instruction_prompt",
    "long_term_context",
    "short_term_context",
]
