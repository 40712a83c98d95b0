"""NLE's language observation, as the NetHack language wrapper writes it (our code).

BALROG's NetHack and MiniHack observations are built from the five texts of the
`nle_language_obsv` extension (the NLE language wrapper, MIT, shipped by BALROG inside
its `balrog-nle` build of NLE): the message, the glyphs described by distance and
direction, the cursor, the inventory and the statistics. That extension does not build
against the NLE release bounded uses, so its rules are restated here, quirks included
(see the comments), to give the same text for the same observation arrays;
`tests/envs/nethack/test_language.py` checks it against the extension's own output.

Positions are relative to the hero, north up: a glyph 3 columns east and 1 row north is
`near eastnortheast` (distance from the larger offset, direction from the straight part
and the diagonal part).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
from nle import nethack

WIDTH, HEIGHT = 79, 21

CMAP_NAMES: tuple[str, ...] = (
    "dark area", "vertical wall", "horizontal wall", "northwest room corner",
    "northeast room corner", "southwest corner", "southeast corner", "cross wall",
    "t up wall", "t down wall", "t west wall", "t east wall", "doorway",
    "vertical open door", "horizontal open door", "vertical closed door",
    "horizontal closed door", "bars", "tree", "room floor", "dark room floor",
    "corridor floor", "lit corridor floor", "stairs up", "stairs down", "ladder up",
    "ladder down", "alter", "grave", "throne", "sink", "fountain", "pool", "ice", "lava",
    "vertical lowered drawbridge", "horizontal lowered drawbridge",
    "vertical raised drawbridge", "horizontal raised drawbridge", "air floor",
    "cloud floor", "water floor", "arrow trap", "dart trap", "falling rock trap",
    "squeaky board", "bear trap", "land mine", "rolling boulder trap", "sleeping gas trap",
    "rust trap", "fire trap", "pit", "spiked pit", "hole", "trap door",
    "teleportation trap", "level teleporter", "magic portal", "web", "statue trap",
    "magic trap", "anti magic trap", "polymorph trap", "vibrating square", "vertical beam",
    "horizontal beam", "left slant beam", "right slant beam", "dig beam", "flash beam",
    "boom left", "boom right", "shield 1", "shield 2", "shield 3", "shield 4",
    "poison cloud", "valid position", "swallow top left", "swallow top center",
    "swallow top right", "swallow middle left", "swallow middle right",
    "swallow bottom left", "swallow bottom center", "swallow bottom right",
    "explosion top left", "explosion top center", "explosion top right",
    "explosion middle left", "explosion middle center", "explosion middle right",
    "explosion bottom left", "explosion bottom center", "explosion bottom right",
)  # fmt: skip
"""The wrapper's names of NetHack's map symbols, in NetHack's order (its spelling)."""

_FLOOR = frozenset(("room floor", "dark room floor", "corridor floor", "lit corridor floor"))
_BLOCKING = frozenset((
    "dark area", "vertical wall", "horizontal wall", "northwest room corner",
    "northeast room corner", "southwest corner", "southeast corner", "cross wall",
    "t up wall", "t down wall", "t west wall", "t east wall", "horizontal closed door",
    "vertical closed door", "horizontal raised drawbridge", "vertical raised drawbridge",
))  # fmt: skip
_FEATURES = frozenset((
    "horizontal closed door", "vertical closed door", "bars", "tree", "stairs up",
    "stairs down", "ladder up", "ladder down", "alter", "grave", "throne", "sink",
    "fountain", "pool", "ice", "lava", "vertical raised drawbridge",
    "horizontal raised drawbridge",
))  # fmt: skip
"""Map symbols listed from anywhere on the screen; other symbols but floors are listed
only where a straight line from the hero meets them."""

_WARNINGS = tuple(
    f"unknown creature causing you {word}"
    for word in ("worry", "concern", "anxiety", "disquiet", "alarm", "dread")
)
_SWALLOW = (
    "swallow top left", "swallow top center", "swallow top right", "swallow middle left",
    "swallow middle right", "swallow bottom left", "swallow bottom center",
    "swallow bottom right",
)  # fmt: skip
_EXPLOSIONS = CMAP_NAMES[-9:]
_ZAP = ("horizontal zap beam", "vertical zap beam", "left slant zap beam", "right slant zap beam")
_DISTANCES = ("very far", "far", "near", "very near", "adjacent")
_DIRECTIONS = (
    "north", "northnortheast", "northeast", "eastnortheast", "east", "eastsoutheast",
    "southeast", "southsoutheast", "south", "southsouthwest", "southwest", "westsouthwest",
    "west", "westnorthwest", "northwest", "northnorthwest",
)  # fmt: skip
_RAYS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
"""Screen steps (x, y down) east, southeast, south, ..., northeast: the wrapper's order."""


def _object_name(index: int) -> str:
    descr = nethack.objdescr.from_idx(index)
    name, description = descr.oc_name or "", descr.oc_descr or ""
    kind = nethack.objclass(index).oc_class
    kind = ord(kind) if isinstance(kind, str) else int(kind)
    if kind in (nethack.ARMOR_CLASS, nethack.TOOL_CLASS):
        return description or name
    if kind == nethack.AMULET_CLASS:
        return description if "Amulet" in description else f"{description} amulet"
    if kind == nethack.GEM_CLASS:
        return name if description in name else f"{description} {name}"
    named = {
        nethack.RING_CLASS: f"{description} ring",
        nethack.FOOD_CLASS: name + description,
        nethack.POTION_CLASS: f"{description} potion",
        nethack.SCROLL_CLASS: f"scroll labeled {description}",
        nethack.SPBOOK_CLASS: f"{description} spellbook",
        nethack.WAND_CLASS: f"{description} wand",
        nethack.VENOM_CLASS: f"splash of {name}",
    }
    plain = (
        nethack.ILLOBJ_CLASS, nethack.WEAPON_CLASS, nethack.COIN_CLASS, nethack.ROCK_CLASS,
        nethack.BALL_CLASS, nethack.CHAIN_CLASS,
    )  # fmt: skip
    return name if kind in plain else named.get(kind, "")


def _cmap_name(glyph: int) -> str:
    return CMAP_NAMES[glyph - nethack.GLYPH_CMAP_OFF]


def _screen_name(glyph: int) -> str:
    """What the wrapper calls a glyph wherever it is on screen ("" for none)."""
    n = nethack
    mon = n.permonst
    if glyph >= n.GLYPH_STATUE_OFF:
        return f"{mon(glyph - n.GLYPH_STATUE_OFF).mname} statue"
    if glyph >= n.GLYPH_WARNING_OFF:
        return _WARNINGS[glyph - n.GLYPH_WARNING_OFF]
    if glyph >= n.GLYPH_SWALLOW_OFF:
        return _SWALLOW[(glyph - n.GLYPH_SWALLOW_OFF) % len(_SWALLOW)]
    if glyph >= n.GLYPH_ZAP_OFF:
        return _ZAP[(glyph - n.GLYPH_ZAP_OFF) % len(_ZAP)]
    if glyph >= n.GLYPH_EXPLODE_OFF:
        return _EXPLOSIONS[(glyph - n.GLYPH_EXPLODE_OFF) % len(_EXPLOSIONS)]
    if glyph >= n.GLYPH_CMAP_OFF:
        name = _cmap_name(glyph)
        return name if name in _FEATURES else ""
    if glyph >= n.GLYPH_OBJ_OFF:
        return _object_name(glyph - n.GLYPH_OBJ_OFF)
    for offset, template in (
        (n.GLYPH_RIDDEN_OFF, "ridden {}"),
        (n.GLYPH_BODY_OFF, "{} corpse"),
        (n.GLYPH_DETECT_OFF, "detected {}"),
    ):
        if glyph >= offset:
            return template.format(mon(glyph - offset).mname)
    if glyph >= n.GLYPH_INVIS_OFF:
        return "invisible creature"
    if glyph >= n.GLYPH_PET_OFF:
        return f"tame {mon(glyph - n.GLYPH_PET_OFF).mname}"
    return str(mon(glyph).mname)


def _sight_name(glyph: int) -> str:
    """What the wrapper calls a map symbol met along a line from the hero ("" for none)."""
    if not nethack.GLYPH_CMAP_OFF <= glyph < nethack.GLYPH_EXPLODE_OFF:
        return ""
    name = _cmap_name(glyph)
    return "" if name in _FLOOR or name in _FEATURES else name


def pluralize(noun: str) -> str:
    """The wrapper's plural: a few mass nouns and exceptions, then English endings.

    Its test for a final `ch` reads the character before the string (an out-of-range
    index), which is never `h`: words in `ch` take a plain `s` there, and here."""
    if noun.endswith(("boots", "shoes", "scales", "lenses", "bars")):
        return noun
    exceptions = {
        "can of grease": "cans of grease",
        "Master of Thieves": "Masters of Thieves",
        "ice": "area of ice",
        "lava": "area of lava",
    }
    if noun in exceptions:
        return exceptions[noun]
    for head in ("boom ", "shield ", "swallow ", "scroll ", "worthless piece ",
                 "unknown creature "):  # fmt: skip
        if noun.startswith(head):
            return head[:-1] + "s " + noun[len(head) :]
    last, before = noun[-1:], noun[-2:-1]
    if last == "y" and before not in ("a", "e", "i", "o", "u"):
        return noun[:-1] + "ies"
    if last in ("z", "x") or noun[-2:] in ("sh", "ss"):
        return noun + "es"
    if last == "f":
        return noun[:-2] + "ves" if before == "f" else noun[:-1] + "ves"
    return noun + ("es" if last == "s" else "s")


@cache
def glyph_names() -> tuple[tuple[str, ...], tuple[str, ...], dict[str, str]]:
    """Every glyph's screen name and sight name, and the plural of each name."""
    screen = tuple(_screen_name(g) for g in range(nethack.MAX_GLYPH))
    sight = tuple(_sight_name(g) for g in range(nethack.MAX_GLYPH))
    plurals = {name: pluralize(name) for name in (*screen, *sight) if name}
    return screen, sight, plurals


def _distance(offset: int) -> str:
    if offset == 1:
        return "adjacent"
    if offset == 2:
        return "very near"
    if 2 < offset < 6:
        return "near"
    if 5 < offset < 20:
        return "far"
    return "very far"


def position(dx: int, dy: int) -> tuple[str, str]:
    """(distance, direction) of a glyph `dx` columns east and `dy` rows north of the hero."""
    diagonal_steps = min(abs(dx), abs(dy))
    diagonal = ""
    if diagonal_steps > 0:
        diagonal = ("south" if dy < 0 else "north") + ("west" if dx < 0 else "east")
    straight_y = dy - diagonal_steps if dy > 0 else dy + diagonal_steps
    straight_x = dx - diagonal_steps if dx > 0 else dx + diagonal_steps
    vertical = "south" if straight_y < 0 else "north" if straight_y > 0 else ""
    horizontal = "west" if straight_x < 0 else "east" if straight_x > 0 else ""
    return _distance(max(abs(dx), abs(dy))), vertical + horizontal + diagonal


Sighting = tuple[str, str, str]
"""(name, distance, direction)."""


def _screen_view(glyphs: np.ndarray, px: int, py: int) -> list[Sighting]:
    screen = glyph_names()[0]
    found: list[Sighting] = []
    for y in range(HEIGHT):
        for x in range(WIDTH):
            name = screen[int(glyphs[y, x])]
            if name and (x, y) != (px, py):
                found.append((name, *position(x - px, py - y)))
    return found


def _sight_view(glyphs: np.ndarray, px: int, py: int) -> list[Sighting]:
    screen, sight, _ = glyph_names()
    found: list[Sighting] = []
    for step_x, step_y in _RAYS:
        for offset in range(1, 10):
            x, y = px + step_x * offset, py + step_y * offset
            if not (0 <= x < WIDTH and 0 <= y < HEIGHT):
                break
            glyph = int(glyphs[y, x])
            name = sight[glyph]
            if not screen[glyph] and name:
                found.append((name, *position(x - px, py - y)))
                if name in _BLOCKING:
                    break
    return found


def _sorted(found: list[Sighting]) -> list[Sighting]:
    """By distance (farthest first), then clockwise from north; others are dropped."""
    return [
        item
        for distance in _DISTANCES
        for direction in _DIRECTIONS
        for item in found
        if item[1] == distance and item[2] == direction
    ]


def _join(directions: Sequence[str]) -> str:
    if len(directions) == 1:
        return directions[0]
    if len(directions) == 2:
        return f"{directions[0]} and {directions[1]}"
    return ", ".join(directions[:-1]) + ", and " + directions[-1]


def _compressed(found: list[Sighting]) -> list[Sighting]:
    """One line per name and distance: directions met once in the singular, directions
    met more than once under the plural name. A plural equal to another line's key takes
    that key's directions for both lines, as the wrapper's map does."""
    groups: dict[tuple[str, str], list[str]] = {}
    for name, distance, direction in found:
        groups.setdefault((name, distance), []).append(direction)
    plurals = glyph_names()[2]
    keys: list[tuple[str, str]] = []
    merged: dict[tuple[str, str], list[str]] = {}
    for (name, distance), directions in groups.items():
        counts = {d: directions.count(d) for d in dict.fromkeys(directions)}
        single = [d for d, c in counts.items() if c == 1]
        many = [d for d, c in counts.items() if c > 1]
        if single:
            keys.append((name, distance))
            merged[(name, distance)] = single
        if many:
            key = (plurals.get(name, ""), distance)
            keys.append(key)
            merged[key] = many
    return [(name, distance, _join(merged[(name, distance)])) for name, distance in keys]


def text_glyphs(glyphs: np.ndarray, blstats: np.ndarray) -> str:
    """What the hero sees: `<name> <distance> <direction(s)>`, one line each."""
    px, py = int(blstats[0]), int(blstats[1])
    found = _screen_view(glyphs, px, py) + _sight_view(glyphs, px, py)
    return "\n".join(" ".join(item) for item in _compressed(_sorted(found)))


def text_cursor(glyphs: np.ndarray, blstats: np.ndarray, tty_cursor: np.ndarray) -> str:
    """What the cursor is on, relative to the hero ("" off the map, or on its first cell)."""
    px, py = int(blstats[0]), int(blstats[1])
    cx, cy = int(tty_cursor[1]), int(tty_cursor[0]) - 1
    dx, dy = cx - px, py - cy
    index = cx + cy * WIDTH
    if not (-WIDTH <= dx < WIDTH and -HEIGHT <= dy < HEIGHT and 0 < index < WIDTH * HEIGHT):
        return ""
    name = glyph_names()[0][int(glyphs.reshape(-1)[index])]
    if dx == 0 and dy == 0:
        return f"Yourself a {name}"
    distance, direction = position(dx, dy)
    return f"{distance} {direction} {name}"


def _trim(row: str) -> str:
    """The wrapper's trim: spaces and SUB characters off both ends; a line whose only
    non-blank character is its last one trims to nothing (its off-by-one)."""
    blank = " \x1a"
    start = next((i for i, c in enumerate(row) if c not in blank), len(row))
    if start == len(row) - 1:
        return ""
    return row[start:].rstrip(blank)


def _pages_on(row: str) -> bool:
    at = row.find(" of ")
    numbered = at >= 2 and at + 5 < len(row) and row[at - 2] == "(" and row[at + 5] == ")"
    return numbered or "--More--" in row or "(end)" in row


def _segments(tty_chars: np.ndarray) -> list[str]:
    """Each screen row from the top line's indent on. Where the top line is blank the
    wrapper's indent is `npos`, and each row it reads starts one byte early (the last
    character of the row above; before the first row, a NUL byte)."""
    rows = [bytes(r).decode("latin-1") for r in np.asarray(tty_chars, dtype=np.uint8)]
    first = rows[0]
    indent = len(first) - len(first.lstrip(" "))
    if indent < len(first):
        return [row[indent:] for row in rows]
    return [(rows[i - 1][-1] if i else "\0") + row for i, row in enumerate(rows)]


def text_message(tty_chars: np.ndarray) -> str:
    """The top line; where a `--More--`, `(end)` or `(n of m)` shows below it, every
    non-blank row down to that one, one per line (on the end-of-game screens, whose
    second line has `Points` or `list!`, down to the second blank row in a row)."""
    chars = np.asarray(tty_chars, dtype=np.uint8)
    top = _trim(bytes(chars[0]).decode("latin-1"))
    second = _trim(bytes(chars[1]).decode("latin-1"))
    if not top and not second:
        return ""
    end_screen = "Points" in second or "list!" in second
    out, blanks = "", 0
    for segment in _segments(chars):
        line = _trim(segment)
        blanks = 0 if line else blanks + 1
        out += line
        if _pages_on(line):
            return out
        if line:
            out += "\n"
        if end_screen and blanks > 1:
            return out
    return top


def text_inventory(inv_strs: np.ndarray, inv_letters: np.ndarray) -> str:
    """`<letter>: <item>`, one line per item."""
    lines = []
    for letter, item in zip(inv_letters, inv_strs, strict=False):
        if int(letter) == 0:
            break
        text = bytes(item).split(b"\0", 1)[0].decode("latin-1")
        lines.append(f"{chr(int(letter))}: {text}")
    return "\n".join(lines)


def language_texts(obs: dict[str, Any]) -> dict[str, str]:
    """The four texts BALROG reads from the wrapper, by the wrapper's key names."""
    return {
        "text_glyphs": text_glyphs(obs["glyphs"], obs["blstats"]),
        "text_message": text_message(obs["tty_chars"]),
        "text_inventory": text_inventory(obs["inv_strs"], obs["inv_letters"]),
        "text_cursor": text_cursor(obs["glyphs"], obs["blstats"], obs["tty_cursor"]),
    }


__all__ = [
    "CMAP_NAMES",
    "glyph_names",
    "language_texts",
    "pluralize",
    "position",
    "text_cursor",
    "text_glyphs",
    "text_inventory",
    "text_message",
]
