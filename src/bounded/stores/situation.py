"""What the typed stores key on: the facts of one decision, read from an observation's state.

Extraction is tolerant by design. Every fact is optional: on an environment whose
state holds no deck, enemies or HP, those fields stay empty, triggers that need them
do not fire, and retrieval falls back to what still matches (the decision kind).
The key names read here are those the spire environment documents in docs/spire.md;
a few common alternatives are accepted so that other games can opt in without code.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from bounded.core import Observation


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


def _first(state: Mapping[str, Any], *paths: str) -> Any:
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


def _offered(state: Mapping[str, Any]) -> list[str]:
    """Names of what is on offer now: card rewards, rewards, shop stock, boss relics."""
    found = names(_first(state, "cards", "offered", "choices"))
    choices = state.get("choices")
    if isinstance(choices, list):
        found += [
            c["room"] for c in choices if isinstance(c, Mapping) and isinstance(c.get("room"), str)
        ]
    found += names(_first(state, "rewards"))
    shop = _first(state, "shop")
    if isinstance(shop, Mapping):
        for key in ("cards", "relics", "potions"):
            found += names(shop.get(key))
    if state.get("kind") == "boss_relic":
        found += names(state.get("relics"))
    return found


def situation_of(obs: Observation) -> Situation:
    """Read the facts of one decision from an observation (missing facts stay empty)."""
    state = obs.state
    player = _first(state, "player", "combat.player")
    player = player if isinstance(player, Mapping) else {}
    enemies = _living(_first(state, "combat.enemies", "enemies", "monsters"))
    return Situation(
        kind=obs.kind,
        act=_int(_first(state, "act", "run.act")),
        floor=_int(_first(state, "floor", "run.floor")),
        ascension=_int(_first(state, "ascension", "run.ascension")),
        hp=_int(_first(player, "hp") if player else _first(state, "hp")),
        max_hp=_int(_first(player, "max_hp") if player else _first(state, "max_hp")),
        room=_str(_first(state, "room", "room_type")),
        event=_str(_first(state, "event.name", "event")),
        encounter=_encounter(_first(state, "combat.encounter", "encounter")),
        deck=names(_first(player, "deck") if player else _first(state, "deck")),
        hand=names(_first(state, "combat.hand", "hand")),
        relics=names(_first(player, "relics") if player else _first(state, "relics")),
        potions=names(_first(player, "potions") if player else _first(state, "potions")),
        enemies=names(enemies),
        enemy_powers=_powers(enemies),
        player_powers=_powers([player]),
        offered=_offered(state),
    )
