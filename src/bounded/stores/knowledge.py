"""What an environment tells the typed contract about its game.

An environment that wants the typed contract to know its game returns a
`GameKnowledge` from `Env.game_knowledge()`: the L3 rules book, the seed L5 skill
libraries (by name: `hand` for a hand-written library, `templates` for empty
templates), and how to read the facts of one decision from an observation. The
contract knows no game: a new environment supplies all of this without editing
`bounded.stores` or `bounded.contracts`. Spire's knowledge, for example, lives in
`bounded.envs.spire.knowledge`; an environment that supplies none gets empty L3 and L5
stores and the generic reader `bounded.stores.situation.situation_of`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from bounded.core import Observation
from bounded.stores.rules import RulesBook
from bounded.stores.situation import Situation, situation_of
from bounded.stores.skills import SkillLibrary


@dataclass(frozen=True)
class GameKnowledge:
    """A game's rules, seed skills and fact reader, supplied by its environment."""

    game: str
    """The stores' namespace (`spire`): a store directory holds one game's stores."""
    rules: RulesBook
    """The L3 rules book a fresh store starts from."""
    skills: Mapping[str, SkillLibrary] = field(default_factory=dict)
    """Seed L5 libraries by name (`hand`, `templates`); a missing name seeds nothing."""
    situation: Callable[[Observation], Situation] = situation_of
    """The facts of one decision (what triggers and retrieval key on)."""


__all__ = ["GameKnowledge"]
