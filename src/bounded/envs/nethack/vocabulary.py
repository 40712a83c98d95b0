"""NetHack's action vocabulary in words, after BALROG's: commands, directions and answers.

A decision's legal actions depend on what the game is waiting for (`Mode`):

- `command`: the game waits for a command: the commands of the chosen vocabulary
  (`balrog`: BALROG's NetHack commands, less those for menus and notes that a language
  agent has no use for, so that the list fits a prompt; `core`: a short list for small
  models);
- `more`: a `--More--` or a display-only menu: continue, or escape;
- `direction`: "In what direction?": the eight directions, up, down, here, or escape;
- `choice`: a question with its answers in brackets (`[ynq]`, `[fgh or ?*]`): each
  answer, or escape;
- `menu`: a menu to pick from: each item's letter, next/previous page, confirm, escape;
- `text`: a line of text to type: confirm an empty line, write Elbereth, or escape;
- `position`: a map position to pick (travel): jump to a staircase or altar, move the
  cursor, confirm, or escape.

Every action is one or more keys of NLE's full keyboard (`nle.nethack.ACTIONS`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bounded.core import Action

Mode = Literal["command", "more", "direction", "choice", "menu", "text", "position"]
MODES: tuple[Mode, ...] = ("command", "more", "direction", "choice", "menu", "text", "position")

ESC = 27
ENTER = 13


@dataclass(frozen=True)
class Word:
    """One action: its id, what it does, and the keys it sends."""

    id: str
    label: str
    keys: tuple[int, ...]

    def action(self) -> Action:
        return Action(id=self.id, label=self.label)


def _k(text: str) -> tuple[int, ...]:
    return tuple(ord(c) for c in text)


def _ctrl(letter: str) -> tuple[int, ...]:
    return (ord(letter) & 0x1F,)


def _meta(letter: str) -> tuple[int, ...]:
    return (ord(letter) | 0x80,)


DIRECTIONS: tuple[Word, ...] = (
    Word("north", "move north", _k("k")),
    Word("east", "move east", _k("l")),
    Word("south", "move south", _k("j")),
    Word("west", "move west", _k("h")),
    Word("northeast", "move northeast", _k("u")),
    Word("southeast", "move southeast", _k("n")),
    Word("southwest", "move southwest", _k("b")),
    Word("northwest", "move northwest", _k("y")),
)
"""The eight compass moves; the same keys answer "In what direction?"."""

DELTAS: dict[str, tuple[int, int]] = {
    "north": (0, -1),
    "east": (1, 0),
    "south": (0, 1),
    "west": (-1, 0),
    "northeast": (1, -1),
    "southeast": (1, 1),
    "southwest": (-1, 1),
    "northwest": (-1, -1),
}
"""Direction id -> (dx, dy) on the map (y grows southwards)."""

FAR_MOVES: tuple[Word, ...] = tuple(
    Word(
        f"far {w.id}", f"move far {w.id} (until something interesting)", _k(chr(w.keys[0]).upper())
    )
    for w in DIRECTIONS
)

STAIRS: tuple[Word, ...] = (
    Word("up", "go up a staircase (only when standing on <)", _k("<")),
    Word("down", "go down a staircase (only when standing on >)", _k(">")),
)

ESCAPE = Word("esc", "escape: cancel this prompt or menu", (ESC,))
MORE = Word("more", "continue past --More-- or close this window", (ENTER,))

_COMMANDS: tuple[Word, ...] = (
    Word("wait", "rest one move while doing nothing", _k(".")),
    Word("search", "search for hidden doors and passages", _k("s")),
    Word("apply", "apply (use) a tool", _k("a")),
    Word("cast", "cast a spell", _k("Z")),
    Word("close", "close an adjacent door", _k("c")),
    Word("open", "open an adjacent door", _k("o")),
    Word("dip", "dip an object into something", _meta("d")),
    Word("drop", "drop an item", _k("d")),
    Word("droptype", "drop specific item types", _k("D")),
    Word("eat", "eat something (when hungry)", _k("e")),
    Word("engrave", "engrave writing on the floor (Elbereth scares monsters)", _k("E")),
    Word("enhance", "advance or check weapon skills", _meta("e")),
    Word("fire", "fire ammunition from the quiver", _k("f")),
    Word("fight", "fight a monster (even if you only guess one is there)", _k("F")),
    Word("force", "force a lock", _meta("f")),
    Word("inventory", "show your inventory", _k("i")),
    Word("kick", "kick an enemy or a locked door or chest", _ctrl("d")),
    Word("look", "look at what is under you", _k(":")),
    Word("loot", "loot a box on the floor", _meta("l")),
    Word("offer", "offer a sacrifice to the gods (on an aligned altar)", _meta("o")),
    Word("pay", "pay your shopping bill", _k("p")),
    Word("pickup", "pick up things at the current location", _k(",")),
    Word("pray", "pray to the gods for help (when in trouble, rarely)", _meta("p")),
    Word("puton", "put on an accessory", _k("P")),
    Word("quaff", "quaff (drink) something", _k("q")),
    Word("quiver", "select ammunition for the quiver", _k("Q")),
    Word("read", "read a scroll or spellbook", _k("r")),
    Word("remove", "remove an accessory", _k("R")),
    Word("rub", "rub a lamp or a stone", _meta("r")),
    Word("swap", "swap wielded and secondary weapons", _k("x")),
    Word("takeoff", "take off one piece of armor", _k("T")),
    Word("takeoffall", "take off all armor", _k("A")),
    Word("throw", "throw something (e.g. a dagger or dart)", _k("t")),
    Word("travel", "travel to a map position (next: pick < or > or _)", _k("_")),
    Word("untrap", "untrap something", _meta("u")),
    Word("wear", "wear a piece of armor", _k("W")),
    Word("wield", "wield a weapon", _k("w")),
    Word("zap", "zap a wand", _k("z")),
)

_CORE_COMMANDS = frozenset(
    {"wait", "search", "eat", "open", "kick", "pickup", "pray", "quaff", "read", "wear"}
    | {"wield", "travel", "fight", "look", "inventory"}
)

BALROG_COMMANDS: tuple[Word, ...] = DIRECTIONS + FAR_MOVES + STAIRS + _COMMANDS
"""The `balrog` vocabulary: BALROG's NetHack commands (its digits, space, minus and
apostrophe are answers here, offered when a prompt asks; `more` only at a --More--)."""

CORE_COMMANDS: tuple[Word, ...] = (
    DIRECTIONS + FAR_MOVES + STAIRS + tuple(w for w in _COMMANDS if w.id in _CORE_COMMANDS)
)
"""The `core` vocabulary: moves, stairs and fifteen commands."""

VOCABULARIES: dict[str, tuple[Word, ...]] = {"balrog": BALROG_COMMANDS, "core": CORE_COMMANDS}

DIRECTION_ANSWERS: tuple[Word, ...] = (
    *(Word(w.id, f"direction: {w.id}", w.keys) for w in DIRECTIONS),
    Word("up", "direction: up (<)", _k("<")),
    Word("down", "direction: down (>)", _k(">")),
    Word("here", "direction: here, at yourself (.)", _k(".")),
)

POSITION_ANSWERS: tuple[Word, ...] = (
    Word("pick staircase down", "move the cursor to a staircase down (>)", _k(">")),
    Word("pick staircase up", "move the cursor to a staircase up (<)", _k("<")),
    Word("pick altar", "move the cursor to an altar (_)", _k("_")),
    *(Word(f"cursor {w.id}", f"move the cursor {w.id}", w.keys) for w in DIRECTIONS),
    Word("confirm", "choose the cursor's position", _k(".")),
)

TEXT_ANSWERS: tuple[Word, ...] = (
    Word("write Elbereth", "type Elbereth and finish the line", (*_k("Elbereth"), ENTER)),
    Word("confirm", "finish the line as typed", (ENTER,)),
)

# -- answers read from the screen -----------------------------------------------------

_BRACKETS = re.compile(r"\[([^\]]*)\]\s*$")
_MENU_ITEM = re.compile(r"(?:^|\s)([a-zA-Z$]) [-+#] (.+?)\s*$")
"""A menu line `f - 3 food rations` (`+` or `#` once selected), wherever the menu's column
starts: the map may still show to its left."""
_PAGES = re.compile(r"\((\d+) of (\d+)\)")

_ANSWER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ$-*0123456789")


def bracket_answers(message: str) -> list[str]:
    """The answers a question lists in its brackets: `[ynq]` -> y, n, q; `[a-cf or ?*]`
    -> a, b, c, f, *; the letter ranges expanded, `?` (help) left out."""
    match = _BRACKETS.search(message.strip())
    if match is None:
        return []
    inside = match.group(1).replace(" or ", " ").replace(" ", "")
    answers: list[str] = []
    index = 0
    while index < len(inside):
        char = inside[index]
        if index + 2 < len(inside) and inside[index + 1] == "-" and inside[index + 2].isalpha():
            answers += [chr(c) for c in range(ord(char), ord(inside[index + 2]) + 1)]
            index += 3
            continue
        answers.append(char)
        index += 1
    seen: dict[str, None] = {}
    for answer in answers:
        if answer in _ANSWER_CHARS:
            seen.setdefault(answer, None)
    return list(seen)


def choice_answers(message: str) -> tuple[Word, ...]:
    """A bracketed question's answers (y and n when it lists none)."""
    answers = bracket_answers(message) or ["y", "n"]
    return tuple(Word(f"answer {a}", f"answer {a!r}", _k(a)) for a in answers)


def menu_items(lines: list[str]) -> list[tuple[str, str]]:
    """(letter, text) of each selectable line of a menu shown on the screen."""
    items: list[tuple[str, str]] = []
    seen: set[str] = set()
    for line in lines:
        match = _MENU_ITEM.search(line)
        if match and match.group(1) not in seen:
            seen.add(match.group(1))
            items.append((match.group(1), match.group(2)))
    return items


def menu_pages(screen: str) -> tuple[int, int] | None:
    """(page, pages) of a multi-page menu, None for a one-page menu or none."""
    match = _PAGES.search(screen)
    return (int(match.group(1)), int(match.group(2))) if match else None


def menu_answers(lines: list[str], screen: str) -> tuple[Word, ...]:
    """Each menu item's letter, the page keys where there are pages, and confirm."""
    words = [
        Word(f"select {letter}", f"select {text[:60]}", _k(letter))
        for letter, text in menu_items(lines)
    ]
    pages = menu_pages(screen)
    if pages is not None and pages[0] < pages[1]:
        words.append(Word("next page", "show the menu's next page", _k(">")))
    if pages is not None and pages[0] > 1:
        words.append(Word("previous page", "show the menu's previous page", _k("<")))
    words.append(Word("confirm", "accept the selection and close the menu", (ENTER,)))
    return tuple(words)


def words_for(
    mode: Mode, vocabulary: str, message: str, lines: list[str], screen: str
) -> tuple[Word, ...]:
    """The legal actions of one decision (escape always among them)."""
    if mode == "command":
        return VOCABULARIES[vocabulary]
    if mode == "more":
        return (MORE, ESCAPE)
    if mode == "direction":
        return (*DIRECTION_ANSWERS, ESCAPE)
    if mode == "choice":
        return (*choice_answers(message), ESCAPE)
    if mode == "menu":
        return (*menu_answers(lines, screen), ESCAPE)
    if mode == "text":
        return (*TEXT_ANSWERS, ESCAPE)
    return (*POSITION_ANSWERS, ESCAPE)


__all__ = [
    "BALROG_COMMANDS",
    "CORE_COMMANDS",
    "DELTAS",
    "DIRECTIONS",
    "ENTER",
    "ESC",
    "MODES",
    "VOCABULARIES",
    "Mode",
    "Word",
    "bracket_answers",
    "choice_answers",
    "menu_items",
    "words_for",
]
