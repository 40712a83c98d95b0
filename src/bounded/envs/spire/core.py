"""The spire package's vocabulary, beneath its content and its engine (as `bounded.core` is
the project's): the records both use (a card's rules and one card, an enemy's moves and
rules and one enemy) and the protocols of what an effect may read and call on the combat,
the player and the run (`CombatView`, `PlayerView`, `RunView`).

The content (cards, enemies, potions, relics, events) is written against this module; the
engine (`combat.Combat` and `combat.Player`, `game.Run`) imports the content and satisfies
the protocols structurally, which mypy checks where the engine hands itself to an effect.
This module imports no other part of the package.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

# --------------------------------------------------------------------------- cards

X_COST = -1
"""`cost` of a card that spends all remaining energy (X)."""
UNPLAYABLE = -2
"""`cost` of a card that cannot be played."""

Effect = Callable[["CombatView", "Card", "Enemy | None", dict[str, int]], None]
"""A card's effect: (the combat, the card played, its target, the card's numbers)."""


@dataclass(frozen=True)
class CardDef:
    """The rules of one card."""

    key: str
    type: str
    """`attack`, `skill`, `power`, `status` or `curse`."""
    rarity: str
    """`starter`, `common`, `uncommon`, `rare`, `special`, `status` or `curse`."""
    cost: int
    target: str
    """`enemy` (needs a target) or `none`."""
    text: str
    effect: Effect | None = None
    values: dict[str, tuple[int, int]] = field(default_factory=dict)
    cost_up: int | None = None
    exhaust: bool = False
    exhaust_up: bool | None = None
    ethereal: bool = False
    innate_up: bool = False
    retain: bool = False
    removable: bool = True
    text_up: str | None = None
    """The upgraded card's text where it is not the base text with other numbers."""

    def value(self, name: str, upgraded: bool) -> int:
        base, up = self.values[name]
        return up if upgraded else base

    def numbers(self, upgraded: bool) -> dict[str, int]:
        """The card's numbers (shared, read-only dict)."""
        return self._numbers[1 if upgraded else 0]

    @cached_property
    def _numbers(self) -> tuple[dict[str, int], dict[str, int]]:
        return (
            {name: pair[0] for name, pair in self.values.items()},
            {name: pair[1] for name, pair in self.values.items()},
        )

    def base_cost(self, upgraded: bool) -> int:
        return self.cost_up if upgraded and self.cost_up is not None else self.cost

    def exhausts(self, upgraded: bool) -> bool:
        return self.exhaust_up if upgraded and self.exhaust_up is not None else self.exhaust

    def describe(self, upgraded: bool) -> str:
        return self._texts[1 if upgraded else 0]

    @cached_property
    def _texts(self) -> tuple[str, str]:
        return (self._describe(False), self._describe(True))

    def _describe(self, upgraded: bool) -> str:
        template = self.text_up if upgraded and self.text_up else self.text
        text = template.format(**self.numbers(upgraded))
        if self.exhausts(upgraded):
            text += " Exhaust."
        if self.ethereal:
            text += " Ethereal."
        if self.retain:
            text += " Retain."
        if upgraded and self.innate_up:
            text += " Innate."
        return text


class Card:
    """One card instance; `uid` is unique within a run."""

    __slots__ = (
        "_base_cost",
        "_hand",
        "_json",
        "_json_sig",
        "_line",
        "_upgraded",
        "cost_this_combat",
        "cost_this_turn",
        "d",
        "key",
        "name",
        "uid",
    )

    def __init__(self, uid: int, d: CardDef, upgraded: bool = False) -> None:
        self.uid = uid
        self.key = d.key
        self.d = d
        self.upgraded = upgraded
        self.cost_this_combat: int | None = None
        self.cost_this_turn: int | None = None
        self._json: dict[str, Any] | None = None
        self._json_sig: tuple[bool, int] = (False, 0)
        self._hand: tuple[dict[str, Any], bool, dict[str, Any]] | None = None
        self._line: tuple[dict[str, Any], str] | None = None

    @property
    def upgraded(self) -> bool:
        return self._upgraded

    @upgraded.setter
    def upgraded(self, value: bool) -> None:
        # name and base cost are read on every observation: keep them as plain attributes
        self._upgraded = value
        self.name: str = self.key + "+" if value else self.key
        self._base_cost = self.d.base_cost(value)

    @property
    def can_upgrade(self) -> bool:
        return not self.upgraded and self.d.type not in ("status", "curse")

    def cost(self) -> int:
        base = self._base_cost
        if base < 0:
            return base
        if self.cost_this_turn is not None:
            return self.cost_this_turn
        if self.cost_this_combat is not None:
            return self.cost_this_combat
        return base

    def to_json(self, cost: int | None = None) -> dict[str, Any]:
        """The card as JSON (a shared, read-only dict, rebuilt when upgrade or cost change)."""
        cost = self.cost() if cost is None else cost
        sig = (self._upgraded, cost)
        if self._json is not None and self._json_sig == sig:
            return self._json
        cache_key = (self.key, self._upgraded, cost)
        static = _JSON_CACHE.get(cache_key)
        if static is None:
            static = {
                "name": self.name,
                "upgraded": self.upgraded,
                "cost": "X" if cost == X_COST else (None if cost == UNPLAYABLE else cost),
                "type": self.d.type,
                "rarity": self.d.rarity,
                "text": self.d.describe(self.upgraded),
            }
            _JSON_CACHE[cache_key] = static
        self._json = {"uid": self.uid, **static}
        self._json_sig = sig
        return self._json

    def hand_json(self, cost: int, playable: bool) -> dict[str, Any]:
        """The card in the hand: `to_json` plus `playable` (shared, read-only)."""
        base = self.to_json(cost)
        hand = self._hand
        if hand is None or hand[0] is not base or hand[1] != playable:
            hand = self._hand = (base, playable, {**base, "playable": playable})
        return hand[2]

    def hand_line(self, cost: int) -> str:
        """The card in the hand as one line of text."""
        base = self.to_json(cost)
        line = self._line
        if line is None or line[0] is not base:
            cost_text = "-" if base["cost"] is None else str(base["cost"])
            text = f"  {self.name}#{self.uid} ({cost_text}, {self.d.type}): {base['text']}"
            line = self._line = (base, text)
        return line[1]


_JSON_CACHE: dict[tuple[str, bool, int], dict[str, Any]] = {}


# --------------------------------------------------------------------------- enemies

EffectSpec = tuple[Any, ...]
"""`("buff", power, n)`, `("buff_all", power, n)`, `("debuff", power, n)`,
`("status", card, n, pile)`, `("heal_all", n)`, `("block_all", n)`, `("summon", name, n)`,
`("split",)`, `("escape",)`, `("steal", gold)`, `("revive",)`."""


@dataclass(frozen=True)
class Move:
    name: str
    dmg: int = 0
    hits: int = 1
    block: int = 0
    effects: tuple[EffectSpec, ...] = ()

    @property
    def intent(self) -> str:
        ops = {effect[0] for effect in self.effects}
        harmful = bool(ops & {"debuff", "status", "steal"})
        if self.dmg > 0:
            if self.block:
                return "attack_block"
            return "attack_debuff" if harmful else "attack"
        if ops & {"split", "escape", "revive"}:
            return "unknown"
        if harmful:
            return "debuff"
        if ops & {"buff", "buff_all", "heal_all", "summon"}:
            return "buff"
        if self.block or "block_all" in ops:
            return "block"
        return "sleep"


AI = Callable[["Enemy", random.Random], str]
"""An enemy's AI: its next move's name, from the enemy and the AI's stream."""


@dataclass(frozen=True)
class EnemyDef:
    name: str
    hp: tuple[int, int]
    moves: dict[str, Move]
    ai: AI
    powers: dict[str, int] = field(default_factory=dict)
    tier: str = "normal"
    """`normal`, `elite`, `boss` or `minion` (minions scale like their summoner's tier)."""


class Enemy:
    """One enemy instance in a combat (a record, not a protocol: effects hand it back to the
    combat's verbs, `apply` and `attack`, which use all of it)."""

    hp: int
    max_hp: int
    index: int
    awake_turns: int
    mode_turns: int
    phase_turns: int
    allies_alive: int

    def __init__(self, d: EnemyDef, index: int, hp: int, tier: str) -> None:
        self.d = d
        self.name = d.name
        self.index = index
        self.max_hp = hp
        self.hp = hp
        self.block = 0
        self.tier = tier
        self.powers: dict[str, int] = dict(d.powers)
        self.history: list[str] = []
        self.move: Move = next(iter(d.moves.values()))
        self.alive = True
        self.escaped = False
        self.awake_turns = 0
        self.mode_turns = 0
        self.phase_turns = 0
        self.allies_alive = 0
        self.invincible_left = self.powers.get("invincible", 0)

    @property
    def targetable(self) -> bool:
        return self.alive and not self.powers.get("reborn_pending")

    def add_power(self, name: str, amount: int) -> None:
        add_to_powers(self.powers, name, amount)


def add_to_powers(powers: dict[str, int], name: str, amount: int) -> None:
    """Change a power by `amount`; a power at 0 is gone (the player's and an enemy's)."""
    value = powers.get(name, 0) + amount
    if value:
        powers[name] = value
    else:
        powers.pop(name, None)


# --------------------------------------------------------------------------- what an effect acts on


class PlayerView(Protocol):
    """What an effect may read and change on the player in a combat."""

    block: int

    @property
    def powers(self) -> dict[str, int]: ...

    def add_power(self, name: str, amount: int) -> None: ...


class RunView(Protocol):
    """What an effect (a card's or a potion's, a relic's hook, an event's option) may read
    and call on the run."""

    @property
    def hp(self) -> int: ...

    @property
    def max_hp(self) -> int: ...

    @property
    def gold(self) -> int: ...

    @property
    def deck(self) -> list[Card]: ...

    @property
    def rngs(self) -> dict[str, random.Random]: ...

    @property
    def relic_counters(self) -> dict[str, int]: ...

    def has_relic(self, name: str) -> bool: ...

    def heal(self, amount: int) -> None: ...

    def lose_hp(self, amount: int) -> None: ...

    def gain_max_hp(self, amount: int) -> None: ...

    def lose_max_hp(self, amount: int) -> None: ...

    def gain_gold(self, amount: int) -> None: ...

    def spend_gold(self, amount: int) -> None: ...

    def obtain_relic(self, name: str) -> None: ...

    def random_relic(self, rng: random.Random, rarity: str | None = ...) -> str: ...

    def obtain_random_potion(self, rng: random.Random) -> None: ...

    def add_card(self, key: str, upgraded: bool = ...) -> Card: ...

    def remove_cards(self, cards: list[Card]) -> None: ...

    def removable_cards(self) -> list[Card]: ...

    def upgradable_cards(self) -> list[Card]: ...

    def upgrade_random(self, rng: random.Random, n: int) -> None: ...

    def card_choices(
        self, rng: random.Random, *, rarity: str | None = ..., count: int = ..., elite: bool = ...
    ) -> list[Card]: ...

    def offer_cards(self, offered: list[Card], then: str = ...) -> None: ...

    def open_select(self, purpose: str, then: str = ...) -> None: ...

    def start_combat(
        self, encounter: tuple[str, ...], tier: str, *, relic_reward: bool = ...
    ) -> None: ...


class CombatView(Protocol):
    """What an effect (a card's or a potion's, a relic's hook) may read and call on the
    combat."""

    @property
    def player(self) -> PlayerView: ...

    @property
    def run(self) -> RunView: ...

    @property
    def rng(self) -> random.Random: ...

    @property
    def hand(self) -> list[Card]: ...

    @property
    def x_energy(self) -> int:
        """The energy an X-cost card spends (its X)."""
        ...

    @property
    def attacks_this_turn(self) -> int: ...

    @property
    def skills_this_turn(self) -> int: ...

    @property
    def discarded_this_turn(self) -> int: ...

    @property
    def card_uses(self) -> dict[int, int]:
        """How many times each card (by uid) was played this combat."""
        ...

    def living(self) -> list[Enemy]: ...

    def targets(self) -> list[Enemy]: ...

    def random_enemy(self) -> Enemy | None: ...

    def attack(self, target: Enemy | None, base: int, hits: int = ...) -> None: ...

    def attack_all(self, base: int, hits: int = ...) -> None: ...

    def damage_enemy(self, e: Enemy, amount: int, *, attack: bool) -> None: ...

    def apply(self, target: Enemy | None, power: str, amount: int) -> bool: ...

    def gain_block(self, base: int) -> None: ...

    def gain_energy(self, amount: int) -> None: ...

    def draw(self, n: int) -> list[Card]: ...

    def discard(self, card: Card) -> None: ...

    def choose_discard(self, n: int) -> None: ...

    def add_to_hand(self, key: str, n: int, *, upgraded: bool = ...) -> None: ...
