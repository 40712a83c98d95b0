"""L3: the game's rules and mechanics, a versioned store retrieved for what is in play.

Each rule describes one named thing (a card, an enemy, a relic, a keyword, a room
type) or a general mechanic. `filtered` retrieval returns the rules whose name is in
play now (enemies first, then their powers, the hand, offered items, relics, the room,
the deck) plus the general mechanics marked `always`; `full` returns every rule. A
game update is a `RulesPatch` (upserts and removals, from one version to the next)
applied to the data: no code changes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bounded.core import ConfigError
from bounded.stores.situation import Situation, norm

RulesScope = Literal["filtered", "full"]


class Rule(BaseModel):
    """One entry of the rules store."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    """Stable id, e.g. `card:quick-slash` or `mechanic:energy`."""
    category: str
    """`card`, `enemy`, `relic`, `potion`, `keyword`, `room`, `event` or `mechanic`."""
    name: str
    """What the state calls it; retrieval matches on this name."""
    text: str
    always: bool = False
    """Shown whenever L3 is on, whatever is in play (core mechanics)."""

    def render(self) -> str:
        return f"{self.name} ({self.category}): {self.text}"


class RulesPatch(BaseModel):
    """A game update: from one rules version to the next."""

    model_config = ConfigDict(extra="forbid")

    game: str
    from_version: str
    to_version: str
    upsert: list[Rule] = Field(default_factory=list)
    """New rules, or new texts for existing ids."""
    remove: list[str] = Field(default_factory=list)
    """Ids of rules that no longer exist."""


class RulesBook(BaseModel):
    """The L3 file: a game's rules at one version."""

    model_config = ConfigDict(extra="forbid")

    game: str = ""
    version: str = "0"
    rules: list[Rule] = Field(default_factory=list)

    def retrieve(self, situation: Situation, scope: RulesScope = "filtered") -> list[Rule]:
        """The rules for this decision, most relevant first."""
        if scope == "full":
            return list(self.rules)
        by_name: dict[str, list[Rule]] = {}
        for rule in self.rules:
            by_name.setdefault(norm(rule.name), []).append(rule)
        chosen: dict[str, Rule] = {}
        for name in situation.in_play():
            for rule in by_name.get(name, []):
                chosen.setdefault(rule.id, rule)
        always = [r for r in self.rules if r.always and r.id not in chosen]
        return always + list(chosen.values())

    def patched(self, patch: RulesPatch) -> RulesBook:
        """This book after `patch`; refuses a patch for another game or version."""
        if patch.game != self.game:
            raise ConfigError(f"rules patch is for game {patch.game!r}, the store is {self.game!r}")
        if patch.from_version != self.version:
            raise ConfigError(
                f"rules patch goes from version {patch.from_version!r}, the store is at "
                f"{self.version!r}"
            )
        unknown = sorted(set(patch.remove) - {r.id for r in self.rules})
        if unknown:
            raise ConfigError(f"rules patch removes unknown ids: {', '.join(unknown)}")
        updates = {r.id: r for r in patch.upsert}
        kept = [updates.pop(r.id, r) for r in self.rules if r.id not in set(patch.remove)]
        return RulesBook(
            game=self.game, version=patch.to_version, rules=kept + list(updates.values())
        )
