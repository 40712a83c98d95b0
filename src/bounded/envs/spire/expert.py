"""A rule-based expert: card and relic valuation, path choice, shop and event heuristics,
and a combat planner that blocks against incoming damage, looks for lethal and uses
potions. It reads only the observation (`obs.state` and `obs.legal`), plus the public
card definitions for the numbers printed on the cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from bounded.core import Action, Observation
from bounded.envs.spire.cards import CARDS
from bounded.envs.spire.core import CardDef

CARD_TIER: dict[str, float] = {
    # starter
    "Strike": 0.0, "Defend": 0.5, "Hamstring": 3.0, "Duck and Roll": 2.0,
    # common
    "Poisoned Stab": 5.0, "Deadly Venom": 5.5, "Quick Slash": 5.0, "Low Blow": 5.0,
    "Knife Flurry": 6.0, "Cloak and Knife": 5.0, "Knife Spray": 5.5, "Knife Toss": 4.5,
    "Tumble": 5.0, "Backspring": 6.5, "Parry": 4.5, "Sidestep": 5.0, "Ready Up": 3.5,
    "Nick": 5.0, "Fester": 5.0, "Flying Kick": 5.0, "Shriek": 5.5, "Outflank": 3.5,
    "Opportunist": 4.0, "Escape Route": 3.5, "Slash and Dash": 5.0, "Feint": 5.0,
    "Toxic Dart": 5.5, "Lunge": 5.0, "Quickdraw": 4.5, "Snare": 5.0, "Hidden Blade": 5.0,
    "Steady Guard": 5.0, "Venom Coat": 5.5,
    # uncommon
    "Ricochet Vial": 7.0, "Accelerant": 6.0, "Toxic Fog": 8.0, "Light Feet": 8.0,
    "Keen Edge": 6.0, "Endless Knives": 6.5, "Blur": 6.0, "Sweep Kick": 7.0,
    "Choking Cloud": 8.0, "Know-How": 5.5, "Hunter": 6.0, "Perforate": 6.5, "Skewer": 6.5,
    "Dread": 6.0, "Heel Hook": 5.5, "Barbs": 6.0, "Gamble": 4.5, "Eviscerate": 6.0,
    "Flechettes": 5.0, "Finisher": 5.0, "All-In": 6.5, "Caltrop Dance": 6.0,
    "Crippling Strike": 6.5,
    # rare
    "Adrenaline Rush": 8.5, "Afterimage": 8.5, "Thousand Cuts": 7.5, "Envenom": 7.0,
    "Plague Burst": 7.0, "Glass Knife": 7.0, "Die Die Die": 8.5, "Double Up": 6.0,
    "Malaise": 8.0, "Steel Storm": 6.0, "Phantom Blades": 6.5, "Bullet Time": 6.0,
    "Alchemize": 5.0, "Sharpened Mind": 8.0,
}  # fmt: skip

RELIC_TIER: dict[str, float] = {
    "Sage Stone": 9, "Sealed Urn": 8.5, "Fused Hammer": 8, "Spectral Husk": 7.5, "Bitter Brew": 7,
    "Coiled Band": 6.5, "Heart Locket": 6, "Still Pyramid": 5,
}  # fmt: skip

BAD_CARDS = ("Climber's Bane", "Pain", "Doubt", "Injury", "Wound", "Dazed", "Burn", "Slimed")
SELF_DRAWS = frozenset({
    "Quick Slash", "Knife Toss", "Tumble", "Backspring", "Ready Up", "Escape Route", "Toxic Dart",
    "Quickdraw", "Know-How", "Adrenaline Rush", "Gamble", "Knife Flurry", "Cloak and Knife",
    "Hidden Blade", "Steel Storm",
})  # fmt: skip
"""Cards after which the hand changes, so the plan stops there and is made again."""
UNSAFE_AFTER = frozenset({"Duck and Roll", "All-In", "Bullet Time"})


MULTI_HIT = {"Perforate": 5, "Eviscerate": 3, "Glass Knife": 2, "Knife Spray": 2}
UTILITY: dict[str, float] = {
    "Plague Burst": 5.0, "Adrenaline Rush": 20.0, "Tumble": 7.0, "Know-How": 7.0, "Hunter": 4.0,
    "Quick Slash": 3.0, "Quickdraw": 3.0, "Toxic Dart": 3.0, "Backspring": 3.0, "Knife Toss": 3.0,
    "Escape Route": 3.0, "Double Up": 3.0, "Phantom Blades": 3.0, "Bullet Time": 3.0,
    "Steel Storm": 3.0, "Gamble": 3.0, "Ready Up": 3.0, "Alchemize": 3.0, "Barbs": 3.0,
    "Caltrop Dance": 3.0,
}  # fmt: skip
"""Flat worth of what a card sets up beyond its numbers (draw, energy, later turns)."""
SPECIAL_VALUE_CARDS = frozenset({"Finisher", "Flechettes", "Dread", "Malaise", "Accelerant"})
"""Cards `CombatPlanner.special_value` values by their own rule."""
SPECIAL_UTILITY_CARDS = frozenset({
    "Knife Flurry", "Cloak and Knife", "Hidden Blade", "Flying Kick", "Outflank", "Shriek",
    "Heel Hook",
})  # fmt: skip
"""Cards whose utility `CombatPlanner.utility` computes; the others' is `UTILITY`."""


FIGHT_COST = {1: 0.09, 2: 0.13, 3: 0.15}
"""Share of max HP a hallway fight is expected to cost, by act (path planning)."""


NO_TARGET: tuple[None] = (None,)


@lru_cache(maxsize=512)
def _key(name: str) -> tuple[str, bool]:
    return (name[:-1], True) if name.endswith("+") else (name, False)


@lru_cache(maxsize=512)
def _rules(name: str) -> tuple[str, CardDef, dict[str, int]]:
    """(key, definition, numbers) of a card by its shown name."""
    key, upgraded = _key(name)
    d = CARDS[key]
    return key, d, d.numbers(upgraded)


class SpireExpert:
    """A scripted player for `bounded/Spire-v0`; `act(obs)` returns an action or a combat plan."""

    def __init__(self, *, rest_threshold: float = 0.55) -> None:
        self.rest_threshold = rest_threshold

    def act(self, obs: Observation) -> Action | list[Action]:
        handler = getattr(self, f"_{obs.kind}", None)
        if handler is None:
            return obs.legal[0]
        result: Action | list[Action] = handler(obs)
        return result

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _by_id(obs: Observation, action_id: str) -> Action | None:
        return obs.legal_action(action_id)

    @staticmethod
    def _card_score(card: dict[str, Any], deck: list[dict[str, Any]]) -> float:
        key, upgraded = _key(card["name"])
        score = CARD_TIER.get(key, 0.0) + (0.8 if upgraded else 0.0)
        same = sum(1 for c in deck if _key(c["name"])[0] == key)
        if CARDS[key].type == "power" and same:
            score -= 2.5
        score -= 0.7 * same
        poison = sum(1 for c in deck if "Poison" in c["text"])
        if "Poison" in card["text"] and poison >= 3:
            score += 0.8
        if len(deck) > 25:
            score -= 1.0
        return score

    # ------------------------------------------------------------------ out of combat

    def _neow(self, obs: Observation) -> Action:
        return self._by_id(obs, "neow:1") or obs.legal[0]

    def _map(self, obs: Observation) -> Action:
        if len(obs.legal) == 1:
            return obs.legal[0]
        state = obs.state
        nodes = {(n["x"], n["y"]): n for n in state["map"]["nodes"]}
        player = state["player"]
        act = state["act"]
        memo: dict[tuple[int, int, int], float] = {}
        rooms: dict[tuple[str, int], tuple[float, float]] = {}

        def room_value(room: str, level: int) -> tuple[float, float]:
            found = rooms.get((room, level))
            if found is None:
                found = rooms[room, level] = self._room_value(room, level / 20, player["gold"], act)
            return found

        def value(key: tuple[int, int], hp: float) -> float:
            level = max(0, min(20, round(hp * 20)))
            memo_key = (key[0], key[1], level)
            if memo_key not in memo:
                node = nodes[key]
                here, hp_after = room_value(node["room"], level)
                children = [
                    value((x, node["y"] + 1), hp_after)
                    for x in node["edges"]
                    if (x, node["y"] + 1) in nodes
                ]
                rest = max(children) if children else 8.0 * hp_after
                memo[memo_key] = here + rest
            return memo[memo_key]

        hp_now = player["hp"] / player["max_hp"]
        y = self._next_y(state)
        return max(
            (a for a in obs.legal if a.id.startswith("path:") and a.id != "path:boss"),
            key=lambda a: value((int(a.id.split(":")[1]), y), hp_now),
        )

    @staticmethod
    def _next_y(state: dict[str, Any]) -> int:
        pos = state["map"]["position"]
        return 0 if pos is None else pos["y"] + 1

    @staticmethod
    def _room_value(room: str, hp: float, gold: int, act: int) -> tuple[float, float]:
        """(value of visiting a room, HP fraction after it) for path planning."""
        fight_cost = FIGHT_COST.get(act, 0.15)
        if room == "monster":
            reward, hp_after = 1.0, hp - fight_cost
        elif room == "elite":
            reward, hp_after = 3.0, hp - 2.5 * fight_cost
        elif room == "rest":
            reward, hp_after = (0.5, min(1.0, hp + 0.3)) if hp < 0.7 else (1.5, hp)
        elif room == "shop":
            reward, hp_after = (2.5 if gold >= 150 else 0.3), hp
        elif room == "event":
            reward, hp_after = 1.0, hp - 0.02
        elif room == "treasure":
            reward, hp_after = 2.5, hp
        else:
            reward, hp_after = 0.0, hp
        if hp_after < 0.2:
            reward -= 10.0 * (0.2 - hp_after) * 10
        return reward, hp_after

    def _card_reward(self, obs: Observation) -> Action:
        deck = obs.state["player"]["deck"]
        cards = obs.state["cards"]
        best_i, best = max(enumerate(cards), key=lambda ic: self._card_score(ic[1], deck))
        if self._card_score(best, deck) < 3.5:
            return self._by_id(obs, "skip") or obs.legal[-1]
        return self._by_id(obs, f"pick:{best_i}:{best['name']}") or obs.legal[0]

    def _reward(self, obs: Observation) -> Action:
        return next((a for a in obs.legal if a.id.startswith("take:")), None) or obs.legal[-1]

    def _treasure(self, obs: Observation) -> Action:
        return self._by_id(obs, "open") or obs.legal[0]

    def _boss_relic(self, obs: Observation) -> Action:
        relics = obs.state["relics"]
        if not relics:
            return obs.legal[-1]
        best = max(relics, key=lambda r: RELIC_TIER.get(r["name"], 0))
        return self._by_id(obs, f"relic:{best['name']}") or obs.legal[-1]

    def _rest(self, obs: Observation) -> Action:
        player = obs.state["player"]
        threshold = self.rest_threshold
        if obs.state["act_floor"] >= 15 or obs.state["act"] == 4:
            threshold = 0.8
        if player["hp"] < threshold * player["max_hp"] or self._by_id(obs, "upgrade") is None:
            return self._by_id(obs, "rest") or obs.legal[0]
        return self._by_id(obs, "upgrade") or obs.legal[0]

    def _shop(self, obs: Observation) -> Action:
        state = obs.state
        deck = state["player"]["deck"]
        if self._by_id(obs, "remove") and any(
            _key(c["name"])[0] in ("Strike", *BAD_CARDS) for c in deck
        ):
            return self._by_id(obs, "remove") or obs.legal[-1]
        shop = state["shop"]
        options: list[tuple[float, str]] = []
        for card in shop["cards"]:
            score = self._card_score(card, deck)
            if score >= 6.0:
                options.append((score, f"buy:card:{card['name']}"))
        for relic in shop["relics"]:
            options.append((6.5, f"buy:relic:{relic['name']}"))
        for potion in shop["potions"]:
            options.append((4.0, f"buy:potion:{potion['name']}"))
        for _, action_id in sorted(options, reverse=True):
            action = self._by_id(obs, action_id)
            if action is not None:
                return action
        return self._by_id(obs, "leave") or obs.legal[-1]

    def _event(self, obs: Observation) -> Action:
        player = obs.state["player"]
        hp_frac = player["hp"] / player["max_hp"]
        preferences = [
            ("remove all removable curses", 10),
            ("Remove a card", 6),
            ("Temper", 6),
            ("duplicate", 4),
            ("choose one of 3", 4),
            ("Heal", 5 if hp_frac < 0.5 else 0),
            ("Sleep", 5 if hp_frac < 0.5 else 0),
            ("Drink", 2),
            ("Offer blood", 3 if hp_frac > 0.7 else -3),
            ("Take the idol", 3 if hp_frac > 0.6 else -3),
            ("Pay", 2),
            ("Dig", 2 if hp_frac > 0.6 else -2),
            ("Share your supplies", 1),
            ("Lose 6 HP", 1 if hp_frac > 0.6 else -2),
            ("Search the pack", 1 if hp_frac > 0.8 and obs.state["act"] > 1 else -3),
            ("Stomp", 1 if hp_frac > 0.7 and obs.state["act"] > 1 else -3),
            ("Eat", -1),
            ("Hammer blindly", 2 if hp_frac > 0.6 else -2),
            ("transform", 2),
            ("Read it", -1),
            ("Carry it", -1),
            ("Bet", 0.5),
            ("Leave", 0),
        ]

        def score(a: Action) -> float:
            return next((w for text, w in preferences if text.lower() in a.label.lower()), 0.0)

        return max(obs.legal, key=score)

    def _card_select(self, obs: Observation) -> Action:
        select = obs.state["select"]
        purpose = select["purpose"]
        cards = select["cards"]
        if purpose == "discard":
            return self._discard_choice(obs)
        deck = obs.state["player"]["deck"]

        def badness(card: dict[str, Any]) -> float:
            key, upgraded = _key(card["name"])
            if key in BAD_CARDS:
                return 100
            return 10 - CARD_TIER.get(key, 5) - (1 if upgraded else 0)

        if purpose in ("remove", "transform"):
            chosen = max(cards, key=badness)
        elif purpose == "upgrade":
            chosen = max(
                cards,
                key=lambda c: (
                    CARD_TIER.get(_key(c["name"])[0], 0) + (3 if c["type"] == "power" else 0)
                ),
            )
        else:
            chosen = max(cards, key=lambda c: self._card_score(c, deck))
        return self._by_id(obs, f"select:{chosen['name']}#{chosen['uid']}") or obs.legal[0]

    def _discard_choice(self, obs: Observation) -> Action:
        hand = obs.state["combat"]["hand"]
        energy = obs.state["player"]["energy"]

        def keep_value(card: dict[str, Any]) -> float:
            key, _ = _key(card["name"])
            if key in BAD_CARDS:
                return -100
            cost = card["cost"]
            if isinstance(cost, int) and cost > energy:
                return -10 + CARD_TIER.get(key, 0) * 0.1
            return CARD_TIER.get(key, 2)

        chosen = min(hand, key=keep_value)
        return self._by_id(obs, f"select:{chosen['name']}#{chosen['uid']}") or obs.legal[0]

    # ------------------------------------------------------------------ combat

    def _combat(self, obs: Observation) -> list[Action]:
        return CombatPlanner(obs).plan()


class CombatPlanner:
    """Greedy planning of one turn from the observation: potions, powers, lethal, block, damage."""

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        state = obs.state
        self.cb = state["combat"]
        self.player = state["player"]
        self.room = state["room"]
        self.energy: int = self.player["energy"]
        self.block: int = self.player["block"]
        self.powers: dict[str, int] = self.player["powers"]
        # the player's attack modifiers do not change while a turn is planned
        self.strength = self.powers.get("strength", 0)
        self.weak = bool(self.powers.get("weak"))
        self.phantom = bool(self.powers.get("phantom"))
        self.enemies = [
            dict(e)
            for e in self.cb["enemies"]
            if e["alive"] and not e["powers"].get("reborn_pending")
        ]
        self.legal_by_id = {a.id: a for a in obs.legal}
        self.legal_ids = self.legal_by_id.keys()
        self.plan_ids: list[str] = []
        self.used: set[int] = set()
        """uids of the hand cards already in the plan."""
        self.attacks = 0
        """Attacks in the plan so far."""
        self.need_now = 0
        self.living_now: list[dict[str, Any]] = []
        self.enrage_now = 0
        """Enrage of the living enemies: what a skill costs in Strength they gain."""
        self.stop = False

    # --------------------------------------------------------------- estimates

    def incoming(self) -> int:
        return sum(e["intent"]["total"] for e in self.enemies if e["hp"] > 0)

    def need(self) -> int:
        return max(0, self.incoming() - self.block)

    def attack_damage(self, base: int, enemy: dict[str, Any]) -> int:
        dmg = float(base + self.strength)
        if self.weak:
            dmg *= 0.75
        powers = enemy["powers"]
        if powers.get("vulnerable"):
            dmg *= 1.5
        if self.phantom:
            dmg *= 2
        if powers.get("intangible"):
            dmg = min(dmg, 1)
        return int(dmg)

    def block_gain(self, base: int) -> int:
        amount = float(base + self.powers.get("dexterity", 0))
        if self.powers.get("frail"):
            amount *= 0.75
        return max(0, int(amount))

    def hits_of(self, key: str) -> int:
        if key == "Skewer":
            return max(1, self.energy)
        return MULTI_HIT.get(key, 1)

    def card_damage(self, key: str, numbers: dict[str, int], enemy: dict[str, Any]) -> int:
        if "dmg" not in numbers:
            return 0
        base = numbers["dmg"]
        if key == "Shiv":
            base += self.powers.get("keen_edge", 0)
        hits = self.hits_of(key)
        if key == "Fester" and enemy["powers"].get("poison"):
            hits = 2
        per_hit = self.attack_damage(base, enemy)
        return per_hit * hits

    # --------------------------------------------------------------- plan

    def plan(self) -> list[Action]:
        self.use_potions()
        self.play_powers()
        while not self.stop:
            choice = self.best_play()
            if choice is None:
                break
            self.commit(*choice)
        if not self.stop:
            self.plan_ids.append("end_turn")
        actions = [self.legal_by_id.get(i) for i in self.plan_ids]
        plan = [a for a in actions if a is not None][:12]
        return plan or [self.obs.legal[-1]]

    def hand(self) -> list[dict[str, Any]]:
        return [c for c in self.cb["hand"] if c["uid"] not in self.used]

    def add_play(self, action_id: str, card: dict[str, Any]) -> None:
        self.plan_ids.append(action_id)
        self.used.add(card["uid"])
        if card["type"] == "attack":
            self.attacks += 1

    def use_potions(self) -> None:
        big_fight = self.room in ("elite", "boss", "final")
        hp_frac = self.player["hp"] / self.player["max_hp"]
        danger = self.need() >= self.player["hp"] * 0.6 or hp_frac < 0.3
        if not (big_fight and self.cb["turn"] <= 2) and not danger:
            return
        for potion in self.player["potions"]:
            name = potion["name"]
            if name == "Healing Potion" and hp_frac > 0.5:
                continue
            if potion["target"] == "enemy":
                target = max(self.enemies, key=lambda e: e["hp"], default=None)
                if target is None:
                    continue
                action_id = f"potion:{potion['slot']}:{name}@{target['index']}"
            else:
                action_id = f"potion:{potion['slot']}:{name}"
            if action_id in self.legal_ids:
                self.plan_ids.append(action_id)
                if name == "Energy Potion":
                    self.energy += 2
                elif name == "Block Potion":
                    self.block += 12
                elif name in ("Swift Potion", "Blade Potion"):
                    self.stop = True
                    return

    def play_powers(self) -> None:
        for card in self.hand():
            key, _ = _key(card["name"])
            if (
                card["type"] != "power"
                or not isinstance(card["cost"], int)
                or card["cost"] > self.energy
            ):
                continue
            if self.need() > 12 and self.cb["turn"] > 1 and card["cost"] >= self.energy:
                continue
            action_id = f"play:{card['name']}#{card['uid']}"
            if action_id in self.legal_ids:
                self.add_play(action_id, card)
                self.energy -= card["cost"]
                if key == "Light Feet":
                    self.powers = {
                        **self.powers,
                        "dexterity": self.powers.get("dexterity", 0)
                        + CARDS[key].numbers(card["upgraded"])["dex"],
                    }

    def best_play(self) -> tuple[dict[str, Any], dict[str, Any] | None, float] | None:
        best: tuple[dict[str, Any], dict[str, Any] | None, float] | None = None
        # nothing changes while the candidates are compared: compute the shared numbers once
        self.need_now = self.need()
        self.living_now = [e for e in self.enemies if e["hp"] > 0]
        self.enrage_now = sum(e["powers"].get("enrage", 0) for e in self.living_now)
        for card in self.hand():
            cost = card["cost"]
            if cost is None or card["type"] in ("status", "curse"):
                continue
            if cost == "X":
                if self.energy <= 0:
                    continue
                cost_n = self.energy
            else:
                cost_n = int(cost)
                if cost_n > self.energy:
                    continue
            for target in self.targets_for(card):
                value = self.value(card, target, cost_n)
                per_energy = value / max(cost_n, 0.6)
                if value > 0.5 and (best is None or per_energy > best[2]):
                    best = (card, target, per_energy)
        return best

    def targets_for(self, card: dict[str, Any]) -> Sequence[dict[str, Any] | None]:
        """The living enemies for a targeted card (a shared list: read only), else `None`."""
        if _rules(card["name"])[1].target == "enemy":
            return self.living_now
        return NO_TARGET

    def value(self, card: dict[str, Any], target: dict[str, Any] | None, cost: int) -> float:
        """How much playing `card` on `target` is worth now (before dividing by its cost)."""
        key, d, n = _rules(card["name"])
        if d.type == "power":
            return 30.0
        if key == "Slimed":
            return 0.6
        living = self.living_now
        special = self.special_value(key, n, target, cost) if key in SPECIAL_VALUE_CARDS else None
        value = special if special is not None else self.effect_value(key, n, target, living)
        value += (
            self.utility(key, n, target, living)
            if key in SPECIAL_UTILITY_CARDS
            else UTILITY.get(key, 0.0)
        )
        if d.type == "skill":
            value -= 4.0 * self.enrage_now
        return value

    def effect_value(
        self, key: str, n: dict[str, int], target: dict[str, Any] | None, living: list[Any]
    ) -> float:
        """Block up to the incoming damage, damage (kills count extra), poison, weak, vulnerable."""
        need = self.need_now
        value = 0.0
        if "blk" in n:
            gain = self.block_gain(n["blk"])
            spare = 0.0 if key == "Sweep Kick" else max(0, gain - need) * 0.05
            value += min(gain, need) * 2.0 + spare
        if "dmg" in n:
            victims = [target] if CARDS[key].target == "enemy" and target is not None else living
            for e in victims:
                value += self.damage_value(e, self.card_damage(key, n, e))
        targets = [target] if target is not None else living
        if "psn" in n:
            turns = 3.0 if self.room in ("elite", "boss", "final") else 2.0
            value += sum(n["psn"] * turns * 0.8 for t in targets if t["hp"] > n["psn"])
        if "weak" in n:
            weight = 1.2 if need > 0 else 0.2
            value += sum(0.25 * e["intent"]["total"] * weight for e in targets)
        if "vuln" in n and target is not None:
            value += 4.0 * n["vuln"]
        return value

    def special_value(
        self, key: str, n: dict[str, int], target: dict[str, Any] | None, cost: int
    ) -> float | None:
        """Cards whose worth is not the sum of their numbers; None for the others."""
        if target is None:
            return None
        if key == "Finisher":
            return self.damage_value(target, self.attack_damage(n["dmg"], target) * self.attacks)
        if key == "Flechettes":
            skills = sum(1 for c in self.hand() if c["type"] == "skill")
            return self.damage_value(target, self.attack_damage(n["dmg"], target) * skills)
        if key == "Dread":
            return 10.0 if target["hp"] > 40 else 1.0
        if key == "Malaise":
            return (cost + n["plus"]) * (3 + 0.3 * target["intent"]["total"])
        if key == "Accelerant":
            return target["powers"].get("poison", 0) * (n["mult"] - 1) * 1.2
        return None

    def utility(
        self, key: str, n: dict[str, int], target: dict[str, Any] | None, living: list[Any]
    ) -> float:
        """What a card adds beyond this turn's numbers: cards, energy, Shivs, setups."""
        if key in ("Knife Flurry", "Cloak and Knife", "Hidden Blade"):
            return n.get("n", 1) * 4.0
        if key in ("Flying Kick", "Outflank"):
            return 4.0 * n.get("e", 1)
        if key == "Shriek":
            prevented = sum(
                min(e["intent"]["total"], n["str"] * max(1, e["intent"]["hits"])) for e in living
            )
            return prevented * (1.2 if self.need_now else 0.1)
        if key == "Heel Hook":
            return 8.0 if target is not None and target["powers"].get("weak") else 0.0
        return UTILITY.get(key, 0.0)

    def attacks_played(self) -> int:
        return self.attacks

    def damage_value(self, enemy: dict[str, Any], dmg: int) -> float:
        effective = enemy["hp"] + enemy["block"]
        through = min(dmg, effective)
        value = through * 1.0
        if dmg >= effective:
            value += 8.0 + enemy["intent"]["total"] * 1.5
        return value

    def commit(self, card: dict[str, Any], target: dict[str, Any] | None, _: float) -> None:
        key, d, n = _rules(card["name"])
        action_id = f"play:{card['name']}#{card['uid']}" + (
            f"@{target['index']}" if target is not None else ""
        )
        if action_id not in self.legal_ids:
            self.stop = True
            return
        cost = self.energy if card["cost"] == "X" else int(card["cost"])
        self.add_play(action_id, card)
        self.energy -= cost
        if "blk" in n:
            self.block += self.block_gain(n["blk"])
        if "dmg" in n:
            victims = [target] if target is not None else [e for e in self.enemies if e["hp"] > 0]
            for e in victims:
                if e is None:
                    continue
                dmg = self.card_damage(key, n, e)
                if key == "Finisher":
                    dmg = self.attack_damage(n["dmg"], e) * (self.attacks_played() - 1)
                absorbed = min(e["block"], dmg)
                e["block"] -= absorbed
                e["hp"] -= dmg - absorbed
        if "weak" in n:
            for e in [target] if target is not None else self.enemies:
                if e is not None and not e["powers"].get("weak"):
                    e["powers"] = {**e["powers"], "weak": n["weak"]}
                    e["intent"] = {**e["intent"], "total": int(e["intent"]["total"] * 0.75)}
        if "vuln" in n and target is not None:
            target["powers"] = {**target["powers"], "vulnerable": n["vuln"]}
        if key == "Shriek":
            for e in self.enemies:
                hits = max(1, e["intent"]["hits"])
                e["intent"] = {
                    **e["intent"],
                    "total": max(0, e["intent"]["total"] - n["str"] * hits),
                }
        if key in SELF_DRAWS or key in UNSAFE_AFTER or d.type == "power" or "Discard" in d.text:
            self.stop = True
