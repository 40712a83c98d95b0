"""What the typed contract knows about spire: its rules, seed skills and situation reader.

`SpireEnv.game_knowledge()` returns `spire_knowledge()`, a `GameKnowledge` built from
the files shipped beside this module (`bounded/envs/spire/data/`):

- `rules.json`: the L3 rules book, generated from the engine's registries by
  `bounded.envs.spire.rulebook`; regenerate it after a content change with
  `python -m bounded.envs.spire.rulebook` (`tests/envs/spire/test_knowledge.py` fails
  while the shipped file and the engine disagree);
- `skills_hand.json`: the hand-written L5 library (`skill_seed="hand"`, mode-a);
- `skills_templates.json`: L5 templates, triggers with scaffold questions that postrun
  learning fills (`skill_seed="templates"`, mode-b).

`spire_situation` reads the facts of a decision from spire's state (docs/spire.md):
the fight's hand, enemies and encounter under `combat`, the map's room choices, the
shop's stock and the boss relics on offer.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from bounded.core import Observation
from bounded.stores.knowledge import GameKnowledge
from bounded.stores.rules import RulesBook
from bounded.stores.situation import Situation, StateKeys, names, read_situation, value_at
from bounded.stores.skills import SkillLibrary

GAME = "spire"
"""The stores' namespace for spire."""

RULES_FILE = "rules.json"
SKILL_FILES = {"hand": "skills_hand.json", "templates": "skills_templates.json"}
"""Seed L5 library name -> its file under `data/`."""

SPIRE_KEYS = StateKeys(
    player=("player", "combat.player"),
    encounter=("combat.encounter", "encounter"),
    enemies=("combat.enemies", "enemies", "monsters"),
    hand=("combat.hand", "hand"),
)
"""Where spire's state keeps each fact (the fight's under `combat`)."""


def spire_offered(state: Mapping[str, Any]) -> list[str]:
    """Names of what is on offer now: card rewards, map rooms, rewards, shop stock, boss
    relics."""
    found = names(value_at(state, "cards", "offered", "choices"))
    choices = state.get("choices")
    if isinstance(choices, list):
        found += [
            c["room"] for c in choices if isinstance(c, Mapping) and isinstance(c.get("room"), str)
        ]
    found += names(value_at(state, "rewards"))
    shop = value_at(state, "shop")
    if isinstance(shop, Mapping):
        for key in ("cards", "relics", "potions"):
            found += names(shop.get(key))
    if state.get("kind") == "boss_relic":
        found += names(state.get("relics"))
    return found


def spire_situation(obs: Observation) -> Situation:
    """The facts of one spire decision (what L3, L4 and L5 key on)."""
    return read_situation(obs, SPIRE_KEYS, offered=spire_offered)


def data_path(filename: str) -> Path:
    """Where a shipped data file lives in the source tree (where it is regenerated)."""
    return Path(__file__).parent / "data" / filename


@cache
def _data_text(filename: str) -> str:
    return (resources.files("bounded.envs.spire") / "data" / filename).read_text(encoding="utf-8")


def shipped_rules() -> RulesBook:
    """The shipped L3 rules book (a fresh copy)."""
    return RulesBook.model_validate_json(_data_text(RULES_FILE))


def shipped_skills(name: str) -> SkillLibrary:
    """A shipped L5 seed library, `hand` or `templates` (a fresh copy)."""
    return SkillLibrary.model_validate_json(_data_text(SKILL_FILES[name]))


def spire_knowledge() -> GameKnowledge:
    """Spire's rules book, seed skill libraries and situation reader, for the typed contract."""
    return GameKnowledge(
        game=GAME,
        rules=shipped_rules(),
        skills={name: shipped_skills(name) for name in SKILL_FILES},
        situation=spire_situation,
    )


__all__ = [
    "GAME",
    "RULES_FILE",
    "SKILL_FILES",
    "SPIRE_KEYS",
    "data_path",
    "shipped_rules",
    "shipped_skills",
    "spire_knowledge",
    "spire_offered",
    "spire_situation",
]
