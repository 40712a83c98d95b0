"""Card definitions: one character's pool (starter, common, uncommon, rare), the zero-cost
Shiv it generates, statuses and curses.

A card's numbers live in `values` as `(base, upgraded)` pairs; its text is a template
over those numbers, so the text a model reads is always the number the engine uses.
Effects are small functions over the combat's verbs (`attack`, `block`, `draw`, ...), as
`core.CombatView` declares them; the card records themselves (`CardDef`, `Card`) are in
`core`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bounded.envs.spire.core import UNPLAYABLE, X_COST, Card, CardDef, CombatView, Effect, Enemy

CARDS: dict[str, CardDef] = {}


def card(
    key: str, type_: str, rarity: str, cost: int, target: str, text: str, **kw: Any
) -> Callable[[Effect | None], Effect | None]:
    """Register a card; used as a decorator over its effect (or called with effect=None)."""

    def register(effect: Effect | None) -> Effect | None:
        CARDS[key] = CardDef(key, type_, rarity, cost, target, text, effect, **kw)
        return effect

    return register


# --------------------------------------------------------------------------- starter


@card("Strike", "attack", "starter", 1, "enemy", "Deal {dmg} damage.", values={"dmg": (6, 9)})
def _strike(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])


@card("Defend", "skill", "starter", 1, "none", "Gain {blk} Block.", values={"blk": (5, 8)})
def _defend(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.gain_block(v["blk"])


@card(
    "Hamstring",
    "attack",
    "starter",
    0,
    "enemy",
    "Deal {dmg} damage. Apply {weak} Weak.",
    values={"dmg": (3, 4), "weak": (1, 2)},
)
def _hamstring(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])
    cb.apply(t, "weak", v["weak"])


@card(
    "Duck and Roll",
    "skill",
    "starter",
    1,
    "none",
    "Gain {blk} Block. Discard 1 card.",
    values={"blk": (8, 11)},
)
def _duck(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.gain_block(v["blk"])
    cb.choose_discard(1)


# --------------------------------------------------------------------------- common


@card(
    "Poisoned Stab",
    "attack",
    "common",
    1,
    "enemy",
    "Deal {dmg} damage. Apply {psn} Poison.",
    values={"dmg": (6, 8), "psn": (3, 4)},
)
def _poisoned_stab(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])
    cb.apply(t, "poison", v["psn"])


@card("Deadly Venom", "skill", "common", 1, "enemy", "Apply {psn} Poison.", values={"psn": (5, 7)})
def _deadly_venom(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.apply(t, "poison", v["psn"])


@card(
    "Quick Slash",
    "attack",
    "common",
    1,
    "enemy",
    "Deal {dmg} damage. Draw 1 card.",
    values={"dmg": (8, 12)},
)
def _quick_slash(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])
    cb.draw(1)


@card(
    "Low Blow",
    "attack",
    "common",
    1,
    "enemy",
    "Deal {dmg} damage. Apply {weak} Weak.",
    values={"dmg": (7, 9), "weak": (1, 2)},
)
def _low_blow(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])
    cb.apply(t, "weak", v["weak"])


@card(
    "Knife Flurry",
    "skill",
    "common",
    1,
    "none",
    "Add {n} Shivs to your hand.",
    values={"n": (3, 4)},
)
def _knife_flurry(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.add_to_hand("Shiv", v["n"])


@card(
    "Cloak and Knife",
    "skill",
    "common",
    1,
    "none",
    "Gain {blk} Block. Add {n} Shiv to your hand.",
    values={"blk": (6, 6), "n": (1, 2)},
)
def _cloak(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.gain_block(v["blk"])
    cb.add_to_hand("Shiv", v["n"])


@card(
    "Knife Spray",
    "attack",
    "common",
    1,
    "none",
    "Deal {dmg} damage to ALL enemies twice.",
    values={"dmg": (4, 6)},
)
def _knife_spray(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack_all(v["dmg"], hits=2)


@card(
    "Knife Toss",
    "attack",
    "common",
    1,
    "enemy",
    "Deal {dmg} damage. Draw 1 card. Discard 1 card.",
    values={"dmg": (9, 12)},
)
def _knife_toss(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])
    cb.draw(1)
    cb.choose_discard(1)


@card(
    "Tumble",
    "skill",
    "common",
    1,
    "none",
    "Draw {n} cards. Discard 1 card.",
    values={"n": (3, 4)},
)
def _tumble(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.draw(v["n"])
    cb.choose_discard(1)


@card(
    "Backspring",
    "skill",
    "common",
    1,
    "none",
    "Gain {blk} Block. Draw 2 cards.",
    values={"blk": (5, 8)},
)
def _backspring(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.gain_block(v["blk"])
    cb.draw(2)


@card("Parry", "skill", "common", 0, "none", "Gain {blk} Block.", values={"blk": (4, 7)})
def _parry(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.gain_block(v["blk"])


@card(
    "Sidestep",
    "skill",
    "common",
    1,
    "none",
    "Gain {blk} Block. Next turn, gain {blk} Block.",
    values={"blk": (4, 6)},
)
def _sidestep(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.gain_block(v["blk"])
    cb.player.add_power("next_block", v["blk"])


@card(
    "Ready Up",
    "skill",
    "common",
    0,
    "none",
    "Draw {n} cards. Discard {n} cards.",
    values={"n": (1, 2)},
)
def _ready_up(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.draw(v["n"])
    cb.choose_discard(v["n"])


@card("Nick", "attack", "common", 0, "enemy", "Deal {dmg} damage.", values={"dmg": (6, 9)})
def _nick(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])


@card(
    "Fester",
    "attack",
    "common",
    1,
    "enemy",
    "Deal {dmg} damage. If the enemy is Poisoned, deal {dmg} damage again.",
    values={"dmg": (7, 10)},
)
def _fester(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    poisoned = t is not None and t.powers.get("poison", 0) > 0
    cb.attack(t, v["dmg"], hits=2 if poisoned else 1)


@card(
    "Flying Kick",
    "attack",
    "common",
    1,
    "enemy",
    "Deal {dmg} damage. Next turn, gain 1 Energy.",
    values={"dmg": (8, 11)},
)
def _flying_kick(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])
    cb.player.add_power("next_energy", 1)


@card(
    "Shriek",
    "skill",
    "common",
    1,
    "none",
    "ALL enemies lose {str} Strength this turn.",
    values={"str": (6, 8)},
    exhaust=True,
)
def _shriek(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    for enemy in cb.living():
        if cb.apply(enemy, "strength", -v["str"]):
            enemy.add_power("regain_strength", v["str"])


@card(
    "Outflank",
    "skill",
    "common",
    1,
    "none",
    "Next turn, gain {e} Energy.",
    values={"e": (2, 3)},
)
def _outflank(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.player.add_power("next_energy", v["e"])


@card(
    "Opportunist",
    "attack",
    "common",
    2,
    "enemy",
    "Deal {dmg} damage. If you discarded a card this turn, gain 2 Energy.",
    values={"dmg": (12, 16)},
)
def _opportunist(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])
    if cb.discarded_this_turn:
        cb.gain_energy(2)


@card(
    "Escape Route",
    "skill",
    "common",
    0,
    "none",
    "Draw 1 card. If you draw a Skill, gain {blk} Block.",
    values={"blk": (3, 5)},
)
def _escape_route(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    drawn = cb.draw(1)
    if drawn and drawn[0].d.type == "skill":
        cb.gain_block(v["blk"])


@card(
    "Slash and Dash",
    "attack",
    "common",
    1,
    "enemy",
    "Deal {dmg} damage. Gain {blk} Block.",
    values={"dmg": (5, 7), "blk": (5, 7)},
)
def _slash_and_dash(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])
    cb.gain_block(v["blk"])


@card(
    "Feint",
    "skill",
    "common",
    1,
    "none",
    "Gain {blk} Block. Apply {weak} Weak to ALL enemies.",
    values={"blk": (4, 6), "weak": (1, 2)},
)
def _feint(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.gain_block(v["blk"])
    for enemy in cb.living():
        cb.apply(enemy, "weak", v["weak"])


@card(
    "Toxic Dart",
    "skill",
    "common",
    1,
    "enemy",
    "Apply {psn} Poison. Draw 1 card.",
    values={"psn": (3, 4)},
)
def _toxic_dart(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.apply(t, "poison", v["psn"])
    cb.draw(1)


@card(
    "Lunge",
    "attack",
    "common",
    2,
    "enemy",
    "Deal {dmg} damage. Apply {vuln} Vulnerable.",
    values={"dmg": (14, 18), "vuln": (1, 2)},
)
def _lunge(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])
    cb.apply(t, "vulnerable", v["vuln"])


@card(
    "Quickdraw",
    "attack",
    "common",
    0,
    "enemy",
    "Deal {dmg} damage. Draw 1 card.",
    values={"dmg": (3, 5)},
)
def _quickdraw(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])
    cb.draw(1)


@card(
    "Snare",
    "skill",
    "common",
    1,
    "enemy",
    "Gain {blk} Block. Apply {vuln} Vulnerable.",
    values={"blk": (6, 8), "vuln": (1, 2)},
)
def _snare(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.gain_block(v["blk"])
    cb.apply(t, "vulnerable", v["vuln"])


@card(
    "Hidden Blade",
    "attack",
    "common",
    1,
    "enemy",
    "Deal {dmg} damage. Add a Shiv to your hand.",
    values={"dmg": (6, 9)},
)
def _hidden_blade(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])
    cb.add_to_hand("Shiv", 1)


@card(
    "Steady Guard",
    "skill",
    "common",
    2,
    "none",
    "Gain {blk} Block. Retain.",
    values={"blk": (13, 17)},
    retain=True,
)
def _steady_guard(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.gain_block(v["blk"])


@card(
    "Venom Coat",
    "skill",
    "common",
    1,
    "none",
    "Apply {psn} Poison to ALL enemies.",
    values={"psn": (2, 3)},
)
def _venom_coat(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    for enemy in cb.living():
        cb.apply(enemy, "poison", v["psn"])


# --------------------------------------------------------------------------- uncommon


@card(
    "Ricochet Vial",
    "skill",
    "uncommon",
    2,
    "none",
    "Apply 3 Poison to a random enemy {n} times.",
    values={"n": (3, 4)},
)
def _ricochet(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    for _ in range(v["n"]):
        target = cb.random_enemy()
        if target is not None:
            cb.apply(target, "poison", 3)


@card(
    "Accelerant",
    "skill",
    "uncommon",
    1,
    "enemy",
    "Multiply an enemy's Poison by {mult}.",
    values={"mult": (2, 3)},
    exhaust=True,
)
def _accelerant(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    if t is not None and t.powers.get("poison", 0) > 0:
        t.powers["poison"] *= v["mult"]


@card(
    "Toxic Fog",
    "power",
    "uncommon",
    1,
    "none",
    "At the start of your turn, apply {psn} Poison to ALL enemies.",
    values={"psn": (2, 3)},
)
def _toxic_fog(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.player.add_power("toxic_fog", v["psn"])


@card(
    "Light Feet",
    "power",
    "uncommon",
    1,
    "none",
    "Gain {dex} Dexterity.",
    values={"dex": (2, 3)},
)
def _light_feet(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.player.add_power("dexterity", v["dex"])


@card(
    "Keen Edge",
    "power",
    "uncommon",
    1,
    "none",
    "Shivs deal {n} additional damage.",
    values={"n": (4, 6)},
)
def _keen_edge(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.player.add_power("keen_edge", v["n"])


@card(
    "Endless Knives",
    "power",
    "uncommon",
    1,
    "none",
    "At the start of your turn, add a Shiv to your hand.",
    innate_up=True,
)
def _endless_knives(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.player.add_power("endless_knives", 1)


@card(
    "Blur",
    "skill",
    "uncommon",
    1,
    "none",
    "Gain {blk} Block. Block is not removed at the start of your next turn.",
    values={"blk": (5, 8)},
)
def _blur(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.gain_block(v["blk"])
    cb.player.add_power("blur", 1)


@card(
    "Sweep Kick",
    "skill",
    "uncommon",
    2,
    "enemy",
    "Apply {weak} Weak. Gain {blk} Block.",
    values={"weak": (2, 3), "blk": (11, 14)},
)
def _sweep_kick(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.apply(t, "weak", v["weak"])
    cb.gain_block(v["blk"])


@card(
    "Choking Cloud",
    "skill",
    "uncommon",
    2,
    "none",
    "Apply {psn} Poison and 2 Weak to ALL enemies.",
    values={"psn": (4, 7)},
    exhaust=True,
)
def _choking_cloud(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    for enemy in cb.living():
        cb.apply(enemy, "poison", v["psn"])
        cb.apply(enemy, "weak", 2)


@card(
    "Know-How",
    "skill",
    "uncommon",
    1,
    "none",
    "Draw cards until you have {n} in hand.",
    values={"n": (6, 7)},
)
def _know_how(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.draw(max(0, v["n"] - len(cb.hand)))


@card(
    "Hunter",
    "attack",
    "uncommon",
    2,
    "enemy",
    "Deal {dmg} damage. Next turn, draw 2 additional cards.",
    values={"dmg": (15, 20)},
)
def _hunter(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])
    cb.player.add_power("next_draw", 2)


@card(
    "Perforate",
    "attack",
    "uncommon",
    2,
    "enemy",
    "Deal {dmg} damage 5 times.",
    values={"dmg": (3, 4)},
)
def _perforate(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"], hits=5)


@card(
    "Skewer",
    "attack",
    "uncommon",
    X_COST,
    "enemy",
    "Deal {dmg} damage X times.",
    values={"dmg": (7, 10)},
)
def _skewer(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"], hits=cb.x_energy)


@card(
    "Dread",
    "skill",
    "uncommon",
    1,
    "enemy",
    "Apply 99 Vulnerable.",
    cost_up=0,
    exhaust=True,
)
def _dread(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.apply(t, "vulnerable", 99)


@card(
    "Heel Hook",
    "attack",
    "uncommon",
    1,
    "enemy",
    "Deal {dmg} damage. If the enemy is Weak, gain 1 Energy and draw 1 card.",
    values={"dmg": (5, 8)},
)
def _heel_hook(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    weak = t is not None and t.powers.get("weak", 0) > 0
    cb.attack(t, v["dmg"])
    if weak:
        cb.gain_energy(1)
        cb.draw(1)


@card(
    "Barbs",
    "power",
    "uncommon",
    1,
    "none",
    "Whenever you are attacked, deal {n} damage back.",
    values={"n": (3, 5)},
)
def _barbs(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.player.add_power("thorns", v["n"])


@card(
    "Gamble",
    "skill",
    "uncommon",
    0,
    "none",
    "Discard your hand, then draw that many cards.",
    exhaust=True,
    exhaust_up=False,
)
def _gamble(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    count = len(cb.hand)
    for other in list(cb.hand):
        cb.discard(other)
    cb.draw(count)


@card(
    "Eviscerate",
    "attack",
    "uncommon",
    3,
    "enemy",
    "Costs 1 less for each card discarded this turn. Deal {dmg} damage 3 times.",
    values={"dmg": (7, 9)},
)
def _eviscerate(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"], hits=3)


@card(
    "Flechettes",
    "attack",
    "uncommon",
    1,
    "enemy",
    "Deal {dmg} damage for each Skill in your hand.",
    values={"dmg": (4, 6)},
)
def _flechettes(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    skills = sum(1 for other in cb.hand if other.d.type == "skill")
    if skills:
        cb.attack(t, v["dmg"], hits=skills)


@card(
    "Finisher",
    "attack",
    "uncommon",
    1,
    "enemy",
    "Deal {dmg} damage for each Attack played this turn.",
    values={"dmg": (6, 8)},
)
def _finisher(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    hits = cb.attacks_this_turn - 1  # this card counts itself when played
    if hits > 0:
        cb.attack(t, v["dmg"], hits=hits)


@card(
    "All-In",
    "attack",
    "uncommon",
    1,
    "none",
    "Deal {dmg} damage to ALL enemies. Discard a random card.",
    values={"dmg": (10, 14)},
)
def _all_in(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack_all(v["dmg"])
    if cb.hand:
        cb.discard(cb.rng.choice(cb.hand))


@card(
    "Caltrop Dance",
    "skill",
    "uncommon",
    1,
    "none",
    "Gain {blk} Block. Gain 2 Thorns.",
    values={"blk": (7, 10)},
)
def _caltrop_dance(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.gain_block(v["blk"])
    cb.player.add_power("thorns", 2)


@card(
    "Crippling Strike",
    "attack",
    "uncommon",
    1,
    "enemy",
    "Deal {dmg} damage. Apply 1 Weak and 1 Vulnerable.",
    values={"dmg": (7, 10)},
)
def _crippling_strike(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"])
    cb.apply(t, "weak", 1)
    cb.apply(t, "vulnerable", 1)


# --------------------------------------------------------------------------- rare


@card(
    "Adrenaline Rush",
    "skill",
    "rare",
    0,
    "none",
    "Gain {e} Energy. Draw 2 cards.",
    values={"e": (1, 2)},
    exhaust=True,
)
def _adrenaline(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.gain_energy(v["e"])
    cb.draw(2)


@card(
    "Afterimage",
    "power",
    "rare",
    1,
    "none",
    "Whenever you play a card, gain 1 Block.",
    innate_up=True,
)
def _afterimage(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.player.add_power("afterimage", 1)


@card(
    "Thousand Cuts",
    "power",
    "rare",
    2,
    "none",
    "Whenever you play a card, deal {n} damage to ALL enemies.",
    values={"n": (1, 2)},
)
def _thousand_cuts(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.player.add_power("thousand_cuts", v["n"])


@card(
    "Envenom",
    "power",
    "rare",
    2,
    "none",
    "Whenever an Attack deals unblocked damage, apply 1 Poison.",
    cost_up=1,
)
def _envenom(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.player.add_power("envenom", 1)


@card(
    "Plague Burst",
    "skill",
    "rare",
    2,
    "enemy",
    "Apply {psn} Poison. When the enemy dies, deal damage equal to its max HP to ALL enemies.",
    values={"psn": (6, 9)},
)
def _plague_burst(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.apply(t, "poison", v["psn"])
    if t is not None:
        t.add_power("plague_burst", 1)


@card(
    "Glass Knife",
    "attack",
    "rare",
    1,
    "enemy",
    "Deal {dmg} damage twice. Its damage drops by 2 each time it is played this combat.",
    values={"dmg": (8, 12)},
)
def _glass_knife(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    worn = cb.card_uses.get(c.uid, 0) * 2
    cb.attack(t, max(0, v["dmg"] - worn), hits=2)


@card(
    "Die Die Die",
    "attack",
    "rare",
    1,
    "none",
    "Deal {dmg} damage to ALL enemies.",
    values={"dmg": (13, 17)},
    exhaust=True,
)
def _die_die_die(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack_all(v["dmg"])


@card(
    "Double Up",
    "skill",
    "rare",
    1,
    "none",
    "This turn, your next {n} Skill(s) are played twice.",
    values={"n": (1, 2)},
)
def _double_up(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.player.add_power("double_up", v["n"])


@card(
    "Malaise",
    "skill",
    "rare",
    X_COST,
    "enemy",
    "The enemy loses X Strength and gains X Weak.",
    values={"plus": (0, 1)},
    text_up="The enemy loses X+1 Strength and gains X+1 Weak.",
    exhaust=True,
)
def _malaise(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    amount = cb.x_energy + v["plus"]
    if amount > 0:
        cb.apply(t, "strength", -amount)
        cb.apply(t, "weak", amount)


@card(
    "Steel Storm",
    "skill",
    "rare",
    1,
    "none",
    "Discard your hand. Add a Shiv to your hand for each card discarded.",
    values={"up": (0, 1)},
    text_up="Discard your hand. Add an upgraded Shiv to your hand for each card discarded.",
)
def _steel_storm(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    count = len(cb.hand)
    for other in list(cb.hand):
        cb.discard(other)
    cb.add_to_hand("Shiv", count, upgraded=bool(v["up"]))


@card(
    "Phantom Blades",
    "skill",
    "rare",
    1,
    "none",
    "Next turn, your Attacks deal double damage.",
    cost_up=0,
)
def _phantom_blades(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.player.add_power("phantom_next", 1)


@card(
    "Bullet Time",
    "skill",
    "rare",
    3,
    "none",
    "You cannot draw more cards this turn. Cards in your hand cost 0 this turn.",
    cost_up=2,
)
def _bullet_time(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    for other in cb.hand:
        if other.d.cost >= 0:
            other.cost_this_turn = 0
    cb.player.add_power("no_draw", 1)


@card(
    "Alchemize",
    "skill",
    "rare",
    1,
    "none",
    "Obtain a random potion.",
    cost_up=0,
    exhaust=True,
)
def _alchemize(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.run.obtain_random_potion(cb.rng)


@card(
    "Sharpened Mind",
    "power",
    "rare",
    3,
    "none",
    "At the start of your turn, gain 1 Energy and draw 1 card.",
    cost_up=2,
)
def _sharpened_mind(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.player.add_power("sharpened_mind", 1)


# ------------------------------------------------------------- generated cards, statuses, curses


@card(
    "Shiv",
    "attack",
    "special",
    0,
    "enemy",
    "Deal {dmg} damage.",
    values={"dmg": (4, 6)},
    exhaust=True,
)
def _shiv(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    cb.attack(t, v["dmg"] + cb.player.powers.get("keen_edge", 0))


card("Wound", "status", "status", UNPLAYABLE, "none", "Unplayable.")(None)
card("Dazed", "status", "status", UNPLAYABLE, "none", "Unplayable.", ethereal=True)(None)
card(
    "Burn",
    "status",
    "status",
    UNPLAYABLE,
    "none",
    "Unplayable. At the end of your turn, take 2 damage.",
)(None)


@card("Slimed", "status", "status", 1, "none", "Does nothing.", exhaust=True)
def _slimed(cb: CombatView, c: Card, t: Enemy | None, v: dict[str, int]) -> None:
    return None


card(
    "Climber's Bane",
    "curse",
    "curse",
    UNPLAYABLE,
    "none",
    "Unplayable. Cannot be removed from your deck.",
    ethereal=True,
    removable=False,
)(None)
card(
    "Doubt",
    "curse",
    "curse",
    UNPLAYABLE,
    "none",
    "Unplayable. At the end of your turn, gain 1 Weak.",
)(None)
card("Injury", "curse", "curse", UNPLAYABLE, "none", "Unplayable.")(None)
card(
    "Pain",
    "curse",
    "curse",
    UNPLAYABLE,
    "none",
    "Unplayable. While in your hand, lose 1 HP whenever you play a card.",
)(None)

STARTER_DECK = ["Strike"] * 5 + ["Defend"] * 5 + ["Hamstring", "Duck and Roll"]


_POOLS: dict[tuple[str, int], tuple[str, ...]] = {}
"""Pools by (rarity, number of cards defined): rewards and shops ask on every offer."""


def pool(rarity: str) -> list[str]:
    """The character's reward pool of one rarity, in definition order."""
    key = (rarity, len(CARDS))
    keys = _POOLS.get(key)
    if keys is None:
        keys = _POOLS[key] = tuple(k for k, d in CARDS.items() if d.rarity == rarity)
    return list(keys)
