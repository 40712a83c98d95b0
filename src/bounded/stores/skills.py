"""L5: strategic skills, each fired by a Boolean trigger over the decision's situation.

A trigger is a conjunction: every condition it sets must hold, conditions left empty
are ignored. A condition over a fact the state does not carry (no HP on this
environment, say) does not hold, so a skill never fires on a guess. Only fired skills
with prose enter a prompt, highest priority first; a template (mode-b) carries a
scaffold question instead of prose until postrun learning fills it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bounded.stores.situation import Situation, norm

Provenance = Literal["hand", "template", "postrun"]
_Check = Callable[[Situation], bool]


class Trigger(BaseModel):
    """When a skill applies. Empty lists and None bounds impose nothing."""

    model_config = ConfigDict(extra="forbid")

    kinds: list[str] = Field(default_factory=list)
    """Decision kinds, any of (`combat`, `card_reward`, `map`, ...)."""
    enemies: list[str] = Field(default_factory=list)
    """Enemy names, any of them present."""
    rooms: list[str] = Field(default_factory=list)
    """Room types, any of (`monster`, `elite`, `boss`, ...)."""
    act_min: int | None = None
    act_max: int | None = None
    hp_min: float | None = Field(default=None, ge=0, le=1)
    """Lowest HP fraction (current / max) at which the skill applies."""
    hp_max: float | None = Field(default=None, ge=0, le=1)
    deck_min: int | None = Field(default=None, ge=0)
    """Smallest deck size at which the skill applies."""
    deck_max: int | None = Field(default=None, ge=0)
    cards: list[str] = Field(default_factory=list)
    """Cards that must all be in the deck."""
    relics: list[str] = Field(default_factory=list)
    """Relics that must all be held."""
    enemy_powers: list[str] = Field(default_factory=list)
    """Powers (statuses), any of them on a living enemy."""

    def matches(self, s: Situation) -> bool:
        return all(check(s) for check in self._checks())

    def _checks(self) -> list[_Check]:
        checks: list[_Check] = []
        if self.kinds:
            checks.append(lambda s: norm(s.kind) in _normed(self.kinds))
        if self.enemies:
            checks.append(lambda s: bool(_normed(s.enemies) & _normed(self.enemies)))
        if self.rooms:
            checks.append(lambda s: s.room is not None and norm(s.room) in _normed(self.rooms))
        if self.act_min is not None or self.act_max is not None:
            checks.append(lambda s: _within(s.act, self.act_min, self.act_max))
        if self.hp_min is not None or self.hp_max is not None:
            checks.append(lambda s: _within(s.hp_fraction, self.hp_min, self.hp_max))
        if self.deck_min is not None or self.deck_max is not None:
            checks.append(lambda s: _within(len(s.deck) or None, self.deck_min, self.deck_max))
        if self.cards:
            checks.append(lambda s: _normed(self.cards) <= _normed(s.deck))
        if self.relics:
            checks.append(lambda s: _normed(self.relics) <= _normed(s.relics))
        if self.enemy_powers:
            checks.append(lambda s: bool(_normed(s.enemy_powers) & _normed(self.enemy_powers)))
        return checks


def _normed(values: list[str]) -> set[str]:
    return {norm(v) for v in values}


def _within(value: float | None, low: float | None, high: float | None) -> bool:
    if value is None:
        return False
    return (low is None or value >= low) and (high is None or value <= high)


class Skill(BaseModel):
    """One strategic skill: prose, its trigger, priority, provenance and version."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    title: str
    text: str = ""
    """The advice shown in the prompt; empty for an unfilled template."""
    scaffold: str = ""
    """For a template: the question postrun learning answers to fill `text`."""
    trigger: Trigger = Field(default_factory=Trigger)
    priority: int = Field(default=0, ge=0, le=100)
    """Higher fires first when more skills fire than the budget holds."""
    provenance: Provenance = "hand"
    version: int = Field(default=1, ge=1)
    source_runs: list[str] = Field(default_factory=list)
    """Run ids whose trajectories wrote or revised this skill."""

    @model_validator(mode="after")
    def _has_prose_or_scaffold(self) -> Skill:
        if not self.text and not self.scaffold:
            raise ValueError(f"skill {self.id!r} needs text or a scaffold")
        return self

    @property
    def filled(self) -> bool:
        return bool(self.text)

    def render(self) -> str:
        return f"[{self.id} v{self.version}] {self.title}: {self.text}"


class SkillLibrary(BaseModel):
    """The L5 file: a game's skills."""

    model_config = ConfigDict(extra="forbid")

    game: str = ""
    skills: list[Skill] = Field(default_factory=list)

    def get(self, skill_id: str) -> Skill | None:
        return next((s for s in self.skills if s.id == skill_id), None)

    def matching(self, situation: Situation) -> list[Skill]:
        """Skills whose trigger holds (filled or not), highest priority first, ties by id."""
        hits = [s for s in self.skills if s.trigger.matches(situation)]
        return sorted(hits, key=lambda s: (-s.priority, s.id))

    def fired(self, situation: Situation) -> list[Skill]:
        """The skills that enter a prompt: matching and filled."""
        return [s for s in self.matching(situation) if s.filled]

    def put(self, skill: Skill) -> None:
        """Insert or replace by id (the write gate decides beforehand whether that is allowed)."""
        self.skills = [s for s in self.skills if s.id != skill.id] + [skill]
        self.skills.sort(key=lambda s: s.id)
