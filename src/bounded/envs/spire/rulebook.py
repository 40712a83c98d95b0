"""Spire's rules book (the typed contract's L3 seed), built from the engine's own content.

Cards, relics, potions and enemies are read from the engine's registries, so every
number in the rules is the number the engine uses; keywords (powers and statuses) and
room types are described here, from the engine's combat rules. The book ships as
`bounded/envs/spire/data/rules.json` (read by `bounded.envs.spire.knowledge`);
regenerate it after a content change with

    python -m bounded.envs.spire.rulebook

and ship the new file as the next rules version (or as a `RulesPatch`).
"""

from __future__ import annotations

from typing import Any

from bounded.envs.spire.cards import CARDS
from bounded.envs.spire.enemies import game_enemies
from bounded.envs.spire.knowledge import RULES_FILE, data_path
from bounded.envs.spire.potions import POTIONS
from bounded.envs.spire.relics import RELICS
from bounded.stores.directory import canonical_bytes
from bounded.stores.rules import Rule, RulesBook

RULES_VERSION = "1"
"""The rules version shipped for spire env version 1."""

KEYWORDS: dict[str, str] = {
    "vulnerable": "Takes 50% more attack damage. Decreases by 1 each turn.",
    "weak": "Deals 25% less attack damage. Decreases by 1 each turn.",
    "frail": "Gains 25% less Block from cards. Decreases by 1 each turn.",
    "poison": "At the start of its turn it loses HP equal to its Poison, then Poison drops by 1.",
    "strength": "Adds its amount to the damage of every attack hit (negative lowers it).",
    "dexterity": "Adds its amount to the Block gained from cards.",
    "artifact": "Negates the next debuff applied to it; each negation uses one charge.",
    "ritual": "Gains that much Strength at the end of each of its turns after it first acts.",
    "thorns": "Whenever it is hit by an attack, the attacker takes that much damage.",
    "angry": "Whenever it is attacked, it gains that much Strength.",
    "metallicize": "Gains that much Block at the end of each of its turns.",
    "plated armor": (
        "Gains that much Block at the end of each of its turns; every attack that deals it "
        "unblocked damage lowers Plated Armor by 1."
    ),
    "curl up": "The first time an attack deals it damage, it gains that much Block (once).",
    "malleable": (
        "Each time an attack deals it damage it gains Block equal to Malleable, which then "
        "grows by 1 until the end of its turn."
    ),
    "mode shift": (
        "After losing that much HP to attacks it shifts into a defensive mode (with Thorns) "
        "for a few turns; each shift raises the next threshold by 10."
    ),
    "defensive": "In defensive mode: it blocks and punishes attacks; it shifts back later.",
    "reactive": "Picks a new intent each time an attack deals it damage.",
    "asleep": (
        "Sleeps for that many turns. Dealing it attack damage wakes it at once (and removes "
        "its Metallicize)."
    ),
    "intangible": "Every instance of damage it takes is reduced to 1.",
    "intangible cycle": "Becomes Intangible every other turn.",
    "invincible": "Can lose at most that much HP per turn.",
    "beat of death": "Whenever you play a card, you take that much damage.",
    "enrage": "Whenever you play a Skill, it gains that much Strength.",
    "curiosity": "Whenever you play a Power, it gains that much Strength.",
    "time warp": (
        "Counts the cards you play (time count); when the count reaches this number your turn "
        "ends at once and it gains 2 Strength."
    ),
    "time ramp": "Its move It Is Time deals that much more damage each time it is used.",
    "stab growth": "Its Multi-Stab hits one more time each time it is used.",
    "spore cloud": "When it dies, you gain that much Vulnerable.",
    "revive": "The first time it dies it comes back (Rebirth) instead of dying.",
    "reborn pending": "It is reviving this turn and cannot be targeted by Poison.",
    "minion": "A minion: the fight is won once every non-minion enemy is dead.",
    "barricade": "Its Block is not removed at the start of its turn.",
    "constricted": "At the end of your turn you take that much damage.",
    "afterimage": "Whenever you play a card, gain Block.",
    "thousand cuts": "Whenever you play a card, deal that much damage to ALL enemies.",
    "envenom": "Whenever an attack deals unblocked damage, apply that much Poison.",
    "toxic fog": "At the start of your turn, apply that much Poison to ALL enemies.",
    "endless knives": "At the start of your turn, add that many Shivs to your hand.",
    "keen edge": "Shivs deal that much additional damage.",
    "blur": "Block is not removed at the start of your next turn.",
    "double up": "Your next Skill(s) this turn are played twice.",
    "next energy": "Gain that much Energy at the start of your next turn.",
    "next block": "Gain that much Block at the start of your next turn.",
    "next draw": "Draw that many additional cards at the start of your next turn.",
    "no draw": "You cannot draw more cards this turn.",
}
"""Power and status names (as the state spells them, `_` read as a space) -> meaning."""

ROOMS: dict[str, str] = {
    "monster": "A normal fight; reward: gold, a choice of three cards (or skip), maybe a potion.",
    "elite": (
        "A hard fight against an elite; reward: more gold, better card odds and a relic. "
        "Worth it with healthy HP and a deck that can deal damage."
    ),
    "boss": (
        "The act's boss (named on the map). Winning heals you between acts and offers a choice "
        "of boss relics."
    ),
    "rest": "Rest to heal 30% of max HP (25% at Ascension 10), or upgrade one card.",
    "shop": "Buy cards, relics and potions with gold, or pay to remove one card from the deck.",
    "event": "A text event with options; read each option's cost and reward.",
    "treasure": "A chest with gold (and sometimes more); opening it is free.",
    "neow": "The opening bonus before the first floor: choose one of the offered boons.",
    "final": "The final boss fight that ends the run.",
}


def _effect_text(effect: tuple[Any, ...]) -> str:
    op = effect[0]
    if op == "buff":
        return f"gains {effect[2]} {effect[1].replace('_', ' ')}"
    if op == "buff_all":
        return f"all enemies gain {effect[2]} {effect[1].replace('_', ' ')}"
    if op == "debuff":
        return f"gives you {effect[2]} {effect[1].replace('_', ' ')}"
    if op == "status":
        return f"adds {effect[2]} {effect[1]} to your {effect[3]} pile"
    if op == "heal_all":
        return f"heals all enemies {effect[1]}"
    if op == "block_all":
        return f"all enemies gain {effect[1]} Block"
    if op == "summon":
        return f"summons {effect[2]} {effect[1]}"
    if op == "steal":
        return f"steals {effect[1]} gold"
    if op == "heal_self":
        return f"heals itself {effect[1]}"
    if op == "heal_half":
        return "heals up to half its max HP and clears its debuffs"
    return {"split": "splits in two", "escape": "flees", "revive": "revives"}.get(op, op)


def _move_text(move: Any) -> str:
    parts = []
    if move.dmg:
        parts.append(f"{move.dmg} damage" + (f" x{move.hits}" if move.hits > 1 else ""))
    if move.block:
        parts.append(f"{move.block} Block")
    parts.extend(_effect_text(e) for e in move.effects)
    return f"{move.name} ({', '.join(parts) or 'nothing'})"


def _enemy_rule(d: Any) -> Rule:
    low, high = d.hp
    hp = f"{low} HP" if low == high else f"{low}-{high} HP"
    text = f"{d.tier} enemy, {hp}. Moves: " + "; ".join(_move_text(m) for m in d.moves.values())
    if d.powers:
        starts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(d.powers.items()))
        text += f". Starts with: {starts}"
    return Rule(id=f"enemy:{d.name}", category="enemy", name=d.name, text=text + ".")


def _cost(cost: int) -> str:
    return {-1: "X", -2: "unplayable"}.get(cost, str(cost))


def _card_rule(d: Any) -> Rule:
    base, upgraded = d.describe(False), d.describe(True)
    cost, cost_up = _cost(d.base_cost(False)), _cost(d.base_cost(True))
    text = f"{d.rarity} {d.type}, cost {cost}: {base}"
    if upgraded != base or cost_up != cost:
        text += f" Upgraded (cost {cost_up}): {upgraded}"
    return Rule(id=f"card:{d.key}", category="card", name=d.key, text=text)


def spire_rules() -> RulesBook:
    """The spire rules book, read from the engine's registries."""
    rules = [_card_rule(d) for d in CARDS.values()]
    rules += [
        Rule(
            id=f"relic:{r.name}", category="relic", name=r.name, text=f"{r.rarity} relic: {r.text}"
        )
        for r in RELICS.values()
    ]
    rules += [
        Rule(id=f"potion:{p.name}", category="potion", name=p.name, text=f"potion: {p.text}")
        for p in POTIONS.values()
    ]
    rules += [_enemy_rule(d) for d in game_enemies().values()]
    rules += [
        Rule(id=f"keyword:{name}", category="keyword", name=name, text=text)
        for name, text in KEYWORDS.items()
    ]
    rules += [
        Rule(id=f"room:{name}", category="room", name=name, text=text)
        for name, text in ROOMS.items()
    ]
    return RulesBook(game="spire", version=RULES_VERSION, rules=rules)


def main() -> None:
    """Regenerate the shipped `data/rules.json` from the engine's registries."""
    target = data_path(RULES_FILE)
    book = spire_rules()
    target.write_bytes(canonical_bytes(book))
    print(f"wrote {len(book.rules)} rules (version {book.version}) to {target}")


__all__ = ["KEYWORDS", "ROOMS", "RULES_VERSION", "main", "spire_rules"]


if __name__ == "__main__":
    main()
