"""The run: opening bonus, three acts of map, rooms and bosses, then the final boss.

`Run` is a state machine over decision phases. `legal()` lists every legal action with
the function that performs it; `act(action_id)` performs one. Randomness comes from
named per-run streams (map, rewards, shuffle, ai, events, combat, shop), each seeded
from the run's seed and its name, so runs never share or leak random state.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from bounded.envs.spire import cards as card_data
from bounded.envs.spire import relics as relic_data
from bounded.envs.spire.combat import Combat
from bounded.envs.spire.core import UNPLAYABLE, Card
from bounded.envs.spire.enemies import ACTS, FINAL_BOSS
from bounded.envs.spire.events import EVENTS, EventOption
from bounded.envs.spire.mapgen import FLOORS, ActMap, Node, generate
from bounded.envs.spire.potions import POTION_SLOTS, POTIONS
from bounded.envs.spire.relics import ENERGY_RELICS, RELICS, Hook

STREAMS = ("map", "rewards", "shuffle", "ai", "events", "combat", "shop", "neow")
BASE_MAX_HP = 70
FLOORS_PER_ACT = FLOORS + 1
FINAL_ACT = 4
FINAL_FLOOR = 3 * FLOORS_PER_ACT + 3
BOSS_POINTS = 3 * FLOORS_PER_ACT / 3
"""Score per boss beaten (Eq. 1 of AgenticSTS with 52/3 adapted to 48 act floors)."""

HP_FACTOR = {"normal": 0.85, "elite": 0.85, "boss": 0.7}
"""Calibration of enemy HP by tier (see docs/spire.md, calibration)."""
DAMAGE_FACTOR = {"normal": 0.85, "elite": 0.9, "boss": 0.85}
"""Calibration of enemy attack damage by tier."""

ASCENSION_RULES = {
    1: "Elites appear more often.",
    2: "Normal enemies deal more damage.",
    3: "Elites deal more damage.",
    4: "Bosses deal more damage.",
    5: "Between acts you heal only 75% of your missing HP.",
    6: "Start with 4 less max HP.",
    7: "Normal enemies have more HP.",
    8: "Elites have more HP and start with 1 Strength.",
    9: "Bosses have more HP.",
    10: "Start with the curse Climber's Bane; rest sites heal 25% instead of 30%.",
}

Handler = Callable[[], None]


@dataclass(slots=True)
class Choice:
    """One legal action: stable id, human label, what it does."""

    id: str
    label: str
    run: Handler


@dataclass
class Select:
    """A pending card choice."""

    purpose: str
    cards: list[Card]


@dataclass
class ShopState:
    cards: list[tuple[Card, int]] = field(default_factory=list)
    relics: list[tuple[str, int]] = field(default_factory=list)
    potions: list[tuple[str, int]] = field(default_factory=list)
    removed: bool = False


@dataclass
class EventState:
    name: str
    text: str
    options: list[EventOption]


class Run:
    """One game, from the opening bonus to victory or death."""

    hp: int
    max_hp: int
    gold: int

    def __init__(self, seed: int, ascension: int = 0, acts: int = 3) -> None:
        self.seed = seed
        self.ascension = ascension
        self.acts = acts
        """Acts to play; below 3, that act's boss is the last fight."""
        self.rngs = {name: random.Random(f"spire:{seed}:{name}") for name in STREAMS}
        self.next_uid = 0
        self.max_hp = BASE_MAX_HP - (4 if ascension >= 6 else 0)
        self.hp = self.max_hp
        self.gold = 99
        self.max_energy = 3
        self.deck: list[Card] = [self.new_card(key) for key in card_data.STARTER_DECK]
        if ascension >= 10:
            self.deck.append(self.new_card("Climber's Bane"))
        self.relics: list[str] = []
        self._hooks: dict[str, tuple[Hook, ...]] = {}
        """Each hook's relic functions in relic order; cleared when a relic is obtained."""
        self.relic_set: set[str] = set()
        self.relic_counters: dict[str, int] = {}
        self.obtain_relic("Serpent Band")
        self.potions: list[str | None] = [None] * POTION_SLOTS
        self.act = 1
        self.bosses_beaten = 0
        self.act_boss: tuple[str, ...] = ()
        self.map: ActMap = ActMap({})
        self.deck_json_cache: tuple[Any, list[dict[str, Any]]] | None = None
        self.deck_summary_cache: tuple[Any, str] | None = None
        self.relics_json_cache: tuple[Any, list[dict[str, Any]]] | None = None
        self.header_cache: tuple[Any, str] | None = None
        """The header part of `text`, rebuilt when what it shows changed."""
        self.map_json: list[dict[str, Any]] = []
        """The act map as JSON, built once per act (read-only)."""
        self.position: Node | None = None
        self.room = "neow"
        self.act_floor = 0
        self.phase = "neow"
        self.victory = False
        self.dead = False
        self.combat: Combat | None = None
        self.select: Select | None = None
        self.card_offer: list[Card] = []
        self.rewards: list[dict[str, Any]] = []
        self.shop: ShopState | None = None
        self.event: EventState | None = None
        self.boss_relics: list[str] = []
        self.treasure_gold = 0
        self.removals = 0
        self.returns: list[str] = []
        """Phases to go back to after a nested choice (card reward inside rewards, ...)."""
        self.seen_events: set[str] = set()
        self.monster_queue: list[tuple[str, ...]] = []
        self.combat_relic_reward = False
        self.neow_options = self._neow_options()
        self._legal: list[Choice] | None = None
        self._handlers: dict[str, Handler] | None = None
        self._play_choices: dict[tuple[Any, ...], Choice] = {}
        """This combat's card plays by (card, name, cost, target, its name and index)."""
        self.start_act()

    # ------------------------------------------------------------------ basic state

    @property
    def floor(self) -> int:
        return (self.act - 1) * FLOORS_PER_ACT + self.act_floor

    @property
    def done(self) -> bool:
        return self.victory or self.dead

    def new_card(self, key: str, upgraded: bool = False) -> Card:
        self.next_uid += 1
        return Card(self.next_uid, card_data.CARDS[key], upgraded)

    def has_relic(self, name: str) -> bool:
        return name in self.relic_set

    def relic_hook(self, hook: str, *args: Any) -> None:
        fns = self._hooks.get(hook)
        if fns is None:
            fns = self._hooks[hook] = tuple(
                fn for fn in (RELICS[name].hooks.get(hook) for name in self.relics) if fn
            )
        for fn in fns:
            fn(*args)

    def obtain_relic(self, name: str) -> None:
        if name in self.relic_set:
            return
        self._hooks.clear()
        if name == "Coiled Band" and "Serpent Band" in self.relic_set:
            self.relics.remove("Serpent Band")
            self.relic_set.discard("Serpent Band")
        self.relics.append(name)
        self.relic_set.add(name)
        if name in ENERGY_RELICS:
            self.max_energy += 1
        self.relic_hook_one(name, "pickup", self)

    def relic_hook_one(self, name: str, hook: str, *args: Any) -> Any:
        fn = RELICS[name].hooks.get(hook)
        return fn(*args) if fn is not None else None

    def random_relic(self, rng: random.Random, rarity: str | None = None) -> str:
        if rarity is None:
            roll = rng.random()
            rarity = "common" if roll < 0.5 else ("uncommon" if roll < 0.83 else "rare")
        options = [r for r in relic_data.pool(rarity) if r not in self.relic_set]
        if not options:
            options = [r for r in relic_data.pool("common") if r not in self.relic_set] or [
                "Blood Vial"
            ]
        return rng.choice(options)

    def heal(self, amount: int) -> None:
        self.hp = min(self.max_hp, self.hp + max(0, amount))

    def lose_hp(self, amount: int) -> None:
        self.hp = max(1, self.hp - amount)

    def gain_max_hp(self, amount: int) -> None:
        self.max_hp += amount
        self.hp += amount

    def lose_max_hp(self, amount: int) -> None:
        self.max_hp = max(1, self.max_hp - amount)
        self.hp = min(self.hp, self.max_hp)

    def gain_gold(self, amount: int) -> None:
        if not self.has_relic("Spectral Husk"):
            self.gold += amount

    def spend_gold(self, amount: int) -> None:
        self.gold -= amount

    def add_card(self, key: str, upgraded: bool = False) -> Card:
        card = self.new_card(key, upgraded)
        self.deck.append(card)
        return card

    def remove_cards(self, cards: list[Card]) -> None:
        for card in cards:
            self.deck.remove(card)

    def removable_cards(self) -> list[Card]:
        return [c for c in self.deck if c.d.removable]

    def upgradable_cards(self) -> list[Card]:
        return [c for c in self.deck if c.can_upgrade]

    def upgrade_random(self, rng: random.Random, n: int) -> None:
        options = self.upgradable_cards()
        for card in rng.sample(options, min(n, len(options))):
            card.upgraded = True

    def obtain_random_potion(self, rng: random.Random) -> None:
        if self.has_relic("Sealed Urn"):
            return
        name = rng.choice(list(POTIONS))
        if None in self.potions:
            self.potions[self.potions.index(None)] = name

    # ------------------------------------------------------------------ ascension scaling

    def scale_hp(self, hp: int, tier: str) -> int:
        hp = int(hp * HP_FACTOR.get(tier, 1.0))
        level = {"normal": 7, "elite": 8, "boss": 9}.get(tier, 7)
        return hp + hp // 10 if self.ascension >= level else hp

    def scale_damage(self, dmg: int, tier: str) -> int:
        if dmg <= 0:
            return dmg
        dmg = max(1, int(dmg * DAMAGE_FACTOR.get(tier, 1.0)))
        level = {"normal": 2, "elite": 3, "boss": 4}.get(tier, 2)
        if self.ascension >= level:
            return dmg + max(1, dmg // 8)
        return dmg

    # ------------------------------------------------------------------ cards offered

    def card_choices(
        self, rng: random.Random, *, rarity: str | None = None, count: int = 3, elite: bool = False
    ) -> list[Card]:
        chosen: list[str] = []
        while len(chosen) < count:
            tier = rarity or self._roll_rarity(rng, elite)
            options = [k for k in card_data.pool(tier) if k not in chosen]
            if not options:
                continue
            chosen.append(rng.choice(options))
        upgrade_chance = {1: 0.0, 2: 0.12, 3: 0.25}.get(self.act, 0.25)
        return [self.new_card(k, rng.random() < upgrade_chance) for k in chosen]

    @staticmethod
    def _roll_rarity(rng: random.Random, elite: bool) -> str:
        roll = rng.random()
        rare, uncommon = (0.10, 0.40) if elite else (0.03, 0.37)
        if roll < rare:
            return "rare"
        return "uncommon" if roll < rare + uncommon else "common"

    # ------------------------------------------------------------------ flow: neow and map

    def _neow_options(self) -> list[tuple[str, Handler]]:
        rng = self.rngs["neow"]
        relic = self.random_relic(rng, "common")
        return [
            ("Gain 7 max HP.", self._neow_max_hp),
            (
                "Choose one of 3 cards.",
                lambda: self.offer_cards(self.card_choices(rng), then="map"),
            ),
            ("Remove a card from your deck.", lambda: self.open_select("remove", then="map")),
            (
                f"Obtain a random common relic ({relic}).",
                partial(self._neow_relic, relic),
            ),
        ]

    def _neow_max_hp(self) -> None:
        self.gain_max_hp(7)
        self.to_map()

    def _neow_relic(self, relic: str) -> None:
        self.obtain_relic(relic)
        self.to_map()

    def start_act(self) -> None:
        self.map = (
            generate(self.rngs["map"], self.ascension)
            if self.act < FINAL_ACT
            else self._final_map()
        )
        self.map_json = self.map.to_json()
        self.position = None
        self.act_floor = 0
        if self.act < FINAL_ACT:
            acts = ACTS[self.act]
            self.act_boss = self.rngs["map"].choice(acts.bosses)
            rng = self.rngs["map"]
            queue = [rng.choice(acts.weak) for _ in range(3)]
            while len(queue) < 20:
                pick = rng.choice(acts.strong)
                if pick != queue[-1]:
                    queue.append(pick)
            self.monster_queue = queue
        else:
            self.act_boss = FINAL_BOSS

    @staticmethod
    def _final_map() -> ActMap:
        rest = Node(3, 0, "rest", {3})
        shop = Node(3, 1, "shop", set())
        return ActMap({(3, 0): rest, (3, 1): shop})

    def to_map(self) -> None:
        self.room = "map"
        self.phase = "map"

    def map_choices(self) -> list[Node]:
        if self.position is None:
            return self.map.row(0)
        return [self.map.nodes[(x, self.position.y + 1)] for x in sorted(self.position.edges)]

    def enter(self, node: Node | None) -> None:
        self.position = node
        self.act_floor = FLOORS_PER_ACT if node is None else node.y + 1
        if self.act == FINAL_ACT and node is None:
            self.act_floor = 3
        self.relic_hook("floor", self)
        if node is None:
            self.room = "boss" if self.act < FINAL_ACT else "final"
            self.start_combat(self.act_boss, "boss")
            return
        self.room = node.room
        if node.room == "monster":
            self.start_combat(self.monster_queue.pop(0), "normal")
        elif node.room == "elite":
            self.start_combat(self.rngs["map"].choice(ACTS[self.act].elites), "elite")
        elif node.room == "rest":
            self.relic_hook("rest_enter", self)
            self.phase = "rest"
        elif node.room == "shop":
            self.open_shop()
        elif node.room == "event":
            self.open_event()
        elif node.room == "treasure":
            self.treasure_gold = self.rngs["rewards"].randint(20, 40)
            self.phase = "treasure"

    # ------------------------------------------------------------------ combat

    def start_combat(
        self, encounter: tuple[str, ...], tier: str, *, relic_reward: bool = False
    ) -> None:
        self.combat = Combat(self, encounter, tier)
        self._play_choices.clear()
        self.combat_relic_reward = relic_reward or tier == "elite"
        self.phase = "combat"
        self.combat.start()
        self.after_combat_step()

    def after_combat_step(self) -> None:
        cb = self.combat
        if cb is None or not cb.over:
            return
        if not cb.won:
            self.dead = True
            self.phase = "game_over"
            return
        self.relic_hook("combat_end", cb)
        self.combat = None
        if cb.tier == "boss":
            self.bosses_beaten += 1
            if self.act == FINAL_ACT or (self.acts < 3 and self.act == self.acts):
                self.victory = True
                self.phase = "game_over"
                return
        self.open_rewards(cb)

    def open_rewards(self, cb: Combat) -> None:
        rng = self.rngs["rewards"]
        gold = {
            "normal": rng.randint(10, 20),
            "elite": rng.randint(25, 35),
            "boss": rng.randint(95, 105),
        }[cb.tier]
        gold += cb.gold_stolen
        if self.has_relic("Gilded Idol"):
            gold += gold // 4
        rewards: list[dict[str, Any]] = []
        if not self.has_relic("Spectral Husk"):
            rewards.append({"type": "gold", "gold": gold})
        if cb.tier != "boss" and not self.has_relic("Sealed Urn") and rng.random() < 0.4:
            rewards.append({"type": "potion", "name": rng.choice(list(POTIONS))})
        if self.combat_relic_reward and cb.tier != "boss":
            rewards.append({"type": "relic", "name": self.random_relic(rng)})
        rarity = "rare" if cb.tier == "boss" else None
        rewards.append(
            {
                "type": "cards",
                "cards": self.card_choices(rng, rarity=rarity, elite=cb.tier == "elite"),
            }
        )
        self.rewards = rewards
        self.phase = "reward"

    def take_reward(self, index: int) -> None:
        item = self.rewards[index]
        item["taken"] = True
        if item["type"] == "gold":
            self.gain_gold(item["gold"])
        elif item["type"] == "potion":
            self.potions[self.potions.index(None)] = item["name"]
        elif item["type"] == "relic":
            self.obtain_relic(item["name"])
        elif item["type"] == "cards":
            self.offer_cards(item["cards"], then="reward")

    def leave_rewards(self) -> None:
        self.rewards = []
        if self.room == "boss":
            if self.act < 3:
                self.boss_relics = self._boss_relic_choices()
                self.phase = "boss_relic"
            else:
                self.next_act()
        else:
            self.to_map()

    def _boss_relic_choices(self) -> list[str]:
        options = [r for r in relic_data.pool("boss") if r not in self.relic_set]
        return self.rngs["rewards"].sample(options, min(3, len(options)))

    def next_act(self) -> None:
        missing = self.max_hp - self.hp
        self.heal(missing if self.ascension < 5 else (missing * 3) // 4)
        self.act += 1
        self.start_act()
        self.to_map()

    # ------------------------------------------------------------------ nested choices

    def offer_cards(self, offered: list[Card], then: str = "map") -> None:
        self.card_offer = offered
        self.returns.append(then)
        self.phase = "card_reward"

    def open_select(self, purpose: str, then: str = "map") -> None:
        if purpose in ("remove", "transform"):
            options = self.removable_cards()
        elif purpose == "upgrade":
            options = self.upgradable_cards()
        else:
            options = [c for c in self.deck if c.d.type not in ("curse", "status")]
        if not options:
            self.resume(then)
            return
        self.select = Select(purpose, options)
        self.returns.append(then)
        self.phase = "card_select"

    def resume(self, then: str | None = None) -> None:
        target = then if then is not None else (self.returns.pop() if self.returns else "map")
        if target == "map":
            self.to_map()
        else:
            self.phase = target

    def resolve_select(self, card: Card) -> None:
        assert self.select is not None
        purpose = self.select.purpose
        self.select = None
        if purpose == "remove":
            self.deck.remove(card)
        elif purpose == "upgrade":
            card.upgraded = True
        elif purpose == "transform":
            self.deck.remove(card)
            options = [
                k
                for r in ("common", "uncommon", "rare")
                for k in card_data.pool(r)
                if k != card.key
            ]
            self.add_card(self.rngs["events"].choice(options), card.upgraded)
        elif purpose == "duplicate":
            self.add_card(card.key, card.upgraded)
        self.resume()

    # ------------------------------------------------------------------ shop, event, rest

    def open_shop(self) -> None:
        rng = self.rngs["shop"]
        self.relic_hook("shop", self)
        offered = self.card_choices(rng, count=5)
        prices = {"common": 50, "uncommon": 75, "rare": 150}
        cards = [(c, int(prices[c.d.rarity] * rng.uniform(0.9, 1.1))) for c in offered]
        relic_prices = {"common": 150, "uncommon": 250, "rare": 300}
        relics: list[tuple[str, int]] = []
        for rarity in ("common", "uncommon", "rare"):
            name = self.random_relic(rng, rarity)
            if name not in (r for r, _ in relics):
                relics.append(
                    (name, int(relic_prices[RELICS[name].rarity] * rng.uniform(0.95, 1.05)))
                )
        potion_prices = {"common": 50, "uncommon": 75, "rare": 100}
        potions = [(p, potion_prices[POTIONS[p].rarity]) for p in rng.sample(list(POTIONS), 3)]
        self.shop = ShopState(cards, relics, potions)
        self.phase = "shop"

    @property
    def removal_price(self) -> int:
        return 75 + 25 * self.removals

    def buy(self, kind: str, index: int) -> None:
        shop = self.shop
        assert shop is not None
        self.relic_counters["Coin Purse"] = 1
        if kind == "card":
            card, price = shop.cards.pop(index)
            self.spend_gold(price)
            self.deck.append(card)
        elif kind == "relic":
            name, price = shop.relics.pop(index)
            self.spend_gold(price)
            self.obtain_relic(name)
        elif kind == "potion":
            name, price = shop.potions.pop(index)
            self.spend_gold(price)
            self.potions[self.potions.index(None)] = name
        elif kind == "remove":
            self.spend_gold(self.removal_price)
            self.removals += 1
            shop.removed = True
            self.open_select("remove", then="shop")

    def open_event(self) -> None:
        rng = self.rngs["events"]
        unseen = [name for name in EVENTS if name not in self.seen_events] or list(EVENTS)
        name = rng.choice(unseen)
        self.seen_events.add(name)
        d = EVENTS[name]
        self.event = EventState(name, d.text, d.options(self, rng))
        self.phase = "event"

    def choose_event(self, option: EventOption) -> None:
        self.event = None
        self.phase = "map"
        option.resolve(self)
        if self.phase == "map":
            self.to_map()

    @property
    def rest_heal(self) -> int:
        share = 0.25 if self.ascension >= 10 else 0.30
        extra = sum(int(self.relic_hook_one(r, "rest", self) or 0) for r in self.relics)
        return int(self.max_hp * share) + extra

    def boss_relic_done(self, name: str | None) -> None:
        if name is not None:
            self.obtain_relic(name)
        self.boss_relics = []
        self.next_act()

    # ------------------------------------------------------------------ legal actions

    def legal(self) -> list[Choice]:
        if self._legal is None:
            self._legal = getattr(self, f"_legal_{self.phase}")()
            self._handlers = None
        return self._legal

    def legal_handlers(self) -> dict[str, Handler]:
        """What each legal action does, by id (ids are unique)."""
        legal = self.legal()
        if self._handlers is None:
            self._handlers = {c.id: c.run for c in legal}
        return self._handlers

    def act_on(self, action_id: str) -> None:
        """Perform one legal action (callers check legality with `handler()` or `legal()`)."""
        fn = self.handler(action_id)
        if fn is None:
            raise KeyError(action_id)
        self.perform(fn)

    def perform(self, fn: Handler) -> None:
        """Run a handler that `handler()` returned for the current state."""
        self._legal = None
        fn()
        self._legal = None

    def handler(self, action_id: str) -> Handler | None:
        """What performing `action_id` does, or None when it is not legal now.

        Mid-plan in combat the legal list is not built again after every play: the id is
        parsed and checked against the hand, energy, potions and targets directly (the
        same rules as `_legal_combat`).
        """
        if self._legal is None and self.kind == "combat":
            return self._combat_handler(action_id)
        return self.legal_handlers().get(action_id)

    def _combat_handler(self, action_id: str) -> Handler | None:
        cb = self.combat
        assert cb is not None
        if action_id == "end_turn":
            return self.end_turn
        body, at, index_text = action_id.partition("@")
        target = None
        if at:
            if not index_text.isdigit() or int(index_text) >= len(cb.enemies):
                return None
            target = cb.enemies[int(index_text)]
            if not target.targetable:
                return None
        if body.startswith("play:"):
            return self._play_handler(cb, body[5:], target, targeted=bool(at))
        if body.startswith("potion:"):
            slot_text, _, name = body[7:].partition(":")
            if not slot_text.isdigit() or int(slot_text) >= len(self.potions):
                return None
            slot = int(slot_text)
            if self.potions[slot] != name or (POTIONS[name].target == "enemy") != bool(at):
                return None
            return partial(self.potion, slot, target)
        return None

    def _play_handler(
        self, cb: Combat, body: str, target: Any, *, targeted: bool
    ) -> Handler | None:
        name, sep, uid_text = body.rpartition("#")
        if not sep or not uid_text.isdigit():
            return None
        uid = int(uid_text)
        card = next((c for c in cb.hand if c.uid == uid), None)
        if card is None or card.name != name or (card.d.target == "enemy") != targeted:
            return None
        cost = cb.card_cost(card)
        if cost == UNPLAYABLE or cost > cb.player.energy:
            return None
        return partial(self.play, card, target)

    def _legal_game_over(self) -> list[Choice]:
        return []

    def _legal_neow(self) -> list[Choice]:
        return [Choice(f"neow:{i}", label, fn) for i, (label, fn) in enumerate(self.neow_options)]

    def _legal_map(self) -> list[Choice]:
        at_top = self.position is not None and not self.position.edges
        if at_top or (self.act == FINAL_ACT and self.position is not None and self.position.y == 1):
            name = " & ".join(self.act_boss)
            return [Choice("path:boss", f"Fight the boss: {name}", lambda: self.enter(None))]
        out = []
        for node in self.map_choices():
            floor = (self.act - 1) * FLOORS_PER_ACT + node.y + 1
            out.append(
                Choice(
                    f"path:{node.x}",
                    f"Go to {node.room} (floor {floor}, column {node.x})",
                    partial(self.enter, node),
                )
            )
        return out

    def _legal_combat(self) -> list[Choice]:
        cb = self.combat
        assert cb is not None
        if cb.pending_discard:
            return self._legal_discard(cb)
        out: list[Choice] = []
        targets = cb.targets()
        energy = cb.player.energy
        choices = self._play_choices
        key: tuple[Any, ...]
        for card in cb.hand:
            cost = cb.card_cost(card)
            if cost == UNPLAYABLE or cost > energy:
                continue
            if card.d.target == "enemy":
                for e in targets:
                    key = (card, card.name, cost, e, e.name, e.index)
                    choice = choices.get(key)
                    if choice is None:
                        choice = choices[key] = self._play_choice(card, cost, e)
                    out.append(choice)
            else:
                key = (card, card.name, cost, None, None, None)
                choice = choices.get(key)
                if choice is None:
                    choice = choices[key] = self._play_choice(card, cost, None)
                out.append(choice)
        for slot, name in enumerate(self.potions):
            if name is None:
                continue
            base = f"potion:{slot}:{name}"
            if POTIONS[name].target == "enemy":
                for e in targets:
                    out.append(
                        Choice(
                            f"{base}@{e.index}",
                            f"Drink {name} on {e.name} [{e.index}]",
                            partial(self.potion, slot, e),
                        )
                    )
            else:
                out.append(Choice(base, f"Drink {name}", partial(self.potion, slot, None)))
        out.append(Choice("end_turn", "End your turn", self.end_turn))
        return out

    def _play_choice(self, card: Card, cost: int, target: Any) -> Choice:
        base = f"play:{card.name}#{card.uid}"
        cost_text = "X" if cost < 0 else str(cost)
        if target is None:
            return Choice(base, f"Play {card.name} ({cost_text})", partial(self.play, card, None))
        return Choice(
            f"{base}@{target.index}",
            f"Play {card.name} ({cost_text}) on {target.name} [{target.index}]",
            partial(self.play, card, target),
        )

    def _legal_discard(self, cb: Combat) -> list[Choice]:
        return [
            Choice(f"select:{c.name}#{c.uid}", f"Discard {c.name}", partial(self.discard_choice, c))
            for c in cb.hand
        ]

    def play(self, card: Card, target: Any) -> None:
        cb = self.combat
        assert cb is not None
        cb.play(card, target)
        if cb.force_end_turn and not cb.over:
            cb.end_player_turn()
        self.after_combat_step()

    def potion(self, slot: int, target: Any) -> None:
        cb = self.combat
        assert cb is not None
        cb.use_potion(slot, target)
        self.after_combat_step()

    def end_turn(self) -> None:
        cb = self.combat
        assert cb is not None
        cb.end_player_turn()
        self.after_combat_step()

    def discard_choice(self, card: Card) -> None:
        cb = self.combat
        assert cb is not None
        cb.resolve_discard(card)
        self.after_combat_step()

    def _legal_card_select(self) -> list[Choice]:
        select = self.select
        assert select is not None
        verb = select.purpose.capitalize()
        out = [
            Choice(f"select:{c.name}#{c.uid}", f"{verb} {c.name}", partial(self.resolve_select, c))
            for c in select.cards
        ]
        return out

    def _legal_card_reward(self) -> list[Choice]:
        out = [
            Choice(
                f"pick:{i}:{c.name}",
                f"Add {c.name} to your deck: {c.d.describe(c.upgraded)}",
                partial(self._pick, c),
            )
            for i, c in enumerate(self.card_offer)
        ]
        out.append(Choice("skip", "Skip the card reward", lambda: self._pick(None)))
        return out

    def _pick(self, card: Card | None) -> None:
        if card is not None:
            self.deck.append(card)
        self.card_offer = []
        self.resume()

    def _legal_reward(self) -> list[Choice]:
        out = []
        slots_free = None in self.potions
        for i, item in enumerate(self.rewards):
            if item.get("taken"):
                continue
            if item["type"] == "potion" and not slots_free:
                continue
            label = {
                "gold": f"Take {item.get('gold')} gold",
                "potion": f"Take the potion {item.get('name')}",
                "relic": f"Take the relic {item.get('name')}",
                "cards": "Choose a card to add to your deck",
            }[item["type"]]
            out.append(Choice(f"take:{i}:{item['type']}", label, partial(self.take_reward, i)))
        out.append(Choice("proceed", "Leave the rewards and go on", self.leave_rewards))
        return out

    def _legal_shop(self) -> list[Choice]:
        shop = self.shop
        assert shop is not None
        out = []
        for i, (card, price) in enumerate(shop.cards):
            if price <= self.gold:
                out.append(
                    Choice(
                        f"buy:card:{card.name}",
                        f"Buy {card.name} for {price} gold",
                        partial(self.buy, "card", i),
                    )
                )
        for i, (name, price) in enumerate(shop.relics):
            if price <= self.gold:
                out.append(
                    Choice(
                        f"buy:relic:{name}",
                        f"Buy {name} for {price} gold",
                        partial(self.buy, "relic", i),
                    )
                )
        if None in self.potions and not self.has_relic("Sealed Urn"):
            for i, (name, price) in enumerate(shop.potions):
                if price <= self.gold:
                    out.append(
                        Choice(
                            f"buy:potion:{name}",
                            f"Buy {name} for {price} gold",
                            partial(self.buy, "potion", i),
                        )
                    )
        if not shop.removed and self.removal_price <= self.gold and self.removable_cards():
            out.append(
                Choice(
                    "remove",
                    f"Remove a card for {self.removal_price} gold",
                    lambda: self.buy("remove", 0),
                )
            )
        out.append(Choice("leave", "Leave the shop", self._leave_shop))
        return out

    def _leave_shop(self) -> None:
        self.shop = None
        self.to_map()

    def _legal_event(self) -> list[Choice]:
        ev = self.event
        assert ev is not None
        return [
            Choice(f"option:{i}", o.label, partial(self.choose_event, o))
            for i, o in enumerate(ev.options)
            if o.enabled
        ]

    def _legal_rest(self) -> list[Choice]:
        out = []
        if not self.has_relic("Bitter Brew"):
            heal = min(self.rest_heal, self.max_hp - self.hp)
            out.append(Choice("rest", f"Rest: heal {heal} HP", self._rest))
        if not self.has_relic("Fused Hammer") and self.upgradable_cards():
            out.append(
                Choice("upgrade", "Smith: upgrade a card", lambda: self.open_select("upgrade"))
            )
        if not out:
            out.append(Choice("leave", "Leave the rest site", self.to_map))
        return out

    def _rest(self) -> None:
        self.heal(self.rest_heal)
        self.to_map()

    def _legal_treasure(self) -> list[Choice]:
        return [
            Choice(
                "open", f"Open the chest (a relic and {self.treasure_gold} gold)", self._open_chest
            ),
            Choice("leave", "Leave the chest closed", self.to_map),
        ]

    def _open_chest(self) -> None:
        self.obtain_relic(self.random_relic(self.rngs["rewards"]))
        self.gain_gold(self.treasure_gold)
        self.to_map()

    def _legal_boss_relic(self) -> list[Choice]:
        out = [
            Choice(
                f"relic:{name}",
                f"Take {name}: {RELICS[name].text}",
                partial(self.boss_relic_done, name),
            )
            for name in self.boss_relics
        ]
        out.append(Choice("skip", "Take no boss relic", lambda: self.boss_relic_done(None)))
        return out

    # ------------------------------------------------------------------ kind

    @property
    def kind(self) -> str:
        if self.phase == "combat" and self.combat is not None and self.combat.pending_discard:
            return "card_select"
        return self.phase
