"""The built-in Zerg AI: difficulty levels 1-10 and the five build styles.

Levels scale how often the AI thinks and how many things it does per thought (its
APM), its worker and base targets, its queens' injects, the size of its attack waves,
whether it retreats from lost fights and how well it knows the player's army. Levels
8-10 see the whole map and use it: they pick, among their phase's unit mixes, the one
that best counters the player's army as it is now, attack early when clearly stronger,
hold a complete wave back while the player's army would beat it, pull a wave back
before a losing fight or to defend their bases, and macro tightly because they see
no threat coming: the next base once the current ones are saturated, a macro
hatchery when minerals bank up without larva, gas drones moved to minerals while gas
piles up unspent. They never scout (there is no fog to lift). Levels 9 and 10 also
harvest more (the cheating levels' bonus, ramped over the first 14 minutes of real
game time).

Styles (`timing`, `rush`, `power`, `macro`, `air`) differ in their openings, tech
paths, unit mixes by game phase, expansion timings and attack waves: the level-5 wave
targets follow the built-in script (e.g. a rush's first wave of ~12 supply at ~3:54).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from typing import Protocol

from bounded.envs.craft import combat
from bounded.envs.craft.data import ZERG_RESEARCH, ZERG_STRUCTURES, ZERG_UNITS
from bounded.envs.craft.maps import Point, distance
from bounded.envs.craft.sim import (
    ENERGY_REGEN,
    MAX_ENERGY,
    Group,
    Pending,
    Side,
    Structure,
    group_stacks,
)


class Battlefield(Protocol):
    """What the Zerg AI reads of the game it plays in and calls on it (`World` is the one;
    typed here so this module does not import the world that imports it)."""

    time: float
    player: Side
    enemy: Side

    def next_uid(self) -> int: ...

    def note(self, message: str) -> None: ...

    def describe_units(self, units: dict[str, int]) -> str: ...

    def rally(self, side: Side) -> Point: ...

    def free_site(self, side: Side) -> int | None: ...

    def intruder_near(self, side: Side) -> Point | None: ...

    def nearest_base_of(self, side: Side, origin: Point) -> Point | None: ...

    def player_army_stacks(self) -> list[combat.Stack]: ...

    def player_stacks_near(self, pos: Point) -> list[combat.Stack]: ...

    def strength_ratio(self, own: list[combat.Stack], enemy: list[combat.Stack]) -> float: ...


STYLES = ("timing", "rush", "power", "macro", "air")
LARVA_PERIOD = 10.7
MAX_NATURAL_LARVA = 3
MAX_LARVA = 19
INJECT_COST = 25.0
INJECT_TIME = 28.6
INJECT_LARVA = 3
QUEEN_START_ENERGY = 25.0
CHEAT_RAMP_START = 120 / 1.4
CHEAT_RAMP_END = 1200 / 1.4
"""Cheating income ramps over game minutes 2-20 of the AI script's clock (real seconds)."""
TIMING_JITTER = 0.12
"""Wave and expansion timings vary by up to this share from game to game."""
DRONE_JITTER = 4
WAVE_OVERSHOOT = 1.3
"""A wave takes at most this multiple of its target supply; the rest stays home."""
RETREAT_RATIO = 0.45
"""A wave retreats when its Lanchester strength falls below this share of the defenders'."""
TIMING_ADVANTAGE = 1.5
"""Perceived strength ratio at which the timing style attacks before its wave is complete."""
VISION_ADVANTAGE = 1.3
"""Strength ratio at which a full-vision AI attacks before its wave is complete."""
VISION_HOLD = 0.9
"""A full-vision AI keeps a complete wave home while its strength ratio is below this."""
VISION_RETREAT_RATIO = 0.8
"""A full-vision wave retreats when its strength ratio against the defenders it faces
falls below this (it sees a losing fight coming; blind levels retreat at RETREAT_RATIO)."""
VISION_MAXED_SUPPLY = 180
"""Supply at which a full-vision AI attacks anyway: it cannot grow stronger."""
GAS_BANK_HIGH = 600.0
"""Gas bank at which a full-vision AI moves its gas drones to minerals (tight macro)..."""
GAS_BANK_LOW = 200.0
"""...and the bank at which it sends them back."""
SATURATION_MARGIN = 4
"""Drones short of saturation at which a full-vision AI takes its next base early."""
MACRO_HATCH_BANK = 500.0
"""Mineral bank at which a full-vision AI without larva adds a macro hatchery..."""
MAX_MACRO_HATCHES = 2
"""...at most this many."""
COUNTER_PERIOD = 30.0
"""Seconds between a full-vision AI's reviews of which mix best counters the player."""
COUNTER_MIN_SUPPLY = 20.0
"""Army size at which candidate mixes are compared (the player's, if larger)."""
COUNTER_SWITCH = 1.1
"""A new mix must beat the current one's strength ratio by this factor (no dithering)."""


@dataclass(frozen=True)
class LevelProfile:
    """What a difficulty level changes."""

    think_period: float
    """Seconds between macro decisions."""
    actions_per_think: int
    max_drones: int
    max_bases: int
    wave_scale: float
    """Attack wave size relative to level 5."""
    time_scale: float
    """Wave and expansion timings relative to level 5."""
    inject_energy: float
    """Queen energy at which it injects (0: never)."""
    upgrades: bool
    retreat: bool
    estimate_noise: float
    """Error of its estimate of the player's army (0 with full vision, 1: no estimate)."""
    army_cap: int = 200
    """Army supply beyond which it stops making army units."""
    full_vision: bool = False
    harvest_start: float = 1.0
    harvest_end: float = 1.0


LEVELS: dict[int, LevelProfile] = {
    1: LevelProfile(6.0, 1, 20, 2, 0.35, 1.6, 0.0, False, False, 1.0, army_cap=16),
    2: LevelProfile(4.0, 2, 28, 2, 0.5, 1.4, 0.0, False, False, 1.0, army_cap=30),
    3: LevelProfile(3.0, 2, 36, 3, 0.65, 1.2, 60.0, False, False, 1.0, army_cap=50),
    4: LevelProfile(2.0, 3, 46, 3, 0.8, 1.1, 50.0, True, True, 1.0, army_cap=80),
    5: LevelProfile(1.5, 4, 50, 4, 1.0, 1.0, 25.0, True, True, 0.35, army_cap=100),
    6: LevelProfile(1.0, 6, 66, 4, 1.15, 0.95, 25.0, True, True, 0.2, army_cap=140),
    7: LevelProfile(1.0, 8, 75, 5, 1.3, 0.9, 25.0, True, True, 0.1, army_cap=170),
    8: LevelProfile(0.75, 10, 85, 5, 1.5, 0.85, 25.0, True, True, 0.0, full_vision=True),
    9: LevelProfile(
        0.75,
        10,
        85,
        5,
        1.5,
        0.85,
        25.0,
        True,
        True,
        0.0,
        full_vision=True,
        harvest_start=1.0,
        harvest_end=1.5,
    ),
    10: LevelProfile(
        0.75,
        10,
        85,
        5,
        1.5,
        0.85,
        25.0,
        True,
        True,
        0.0,
        full_vision=True,
        harvest_start=1.2,
        harvest_end=2.0,
    ),
}


@dataclass(frozen=True)
class Phase:
    """A part of the game (from `start` seconds) with the unit mixes the AI may pick."""

    start: float
    mixes: tuple[dict[str, float], ...]
    drones: int
    """Drone target in this phase (before the level's cap)."""
    extractors: int


@dataclass(frozen=True)
class StylePlan:
    """One build style."""

    name: str
    pool_supply: int
    expansions: tuple[float, ...]
    """Times (s) of the 2nd, 3rd, ... hatchery."""
    waves: tuple[tuple[float, float], ...]
    """(army supply, earliest time s) of successive attack waves at level 5."""
    phases: tuple[Phase, ...]
    attacks_on_advantage: bool = False
    keep_home: float = 0.0
    """Share of the army that stays home when a wave leaves."""


def _s(game_seconds: float) -> float:
    return game_seconds / 1.4


STYLE_PLANS: dict[str, StylePlan] = {
    "rush": StylePlan(
        "rush",
        pool_supply=12,
        expansions=(330.0, 600.0),
        waves=((12, _s(328)), (30, 330), (45, 450), (62, 600)),
        phases=(
            Phase(
                0,
                (
                    {"zergling": 4, "baneling": 1},
                    {"roach": 3, "zergling": 1},
                    {"zergling": 1, "roach": 1, "ravager": 1},
                ),
                16,
                1,
            ),
            Phase(
                330,
                ({"roach": 3, "ravager": 1, "zergling": 2}, {"roach": 2, "hydralisk": 1}),
                30,
                2,
            ),
            Phase(
                660,
                (
                    {"roach": 2, "hydralisk": 2, "lurker": 1},
                    {"zergling": 3, "baneling": 1, "hydralisk": 2},
                ),
                50,
                4,
            ),
        ),
    ),
    "timing": StylePlan(
        "timing",
        pool_supply=17,
        expansions=(240.0, 540.0),
        waves=((17, _s(375)), (45, 480), (62, 640)),
        phases=(
            Phase(
                0,
                (
                    {"zergling": 2, "baneling": 1},
                    {"roach": 5, "zergling": 1},
                    {"zergling": 2, "roach": 2},
                ),
                22,
                1,
            ),
            Phase(360, ({"roach": 3, "ravager": 1}, {"roach": 2, "hydralisk": 2}), 40, 3),
            Phase(
                720,
                (
                    {"hydralisk": 3, "lurker": 1, "roach": 2},
                    {"ultralisk": 1, "zergling": 4, "baneling": 1},
                ),
                60,
                5,
            ),
        ),
        attacks_on_advantage=True,
    ),
    "power": StylePlan(
        "power",
        pool_supply=18,
        expansions=(60.0, 180.0, 480.0),
        waves=((24, _s(487)), (48, 560), (66, 720)),
        phases=(
            Phase(
                0,
                ({"roach": 1}, {"zergling": 2, "baneling": 1}, {"roach": 2, "hydralisk": 1}),
                38,
                2,
            ),
            Phase(
                330,
                (
                    {"roach": 2, "hydralisk": 2},
                    {"roach": 3, "infestor": 1, "swarmhost": 1},
                    {"mutalisk": 2, "zergling": 3, "baneling": 1},
                ),
                55,
                4,
            ),
            Phase(
                720,
                (
                    {"ultralisk": 1, "hydralisk": 3, "zergling": 2},
                    {"broodlord": 1, "corruptor": 1, "hydralisk": 2},
                ),
                70,
                6,
            ),
        ),
    ),
    "macro": StylePlan(
        "macro",
        pool_supply=18,
        expansions=(45.0, 150.0, 360.0, 600.0),
        waves=((12, _s(225)), (42, 620), (66, 780)),
        phases=(
            Phase(0, ({"zergling": 2, "queen": 1}, {"roach": 1, "queen": 1}), 40, 2),
            Phase(
                300,
                ({"hydralisk": 3, "lurker": 1}, {"roach": 2, "hydralisk": 2, "infestor": 1}),
                62,
                5,
            ),
            Phase(
                660,
                (
                    {"ultralisk": 1, "zergling": 3, "baneling": 1, "hydralisk": 1},
                    {"broodlord": 1, "corruptor": 1, "hydralisk": 2},
                ),
                75,
                7,
            ),
        ),
        keep_home=0.2,
    ),
    "air": StylePlan(
        "air",
        pool_supply=17,
        expansions=(70.0, 300.0, 600.0),
        waves=((14, _s(506)), (32, 600), (45, 760)),
        phases=(
            Phase(0, ({"zergling": 2, "queen": 1},), 30, 2),
            Phase(270, ({"mutalisk": 1}, {"mutalisk": 3, "corruptor": 1}), 48, 4),
            Phase(
                660,
                (
                    {"mutalisk": 2, "corruptor": 2, "viper": 1, "hydralisk": 1},
                    {"broodlord": 1, "corruptor": 2, "mutalisk": 1},
                ),
                65,
                6,
            ),
        ),
    ),
}


def harvest_bonus(profile: LevelProfile, time: float) -> float:
    if time <= CHEAT_RAMP_START:
        return profile.harvest_start
    if time >= CHEAT_RAMP_END:
        return profile.harvest_end
    f = (time - CHEAT_RAMP_START) / (CHEAT_RAMP_END - CHEAT_RAMP_START)
    return profile.harvest_start + f * (profile.harvest_end - profile.harvest_start)


@cache
def tech_path(unit: str) -> tuple[str, ...]:
    """Structures needed for a unit, prerequisites first."""
    needed: list[str] = []

    def need(key: str) -> None:
        if key in needed or key == "hatchery":
            return
        spec = ZERG_STRUCTURES[key]
        for req in spec.requires:
            need(req)
        if spec.morph_from:
            need(spec.morph_from)
        needed.append(key)

    spec = ZERG_UNITS[unit]
    if spec.producer in ZERG_UNITS:
        for key in tech_path(spec.producer):
            need(key)
    for req in spec.requires:
        need(req)
    return tuple(needed)


class ZergAI:
    """Plays the enemy side of a `World`."""

    def __init__(self, world: Battlefield, level: int, style: str, rng: random.Random) -> None:
        self.world = world
        self.level = level
        self.profile = LEVELS[level]
        self.plan = STYLE_PLANS[style]
        self.rng = rng
        self.mix_choice = [rng.randrange(len(p.mixes)) for p in self.plan.phases]
        self.timing_jitter = 1.0 + TIMING_JITTER * (2 * rng.random() - 1)
        self.drone_jitter = rng.randint(-DRONE_JITTER, DRONE_JITTER)
        self.next_think = 0.0
        self.queen_energy: list[float] = []
        self.wave_index = 0
        self.wave_launched_at = -1.0
        self.estimate = 0.0
        self.estimate_at = -1e9
        self.next_counter = 0.0
        self.counter_mix: dict[int, dict[str, float]] = {}
        """Per phase: the mix a full-vision AI picked against the player's army."""

    @property
    def side(self) -> Side:
        return self.world.enemy

    # -- every tick -----------------------------------------------------------

    def update(self, dt: float) -> None:
        side = self.side
        side.harvest_multiplier = harvest_bonus(self.profile, self.world.time)
        if self.profile.full_vision:
            self._balance_gas()
        self._larva_and_injects(dt)
        if self.profile.full_vision and self.world.time >= self.next_counter:
            self.next_counter = self.world.time + COUNTER_PERIOD
            self._choose_counter_mix()
        if self.world.time >= self.next_think:
            self.next_think = self.world.time + self.profile.think_period
            self._think()
        self._control_army()

    def _balance_gas(self) -> None:
        """Tight macro: no drone mines gas the AI cannot spend while it lacks minerals."""
        side = self.side
        if side.gas >= GAS_BANK_HIGH and side.gas > side.minerals:
            side.gas_worker_limit = 0
        elif side.gas <= GAS_BANK_LOW:
            side.gas_worker_limit = None

    def _larva_and_injects(self, dt: float) -> None:
        side = self.side
        halls = [s for s in side.structures if s.done and s.key in ("hatchery", "lair", "hive")]
        queens = side.groups["home"].units.get("queen", 0)
        while len(self.queen_energy) < queens:
            self.queen_energy.append(QUEEN_START_ENERGY)
        del self.queen_energy[queens:]
        for i, hall in enumerate(halls):
            if hall.larva < MAX_NATURAL_LARVA:
                hall.larva_timer += dt
                if hall.larva_timer >= LARVA_PERIOD:
                    hall.larva += 1
                    hall.larva_timer = 0.0
            if hall.inject_left > 0:
                hall.inject_left -= dt
                if hall.inject_left <= 0:
                    hall.larva = min(MAX_LARVA, hall.larva + INJECT_LARVA)
            if i < len(self.queen_energy):
                energy = min(MAX_ENERGY, self.queen_energy[i] + ENERGY_REGEN * dt)
                threshold = self.profile.inject_energy
                if threshold and energy >= threshold and hall.inject_left <= 0:
                    energy -= INJECT_COST
                    hall.inject_left = INJECT_TIME
                self.queen_energy[i] = energy

    # -- macro ----------------------------------------------------------------

    def phase_index(self) -> int:
        time = self.world.time / self.profile.time_scale
        index = 0
        for i, phase in enumerate(self.plan.phases):
            if time >= phase.start:
                index = i
        return index

    def mix(self, index: int | None = None) -> dict[str, float]:
        i = self.phase_index() if index is None else index
        return self.counter_mix.get(i) or self.plan.phases[i].mixes[self.mix_choice[i]]

    def _choose_counter_mix(self) -> None:
        """Full vision: switch to the phase's mix that fares best against the player's army
        as it is now (candidates at the same army supply, of the units it can make now)."""
        enemy = self.world.player_army_stacks()
        if not enemy:
            return
        index = self.phase_index()
        current = self.mix(index)
        candidates = self.plan.phases[index].mixes
        supply = max(COUNTER_MIN_SUPPLY, self.world.player.army_supply())

        def ratio(mix: dict[str, float]) -> float:
            own = self._mix_stacks(mix, supply)
            return self.world.strength_ratio(own, enemy) if own else 0.0

        best = max(candidates, key=ratio)
        if ratio(best) > COUNTER_SWITCH * ratio(current):
            self.counter_mix[index] = best

    def _mix_stacks(self, mix: dict[str, float], supply: float) -> list[combat.Stack]:
        """An army of `supply` in the mix's proportions, of the units whose tech is done."""
        side = self.side
        ready = {
            key: weight
            for key, weight in mix.items()
            if all(side.has_done(k) for k in tech_path(key))
        }
        total = sum(ready.values())
        return [
            combat.Stack(
                side.fighter(key), max(1, round(supply * weight / total / ZERG_UNITS[key].supply))
            )
            for key, weight in ready.items()
        ]

    def _think(self) -> None:
        budget = self.profile.actions_per_think
        for step in (
            self._overlord,
            self._queen,
            self._tech,
            self._expand,
            self._macro_hatchery,
            self._extractor,
            self._upgrade,
            self._spend_larva,
        ):
            while budget > 0 and step():
                budget -= 1
            if budget <= 0:
                return

    def _supply_left(self) -> float:
        side = self.side
        pending = sum(8 * p.count for p in side.pending if p.unit == "overlord")
        return side.supply_cap() + pending - side.supply_used()

    def _overlord(self) -> bool:
        side = self.side
        halls = len(side.town_hall_bases())
        if side.supply_cap() >= 200 or self._supply_left() >= 3 + 3 * halls:
            return False
        return self._train_from_larva("overlord")

    def _queen(self) -> bool:
        side = self.side
        if not side.has_done("spawningpool"):
            return False
        have = side.groups["home"].units.get("queen", 0) + side.producing().get("queen", 0)
        halls = [s for s in side.structures if s.idle and s.key in ("hatchery", "lair", "hive")]
        wanted = len(side.town_hall_bases()) if self.level >= 2 else 0
        wanted += int(self.mix().get("queen", 0))
        if have >= wanted or not halls:
            return False
        return self._start_job(halls[0], "queen")

    def _wanted_structures(self) -> list[str]:
        side = self.side
        wanted: list[str] = []
        if side.supply_used() >= self.plan.pool_supply or self.world.time > 150:
            wanted.append("spawningpool")
        phase = self.phase_index()
        lookahead = self.world.time / self.profile.time_scale + 60
        indices = [phase] + [
            i for i, p in enumerate(self.plan.phases) if i > phase and p.start <= lookahead
        ]
        for i in indices:
            for unit in self.mix(i):
                for key in tech_path(unit):
                    if key not in wanted:
                        wanted.append(key)
        return wanted

    def _tech(self) -> bool:
        side = self.side
        for key in self._wanted_structures():
            if side.count_structures(key) or self._morph_in_progress(key):
                continue
            spec = ZERG_STRUCTURES[key]
            if not all(side.has_done(r) for r in spec.requires):
                continue
            if spec.morph_from:
                return self._morph_structure(key)
            return self._build(key)
        return False

    def _morph_in_progress(self, key: str) -> bool:
        return any(s.job == f"morph:{key}" for s in self.side.structures)

    def _morph_structure(self, key: str) -> bool:
        side = self.side
        spec = ZERG_STRUCTURES[key]
        source = next((s for s in side.structures if s.key == spec.morph_from and s.idle), None)
        if source is None or not self._afford(spec.minerals, spec.gas):
            return False
        side.charge(spec.minerals, spec.gas)
        source.job, source.job_left = f"morph:{key}", spec.build_time
        return True

    def _build(self, key: str, base: int | None = None) -> bool:
        side = self.side
        spec = ZERG_STRUCTURES[key]
        if side.workers <= 1 or not self._afford(spec.minerals, spec.gas):
            return False
        if base is None:
            bases = side.town_hall_bases(done=True)
            if not bases:
                return False
            base = bases[0]
        side.charge(spec.minerals, spec.gas)
        side.workers -= 1
        side.structures.append(
            Structure(
                uid=self.world.next_uid(),
                key=key,
                base=base,
                build_left=spec.build_time,
                hp=spec.hp,
            )
        )
        return True

    def _expand(self) -> bool:
        side = self.side
        owned = side.occupied_bases()
        count = len(owned)
        limit = min(self.profile.max_bases, 1 + len(self.plan.expansions))
        if count >= limit:
            return False
        due = self.plan.expansions[count - 1] * self.profile.time_scale * self.timing_jitter
        if self.world.time < due and not self._saturated_and_safe():
            return False
        site = self.world.free_site(side)
        if site is None:
            return False
        return self._build("hatchery", site)

    def _saturated_and_safe(self) -> bool:
        """Tight macro (full vision): its bases are nearly saturated and it sees no threat,
        so it takes the next base ahead of its style's schedule."""
        side = self.side
        if not self.profile.full_vision or self.world.intruder_near(side) is not None:
            return False
        halls = len(side.town_hall_bases(done=False))
        capacity = 16 * halls + 3 * side.count_structures("extractor")
        drones = side.workers + side.producing().get("drone", 0)
        return drones >= capacity - SATURATION_MARGIN

    def _macro_hatchery(self) -> bool:
        """Tight macro (full vision): turn a mineral bank into larva with another hatchery."""
        side = self.side
        if not self.profile.full_vision or side.minerals < MACRO_HATCH_BANK:
            return False
        halls = [s for s in side.structures if s.key in ("hatchery", "lair", "hive")]
        extra = len(halls) - len(side.occupied_bases())
        if extra >= MAX_MACRO_HATCHES or any(h.larva for h in halls if h.done):
            return False
        return self._build("hatchery")

    def _extractor(self) -> bool:
        side = self.side
        wanted = self.plan.phases[self.phase_index()].extractors
        if self.world.time < 60 or side.count_structures("extractor") >= wanted:
            return False
        for base in side.town_hall_bases():
            used = sum(1 for s in side.structures if s.key == "extractor" and s.base == base)
            if used < 2:
                return self._build("extractor", base)
        return False

    def _upgrade(self) -> bool:
        side = self.side
        if not self.profile.upgrades or self.world.time < 300:
            return False
        if not side.count_structures("evolutionchamber"):
            return self._build("evolutionchamber")
        lines = ["zergmissileweaponslevel", "zerggroundarmorslevel", "zergmeleeweaponslevel"]
        if any(ZERG_UNITS[u].air for u in self.mix()):
            lines.insert(0, "zergflyerweaponslevel")
        for line in lines:
            for level in (1, 2, 3):
                key = f"{line}{level}"
                if key not in ZERG_RESEARCH or key in side.research:
                    continue
                spec = ZERG_RESEARCH[key]
                if not all(side.has_done(r) for r in spec.requires):
                    break
                at = next((s for s in side.structures if s.key == spec.at and s.idle), None)
                if at is None or not self._afford(spec.minerals, spec.gas):
                    break
                side.charge(spec.minerals, spec.gas)
                side.research[key] = spec.time
                at.job, at.job_left = f"research:{key}", spec.time
                return True
        return False

    def drone_target(self) -> int:
        side = self.side
        phase = self.plan.phases[self.phase_index()]
        halls = len(side.town_hall_bases(done=False))
        capacity = 16 * halls + 3 * side.count_structures("extractor")
        return min(self.profile.max_drones, phase.drones + self.drone_jitter, capacity)

    def _spend_larva(self) -> bool:
        side = self.side
        drones = side.workers + side.producing().get("drone", 0)
        under_attack = self.world.intruder_near(self.side) is not None
        if drones < self.drone_target() and not under_attack and self._train_from_larva("drone"):
            return True
        if side.army_supply() >= self.profile.army_cap:
            return False
        unit = self._next_army_unit()
        if unit is None:
            return False
        spec = ZERG_UNITS[unit]
        if spec.producer in ZERG_UNITS:
            return self._morph_unit(unit)
        if spec.producer == "hatchery":
            return self._queen_for_mix()
        return self._train_from_larva(unit)

    def _queen_for_mix(self) -> bool:
        halls = [
            s for s in self.side.structures if s.idle and s.key in ("hatchery", "lair", "hive")
        ]
        return bool(halls) and self._start_job(halls[0], "queen")

    def _next_army_unit(self) -> str | None:
        side = self.side
        mix = self.mix()
        have = side.army_units()
        for key, n in side.producing().items():
            have[key] = have.get(key, 0) + n
        total_weight = sum(mix.values())
        army = sum(ZERG_UNITS[k].supply * have.get(k, 0) for k in mix) or 1.0
        best, best_gap = None, -1e9
        for key, weight in mix.items():
            spec = ZERG_UNITS[key]
            if not self._can_make(key):
                continue
            share = ZERG_UNITS[key].supply * have.get(key, 0) / army
            gap = weight / total_weight - share
            if gap > best_gap and self._afford(spec.minerals, spec.gas):
                best, best_gap = key, gap
        if best is None and self._can_make("zergling") and self.world.time > 240:
            return "zergling" if self._afford(50, 0) and side.gas < 25 else None
        return best

    def _can_make(self, unit: str) -> bool:
        side = self.side
        spec = ZERG_UNITS[unit]
        if not all(side.has_done(r) for r in spec.requires):
            return False
        if spec.producer in ZERG_UNITS:
            return side.groups["home"].units.get(spec.producer, 0) > 0
        return True

    def _afford(self, minerals: float, gas: float) -> bool:
        return self.side.minerals >= minerals and self.side.gas >= gas

    def _train_from_larva(self, unit: str) -> bool:
        side = self.side
        spec = ZERG_UNITS[unit]
        pair = unit == "zergling"
        minerals, gas = spec.minerals * (2 if pair else 1), spec.gas * (2 if pair else 1)
        supply = spec.supply * (2 if pair else 1)
        if unit != "overlord" and side.supply_used() + supply > side.supply_cap():
            return False
        hall = next(
            (
                s
                for s in side.structures
                if s.done and s.larva > 0 and s.key in ("hatchery", "lair", "hive")
            ),
            None,
        )
        if hall is None or not self._afford(minerals, gas):
            return False
        hall.larva -= 1
        side.charge(minerals, gas)
        side.pending.append(Pending(unit, spec.build_time, 2 if pair else 1))
        return True

    def _morph_unit(self, unit: str) -> bool:
        side = self.side
        spec = ZERG_UNITS[unit]
        extra = spec.supply - ZERG_UNITS[spec.producer].supply
        if extra > 0 and side.supply_used() + extra > side.supply_cap():
            return False
        if not self._afford(spec.minerals, spec.gas):
            return False
        if not side.groups["home"].take(spec.producer):
            return False
        side.charge(spec.minerals, spec.gas)
        side.pending.append(Pending(unit, spec.build_time))
        return True

    def _start_job(self, hall: Structure, unit: str) -> bool:
        side = self.side
        spec = ZERG_UNITS[unit]
        if side.supply_used() + spec.supply > side.supply_cap() or not self._afford(
            spec.minerals, 0
        ):
            return False
        side.charge(spec.minerals, spec.gas)
        hall.job, hall.job_left = f"unit:{unit}", spec.build_time
        return True

    # -- army -----------------------------------------------------------------

    def wave_target(self) -> tuple[float, float]:
        """(army supply, earliest time) of the next wave at this level."""
        waves = self.plan.waves
        if self.wave_index < len(waves):
            supply, time = waves[self.wave_index]
        else:
            extra = self.wave_index - len(waves) + 1
            supply = min(150.0, waves[-1][0] * 1.2**extra)
            time = self.wave_launched_at + 90
        return supply * self.profile.wave_scale, time * self.profile.time_scale * self.timing_jitter

    def _advantage(self, own: list[combat.Stack]) -> float | None:
        """Own Lanchester strength over the player's army's, as this level perceives it."""
        profile = self.profile
        if profile.estimate_noise >= 1.0:
            return None
        world = self.world
        if world.time - self.estimate_at >= 60:
            self.estimate = 1.0 + profile.estimate_noise * (2 * self.rng.random() - 1)
            self.estimate_at = world.time
        return world.strength_ratio(own, world.player_army_stacks()) * self.estimate

    def _control_army(self) -> None:
        side = self.side
        home = side.groups["home"]
        wave = side.groups.get("wave")
        intruder = self.world.intruder_near(side)
        home.target = intruder if intruder is not None else self.world.rally(side)
        if wave is not None and wave.size:
            self._steer_wave(wave)
            return
        if wave is not None:
            del side.groups["wave"]
            self.wave_index += 1
        self._maybe_launch(home)

    def _army_supply(self, group: Group) -> float:
        return sum(ZERG_UNITS[k].supply * n for k, n in group.units.items() if k != "queen")

    def _maybe_launch(self, home: Group) -> None:
        world = self.world
        supply, earliest = self.wave_target()
        army = self._army_supply(home)
        if army <= 0:
            return
        ready = army >= supply and world.time >= earliest
        own = [s for s in group_stacks(self.side, home) if s.fighter.key != "queen"]
        opportunist = self.profile.full_vision or self.plan.attacks_on_advantage
        advantage = self._advantage(own) if opportunist and not ready else None
        if not ready and advantage is not None:
            ready = self._opportunity(army, supply, earliest, advantage)
        elif ready and self.profile.full_vision:
            ready = self._worth_attacking(own)
        if ready:
            self._launch(home)

    def _worth_attacking(self, own: list[combat.Stack]) -> bool:
        """Full vision: a complete wave waits at home while the player's army would beat it,
        unless the AI is near maxed out."""
        if self.side.supply_used() >= VISION_MAXED_SUPPLY:
            return True
        return self.world.strength_ratio(own, self.world.player_army_stacks()) >= VISION_HOLD

    def _opportunity(self, army: float, supply: float, earliest: float, advantage: float) -> bool:
        """Attack before the wave is complete: at a perceived advantage (timing style) or,
        seeing the whole map (levels 8-10), whenever clearly stronger."""
        time = self.world.time
        if self.profile.full_vision and time >= 0.8 * earliest and advantage >= VISION_ADVANTAGE:
            return True
        return (
            self.plan.attacks_on_advantage
            and time >= earliest
            and army >= 0.6 * supply
            and advantage > TIMING_ADVANTAGE
        )

    def _launch(self, home: Group) -> None:
        world = self.world
        wave = Group("wave", home.pos)
        share = 0.5 if self.level <= 2 else 1.0 - self.plan.keep_home
        target, _ = self.wave_target()
        army = self._army_supply(home)
        if army > WAVE_OVERSHOOT * target:
            share = min(share, WAVE_OVERSHOOT * target / army)
        for key in sorted(home.units):
            if key == "queen":
                continue
            wave.add(key, home.take(key, max(1, round(home.units[key] * share))))
        self.side.groups["wave"] = wave
        self.wave_launched_at = world.time
        world.note(f"The enemy attacks with {world.describe_units(wave.units)}.")

    def _steer_wave(self, wave: Group) -> None:
        world = self.world
        side = self.side
        if wave.retreating:
            rally = world.rally(side)
            wave.target = rally
            if distance(wave.pos, rally) < 3:
                side.groups["home"].merge(wave)
            return
        if self.profile.retreat and self._should_retreat(wave):
            wave.retreating = True
            world.note("The enemy wave retreats.")
            return
        wave.target = world.nearest_base_of(world.player, wave.pos)

    def _should_retreat(self, wave: Group) -> bool:
        """Blind levels retreat from a fight going badly; full vision also pulls back before
        a fight it would lose, and to defend its own bases."""
        world = self.world
        if not self.profile.full_vision:
            if not wave.engaged:
                return False
            own = group_stacks(self.side, wave)
            return world.strength_ratio(own, world.player_stacks_near(wave.pos)) < RETREAT_RATIO
        if not wave.engaged and world.intruder_near(self.side) is not None:
            return True
        facing = world.player_stacks_near(wave.pos) if wave.engaged else []
        if not facing:
            facing = world.player_army_stacks()
        own = group_stacks(self.side, wave)
        return bool(facing) and world.strength_ratio(own, facing) < VISION_RETREAT_RATIO


__all__ = ["LEVELS", "STYLES", "STYLE_PLANS", "ZergAI"]
