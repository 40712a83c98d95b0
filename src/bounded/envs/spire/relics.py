"""Relics: passive items on an event-hook system.

Hooks: `pickup(run)`, `combat_start(cb)`, `turn_start(cb)`, `turn_end(cb)`,
`before_play(cb, card)`, `card_played(cb, card)`, `discard(cb)`, `hp_loss(cb)`,
`combat_end(cb)`, `rest(run) -> extra heal`, `shop(run)`, `floor(run)`, `chest(run)`.
Relics without hooks are rules the engine checks by name (e.g. `Dense Rod`).
A relic's `counter` (on the run) carries state such as "every 10th attack".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bounded.envs.spire.core import Card, CombatView, RunView

Hook = Callable[..., Any]


@dataclass(frozen=True)
class RelicDef:
    name: str
    rarity: str
    """`starter`, `common`, `uncommon`, `rare`, `boss`, `shop` or `event`."""
    text: str
    hooks: dict[str, Hook] = field(default_factory=dict)


RELICS: dict[str, RelicDef] = {}


def relic(name: str, rarity: str, text: str, **hooks: Hook) -> None:
    RELICS[name] = RelicDef(name, rarity, text, hooks)


def _counter_every(name: str, n: int, cb: CombatView, action: Callable[[], None]) -> None:
    """Advance relic `name`'s counter; run `action` every `n`th time."""
    run = cb.run
    run.relic_counters[name] = run.relic_counters.get(name, 0) + 1
    if run.relic_counters[name] >= n:
        run.relic_counters[name] = 0
        action()


def _every_third_of_type(card_type: str, action: Callable[[CombatView], None]) -> Hook:
    def hook(cb: CombatView, card: Card) -> None:
        count = cb.attacks_this_turn if card_type == "attack" else cb.skills_this_turn
        if card.d.type == card_type and count > 0 and count % 3 == 0:
            action(cb)

    return hook


def _deal_all(cb: CombatView, amount: int) -> None:
    for e in cb.targets():
        cb.damage_enemy(e, amount, attack=False)


def _heal(run: RunView, amount: int) -> None:
    run.heal(amount)


# --------------------------------------------------------------------------- starter
relic(
    "Serpent Band",
    "starter",
    "At the start of each combat, draw 2 additional cards.",
)

# --------------------------------------------------------------------------- common
relic(
    "Mooring Stone",
    "common",
    "Start each combat with 10 Block.",
    combat_start=lambda cb: setattr(cb.player, "block", cb.player.block + 10),
)
relic(
    "Bronze Lantern",
    "common",
    "Gain 1 Energy on the first turn of each combat.",
    combat_start=lambda cb: cb.player.add_power("next_energy", 1),
)
relic(
    "Blood Vial",
    "common",
    "At the start of each combat, heal 2 HP.",
    combat_start=lambda cb: _heal(cb.run, 2),
)
relic(
    "Marble Pouch",
    "common",
    "At the start of each combat, apply 1 Vulnerable to ALL enemies.",
    combat_start=lambda cb: [cb.apply(e, "vulnerable", 1) for e in cb.targets()],
)
relic(
    "Smooth Pebble",
    "common",
    "Start each combat with 1 Dexterity.",
    combat_start=lambda cb: cb.player.add_power("dexterity", 1),
)
relic(
    "Iron Talisman",
    "common",
    "Start each combat with 1 Strength.",
    combat_start=lambda cb: cb.player.add_power("strength", 1),
)
relic(
    "Wild Berry",
    "common",
    "When picked up, raise your max HP by 7.",
    pickup=lambda run: run.gain_max_hp(7),
)
relic(
    "Ore Heart",
    "common",
    "If you end your turn without Block, gain 6 Block.",
    turn_end=lambda cb: cb.gain_block(6) if cb.player.block == 0 else None,
)
relic(
    "Sunflower",
    "common",
    "Every 3 turns, gain 1 Energy.",
    turn_start=lambda cb: _counter_every("Sunflower", 3, cb, lambda: cb.gain_energy(1)),
)
relic(
    "Whirling Chain",
    "common",
    "Every time you play 10 Attacks, gain 1 Energy.",
    card_played=lambda cb, card: (
        _counter_every("Whirling Chain", 10, cb, lambda: cb.gain_energy(1))
        if card.d.type == "attack"
        else None
    ),
)


def _quill_before(cb: CombatView, card: Card) -> None:
    if card.d.type != "attack":
        return
    _counter_every("Quill Tip", 10, cb, lambda: cb.player.powers.__setitem__("quill_tip", 1))


relic(
    "Quill Tip",
    "common",
    "Every 10th Attack you play deals double damage.",
    before_play=_quill_before,
)
relic(
    "Dinner Token",
    "common",
    "Whenever you enter a shop, heal 15 HP.",
    shop=lambda run: _heal(run, 15),
)
relic("Down Pillow", "common", "Resting heals an additional 15 HP.", rest=lambda run: 15)

# --------------------------------------------------------------------------- uncommon
relic(
    "Paper Fan",
    "uncommon",
    "Every time you play 3 Attacks in a single turn, gain 4 Block.",
    card_played=_every_third_of_type(
        "attack", lambda cb: setattr(cb.player, "block", cb.player.block + 4)
    ),
)
relic(
    "Throwing Pin",
    "uncommon",
    "Every time you play 3 Attacks in a single turn, gain 1 Dexterity.",
    card_played=_every_third_of_type("attack", lambda cb: cb.player.add_power("dexterity", 1)),
)
relic(
    "Star Blade",
    "uncommon",
    "Every time you play 3 Attacks in a single turn, gain 1 Strength.",
    card_played=_every_third_of_type("attack", lambda cb: cb.player.add_power("strength", 1)),
)
relic(
    "Paper Knife",
    "uncommon",
    "Every time you play 3 Skills in a single turn, deal 5 damage to ALL enemies.",
    card_played=_every_third_of_type("skill", lambda cb: _deal_all(cb, 5)),
)
relic(
    "Marrow Bone",
    "uncommon",
    "If your HP is at or below 50% at the end of combat, heal 12 HP.",
    combat_end=lambda cb: _heal(cb.run, 12) if cb.run.hp * 2 <= cb.run.max_hp else None,
)
relic(
    "Undying Plume",
    "uncommon",
    "Whenever you enter a rest site, heal 3 HP for every 5 cards in your deck.",
    rest_enter=lambda run: _heal(run, 3 * (len(run.deck) // 5)),
)
relic(
    "Living Clay",
    "uncommon",
    "Whenever you lose HP in combat, gain 3 Block next turn.",
    hp_loss=lambda cb: cb.player.add_power("next_block", 3),
)
relic(
    "Hidden Scroll",
    "uncommon",
    "At the start of each combat, add 3 Shivs to your hand.",
    combat_start=lambda cb: cb.add_to_hand("Shiv", 3),
)
relic(
    "Bent Funnel",
    "uncommon",
    "At the start of each combat, apply 4 Poison to ALL enemies.",
    combat_start=lambda cb: [cb.apply(e, "poison", 4) for e in cb.targets()],
)

# --------------------------------------------------------------------------- rare


def _chime(cb: CombatView) -> None:
    target = cb.random_enemy()
    if target is not None:
        cb.damage_enemy(target, 3, attack=False)


relic(
    "Chime Bell",
    "rare",
    "Whenever you discard a card, deal 3 damage to a random enemy.",
    discard=_chime,
)
relic(
    "Thick Wraps",
    "rare",
    "Whenever you discard a card, gain 3 Block.",
    discard=lambda cb: setattr(cb.player, "block", cb.player.block + 3),
)
relic("Frozen Cream", "rare", "Energy is conserved between turns.")
relic("Dense Rod", "rare", "Whenever you would lose HP, lose 1 less.")
relic("Shrine Gate", "rare", "Unblocked attack damage of 5 or less is reduced to 1.")
relic("Measuring Tool", "rare", "At the start of your turn, lose only 15 Block.")
relic("Chemical Flask", "rare", "X-cost cards act as if you had 2 more Energy.")
relic(
    "Coin Purse",
    "rare",
    "Gain 12 gold on every floor you climb, until you spend gold at a shop.",
    floor=lambda run: run.gain_gold(12) if not run.relic_counters.get("Coin Purse") else None,
)
relic("Gilded Idol", "event", "Gain 25% more gold from combats.")

# --------------------------------------------------------------------------- boss
relic(
    "Spectral Husk", "boss", "Gain 1 Energy at the start of each turn. You can no longer gain gold."
)
relic("Bitter Brew", "boss", "Gain 1 Energy at the start of each turn. You can no longer rest.")
relic(
    "Fused Hammer",
    "boss",
    "Gain 1 Energy at the start of each turn. You can no longer upgrade cards at rest sites.",
)
relic(
    "Sage Stone",
    "boss",
    "Gain 1 Energy at the start of each turn. ALL enemies start with 1 Strength.",
)
relic(
    "Sealed Urn",
    "boss",
    "Gain 1 Energy at the start of each turn. You can no longer obtain potions.",
)
relic(
    "Coiled Band",
    "boss",
    "Replaces Serpent Band. Draw 1 additional card each turn (3 on the first).",
)
relic("Still Pyramid", "boss", "At the end of your turn, you no longer discard your hand.")


def _heart_locket(run: RunView) -> None:
    run.gain_max_hp(20)
    run.heal(run.max_hp)


relic(
    "Heart Locket",
    "boss",
    "When picked up, raise your max HP by 20 and heal to full.",
    pickup=_heart_locket,
)

ENERGY_RELICS = frozenset(
    {"Spectral Husk", "Bitter Brew", "Fused Hammer", "Sage Stone", "Sealed Urn"}
)


_POOLS: dict[tuple[str, int], tuple[str, ...]] = {}


def pool(rarity: str) -> list[str]:
    key = (rarity, len(RELICS))
    names = _POOLS.get(key)
    if names is None:
        names = _POOLS[key] = tuple(n for n, d in RELICS.items() if d.rarity == rarity)
    return list(names)
