"""BALROG's words for NLE's actions (the NLE language wrapper's action map, as data).

`ACTION_WORDS` lists, in the wrapper's order, each NLE action with its names: the first
is its word (`north`, `apply`), the others are the strings the wrapper also accepts for it
(`k`, `a`). BALROG's NetHack vocabulary is the first word of each of NLE's useful actions,
then the 52 letters, the 10 digits and the 100 two-digit numbers; MiniHack's is the first
word of each of the task's actions that BALROG's MiniHack list describes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from nle.nethack import actions as A

ACTION_WORDS: tuple[tuple[Any, tuple[str, ...]], ...] = (
    (A.UnsafeActions.HELP, ("help", "?")),
    (A.UnsafeActions.PREVMSG, ("previous message", "^p")),
    (A.CompassDirection.N, ("north", "k")),
    (A.CompassDirection.E, ("east", "l")),
    (A.CompassDirection.S, ("south", "j")),
    (A.CompassDirection.W, ("west", "h")),
    (A.CompassIntercardinalDirection.NE, ("northeast", "u")),
    (A.CompassIntercardinalDirection.SE, ("southeast", "n")),
    (A.CompassIntercardinalDirection.SW, ("southwest", "b")),
    (A.CompassIntercardinalDirection.NW, ("northwest", "y")),
    (A.CompassCardinalDirectionLonger.N, ("far north", "K")),
    (A.CompassCardinalDirectionLonger.E, ("far east", "L")),
    (A.CompassCardinalDirectionLonger.S, ("far south", "J")),
    (A.CompassCardinalDirectionLonger.W, ("far west", "H")),
    (A.CompassIntercardinalDirectionLonger.NE, ("far northeast", "U")),
    (A.CompassIntercardinalDirectionLonger.SE, ("far southeast", "N")),
    (A.CompassIntercardinalDirectionLonger.SW, ("far southwest", "B")),
    (A.CompassIntercardinalDirectionLonger.NW, ("far northwest", "Y")),
    (A.MiscDirection.UP, ("up", "<")),
    (A.MiscDirection.DOWN, ("down", ">")),
    (A.MiscDirection.WAIT, ("wait", ".")),
    (A.MiscAction.MORE, ("more", "\r", r"\r")),
    (A.Command.EXTCMD, ("extcmd", "#")),
    (A.Command.EXTLIST, ("extlist", "M-?")),
    (A.Command.ADJUST, ("adjust", "M-a")),
    (A.Command.ANNOTATE, ("annotate", "M-A")),
    (A.Command.APPLY, ("apply", "a")),
    (A.Command.ATTRIBUTES, ("attributes", "^x")),
    (A.Command.AUTOPICKUP, ("autopickup", "@")),
    (A.Command.CALL, ("call", "C")),
    (A.Command.CAST, ("cast", "Z")),
    (A.Command.CHAT, ("chat", "M-c")),
    (A.Command.CLOSE, ("close", "c")),
    (A.Command.CONDUCT, ("conduct", "M-C")),
    (A.Command.DIP, ("dip", "M-d")),
    (A.Command.DROP, ("drop", "d")),
    (A.Command.DROPTYPE, ("droptype", "D")),
    (A.Command.EAT, ("eat", "e")),
    (A.Command.ESC, ("esc", "^[")),
    (A.Command.ENGRAVE, ("engrave", "E")),
    (A.Command.ENHANCE, ("enhance", "M-e")),
    (A.Command.FIRE, ("fire", "f")),
    (A.Command.FIGHT, ("fight", "F")),
    (A.Command.FORCE, ("force", "M-f")),
    (A.Command.GLANCE, ("glance", ";")),
    (A.Command.HISTORY, ("history", "V")),
    (A.Command.INVENTORY, ("inventory", "i")),
    (A.Command.INVENTTYPE, ("inventtype", "I")),
    (A.Command.INVOKE, ("invoke", "M-i")),
    (A.Command.JUMP, ("jump", "M-j")),
    (A.Command.KICK, ("kick", "^d")),
    (A.Command.KNOWN, ("known", "\\")),
    (A.Command.KNOWNCLASS, ("knownclass", "`")),
    (A.Command.LOOK, ("look", ":")),
    (A.Command.LOOT, ("loot", "M-l")),
    (A.Command.MONSTER, ("monster", "M-m")),
    (A.Command.MOVE, ("move", "m")),
    (A.Command.MOVEFAR, ("movefar", "M")),
    (A.Command.OFFER, ("offer", "M-o")),
    (A.Command.OPEN, ("open", "o")),
    (A.Command.OPTIONS, ("options", "O")),
    (A.Command.OVERVIEW, ("overview", "^o")),
    (A.Command.PAY, ("pay", "p")),
    (A.Command.PICKUP, ("pickup", ",")),
    (A.Command.PRAY, ("pray", "M-p")),
    (A.Command.PUTON, ("puton", "P")),
    (A.Command.QUAFF, ("quaff", "q")),
    (A.Command.QUIT, ("quit", "M-q")),
    (A.Command.QUIVER, ("quiver", "Q")),
    (A.Command.READ, ("read", "r")),
    (A.Command.REDRAW, ("redraw", "^r")),
    (A.Command.REMOVE, ("remove", "R")),
    (A.Command.RIDE, ("ride", "M-R")),
    (A.Command.RUB, ("rub", "M-r")),
    (A.Command.RUSH, ("rush", "g")),
    (A.Command.RUSH2, ("rush2", "G")),
    (A.Command.SAVE, ("save", "S")),
    (A.Command.SEARCH, ("search", "s")),
    (A.Command.SEEALL, ("seeall", "*")),
    (A.Command.SEEAMULET, ("seeamulet", '"')),
    (A.Command.SEEARMOR, ("seearmor", "[")),
    (A.Command.SEEGOLD, ("seegold", "dollar", "$")),
    (A.Command.SEERINGS, ("seerings", "=")),
    (A.Command.SEESPELLS, ("seespells", "plus", "+")),
    (A.Command.SEETOOLS, ("seetools", "(")),
    (A.Command.SEETRAP, ("seetrap", "^")),
    (A.Command.SEEWEAPON, ("seeweapon", ")")),
    (A.Command.SHELL, ("shell", "!")),
    (A.Command.SIT, ("sit", "M-s")),
    (A.Command.SWAP, ("swap", "x")),
    (A.Command.TAKEOFF, ("takeoff", "T")),
    (A.Command.TAKEOFFALL, ("takeoffall", "A")),
    (A.Command.TELEPORT, ("teleport", "^t")),
    (A.Command.THROW, ("throw", "t")),
    (A.Command.TIP, ("tip", "M-T")),
    (A.Command.TRAVEL, ("travel", "_")),
    (A.Command.TURN, ("turnundead", "M-t")),
    (A.Command.TWOWEAPON, ("twoweapon", "X")),
    (A.Command.UNTRAP, ("untrap", "M-u")),
    (A.Command.VERSION, ("version", "M-v")),
    (A.Command.VERSIONSHORT, ("versionshort", "v")),
    (A.Command.WEAR, ("wear", "W")),
    (A.Command.WHATDOES, ("whatdoes", "&")),
    (A.Command.WHATIS, ("whatis", "/")),
    (A.Command.WIELD, ("wield", "w")),
    (A.Command.WIPE, ("wipe", "M-w")),
    (A.Command.ZAP, ("zap", "z")),
    (A.TextCharacters.MINUS, ("minus", "-")),
    (A.TextCharacters.SPACE, ("space", " ")),
    (A.TextCharacters.APOS, ("apos", "'")),
    (A.TextCharacters.NUM_0, ("zero", "0")),
    (A.TextCharacters.NUM_1, ("one", "1")),
    (A.TextCharacters.NUM_2, ("two", "2")),
    (A.TextCharacters.NUM_3, ("three", "3")),
    (A.TextCharacters.NUM_4, ("four", "4")),
    (A.TextCharacters.NUM_5, ("five", "5")),
    (A.TextCharacters.NUM_6, ("six", "6")),
    (A.TextCharacters.NUM_7, ("seven", "7")),
    (A.TextCharacters.NUM_8, ("eight", "8")),
    (A.TextCharacters.NUM_9, ("nine", "9")),
    (A.WizardCommand.WIZDETECT, ("wizard detect", "^e")),
    (A.WizardCommand.WIZGENESIS, ("wizard genesis", "^g")),
    (A.WizardCommand.WIZIDENTIFY, ("wizard identify", "^i")),
    (A.WizardCommand.WIZLEVELPORT, ("wizard teleport", "^v")),
    (A.WizardCommand.WIZMAP, ("wizard map", "^f")),
    (A.WizardCommand.WIZWHERE, ("wizard where", "^o")),
    (A.WizardCommand.WIZWISH, ("wizard wish", "^w")),
)

ACTION_MAP: dict[Any, tuple[str, ...]] = dict(ACTION_WORDS)
"""The wrapper's map is a dict literal, and NLE's actions are integers: `WIZWHERE` has
`OVERVIEW`'s key (^O), so the map holds `OVERVIEW` with the names `wizard where`, `^o`.
`overview` is then no word at all, and `wizard where` is the vocabulary's word for ^O."""


def word_of(action: Any) -> str:
    """An NLE action's first word (`north` for `CompassDirection.N`)."""
    return ACTION_MAP[action][0]


def accepted_strings(actions: Sequence[Any]) -> dict[str, int]:
    """Every string the wrapper takes for a game whose action list is `actions`, mapped to
    the action's index there (a string two actions share goes to the later one)."""
    index = {action: actions.index(action) for action in ACTION_MAP if action in actions}
    return {
        name: index[action]
        for action, names in ACTION_MAP.items()
        if action in index
        for name in names
    }


def nethack_vocabulary(useful: Iterable[Any]) -> list[str]:
    """BALROG's NetHack vocabulary: the useful actions' words, letters and numbers."""
    kept = set(useful)
    words = [names[0] for action, names in ACTION_MAP.items() if action in kept]
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    letters += [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    return [*words, *letters, *(str(i) for i in range(10)), *(f"{i:02d}" for i in range(100))]


def minihack_words(actions: Iterable[Any], described: Iterable[str]) -> list[str]:
    """BALROG's MiniHack vocabulary: the words of the task's actions, in the task's order,
    that BALROG's MiniHack list `described` has (each once)."""
    kept = set(described)
    words = (ACTION_MAP[action][0] for action in actions)
    return list(dict.fromkeys(word for word in words if word in kept))


__all__ = [
    "ACTION_MAP",
    "ACTION_WORDS",
    "accepted_strings",
    "minihack_words",
    "nethack_vocabulary",
    "word_of",
]
