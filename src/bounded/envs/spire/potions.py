"""Potions: single-use combat items, three slots."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bounded.envs.spire.core import CombatView, Enemy

POTION_SLOTS = 3

PotionEffect = Callable[[CombatView, Enemy | None], object]
"""A potion's effect: (the combat, its target)."""


@dataclass(frozen=True)
class PotionDef:
    name: str
    rarity: str
    target: str
    """`enemy` (needs a target) or `none`."""
    text: str
    effect: PotionEffect


POTIONS: dict[str, PotionDef] = {}


def potion(name: str, rarity: str, target: str, text: str, effect: PotionEffect) -> None:
    POTIONS[name] = PotionDef(name, rarity, target, text, effect)


def _all(cb: CombatView, power: str, amount: int) -> None:
    for e in cb.targets():
        cb.apply(e, power, amount)


def _explode(cb: CombatView) -> None:
    for e in cb.targets():
        cb.damage_enemy(e, 10, attack=False)


potion(
    "Fire Potion",
    "common",
    "enemy",
    "Deal 20 damage to an enemy.",
    lambda cb, t: cb.damage_enemy(t, 20, attack=False) if t else None,
)
potion(
    "Block Potion",
    "common",
    "none",
    "Gain 12 Block.",
    lambda cb, t: setattr(cb.player, "block", cb.player.block + 12),
)
potion(
    "Strength Potion",
    "common",
    "none",
    "Gain 2 Strength.",
    lambda cb, t: cb.player.add_power("strength", 2),
)
potion(
    "Dexterity Potion",
    "common",
    "none",
    "Gain 2 Dexterity.",
    lambda cb, t: cb.player.add_power("dexterity", 2),
)
potion("Energy Potion", "common", "none", "Gain 2 Energy.", lambda cb, t: cb.gain_energy(2))
potion("Swift Potion", "common", "none", "Draw 3 cards.", lambda cb, t: cb.draw(3))
potion(
    "Poison Potion",
    "common",
    "enemy",
    "Apply 6 Poison to an enemy.",
    lambda cb, t: cb.apply(t, "poison", 6),
)
potion(
    "Weak Potion",
    "common",
    "enemy",
    "Apply 3 Weak to an enemy.",
    lambda cb, t: cb.apply(t, "weak", 3),
)
potion(
    "Fear Potion",
    "common",
    "enemy",
    "Apply 3 Vulnerable to an enemy.",
    lambda cb, t: cb.apply(t, "vulnerable", 3),
)
potion(
    "Explosive Potion",
    "common",
    "none",
    "Deal 10 damage to ALL enemies.",
    lambda cb, t: _explode(cb),
)
potion(
    "Blade Potion",
    "uncommon",
    "none",
    "Add 3 upgraded Shivs to your hand.",
    lambda cb, t: cb.add_to_hand("Shiv", 3, upgraded=True),
)
potion(
    "Healing Potion",
    "uncommon",
    "none",
    "Heal 20% of your max HP.",
    lambda cb, t: cb.run.heal(cb.run.max_hp // 5),
)
potion(
    "Miasma Potion",
    "uncommon",
    "none",
    "Apply 4 Poison to ALL enemies.",
    lambda cb, t: _all(cb, "poison", 4),
)


def _steel(cb: CombatView, t: Enemy | None) -> None:
    cb.player.add_power("thorns", 3)
    cb.player.add_power("artifact", 1)


potion("Steel Potion", "rare", "none", "Gain 3 Thorns and 1 Artifact.", _steel)
