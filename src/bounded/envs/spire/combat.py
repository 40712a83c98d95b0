"""One card combat: piles, energy, the player's plays, enemy intents and turns.

Rules in brief: damage = (base + Strength) x 0.75 if the attacker is Weak x 1.5 if the
defender is Vulnerable, rounded down; block = (base + Dexterity) x 0.75 if Frail.
Block absorbs damage and is removed at the start of its owner's turn. Poison deals its
amount at the start of the poisoned enemy's turn, then drops by one. Weak, Vulnerable
and Frail drop by one at the end of each round. Artifact negates the next debuff.
"""

from __future__ import annotations

import contextlib
import random
from typing import Any, Protocol

from bounded.envs.spire.core import (
    UNPLAYABLE,
    X_COST,
    Card,
    Enemy,
    Move,
    RunView,
    add_to_powers,
)
from bounded.envs.spire.enemies import ENEMIES
from bounded.envs.spire.potions import POTIONS

DEBUFFS = frozenset({"weak", "vulnerable", "frail", "poison", "constricted"})
DECAYING = ("weak", "vulnerable", "frail")
HAND_LIMIT = 10
MAX_ENEMIES = 6


class CombatRun(RunView, Protocol):
    """What a combat reads and changes on its run (`game.Run`), beyond what an effect may."""

    hp: int
    gold: int

    @property
    def ascension(self) -> int: ...

    @property
    def max_energy(self) -> int: ...

    @property
    def potions(self) -> list[str | None]: ...

    def scale_hp(self, hp: int, tier: str) -> int: ...

    def scale_damage(self, dmg: int, tier: str) -> int: ...

    def new_card(self, key: str, upgraded: bool = ...) -> Card: ...

    def relic_hook(self, hook: str, *args: Any) -> None: ...


class Player:
    """The player inside one combat; HP lives on the run and is written through."""

    __slots__ = ("block", "energy", "powers", "run")
    block: int
    energy: int
    powers: dict[str, int]
    run: CombatRun

    def __init__(self, run: CombatRun) -> None:
        self.run = run
        self.block = 0
        self.energy = 0
        self.powers: dict[str, int] = {}

    @property
    def hp(self) -> int:
        return self.run.hp

    @property
    def max_hp(self) -> int:
        return self.run.max_hp

    def add_power(self, name: str, amount: int) -> None:
        add_to_powers(self.powers, name, amount)


class CombatOver(Exception):
    """Raised inside a play when the combat ends, to stop the rest of the play."""


class Combat:
    """A fight between the run's player and one encounter."""

    run: CombatRun
    player: Player

    def __init__(self, run: CombatRun, encounter: tuple[str, ...], tier: str) -> None:
        self.run = run
        self.tier = tier
        self.rng: random.Random = run.rngs["combat"]
        self.ai_rng: random.Random = run.rngs["ai"]
        self.shuffle_rng: random.Random = run.rngs["shuffle"]
        self.player = Player(run)
        self.enemies: list[Enemy] = []
        self.encounter = encounter
        self.turn = 0
        self.hand: list[Card] = []
        self.draw_pile: list[Card] = []
        self.discard_pile: list[Card] = []
        self.exhaust_pile: list[Card] = []
        self.pending_discard = 0
        self.x_energy = 0
        self.cards_played_this_turn = 0
        self.attacks_this_turn = 0
        self.skills_this_turn = 0
        self.discarded_this_turn = 0
        self.card_uses: dict[int, int] = {}
        self.force_end_turn = False
        self.over = False
        self.won = False
        self.gold_stolen = 0
        for name in encounter:
            self.spawn(name, tier)

    # ------------------------------------------------------------------ setup

    def spawn(self, name: str, tier: str, hp: int | None = None) -> Enemy | None:
        if sum(1 for e in self.enemies if e.alive) >= MAX_ENEMIES:
            return None
        d = ENEMIES[name]
        effective = tier if d.tier in ("normal", "minion") else d.tier
        if hp is None:
            lo, hi = d.hp
            hp = self.run.scale_hp(self.rng.randint(lo, hi), effective)
        e = Enemy(d, len(self.enemies), hp, effective)
        if d.tier == "minion":
            e.powers["minion"] = 1
        if effective == "elite" and self.run.ascension >= 8:
            e.add_power("strength", 1)
        if self.run.has_relic("Sage Stone"):
            e.add_power("strength", 1)
        self.enemies.append(e)
        return e

    def start(self) -> None:
        deck = [c for c in self.run.deck]
        for c in deck:
            c.cost_this_combat = None
            c.cost_this_turn = None
        self.draw_pile = deck[:]
        self.shuffle_rng.shuffle(self.draw_pile)
        innate = [c for c in self.draw_pile if c.upgraded and c.d.innate_up]
        for c in innate:
            self.draw_pile.remove(c)
            self.draw_pile.append(c)  # the top of the draw pile is the end of the list
        for e in self.enemies:
            self.choose_move(e)
        try:
            self.run.relic_hook("combat_start", self)
        except CombatOver:
            return
        self.start_player_turn(first=True)

    # ------------------------------------------------------------------ queries

    def living(self) -> list[Enemy]:
        return [e for e in self.enemies if e.alive]

    def targets(self) -> list[Enemy]:
        return [e for e in self.enemies if e.targetable]

    def random_enemy(self) -> Enemy | None:
        targets = self.targets()
        return self.rng.choice(targets) if targets else None

    def card_cost(self, card: Card) -> int:
        cost = card.cost()
        if card.key == "Eviscerate" and cost > 0:
            cost = max(0, cost - self.discarded_this_turn)
        return cost

    def playable(self, card: Card) -> bool:
        cost = self.card_cost(card)
        if cost == UNPLAYABLE:
            return False
        return cost == X_COST or cost <= self.player.energy

    def base_damage(self, e: Enemy, move: Move) -> int:
        dmg = move.dmg
        if move.name == "It Is Time":
            dmg += e.powers.get("time_ramp", 0) * e.history.count("It Is Time")
        return self.run.scale_damage(dmg, e.tier)

    def move_hits(self, e: Enemy, move: Move) -> int:
        if move.name == "Multi-Stab" and e.powers.get("stab_growth"):
            return move.hits + e.history.count("Multi-Stab")
        return move.hits

    def enemy_damage(self, e: Enemy, base: int) -> int:
        dmg = float(base + e.powers.get("strength", 0))
        if e.powers.get("weak"):
            dmg *= 0.75
        if self.player.powers.get("vulnerable"):
            dmg *= 1.5
        return max(0, int(dmg))

    def intent(self, e: Enemy) -> dict[str, Any]:
        move = e.move
        if move.dmg > 0:
            per_hit = self.enemy_damage(e, self.base_damage(e, move))
            hits = self.move_hits(e, move)
            return {
                "type": move.intent,
                "move": move.name,
                "damage": per_hit,
                "hits": hits,
                "total": per_hit * hits,
            }
        return {"type": move.intent, "move": move.name, "damage": 0, "hits": 0, "total": 0}

    def incoming_damage(self) -> int:
        return sum(
            self.intent(e)["total"] for e in self.living() if not e.powers.get("reborn_pending")
        )

    # ------------------------------------------------------------------ player verbs

    def attack_damage(self, base: int, target: Enemy | None) -> int:
        dmg = float(base + self.player.powers.get("strength", 0))
        if self.player.powers.get("weak"):
            dmg *= 0.75
        if target is not None and target.powers.get("vulnerable"):
            dmg *= 1.5
        if self.player.powers.get("phantom"):
            dmg *= 2
        if self.player.powers.get("quill_tip"):
            dmg *= 2
        return max(0, int(dmg))

    def attack(self, target: Enemy | None, base: int, hits: int = 1) -> None:
        for _ in range(hits):
            if target is None or not target.targetable:
                return
            self.damage_enemy(target, self.attack_damage(base, target), attack=True)

    def attack_all(self, base: int, hits: int = 1) -> None:
        for _ in range(hits):
            for e in self.targets():
                self.damage_enemy(e, self.attack_damage(base, e), attack=True)

    def gain_block(self, base: int) -> None:
        amount = float(base + self.player.powers.get("dexterity", 0))
        if self.player.powers.get("frail"):
            amount *= 0.75
        self.player.block += max(0, int(amount))

    def gain_energy(self, amount: int) -> None:
        self.player.energy += amount

    def apply(self, target: Enemy | None, power: str, amount: int) -> bool:
        """Apply a power to an enemy; False when Artifact negated a debuff."""
        if target is None or not target.targetable or amount == 0:
            return False
        debuff = power in DEBUFFS or (power in ("strength", "dexterity") and amount < 0)
        if debuff and target.powers.get("artifact", 0) > 0:
            target.add_power("artifact", -1)
            return False
        target.add_power(power, amount)
        return True

    def debuff_player(self, power: str, amount: int) -> None:
        if self.player.powers.get("artifact", 0) > 0:
            self.player.add_power("artifact", -1)
            return
        self.player.add_power(power, amount)

    def draw(self, n: int) -> list[Card]:
        drawn: list[Card] = []
        if self.player.powers.get("no_draw"):
            return drawn
        for _ in range(n):
            if len(self.hand) >= HAND_LIMIT:
                break
            if not self.draw_pile:
                if not self.discard_pile:
                    break
                self.draw_pile = self.discard_pile
                self.discard_pile = []
                self.shuffle_rng.shuffle(self.draw_pile)
            card = self.draw_pile.pop()
            self.hand.append(card)
            drawn.append(card)
        return drawn

    def discard(self, card: Card) -> None:
        self.hand.remove(card)
        self.discard_pile.append(card)
        self.discarded_this_turn += 1
        self.run.relic_hook("discard", self)

    def exhaust(self, card: Card) -> None:
        self.exhaust_pile.append(card)

    def choose_discard(self, n: int) -> None:
        if len(self.hand) <= n:
            for card in list(self.hand):
                self.discard(card)
        else:
            self.pending_discard += n

    def resolve_discard(self, card: Card) -> None:
        """Discard a card the player chose for a pending discard."""
        try:
            self.discard(card)
        except CombatOver:
            return
        self.pending_discard -= 1
        if not self.hand:
            self.pending_discard = 0

    def add_to_hand(self, key: str, n: int, *, upgraded: bool = False) -> None:
        for _ in range(n):
            card = self.run.new_card(key, upgraded)
            if len(self.hand) < HAND_LIMIT:
                self.hand.append(card)
            else:
                self.discard_pile.append(card)

    def add_status(self, key: str, n: int, pile: str) -> None:
        for _ in range(n):
            card = self.run.new_card(key)
            if pile == "draw":
                self.draw_pile.insert(self.shuffle_rng.randint(0, len(self.draw_pile)), card)
            elif pile == "hand" and len(self.hand) < HAND_LIMIT:
                self.hand.append(card)
            else:
                self.discard_pile.append(card)

    # ------------------------------------------------------------------ damage

    def damage_player(self, amount: int, attacker: Enemy | None = None) -> None:
        blocked = min(self.player.block, amount)
        self.player.block -= blocked
        loss = amount - blocked
        if attacker is not None and 0 < loss <= 5 and self.run.has_relic("Shrine Gate"):
            loss = 1
        self.lose_hp(loss)
        if attacker is not None and attacker.alive and self.player.powers.get("thorns"):
            self.damage_enemy(attacker, self.player.powers["thorns"], attack=False)

    def lose_hp(self, loss: int) -> None:
        if loss > 0 and self.run.has_relic("Dense Rod"):
            loss -= 1
        if loss <= 0:
            return
        self.run.hp = max(0, self.run.hp - loss)
        self.run.relic_hook("hp_loss", self)
        if self.run.hp <= 0:
            self.end(won=False)

    def damage_enemy(self, e: Enemy, amount: int, *, attack: bool) -> None:
        if not e.targetable:
            return
        if e.powers.get("intangible"):
            amount = min(amount, 1)
        if e.powers.get("invincible"):
            amount = min(amount, e.invincible_left)
        blocked = min(e.block, amount)
        e.block -= blocked
        loss = amount - blocked
        e.hp -= loss
        if e.powers.get("invincible"):
            e.invincible_left -= loss
        if attack:
            self.on_attacked(e, loss)
        if e.hp <= 0:
            e.hp = 0
            self.kill(e)
        self.check_over()

    def on_attacked(self, e: Enemy, loss: int) -> None:
        p = e.powers
        if p.get("curl_up") and loss > 0:
            e.block += p.pop("curl_up")
        if p.get("angry"):
            e.add_power("strength", p["angry"])
        if loss > 0:
            if self.player.powers.get("envenom"):
                self.apply(e, "poison", self.player.powers["envenom"])
            if p.get("malleable"):
                e.block += p["malleable"]
                p["malleable"] += 1
            if p.get("plated_armor"):
                e.add_power("plated_armor", -1)
            if p.get("asleep"):
                p.pop("asleep")
                p.pop("metallicize", None)
            if p.get("mode_shift") and not p.get("defensive"):
                p["mode_shift"] -= loss
                if p["mode_shift"] <= 0:
                    p["mode_shift"] = 1
                    p["defensive"] = 1
                    e.mode_turns = 0
                    self.choose_move(e)
            if p.get("reactive") and e.hp > 0:
                self.choose_move(e)
        if p.get("thorns") and e.hp > 0:
            self.damage_player(p["thorns"])

    def kill(self, e: Enemy) -> None:
        if e.powers.get("revive"):
            e.powers = {"reborn_pending": 1, "curiosity": e.powers.get("curiosity", 0)}
            e.block = 0
            e.move = e.d.moves["Rebirth"]
            return
        e.alive = False
        e.block = 0
        if e.powers.get("spore_cloud"):
            self.debuff_player("vulnerable", e.powers["spore_cloud"])
        if e.powers.get("plague_burst"):
            for other in self.targets():
                self.damage_enemy(other, e.max_hp, attack=False)
        if not any(x.alive and not x.powers.get("minion") for x in self.enemies):
            for x in self.enemies:
                x.alive = False

    def check_over(self) -> None:
        if not self.over and not any(e.alive for e in self.enemies):
            self.end(won=True)

    def end(self, *, won: bool) -> None:
        if self.over:
            return
        self.over = True
        self.won = won
        self.pending_discard = 0
        raise CombatOver

    # ------------------------------------------------------------------ playing cards

    def play(self, card: Card, target: Enemy | None) -> None:
        """Play a card from the hand (legality is the caller's job)."""
        with contextlib.suppress(CombatOver):
            self._play(card, target)

    def _play(self, card: Card, target: Enemy | None) -> None:
        cost = self.card_cost(card)
        if cost == X_COST:
            self.x_energy = self.player.energy
            if self.run.has_relic("Chemical Flask"):
                self.x_energy += 2
            self.player.energy = 0
        else:
            self.player.energy -= cost
        self.hand.remove(card)
        d = card.d
        self.cards_played_this_turn += 1
        if d.type == "attack":
            self.attacks_this_turn += 1
        elif d.type == "skill":
            self.skills_this_turn += 1
        self.run.relic_hook("before_play", self, card)
        on_play = (
            self.player.powers.get("afterimage", 0),
            self.player.powers.get("thousand_cuts", 0),
        )
        pains = sum(1 for c in self.hand if c.key == "Pain")
        if pains:
            self.lose_hp(pains)
        if d.effect is not None:
            numbers = d.numbers(card.upgraded)
            repeats = 1
            if d.type == "skill" and self.player.powers.get("double_up"):
                self.player.add_power("double_up", -1)
                repeats = 2
            for _ in range(repeats):
                d.effect(self, card, target, numbers)
        self.player.powers.pop("quill_tip", None)
        self.card_uses[card.uid] = self.card_uses.get(card.uid, 0) + 1
        if d.type == "power" or d.exhausts(card.upgraded):
            self.exhaust(card)
        else:
            self.discard_pile.append(card)
        self.after_play(card, *on_play)

    def after_play(self, card: Card, afterimage: int, thousand_cuts: int) -> None:
        """Triggers of a played card; powers count only if they were up before the play."""
        if afterimage:
            self.player.block += afterimage
        if thousand_cuts:
            for e in self.targets():
                self.damage_enemy(e, thousand_cuts, attack=False)
        self.run.relic_hook("card_played", self, card)
        for e in self.living():
            if card.d.type == "skill" and e.powers.get("enrage"):
                e.add_power("strength", e.powers["enrage"])
            if card.d.type == "power" and e.powers.get("curiosity"):
                e.add_power("strength", e.powers["curiosity"])
            if e.powers.get("beat_of_death"):
                self.damage_player(e.powers["beat_of_death"])
            if e.powers.get("time_warp"):
                e.add_power("time_count", 1)
                if e.powers.get("time_count", 0) >= e.powers["time_warp"]:
                    e.powers.pop("time_count", None)
                    e.add_power("strength", 2)
                    self.force_end_turn = True

    def use_potion(self, slot: int, target: Enemy | None) -> None:
        name = self.run.potions[slot]
        assert name is not None
        self.run.potions[slot] = None
        with contextlib.suppress(CombatOver):
            POTIONS[name].effect(self, target)

    # ------------------------------------------------------------------ turns

    def start_player_turn(self, *, first: bool = False) -> None:
        with contextlib.suppress(CombatOver):
            self._start_player_turn(first)

    def _start_player_turn(self, first: bool) -> None:
        self.turn += 1
        p = self.player
        if p.powers.get("blur"):
            p.add_power("blur", -1)
        elif self.run.has_relic("Measuring Tool"):
            p.block = max(0, p.block - 15)
        else:
            p.block = 0
        leftover = p.energy if self.run.has_relic("Frozen Cream") and not first else 0
        p.energy = self.run.max_energy + leftover + p.powers.pop("next_energy", 0)
        self.cards_played_this_turn = self.attacks_this_turn = 0
        self.skills_this_turn = self.discarded_this_turn = 0
        self.force_end_turn = False
        for e in self.enemies:
            e.invincible_left = e.powers.get("invincible", 0)
        if p.powers.pop("phantom_next", 0):
            p.powers["phantom"] = 1
        if p.powers.get("next_block"):
            p.block += p.powers.pop("next_block")
        draw = 5 + p.powers.pop("next_draw", 0)
        if first and self.run.has_relic("Serpent Band"):
            draw += 2
        if self.run.has_relic("Coiled Band"):
            draw += 1 if not first else 3
        self.run.relic_hook("turn_start", self)
        if p.powers.get("toxic_fog"):
            for e in self.targets():
                self.apply(e, "poison", p.powers["toxic_fog"])
        if p.powers.get("endless_knives"):
            self.add_to_hand("Shiv", p.powers["endless_knives"])
        if p.powers.get("sharpened_mind"):
            p.energy += p.powers["sharpened_mind"]
            draw += p.powers["sharpened_mind"]
        self.draw(draw)

    def end_player_turn(self) -> None:
        """End the turn: hand effects, discard, the enemies' turn, then the next turn."""
        with contextlib.suppress(CombatOver):
            self._end_turn()

    def _end_turn(self) -> None:
        p = self.player
        self.pending_discard = 0
        # debuffs the player gets from now until the round ends last through the next turn
        decaying = [name for name in DECAYING if p.powers.get(name)]
        for card in list(self.hand):
            if card.key == "Burn":
                self.damage_player(2)
            elif card.key == "Doubt":
                self.debuff_player("weak", 1)
        if p.powers.get("constricted"):
            self.damage_player(p.powers["constricted"])
        self.run.relic_hook("turn_end", self)
        keep_all = self.run.has_relic("Still Pyramid")
        kept: list[Card] = []
        for card in self.hand:
            card.cost_this_turn = None
            if card.d.ethereal:
                self.exhaust_pile.append(card)
            elif card.d.retain or (keep_all and card.d.type not in ("status", "curse")):
                kept.append(card)
            else:
                self.discard_pile.append(card)
        self.hand = kept
        for name in ("no_draw", "double_up", "phantom"):
            p.powers.pop(name, None)
        self.enemy_turn()
        for name in decaying:
            if p.powers.get(name):
                p.add_power(name, -1)
        for e in self.living():
            self.choose_move(e)
        self._start_player_turn(first=False)

    def enemy_turn(self) -> None:
        for e in self.living():
            if not e.powers.get("barricade"):
                e.block = 0
        for e in list(self.enemies):
            if not e.alive:
                continue
            poison = e.powers.get("poison", 0)
            if poison and not e.powers.get("reborn_pending"):
                e.add_power("poison", -1)
                self.damage_enemy(e, poison, attack=False)
                if not e.alive or e.powers.get("reborn_pending"):
                    continue
            self.execute(e)
            if e.alive:
                self.enemy_end_of_turn(e)

    def enemy_end_of_turn(self, e: Enemy) -> None:
        p = e.powers
        if p.get("metallicize"):
            e.block += p["metallicize"]
        if p.get("plated_armor"):
            e.block += p["plated_armor"]
        if p.get("ritual") and e.move.name != "Incantation":
            e.add_power("strength", p["ritual"])
        if p.get("regain_strength"):
            e.add_power("strength", p.pop("regain_strength"))
        if p.get("intangible_cycle"):
            if p.get("intangible"):
                p.pop("intangible")
            else:
                p["intangible"] = 1
        if "malleable" in p:
            p["malleable"] = e.d.powers.get("malleable", p["malleable"])
        for name in DECAYING:
            if p.get(name):
                e.add_power(name, -1)

    def execute(self, e: Enemy) -> None:
        move = e.move
        e.history.append(move.name)
        if move.name == "Sleep":
            if e.powers.get("asleep"):
                e.add_power("asleep", -1)
                if not e.powers.get("asleep"):
                    e.powers.pop("metallicize", None)
            return
        e.awake_turns += 1
        if move.dmg > 0:
            per_hit = self.enemy_damage(e, self.base_damage(e, move))
            for _ in range(self.move_hits(e, move)):
                self.damage_player(per_hit, attacker=e)
                if not e.alive:
                    break
        if move.block:
            e.block += move.block
        for effect in move.effects:
            self.enemy_effect(e, effect)
        if e.powers.get("defensive"):
            e.mode_turns += 1
            if e.mode_turns >= 3:
                e.powers.pop("defensive")
                e.powers.pop("thorns", None)
                e.powers["mode_shift"] = 30 + 10 * e.history.count("Defensive Mode")
                e.mode_turns = 0
        elif e.powers.get("mode_shift"):
            e.mode_turns += 1
        if e.powers.get("phase_two"):
            e.phase_turns += 1

    def enemy_effect(self, e: Enemy, effect: tuple[Any, ...]) -> None:
        op = effect[0]
        if op == "buff":
            e.add_power(effect[1], effect[2])
        elif op == "buff_all":
            for ally in self.living():
                ally.add_power(effect[1], effect[2])
        elif op == "debuff":
            if effect[1] in ("strength", "dexterity"):
                self.player.add_power(effect[1], effect[2])
            else:
                self.debuff_player(effect[1], effect[2])
        elif op == "status":
            self.add_status(effect[1], effect[2], effect[3])
        elif op == "heal_all":
            for ally in self.living():
                ally.hp = min(ally.max_hp, ally.hp + effect[1])
        elif op == "heal_self":
            e.hp = min(e.max_hp, e.hp + effect[1])
        elif op == "heal_half":
            e.hp = max(e.hp, e.max_hp // 2)
            for name in DEBUFFS:
                e.powers.pop(name, None)
        elif op == "block_all":
            for ally in self.living():
                ally.block += effect[1]
        elif op == "summon":
            for _ in range(effect[2]):
                minion = self.spawn(effect[1], e.tier)
                if minion is not None:
                    minion.powers["minion"] = 1
                    self.choose_move(minion)
        elif op == "split":
            self.split(e, effect[1:])
        elif op == "escape":
            e.alive = False
            e.escaped = True
            self.check_over()
        elif op == "steal":
            stolen = min(self.run.gold, effect[1])
            self.run.gold -= stolen
            self.gold_stolen += stolen
        elif op == "die":
            e.hp = 0
            e.alive = False
            self.check_over()
        elif op == "revive":
            e.powers.pop("reborn_pending", None)
            e.powers["phase_two"] = 1
            e.hp = e.max_hp
            e.phase_turns = 0

    def split(self, e: Enemy, kinds: tuple[str, ...]) -> None:
        hp = e.hp
        e.alive = False
        e.hp = 0
        names = kinds if len(kinds) > 1 else (kinds[0], kinds[0])
        for name in names:
            child = self.spawn(name, e.tier, hp=hp)
            if child is not None:
                self.choose_move(child)
        self.check_over()

    def choose_move(self, e: Enemy) -> None:
        e.allies_alive = sum(1 for x in self.enemies if x.alive and x is not e)
        e.move = e.d.moves[e.d.ai(e, self.ai_rng)]

    # ------------------------------------------------------------------ invariants

    def all_cards(self) -> list[Card]:
        return [*self.hand, *self.draw_pile, *self.discard_pile, *self.exhaust_pile]
