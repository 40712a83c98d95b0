"""Reading an NLE observation: the message, the map, the status lines, the inventory, what
the game waits for (`Mode`), and a description of what is near the hero.

Written for `bounded` after BALROG's NetHack text (message, a language description of
the surroundings, the map as text, the inventory); BALROG's description comes from
`nle-language-wrapper`, which does not build with `nle` 1.3, so this one is our own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from nle import nethack

from bounded.envs.nethack.vocabulary import Mode, menu_pages

DOOR_CMAPS = frozenset(range(12, 17))
"""Doorways and open or closed doors (NetHack 3.6's S_ndoor .. S_hcdoor)."""
FEATURES = {23: "staircase up", 24: "staircase down", 25: "ladder up", 26: "ladder down"}
FEATURES |= {27: "altar", 28: "grave", 29: "throne", 30: "sink", 31: "fountain"}
OBJECT_CLASSES = {
    ")": "weapon", "[": "armor", "%": "food", "?": "scroll", "/": "wand", "=": "ring",
    "!": "potion", "(": "tool", '"': "amulet", "*": "gem or rock", "$": "gold",
    "`": "boulder or statue", "+": "spellbook", "0": "iron ball", "_": "chain",
}  # fmt: skip
HUNGER = ("satiated", "not hungry", "hungry", "weak", "fainting", "fainted", "starved")


def _decode(row: Any) -> str:
    return bytes(np.asarray(row, dtype=np.uint8)).decode("latin-1")


def screen_lines(obs: dict[str, Any]) -> list[str]:
    """NLE's 24 terminal lines, trailing blanks removed."""
    return [_decode(row).rstrip() for row in obs["tty_chars"]]


def message(obs: dict[str, Any]) -> str:
    """The message line(s): NLE's message buffer, else the terminal's top line."""
    text = _decode(obs["message"]).rstrip("\x00").strip()
    return text or screen_lines(obs)[0].strip()


def read_mode(obs: dict[str, Any], picking_position: bool) -> Mode:
    """What the game waits for, from NLE's `misc` flags and the screen."""
    in_yn, in_getlin, wait_space = (int(v) for v in obs["misc"])
    screen = "\n".join(screen_lines(obs))
    if in_getlin:
        return "text"
    if in_yn:
        return "direction" if "direction" in message(obs).lower() else "choice"
    if wait_space or "--More--" in screen:
        return "more"
    if "(end)" in screen or menu_pages(screen) is not None:
        return "menu"
    if picking_position:
        return "position"
    return "command"


@dataclass(frozen=True)
class Stats:
    """The bottom-line statistics NLE reports (`blstats`)."""

    x: int
    y: int
    hp: int
    max_hp: int
    depth: int
    dlvl: int
    dungeon: int
    gold: int
    energy: int
    max_energy: int
    ac: int
    xp_level: int
    xp_points: int
    turn: int
    score: int
    hunger: str

    @classmethod
    def of(cls, obs: dict[str, Any]) -> Stats:
        b = [int(v) for v in obs["blstats"]]
        hunger = b[nethack.NLE_BL_HUNGER]
        return cls(
            x=b[nethack.NLE_BL_X],
            y=b[nethack.NLE_BL_Y],
            hp=b[nethack.NLE_BL_HP],
            max_hp=b[nethack.NLE_BL_HPMAX],
            depth=b[nethack.NLE_BL_DEPTH],
            dlvl=b[nethack.NLE_BL_DLEVEL],
            dungeon=b[nethack.NLE_BL_DNUM],
            gold=b[nethack.NLE_BL_GOLD],
            energy=b[nethack.NLE_BL_ENE],
            max_energy=b[nethack.NLE_BL_ENEMAX],
            ac=b[nethack.NLE_BL_AC],
            xp_level=b[nethack.NLE_BL_XP],
            xp_points=b[nethack.NLE_BL_EXP],
            turn=b[nethack.NLE_BL_TIME],
            score=b[nethack.NLE_BL_SCORE],
            hunger=HUNGER[hunger] if 0 <= hunger < len(HUNGER) else "unknown",
        )


def map_rows(obs: dict[str, Any]) -> list[str]:
    """The 21 map rows as characters (the hero is `@`)."""
    return [_decode(row) for row in obs["chars"]]


def cropped_map(rows: list[str]) -> str:
    """The map without its blank rows and columns around what has been seen."""
    filled = [i for i, row in enumerate(rows) if row.strip()]
    if not filled:
        return ""
    left = min(len(row) - len(row.lstrip()) for row in rows if row.strip())
    kept = [rows[i][left:].rstrip() for i in range(filled[0], filled[-1] + 1)]
    return "\n".join(kept)


def _where(dx: int, dy: int) -> str:
    parts = []
    if dy:
        parts.append(f"{abs(dy)} {'north' if dy < 0 else 'south'}")
    if dx:
        parts.append(f"{abs(dx)} {'west' if dx < 0 else 'east'}")
    return " and ".join(parts) or "here"


def _glyph_name(glyph: int, char: str) -> str | None:
    if nethack.glyph_is_pet(glyph):
        return "tame " + nethack.permonst(nethack.glyph_to_mon(glyph)).mname
    if nethack.glyph_is_monster(glyph):
        return nethack.permonst(nethack.glyph_to_mon(glyph)).mname
    if nethack.glyph_is_object(glyph):
        return OBJECT_CLASSES.get(char, "object")
    if nethack.glyph_is_trap(glyph):
        return "trap"
    if nethack.glyph_is_cmap(glyph):
        cmap = nethack.glyph_to_cmap(glyph)
        if cmap in FEATURES:
            return FEATURES[cmap]
        if cmap in (15, 16):
            return "closed door"
    return None


@dataclass(frozen=True)
class Sighting:
    name: str
    dx: int
    dy: int
    monster: bool

    @property
    def tame(self) -> bool:
        return self.name.startswith("tame ")

    def render(self) -> str:
        return f"{self.name} {_where(self.dx, self.dy)}"


def sightings(obs: dict[str, Any], limit: int = 12) -> list[Sighting]:
    """What the hero sees on the map (monsters, objects, stairs, doors, features), nearest
    first, at most `limit`."""
    stats = Stats.of(obs)
    glyphs, chars = obs["glyphs"], obs["chars"]
    found: list[Sighting] = []
    for y, x in zip(*np.nonzero(glyphs != nethack.GLYPH_CMAP_OFF), strict=True):
        if (x, y) == (stats.x, stats.y):
            continue
        name = _glyph_name(int(glyphs[y, x]), chr(int(chars[y, x])))
        if name is not None:
            monster = bool(nethack.glyph_is_monster(int(glyphs[y, x])))
            found.append(Sighting(name, int(x) - stats.x, int(y) - stats.y, monster))
    found.sort(key=lambda s: (max(abs(s.dx), abs(s.dy)), s.dy, s.dx))
    return found[:limit]


def door_cells(obs: dict[str, Any]) -> list[list[int]]:
    """[x, y] of every doorway and door on the map (no diagonal move into or out of one)."""
    glyphs = obs["glyphs"]
    cells = []
    for y, x in zip(*np.nonzero(glyphs >= nethack.GLYPH_CMAP_OFF), strict=True):
        glyph = int(glyphs[y, x])
        if nethack.glyph_is_cmap(glyph) and nethack.glyph_to_cmap(glyph) in DOOR_CMAPS:
            cells.append([int(x), int(y)])
    return cells


def inventory(obs: dict[str, Any]) -> list[str]:
    """`letter - item` per inventory slot."""
    items = []
    for letter, text in zip(obs["inv_letters"], obs["inv_strs"], strict=True):
        if int(letter):
            items.append(f"{chr(int(letter))} - {_decode(text).rstrip(chr(0)).strip()}")
    return items


__all__ = [
    "Sighting",
    "Stats",
    "cropped_map",
    "door_cells",
    "inventory",
    "map_rows",
    "message",
    "read_mode",
    "screen_lines",
    "sightings",
]
