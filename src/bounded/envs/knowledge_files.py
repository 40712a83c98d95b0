"""An environment's typed-contract knowledge kept as data files beside its code.

A package `bounded.envs.<name>` that keeps `data/rules.json` (its L3 rules book),
`data/skills_hand.json` (a hand-written L5 library, `skill_seed="hand"`) and
`data/skills_templates.json` (empty templates for postrun learning,
`skill_seed="templates"`) builds its `GameKnowledge` with `packaged_knowledge`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import resources

from bounded.core import Observation
from bounded.stores.knowledge import GameKnowledge
from bounded.stores.rules import RulesBook
from bounded.stores.situation import Situation
from bounded.stores.skills import SkillLibrary

RULES_FILE = "rules.json"
SKILL_FILES = {"hand": "skills_hand.json", "templates": "skills_templates.json"}


@cache
def data_text(package: str, filename: str) -> str:
    """A data file of an environment package (`bounded.envs.crafter`, `rules.json`)."""
    return (resources.files(package) / "data" / filename).read_text("utf-8")


def packaged_knowledge(
    package: str, game: str, situation: Callable[[Observation], Situation]
) -> GameKnowledge:
    """The rules book and seed skill libraries of `package`, with its situation reader."""
    return GameKnowledge(
        game=game,
        rules=RulesBook.model_validate_json(data_text(package, RULES_FILE)),
        skills={
            name: SkillLibrary.model_validate_json(data_text(package, file))
            for name, file in SKILL_FILES.items()
        },
        situation=situation,
    )


__all__ = ["RULES_FILE", "SKILL_FILES", "data_text", "packaged_knowledge"]
