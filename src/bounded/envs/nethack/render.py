"""NetHack as text: the instructions and one observation's text and state."""

from __future__ import annotations

from typing import Any

from bounded.core import JSON
from bounded.envs.nethack.screen import (
    Stats,
    cropped_map,
    door_cells,
    inventory,
    map_rows,
    message,
    screen_lines,
    sightings,
)
from bounded.envs.nethack.vocabulary import Mode

INSTRUCTIONS = """\
You are playing NetHack, a roguelike game, as the hero `@`. Your goal is to get as far
as you can: descend the dungeon (stand on a staircase down `>` and go `down`) and gain
experience levels by defeating monsters, while staying alive. Progress is measured by
the deepest dungeon level and the highest experience level you reach.
The map uses NetHack's symbols: `.` floor, `#` corridor, `|` and `-` walls or open doors,
`+` closed door, `<` and `>` staircases, letters are monsters, `@` is you (`d` or `f`
next to you at the start is your pet). North is up.
Some commands ask a question next (a direction, an item letter, yes or no): the legal
actions then list the answers. Tips: move into a monster to attack it; `far east` and
the like run until something interesting; `search` finds hidden passages when a level
seems to have no exit; `travel` then `pick staircase down` then `confirm` walks to a
seen `>`; eat when Hungry; pray only when your HP is very low, and rarely."""

MODE_HINTS: dict[Mode, str] = {
    "command": "The game waits for a command.",
    "more": "The game shows --More-- or a window: continue (more) or escape.",
    "direction": "The game asks for a direction.",
    "choice": "The game asks a question: pick one of the listed answers.",
    "menu": "The game shows a menu: select items by letter, then confirm (or escape).",
    "text": "The game asks you to type a line of text.",
    "position": "The game asks for a position on the map: move the cursor, then confirm.",
}


def _status(rows: list[str]) -> str:
    return "\n".join(line.strip() for line in rows[22:24] if line.strip())


def _screen_window(rows: list[str]) -> str:
    """The top of the screen when a window or menu covers the map."""
    return "\n".join(line for line in rows[:22] if line.strip())


def observation_text(obs: dict[str, Any], mode: Mode, *, full_map: bool = False) -> str:
    """Message, surroundings, map, status lines, inventory, and what the game waits for."""
    rows = screen_lines(obs)
    parts = [f"Message: {message(obs) or '(none)'}"]
    if mode in ("more", "menu"):
        parts.append("Screen:\n" + _screen_window(rows))
    else:
        seen = sightings(obs)
        if seen:
            parts.append("You see: " + "; ".join(s.render() for s in seen) + ".")
        grid = map_rows(obs)
        parts.append(
            "Map:\n" + ("\n".join(r.rstrip() for r in grid) if full_map else cropped_map(grid))
        )
    parts.append("Status:\n" + _status(rows))
    items = inventory(obs)
    if items:
        parts.append("Inventory:\n" + "\n".join(items))
    parts.append(MODE_HINTS[mode])
    return "\n\n".join(parts)


def observation_state(obs: dict[str, Any], mode: Mode, progression: float) -> JSON:
    """The machine-readable state: statistics, what is in view, the map's characters."""
    stats = Stats.of(obs)
    seen = [s for s in sightings(obs, limit=40) if s.monster]
    monsters = [{"name": s.name, "dx": s.dx, "dy": s.dy} for s in seen if not s.tame]
    pets = [{"name": s.name, "dx": s.dx, "dy": s.dy} for s in seen if s.tame]
    return {
        "mode": mode,
        "depth": stats.depth,
        "dlvl": stats.dlvl,
        "dungeon": stats.dungeon,
        "hp": stats.hp,
        "max_hp": stats.max_hp,
        "xp_level": stats.xp_level,
        "xp_points": stats.xp_points,
        "turn": stats.turn,
        "score": stats.score,
        "gold": stats.gold,
        "ac": stats.ac,
        "energy": stats.energy,
        "hunger": stats.hunger,
        "x": stats.x,
        "y": stats.y,
        "progression": progression,
        "monsters": monsters,
        "pets": pets,
        "message": message(obs),
        "map": [row.rstrip() for row in map_rows(obs)],
        "doors": door_cells(obs),
        "inventory": inventory(obs),
    }


__all__ = ["INSTRUCTIONS", "MODE_HINTS", "observation_state", "observation_text"]
