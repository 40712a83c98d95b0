"""What the typed stores key on: the facts of one decision, read from an observation's state.

Extraction is tolerant by design. Every fact is optional: on an environment whose
state holds no deck, enemies or HP, those fields stay empty, triggers that need them
do not fire, and retrieval falls back to what still matches (the decision kind).

`situation_of` is the generic reader: it looks for each fact under its plain name at
the top of the state (`floor`, `hp`, `deck`, `enemies`, ...; see `StateKeys`) and a few
common alternatives, so that a game opts in without code. A game whose state keeps
facts elsewhere supplies its own reader in its `GameKnowledge` (spire's is
`bounded.envs.spire.knowledge.spire_situation`), usually `read_situation` with its own
`StateKeys`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, Field

from bounded.core import Observation

OfferedReader = Callable[[Mapping[str, Any]], list[str]]
"""Names of what a state offers now (rewards, shop stock), in the order they matter."""


@lru_cache(maxsize=4096)  # a game's names are few and compared hundreds of times a decision
def norm(name: str) -> str:
    """The form names are compared in: lower case, single spaces, no upgrade mark (`+`)."""
    return " ".join(name.lower().replace("_", " ").split()).rstrip("+").rstrip()


class Situation(BaseModel):
    """The facts of one decision that triggers and retrieval look at."""

    kind: str
    act: int | None = None
    floor: int | None = None
    ascension: int | None = None
    hp: int | None = None
    max_hp: int | None = None
    room: str | None = None
    """The room type (`monster`, `elite`, `boss`, `shop`, `event`, `rest`, ...)."""
    event: str | None = None
    """The event's name in an event room."""
    encounter: str | None = None
    """The fight's encounter name in combat."""
    deck: list[str] = Field(default_factory=list)
    hand: list[str] = Field(default_factory=list)
    relics: list[str] = Field(default_factory=list)
    potions: list[str] = Field(default_factory=list)
    enemies: list[str] = Field(default_factory=list)
    enemy_powers: list[str] = Field(default_factory=list)
    player_powers: list[str] = Field(default_factory=list)
    offered: list[str] = Field(default_factory=list)
    """Cards, relics or items offered now (rewards, shop stock)."""

    @property
    def hp_fraction(self) -> float | None:
        if self.hp is None or not self.max_hp:
            return None
        return self.hp / self.max_hp

    @property
    def boss(self) -> bool:
        return self.room is not None and norm(self.room) == "boss"

    def in_play(self) -> list[str]:
        """Every name in play, most pressing first, each once (normalised)."""
        groups: list[Iterable[str]] = [
            self.enemies,
            self.enemy_powers,
            self.hand,
            self.offered,
            self.player_powers,
            self.relics,
            self.potions,
            [self.encounter] if self.encounter else [],
            [self.room] if self.room else [],
            [self.event] if self.event else [],
            self.deck,
        ]
        seen: dict[str, None] = {}
        for group in groups:
            for name in group:
                seen.setdefault(norm(name), None)
        return list(seen)


def names(value: Any) -> list[str]:
    """Names from a list of strings or of objects with a `name` (or `id`) field."""
    if isinstance(value, Mapping):
        value = list(value.values()) if all(isinstance(v, Mapping) for v in value.values()) else []
    if not isinstance(value, list):
        return []
    out: list[str] = []
    for item in value:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Mapping):
            name = item.get("name", item.get("id"))
            if isinstance(name, str):
                out.append(name)
    return out


def value_at(state: Mapping[str, Any], *paths: str) -> Any:
    """The value at the first dotted path present in `state` (None when none is)."""
    for path in paths:
        node: Any = state
        for part in path.split("."):
            if not isinstance(node, Mapping) or part not in node:
                node = None
                break
            node = node[part]
        if node is not None:
            return node
    return None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    return None


def _str(value: Any) -> str | None:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, Mapping) and isinstance(value.get("name"), str):
        return str(value["name"])
    return None


def _powers(entities: Any) -> list[str]:
    """Power names carried by a list of entities (each with `powers`, a list or a name map)."""
    found: list[str] = []
    for entity in entities if isinstance(entities, list) else []:
        if not isinstance(entity, Mapping):
            continue
        powers = entity.get("powers", entity.get("statuses"))
        if isinstance(powers, Mapping):
            found.extend(str(k) for k in powers)
        else:
            found.extend(names(powers))
    return found


def _living(enemies: Any) -> list[Any]:
    if not isinstance(enemies, list):
        return []
    alive = []
    for enemy in enemies:
        if isinstance(enemy, Mapping):
            hp = enemy.get("hp")
            if enemy.get("alive") is False or (isinstance(hp, int) and hp <= 0):
                continue
        alive.append(enemy)
    return alive


def _encounter(value: Any) -> str | None:
    """An encounter's name: a string, or its enemy names (sorted, each once) joined."""
    if isinstance(value, list):
        members = sorted({norm(n) for n in names(value)})
        return ", ".join(members) or None
    return _str(value)


@dataclass(frozen=True)
class StateKeys:
    """Where a state keeps each fact: dotted paths, the first one present is read."""

    act: tuple[str, ...] = ("act", "run.act")
    floor: tuple[str, ...] = ("floor", "run.floor")
    ascension: tuple[str, ...] = ("ascension", "run.ascension")
    player: tuple[str, ...] = ("player",)
    """The object holding the player's hp, max_hp, deck, relics, potions and powers; when
    the state has none, those are read from the top of the state."""
    room: tuple[str, ...] = ("room", "room_type")
    event: tuple[str, ...] = ("event.name", "event")
    encounter: tuple[str, ...] = ("encounter",)
    enemies: tuple[str, ...] = ("enemies", "monsters")
    hand: tuple[str, ...] = ("hand",)
    offered: tuple[str, ...] = ("cards", "offered", "choices")
    """Names on offer (card rewards, choices); `rewards` are added after them."""
    rewards: tuple[str, ...] = ("rewards",)


GENERIC_KEYS = StateKeys()
"""The plain names `situation_of` reads."""


def offered_names(state: Mapping[str, Any], keys: StateKeys = GENERIC_KEYS) -> list[str]:
    """Names of what is on offer now: the offered items, then the rewards."""
    return names(value_at(state, *keys.offered)) + names(value_at(state, *keys.rewards))


def read_situation(
    obs: Observation, keys: StateKeys = GENERIC_KEYS, offered: OfferedReader | None = None
) -> Situation:
    """The facts of one decision, read at `keys` (missing facts stay empty); `offered`
    replaces the default reading of what is on offer."""
    state = obs.state
    player = value_at(state, *keys.player)
    player = player if isinstance(player, Mapping) else {}
    holder: Mapping[str, Any] = player or state
    enemies = _living(value_at(state, *keys.enemies))
    return Situation(
        kind=obs.kind,
        act=_int(value_at(state, *keys.act)),
        floor=_int(value_at(state, *keys.floor)),
        ascension=_int(value_at(state, *keys.ascension)),
        hp=_int(value_at(holder, "hp")),
        max_hp=_int(value_at(holder, "max_hp")),
        room=_str(value_at(state, *keys.room)),
        event=_str(value_at(state, *keys.event)),
        encounter=_encounter(value_at(state, *keys.encounter)),
        deck=names(value_at(holder, "deck")),
        hand=names(value_at(state, *keys.hand)),
        relics=names(value_at(holder, "relics")),
        potions=names(value_at(holder, "potions")),
        enemies=names(enemies),
        enemy_powers=_powers(enemies),
        player_powers=_powers([player]),
        offered=offered(state) if offered is not None else offered_names(state, keys),
    )


def situation_of(obs: Observation) -> Situation:
    """The generic reader: the facts of one decision under their plain names."""
    return read_situation(obs)
