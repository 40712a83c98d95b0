"""The world: two sides, their economies, production, armies, fights and what each sees.

Time advances in ticks of `TICK` seconds. Each tick: harvest, progress construction and
production, let the built-in AI think, move armies, resolve fights (Lanchester), update
vision, then check for the end of the game. Everything is deterministic given the
seed: the only randomness is the AI's own `random.Random`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from bounded.envs.craft.combat import Fighter, Stack
from bounded.envs.craft.data import (
    PROTOSS_STRUCTURES,
    PROTOSS_UNITS,
    PSIONIC_STORM,
    TOWN_HALLS,
    ZERG_STRUCTURES,
    ZERG_UNITS,
    StructureSpec,
    UnitSpec,
    Weapon,
)
from bounded.envs.craft.economy import (
    BASE_MINERALS,
    EFFICIENT_WORKERS,
    GEYSER_GAS,
    GEYSERS_PER_BASE,
    WORKERS_PER_GEYSER,
    gas_income,
    mineral_income,
    saturation,
)
from bounded.envs.craft.maps import MapSpec, Point, distance

TICK = 1.0
SUPPLY_CAP = 200
ENGAGE_RANGE = 12.0
"""Opposing groups (or a group and a base) closer than this fight."""
SIGHT_RANGE = 16.0
DEFEND_RADIUS = 40.0
"""A home army reacts to enemies this close to one of its bases."""
CHRONO_DURATION = 20.0
CHRONO_COST = 50.0
CHRONO_SPEED = 1.5
ENERGY_REGEN = 0.7875
MAX_ENERGY = 200.0
WARP_IN_TIME = 3.6
QUEUE_LIMIT = 5
"""Jobs a production structure holds at once (current plus queued), as in the game."""
CHARGE_SPEED = 4.72
GAS_RESERVE_WORKERS = 8
"""Gas geysers get workers only beyond this many harvesters (minerals first)."""


@dataclass
class Structure:
    """One structure; `build_left` > 0 while under construction."""

    uid: int
    key: str
    base: int
    build_left: float
    hp: float
    job: str = ""
    """`unit:<key>`, `research:<key>` or `morph:<key>`; empty when idle."""
    job_left: float = 0.0
    queue: list[str] = field(default_factory=list)
    """Jobs waiting behind `job` (units only; up to `QUEUE_LIMIT` jobs in all)."""
    chrono_left: float = 0.0
    energy: float = 0.0
    cooldown: float = 0.0
    larva: int = 0
    larva_timer: float = 0.0
    inject_left: float = 0.0

    @property
    def done(self) -> bool:
        return self.build_left <= 0

    @property
    def idle(self) -> bool:
        return self.done and not self.job

    @property
    def load(self) -> int:
        """Jobs in hand: the current one and the queued ones."""
        return (1 if self.job else 0) + len(self.queue)


@dataclass
class BaseSite:
    """A base location and the resources left there."""

    pos: Point
    minerals: float = BASE_MINERALS
    gas: list[float] = field(default_factory=lambda: [float(GEYSER_GAS)] * GEYSERS_PER_BASE)


@dataclass
class Group:
    """Army units that move and fight together."""

    name: str
    pos: Point
    units: dict[str, int] = field(default_factory=dict)
    damage: dict[str, float] = field(default_factory=dict)
    target: Point | None = None
    engaged: bool = False
    retreating: bool = False

    @property
    def size(self) -> int:
        return sum(self.units.values())

    def add(self, key: str, n: int = 1) -> None:
        self.units[key] = self.units.get(key, 0) + n

    def take(self, key: str, n: int = 1) -> int:
        have = self.units.get(key, 0)
        taken = min(have, n)
        if taken:
            self.units[key] = have - taken
            if not self.units[key]:
                del self.units[key]
                self.damage.pop(key, None)
        return taken

    def merge(self, other: Group) -> None:
        for key, n in other.units.items():
            self.add(key, n)
        other.units.clear()
        other.damage.clear()


@dataclass
class Pending:
    """A unit on its way: an egg, a warp-in, a morph."""

    unit: str
    left: float
    count: int = 1


@dataclass
class Scout:
    """A unit sent to look at the enemy's bases."""

    unit: str
    pos: Point
    target: Point
    returning: bool = False
    stationed: bool = False


@dataclass
class Side:
    """One player's everything."""

    faction: str
    sites: list[BaseSite]
    minerals: float = 50.0
    gas: float = 0.0
    workers: int = 12
    structures: list[Structure] = field(default_factory=list)
    groups: dict[str, Group] = field(default_factory=dict)
    pending: list[Pending] = field(default_factory=list)
    research: dict[str, float] = field(default_factory=dict)
    """Research key -> time left (0 when done)."""
    overlords: int = 0
    scouts: list[Scout] = field(default_factory=list)
    harvest_multiplier: float = 1.0
    spent: float = 0.0
    collected: float = 0.0
    lost: dict[str, int] = field(default_factory=dict)
    killed: dict[str, int] = field(default_factory=dict)
    base_workers: list[int] = field(default_factory=list)
    mineral_workers: int = 0
    gas_workers: int = 0
    gas_worker_limit: int | None = None
    """At most this many workers on gas (None: fill every working geyser)."""
    _fighters: dict[str, Fighter] = field(default_factory=dict)
    _done_kinds: set[str] | None = None
    _structure_supply: int | None = None

    @property
    def units(self) -> dict[str, UnitSpec]:
        return PROTOSS_UNITS if self.faction == "protoss" else ZERG_UNITS

    @property
    def structure_specs(self) -> dict[str, StructureSpec]:
        return PROTOSS_STRUCTURES if self.faction == "protoss" else ZERG_STRUCTURES

    @property
    def worker_key(self) -> str:
        return "probe" if self.faction == "protoss" else "drone"

    # -- counting -------------------------------------------------------------

    def has_done(self, key: str) -> bool:
        """A completed structure of this kind (a Lair or Hive also counts as lower tiers)."""
        if key in self.research:
            return self.research[key] <= 0
        if self._done_kinds is None:
            kinds: set[str] = set()
            for s in self.structures:
                if s.done:
                    kinds.add(s.key)
                    kinds.update(_TIER_ALIASES.get(s.key, ()))
            self._done_kinds = kinds
        return key in self._done_kinds

    def structures_changed(self) -> None:
        """Call when a structure completes, morphs or is destroyed."""
        self._done_kinds = None
        self._structure_supply = None

    def clamp_assignment(self) -> None:
        """Keep the harvester counts within the workers left (after losses this tick)."""
        self.gas_workers = min(self.gas_workers, self.workers)
        self.mineral_workers = min(self.mineral_workers, self.workers - self.gas_workers)

    def count_structures(self, key: str, *, done: bool | None = None) -> int:
        return sum(1 for s in self.structures if s.key == key and (done is None or s.done == done))

    def army_units(self) -> dict[str, int]:
        total: dict[str, int] = {}
        for group in self.groups.values():
            for key, n in group.units.items():
                total[key] = total.get(key, 0) + n
        for scout in self.scouts:
            if scout.unit != self.worker_key:
                total[scout.unit] = total.get(scout.unit, 0) + 1
        return total

    def producing(self) -> dict[str, int]:
        """Units in production (structure jobs, eggs, warp-ins, morphs)."""
        total: dict[str, int] = {}
        for s in self.structures:
            if not s.job:
                continue
            if s.job.startswith("unit:"):
                total[s.job[5:]] = total.get(s.job[5:], 0) + 1
            for job in s.queue:
                total[job[5:]] = total.get(job[5:], 0) + 1
        for p in self.pending:
            total[p.unit] = total.get(p.unit, 0) + p.count
        return total

    def supply_cap(self) -> int:
        if self._structure_supply is None:
            specs = self.structure_specs
            self._structure_supply = sum(specs[s.key].supply for s in self.structures if s.done)
        return min(SUPPLY_CAP, self._structure_supply + 8 * self.overlords)

    def supply_used(self) -> float:
        used = float(self.workers)
        for key, n in self.army_units().items():
            used += self.units[key].supply * n
        for key, n in self.producing().items():
            used += self.units[key].supply * n
        return used

    def army_supply(self) -> float:
        return sum(self.units[k].supply * n for k, n in self.army_units().items())

    def town_hall_bases(self, *, done: bool = True) -> list[int]:
        bases = {s.base for s in self.structures if s.key in TOWN_HALLS and (s.done or not done)}
        return sorted(bases)

    def occupied_bases(self) -> set[int]:
        return {s.base for s in self.structures if s.key in TOWN_HALLS}

    def has_structures_at(self, base: int) -> bool:
        return any(s.base == base for s in self.structures)

    def charge(self, minerals: float, gas: float) -> None:
        self.minerals -= minerals
        self.gas -= gas
        self.spent += minerals + gas

    # -- combat stats ---------------------------------------------------------

    def invalidate_fighters(self) -> None:
        self._fighters.clear()

    def upgrade_level(self, line: str, kind: str) -> int:
        prefixes = _UPGRADE_PREFIXES[self.faction][line]
        name = prefixes[0] if kind == "weapons" else prefixes[1]
        if not name:
            return 0
        return sum(1 for level in (1, 2, 3) if self.has_done(f"{name}{level}"))

    def fighter(self, key: str) -> Fighter:
        cached = self._fighters.get(key)
        if cached is None:
            cached = self._make_fighter(key)
            self._fighters[key] = cached
        return cached

    def _make_fighter(self, key: str) -> Fighter:
        if key in self.structure_specs:
            return self._structure_fighter(self.structure_specs[key])
        spec = self.units[key]
        shields = self.upgrade_level("shields", "armor") if self.faction == "protoss" else 0
        armor = spec.armor + self.upgrade_level(spec.upgrades, "armor")
        ground, factor, splash = spec.ground_weapon, 1.0, spec.splash
        if key == "hightemplar" and self.has_done("psistormtech"):
            ground, splash = PSIONIC_STORM, 4.0
        if key == "adept" and self.has_done("adeptpiercingattack") and ground:
            ground = _faster(ground, 1.45)
        if (key == "stalker" and self.has_done("blinktech")) or (
            key == "phoenix" and self.has_done("phoenixrangeupgrade")
        ):
            factor = 1.15
        if key == "colossus" and self.has_done("extendedthermallance"):
            factor = 1.15
        return Fighter(
            key=key,
            hp=spec.hp,
            shields=spec.shields,
            armor=armor,
            shield_armor=shields,
            attributes=spec.attributes,
            air=spec.air,
            ground_weapon=ground,
            air_weapon=spec.air_weapon,
            weapon_bonus=self.upgrade_level(spec.upgrades, "weapons"),
            splash=splash,
            suicide=spec.suicide,
            melee_charge=key == "zealot" and self.has_done("charge"),
            damage_factor=factor,
            priority=1 if spec.worker else 0,
        )

    def _structure_fighter(self, spec: StructureSpec) -> Fighter:
        weapon = spec.weapon
        shields = self.upgrade_level("shields", "armor") if self.faction == "protoss" else 0
        return Fighter(
            key=spec.key,
            hp=spec.hp,
            shields=spec.shields,
            armor=spec.armor,
            shield_armor=shields,
            attributes=frozenset({"A", "St"}),
            air=False,
            ground_weapon=weapon if weapon and "G" in spec.targets else None,
            air_weapon=weapon if weapon and "A" in spec.targets else None,
            priority=0 if weapon else 1,
        )


_TIER_ALIASES = {
    "lair": ("hatchery",),
    "hive": ("hatchery", "lair"),
    "greaterspire": ("spire",),
    "warpgate": ("gateway",),
}
"""A structure that also satisfies requirements on the structures it was morphed from."""

_UPGRADE_PREFIXES = {
    "protoss": {
        "ground": ("protossgroundweaponslevel", "protossgroundarmorslevel"),
        "air": ("protossairweaponslevel", "protossairarmorslevel"),
        "shields": ("", "protossshieldslevel"),
    },
    "zerg": {
        "melee": ("zergmeleeweaponslevel", "zerggroundarmorslevel"),
        "missile": ("zergmissileweaponslevel", "zerggroundarmorslevel"),
        "flyer": ("zergflyerweaponslevel", "zergflyerarmorslevel"),
        "ground": ("zergmeleeweaponslevel", "zerggroundarmorslevel"),
    },
}


def _faster(weapon: Weapon, rate: float) -> Weapon:
    return replace(weapon, cooldown=weapon.cooldown / rate)


def move_towards(pos: Point, target: Point, step: float) -> Point:
    d = distance(pos, target)
    if d <= step or d == 0:
        return target
    f = step / d
    return (pos[0] + (target[0] - pos[0]) * f, pos[1] + (target[1] - pos[1]) * f)


def group_speed(side: Side, group: Group) -> float:
    charge = side.faction == "protoss" and side.has_done("charge")
    speeds = [
        CHARGE_SPEED if key == "zealot" and charge else side.units[key].speed
        for key, n in group.units.items()
        if n > 0
    ]
    return min(speeds, default=0.0)


GAS_BUILDINGS = frozenset({"assimilator", "extractor"})


def _working_geysers(side: Side, bases: set[int]) -> list[tuple[int, int]]:
    """(base, geyser slot) of every completed gas building at a working base with gas left."""
    geysers: list[tuple[int, int]] = []
    slots: dict[int, int] = {}
    for s in side.structures:
        if s.key not in GAS_BUILDINGS:
            continue
        slot = slots.get(s.base, 0)
        slots[s.base] = slot + 1
        working = s.done and s.base in bases and slot < GEYSERS_PER_BASE
        if working and side.sites[s.base].gas[slot] > 0:
            geysers.append((s.base, slot))
    return geysers


def harvest(side: Side, dt: float) -> None:
    """Assign workers (gas after a reserve of mineral workers) and collect income."""
    halls = {s.base for s in side.structures if s.done and s.key in TOWN_HALLS}
    bases = sorted(b for b in halls if side.sites[b].minerals > 0 or any(side.sites[b].gas))
    available = side.workers - sum(1 for s in side.scouts if s.unit == side.worker_key)
    geysers = _working_geysers(side, set(bases))
    gas_workers = min(WORKERS_PER_GEYSER * len(geysers), max(0, available - GAS_RESERVE_WORKERS))
    if side.gas_worker_limit is not None:
        gas_workers = min(gas_workers, side.gas_worker_limit)
    side.gas_workers = gas_workers
    side.mineral_workers = mineral_workers = max(0, available - gas_workers)
    side.base_workers = [0] * len(side.sites)
    multiplier = side.harvest_multiplier * dt
    income_m = income_g = 0.0
    for base, slot in geysers:
        n = min(WORKERS_PER_GEYSER, gas_workers)
        gas_workers -= n
        site = side.sites[base]
        amount = min(site.gas[slot], gas_income(n) * multiplier)
        site.gas[slot] -= amount
        income_g += amount
        side.base_workers[base] += n
    on_minerals = dict.fromkeys(bases, 0)
    for cap in (EFFICIENT_WORKERS, None):
        for base in bases:
            site = side.sites[base]
            limit = saturation(site.minerals)
            if cap is not None:
                limit = min(cap, limit)
            extra = max(0, min(mineral_workers, limit - on_minerals[base]))
            on_minerals[base] += extra
            mineral_workers -= extra
    for base in bases:
        site = side.sites[base]
        amount = min(site.minerals, mineral_income(on_minerals[base], site.minerals) * multiplier)
        site.minerals -= amount
        income_m += amount
        side.base_workers[base] += on_minerals[base]
    side.minerals += income_m
    side.gas += income_g
    side.collected += income_m + income_g


def fighters_at_base(side: Side, base: int) -> list[Stack]:
    """A base's structures and workers as combat stacks (static defence shoots back)."""
    stacks: list[Stack] = []
    for s in side.structures:
        if s.base == base:
            fighter = side.fighter(s.key)
            stacks.append(Stack(fighter, 1, fighter.total_hp - s.hp, owner=s))
    workers = side.base_workers[base] if base < len(side.base_workers) else 0
    if workers:
        stacks.append(Stack(side.fighter(side.worker_key), workers))
    return stacks


def group_stacks(side: Side, group: Group) -> list[Stack]:
    return [
        Stack(side.fighter(k), n, group.damage.get(k, 0.0), owner=group)
        for k, n in group.units.items()
        if n > 0
    ]


def write_back(side: Side, stacks: list[Stack]) -> list[Structure]:
    """Copy stack counts back to groups, structures and workers; return destroyed structures."""
    destroyed: list[Structure] = []
    for stack in stacks:
        owner = stack.owner
        key = stack.fighter.key
        if isinstance(owner, Group):
            if stack.count:
                owner.units[key] = stack.count
                owner.damage[key] = stack.damage
            else:
                owner.units.pop(key, None)
                owner.damage.pop(key, None)
        elif isinstance(owner, Structure):
            owner.hp = stack.fighter.total_hp - stack.damage if stack.count else 0.0
            if not stack.count:
                destroyed.append(owner)
    for s in destroyed:
        side.structures.remove(s)
    if destroyed:
        side.structures_changed()
    return destroyed


def new_side(faction: str, game_map: MapSpec, *, enemy: bool) -> Side:
    positions = game_map.enemy_bases() if enemy else game_map.bases
    side = Side(faction=faction, sites=[BaseSite(pos=p) for p in positions])
    hall = "nexus" if faction == "protoss" else "hatchery"
    spec = side.structure_specs[hall]
    main = Structure(uid=0, key=hall, base=0, build_left=0.0, hp=spec.hp + spec.shields)
    if faction == "protoss":
        main.energy = 50.0
    else:
        main.larva = 3
        side.overlords = 1
    side.structures.append(main)
    side.groups["home"] = Group("home", positions[0])
    return side
