"""What the typed contract knows about NetHack: its L3 rules, L5 seed skills and situation
reader, supplied through `NetHackEnv.game_knowledge()` (the contract is never edited).

The files live beside this module (`bounded/envs/nethack/data/`), written by hand for
this project: `rules.json` (core mechanics shown always, and monsters to handle with
care, retrieved when one is in view), `skills_hand.json` (the hand-written L5 library,
`skill_seed="hand"`) and `skills_templates.json` (empty templates for postrun learning,
`skill_seed="templates"`).

The situation reader maps NetHack's state onto the stores' facts: `floor` is the
dungeon depth, `enemies` the hostile monsters in view, `hp` and `max_hp` the hero's.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from bounded.core import Observation
from bounded.stores.knowledge import GameKnowledge
from bounded.stores.rules import RulesBook
from bounded.stores.situation import Situation, StateKeys, read_situation
from bounded.stores.skills import SkillLibrary

GAME = "nethack"
RULES_FILE = "rules.json"
SKILL_FILES = {"hand": "skills_hand.json", "templates": "skills_templates.json"}

NETHACK_KEYS = StateKeys(floor=("depth",), enemies=("monsters",))
"""Where NetHack's state keeps each fact (the hero's HP is at the top of the state)."""


def nethack_situation(obs: Observation) -> Situation:
    """The facts of one NetHack decision (what L3, L4 and L5 key on)."""
    return read_situation(obs, NETHACK_KEYS, offered=lambda state: [])


@cache
def _data_text(filename: str) -> str:
    return (resources.files("bounded.envs.nethack") / "data" / filename).read_text("utf-8")


def nethack_knowledge() -> GameKnowledge:
    """NetHack's rules book, seed skill libraries and situation reader."""
    return GameKnowledge(
        game=GAME,
        rules=RulesBook.model_validate_json(_data_text(RULES_FILE)),
        skills={
            name: SkillLibrary.model_validate_json(_data_text(file))
            for name, file in SKILL_FILES.items()
        },
        situation=nethack_situation,
    )


__all__ = ["GAME", "NETHACK_KEYS", "nethack_knowledge", "nethack_situation"]
