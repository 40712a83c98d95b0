"""Lanchester-style combat: every stack fires at every stack it can hit, all at once.

Each second, a stack's damage is split over the enemy stacks it can target (air or
ground), in proportion to their counts, preferring combat units over workers and
structures. Damage per hit is the weapon's damage plus its bonus against the target's
attributes, less the target's armor (at least 0.5); splash multiplies damage against
packed targets; melee units lose part of their damage to ranged enemies (closing in).
Losses follow from accumulated damage, so the square law emerges: a larger or better
matched army loses disproportionately less.
"""

from __future__ import annotations

from dataclasses import dataclass

from bounded.envs.craft.data import Weapon

MELEE_RANGE = 1.5
MELEE_PENALTY = 0.75
"""Melee damage factor against an army with ranged units (time spent closing in)."""
CHARGED_MELEE_PENALTY = 0.9
LONG_RANGE = 7.0
LONG_RANGE_BONUS = 1.1
"""Damage factor of units that outrange most enemies (Colossus, Tempest, Brood Lord, ...)."""
SPLASH_DENSITY = 8.0
"""Target count at which splash reaches its full effect."""
MIN_DAMAGE = 0.5


@dataclass(frozen=True)
class Fighter:
    """Combat stats of one unit (or structure) type, with its side's upgrades applied."""

    key: str
    hp: float
    shields: float
    armor: float
    shield_armor: float
    attributes: frozenset[str]
    air: bool
    ground_weapon: Weapon | None
    air_weapon: Weapon | None
    weapon_bonus: float = 0.0
    """Weapon upgrade levels of this unit's line (damage per hit added per level)."""
    splash: float = 0.0
    suicide: bool = False
    melee_charge: bool = False
    """A melee unit that closes in fast (Zealot with Charge)."""
    damage_factor: float = 1.0
    priority: int = 0
    """0: army and static defence, shot first; 1: workers and other structures."""

    @property
    def total_hp(self) -> float:
        return self.hp + self.shields

    @property
    def effective_armor(self) -> float:
        total = self.total_hp
        return (self.hp * self.armor + self.shields * self.shield_armor) / total if total else 0.0

    def weapon_against(self, target: Fighter) -> Weapon | None:
        return self.air_weapon if target.air else self.ground_weapon

    @property
    def is_melee(self) -> bool:
        weapon = self.ground_weapon or self.air_weapon
        return weapon is not None and weapon.range < MELEE_RANGE

    @property
    def is_ranged(self) -> bool:
        weapon = self.ground_weapon or self.air_weapon
        return weapon is not None and weapon.range >= 4

    def dps_against(self, target: Fighter) -> float:
        weapon = self.weapon_against(target)
        if weapon is None:
            return 0.0
        per_hit = weapon.damage + self.weapon_bonus * weapon.upgrade
        if weapon.bonus_attribute and weapon.bonus_attribute in target.attributes:
            per_hit += weapon.bonus + self.weapon_bonus * weapon.upgrade_bonus
        per_hit = max(MIN_DAMAGE, per_hit - target.effective_armor)
        return per_hit * weapon.hits / weapon.cooldown


@dataclass
class Stack:
    """A number of identical fighters and the damage taken by the front one."""

    fighter: Fighter
    count: int
    damage: float = 0.0
    owner: object = None
    """For a structure: the object whose hit points this stack stands for."""

    @property
    def alive(self) -> bool:
        return self.count > 0


def _targets_of(attacker: Fighter, enemies: list[Stack]) -> list[Stack]:
    reachable = [s for s in enemies if s.alive and attacker.weapon_against(s.fighter) is not None]
    if not reachable:
        return []
    first = min(s.fighter.priority for s in reachable)
    return [s for s in reachable if s.fighter.priority == first]


def _damage_factor(attacker: Fighter, enemies: list[Stack]) -> float:
    factor = attacker.damage_factor
    weapon = attacker.ground_weapon or attacker.air_weapon
    if weapon is None:
        return 0.0
    if attacker.is_melee and any(s.alive and s.fighter.is_ranged for s in enemies):
        factor *= CHARGED_MELEE_PENALTY if attacker.melee_charge else MELEE_PENALTY
    if weapon.range >= LONG_RANGE:
        factor *= LONG_RANGE_BONUS
    return factor


def damage_dealt(attackers: list[Stack], defenders: list[Stack], dt: float) -> dict[int, float]:
    """Damage each defender stack (by index) takes from all attacker stacks over `dt` seconds."""
    taken: dict[int, float] = {}
    index_of = {id(s): i for i, s in enumerate(defenders)}
    for stack in attackers:
        if not stack.alive:
            continue
        attacker = stack.fighter
        targets = _targets_of(attacker, defenders)
        if not targets:
            continue
        factor = _damage_factor(attacker, defenders)
        if factor <= 0:
            continue
        total_targets = sum(t.count for t in targets)
        splash = 1.0 + attacker.splash * min(1.0, total_targets / SPLASH_DENSITY)
        seconds = 1.0 if attacker.suicide else dt
        for target in targets:
            share = stack.count * target.count / total_targets
            amount = share * attacker.dps_against(target.fighter) * factor * splash * seconds
            if attacker.suicide:
                weapon = attacker.weapon_against(target.fighter)
                amount *= weapon.cooldown if weapon else 0.0
            key = index_of[id(target)]
            taken[key] = taken.get(key, 0.0) + amount
    return taken


def apply_damage(stacks: list[Stack], taken: dict[int, float]) -> dict[str, int]:
    """Apply damage to stacks; return the number of fighters lost per key."""
    lost: dict[str, int] = {}
    for index, amount in taken.items():
        stack = stacks[index]
        if not stack.alive or amount <= 0:
            continue
        stack.damage += amount
        per_unit = stack.fighter.total_hp
        dead = min(stack.count, int(stack.damage // per_unit))
        if dead:
            stack.count -= dead
            stack.damage -= dead * per_unit
            lost[stack.fighter.key] = lost.get(stack.fighter.key, 0) + dead
        if stack.count == 0:
            stack.damage = 0.0
    return lost


def expend_suicide(stacks: list[Stack], enemies: list[Stack]) -> dict[str, int]:
    """Remove suicide units (Banelings) that had a target this second: they exploded."""
    lost: dict[str, int] = {}
    for stack in stacks:
        if stack.fighter.suicide and stack.alive and _targets_of(stack.fighter, enemies):
            lost[stack.fighter.key] = lost.get(stack.fighter.key, 0) + stack.count
            stack.count = 0
            stack.damage = 0.0
    return lost


def heal(taken: dict[int, float], stacks: list[Stack], amount: float) -> None:
    """Restore up to `amount` shields, spread over the damaged stacks that have shields."""
    shielded = [i for i, v in taken.items() if v > 0 and stacks[i].fighter.shields > 0]
    total = sum(taken[i] for i in shielded)
    if amount <= 0 or total <= 0:
        return
    keep = max(0.0, 1.0 - amount / total)
    for i in shielded:
        taken[i] *= keep


def fight_round(
    side_a: list[Stack], side_b: list[Stack], dt: float, *, heal_a: float = 0.0, heal_b: float = 0.0
) -> tuple[dict[str, int], dict[str, int]]:
    """One simultaneous exchange of fire; returns (losses of a, losses of b) by key.

    `heal_a`/`heal_b`: shields each side restores this round (Shield Batteries).
    """
    to_b = damage_dealt(side_a, side_b, dt)
    to_a = damage_dealt(side_b, side_a, dt)
    heal(to_a, side_a, heal_a * dt)
    heal(to_b, side_b, heal_b * dt)
    exploded_a = expend_suicide(side_a, side_b)
    exploded_b = expend_suicide(side_b, side_a)
    lost_a = apply_damage(side_a, to_a)
    lost_b = apply_damage(side_b, to_b)
    for lost, exploded in ((lost_a, exploded_a), (lost_b, exploded_b)):
        for key, n in exploded.items():
            lost[key] = lost.get(key, 0) + n
    return lost_a, lost_b


def can_fight(side_a: list[Stack], side_b: list[Stack]) -> bool:
    """Whether either side has a weapon that reaches something on the other."""
    return any(s.alive and _targets_of(s.fighter, side_b) for s in side_a) or any(
        s.alive and _targets_of(s.fighter, side_a) for s in side_b
    )


def strength(stacks: list[Stack], enemies: list[Stack]) -> float:
    """Lanchester fighting strength of `stacks` against `enemies`: damage rate times hit points."""
    dps = 0.0
    for stack in stacks:
        if not stack.alive:
            continue
        targets = _targets_of(stack.fighter, enemies) if enemies else []
        if targets:
            total = sum(t.count for t in targets)
            dps += (
                stack.count
                * sum(t.count / total * stack.fighter.dps_against(t.fighter) for t in targets)
                * _damage_factor(stack.fighter, enemies)
            )
    hp = sum(s.count * s.fighter.total_hp for s in stacks if s.alive and s.fighter.priority == 0)
    return dps * hp
