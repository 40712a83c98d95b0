"""Unit, structure and research data of both factions (StarCraft II LotV, patch 5.0.13).

Costs, build times, supply, hit points, shields, armor, attributes, weapons and speeds
follow the game's data (see docs/craft.md for the source). Units without a plain
weapon (Disruptor, High Templar's storm, Swarm Host locusts, Infestor fungal) get an
equivalent sustained weapon so that the Lanchester model can count them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LIGHT, ARMORED, BIOLOGICAL, MECHANICAL, MASSIVE, PSIONIC = "L", "A", "B", "M", "Ma", "Ps"


@dataclass(frozen=True)
class Weapon:
    """One weapon: damage per hit (plus a bonus against one attribute) over a cooldown."""

    damage: float
    cooldown: float
    hits: int = 1
    bonus_attribute: str = ""
    bonus: float = 0.0
    upgrade: float = 1.0
    """Damage per hit added by each weapons upgrade level."""
    upgrade_bonus: float = 0.0
    """Bonus damage added by each weapons upgrade level."""
    range: float = 0.1


@dataclass(frozen=True)
class UnitSpec:
    """A unit type of either faction."""

    key: str
    minerals: int
    gas: int
    supply: float
    build_time: float
    producer: str
    """Structure key that trains it, `larva`, or the unit key it morphs from."""
    requires: tuple[str, ...]
    """Completed structures (or research keys) needed besides the producer."""
    hp: float
    shields: float
    armor: float
    attributes: frozenset[str]
    speed: float
    air: bool = False
    ground_weapon: Weapon | None = None
    air_weapon: Weapon | None = None
    splash: float = 0.0
    """Extra targets hit per attack when enemies are packed (0: single target)."""
    upgrades: str = "ground"
    """Which weapon/armor upgrade line applies: `ground`, `air`, `melee`, `missile`, `flyer`."""
    suicide: bool = False
    warp_cooldown: float = 0.0
    """Warp Gate cooldown after a warp-in (gateway units only)."""
    worker: bool = False

    @property
    def is_army(self) -> bool:
        return not self.worker and self.key not in ("overlord",)

    @property
    def total_hp(self) -> float:
        return self.hp + self.shields


@dataclass(frozen=True)
class StructureSpec:
    """A structure type of either faction."""

    key: str
    minerals: int
    gas: int
    build_time: float
    requires: tuple[str, ...]
    hp: float
    shields: float
    armor: float = 1.0
    supply: int = 0
    weapon: Weapon | None = None
    """Static defence: the weapon it fires (ground and/or air per `targets`)."""
    targets: str = ""
    """`G`, `A` or `GA` for static defence."""
    morph_from: str = ""
    """Zerg tech morphs (Lair, Hive, Greater Spire) name the structure they replace."""


@dataclass(frozen=True)
class ResearchSpec:
    """A research (upgrade) of the player's faction."""

    key: str
    minerals: int
    gas: int
    time: float
    at: str
    requires: tuple[str, ...] = ()
    """Completed structures or research keys needed besides `at`."""


def _attrs(*names: str) -> frozenset[str]:
    return frozenset(names)


def _unit(
    key: str,
    cost: tuple[int, int, float, float],
    producer: str,
    requires: tuple[str, ...],
    body: tuple[float, float, float],
    attributes: frozenset[str],
    speed: float,
    **extra: Any,
) -> UnitSpec:
    minerals, gas, supply, build_time = cost
    hp, shields, armor = body
    return UnitSpec(
        key,
        minerals,
        gas,
        supply,
        build_time,
        producer,
        requires,
        hp,
        shields,
        armor,
        attributes,
        speed,
        **extra,
    )


PROTOSS_UNITS: dict[str, UnitSpec] = {
    u.key: u
    for u in (
        _unit(
            "probe",
            (50, 0, 1, 12.1),
            "nexus",
            (),
            (20, 20, 0),
            _attrs(LIGHT, MECHANICAL),
            3.94,
            ground_weapon=Weapon(5, 1.07, range=0.2),
            worker=True,
        ),
        _unit(
            "zealot",
            (100, 0, 2, 27.1),
            "gateway",
            (),
            (100, 50, 1),
            _attrs(LIGHT, BIOLOGICAL),
            3.15,
            ground_weapon=Weapon(8, 0.86, hits=2),
            warp_cooldown=20.0,
        ),
        _unit(
            "adept",
            (100, 25, 2, 30.0),
            "gateway",
            ("cyberneticscore",),
            (70, 70, 1),
            _attrs(LIGHT, BIOLOGICAL),
            3.5,
            ground_weapon=Weapon(
                10, 1.61, bonus_attribute=LIGHT, bonus=12, upgrade_bonus=1, range=4
            ),
            warp_cooldown=20.0,
        ),
        _unit(
            "stalker",
            (125, 50, 2, 30.0),
            "gateway",
            ("cyberneticscore",),
            (80, 80, 1),
            _attrs(ARMORED, MECHANICAL),
            4.13,
            ground_weapon=Weapon(
                13, 1.34, bonus_attribute=ARMORED, bonus=5, upgrade_bonus=1, range=6
            ),
            air_weapon=Weapon(13, 1.34, bonus_attribute=ARMORED, bonus=5, upgrade_bonus=1, range=6),
            warp_cooldown=22.9,
        ),
        _unit(
            "sentry",
            (50, 100, 2, 22.9),
            "gateway",
            ("cyberneticscore",),
            (40, 40, 1),
            _attrs(MECHANICAL, PSIONIC),
            3.5,
            ground_weapon=Weapon(6, 0.71, range=5),
            air_weapon=Weapon(6, 0.71, range=5),
            warp_cooldown=22.9,
        ),
        _unit(
            "hightemplar",
            (50, 150, 2, 39.3),
            "gateway",
            ("templararchive",),
            (40, 40, 0),
            _attrs(LIGHT, BIOLOGICAL, PSIONIC),
            2.82,
            ground_weapon=Weapon(4, 1.25, range=6),
            warp_cooldown=32.1,
        ),
        _unit(
            "darktemplar",
            (125, 125, 2, 39.3),
            "gateway",
            ("darkshrine",),
            (40, 80, 1),
            _attrs(LIGHT, BIOLOGICAL, PSIONIC),
            3.94,
            ground_weapon=Weapon(45, 1.21, upgrade=5),
            warp_cooldown=32.1,
        ),
        _unit(
            "archon",
            (0, 0, 4, 8.6),
            "hightemplar",
            (),
            (10, 350, 0),
            _attrs(PSIONIC, MASSIVE),
            3.94,
            ground_weapon=Weapon(
                25, 1.25, bonus_attribute=BIOLOGICAL, bonus=10, upgrade=3, upgrade_bonus=1, range=3
            ),
            air_weapon=Weapon(
                25, 1.25, bonus_attribute=BIOLOGICAL, bonus=10, upgrade=3, upgrade_bonus=1, range=3
            ),
            splash=1.0,
        ),
        _unit(
            "immortal",
            (275, 100, 4, 39.3),
            "roboticsfacility",
            (),
            (200, 100, 1),
            _attrs(ARMORED, MECHANICAL),
            3.15,
            ground_weapon=Weapon(
                20, 1.04, bonus_attribute=ARMORED, bonus=30, upgrade=2, upgrade_bonus=3, range=6
            ),
        ),
        _unit(
            "colossus",
            (300, 200, 6, 53.6),
            "roboticsfacility",
            ("roboticsbay",),
            (200, 150, 1),
            _attrs(ARMORED, MECHANICAL, MASSIVE),
            3.15,
            ground_weapon=Weapon(
                10, 1.07, hits=2, bonus_attribute=LIGHT, bonus=5, upgrade_bonus=1, range=7
            ),
            splash=2.0,
        ),
        _unit(
            "disruptor",
            (150, 150, 4, 35.7),
            "roboticsfacility",
            ("roboticsbay",),
            (100, 100, 1),
            _attrs(ARMORED, MECHANICAL),
            3.15,
            ground_weapon=Weapon(145, 21.4, upgrade=0, range=9),
            splash=4.0,
        ),
        _unit(
            "observer",
            (25, 75, 1, 17.9),
            "roboticsfacility",
            (),
            (40, 30, 0),
            _attrs(LIGHT, MECHANICAL),
            2.82,
            air=True,
        ),
        _unit(
            "warpprism",
            (250, 0, 2, 35.7),
            "roboticsfacility",
            (),
            (80, 100, 0),
            _attrs(ARMORED, MECHANICAL, PSIONIC),
            4.13,
            air=True,
        ),
        _unit(
            "phoenix",
            (150, 100, 2, 25.0),
            "stargate",
            (),
            (120, 60, 0),
            _attrs(LIGHT, MECHANICAL),
            5.95,
            air=True,
            air_weapon=Weapon(5, 0.79, hits=2, bonus_attribute=LIGHT, bonus=5, range=5),
            upgrades="air",
        ),
        _unit(
            "voidray",
            (250, 150, 4, 43.0),
            "stargate",
            (),
            (150, 100, 0),
            _attrs(ARMORED, MECHANICAL),
            3.85,
            air=True,
            ground_weapon=Weapon(6, 0.36, bonus_attribute=ARMORED, bonus=4, range=6),
            air_weapon=Weapon(6, 0.36, bonus_attribute=ARMORED, bonus=4, range=6),
            upgrades="air",
        ),
        _unit(
            "oracle",
            (150, 150, 3, 37.1),
            "stargate",
            (),
            (100, 60, 0),
            _attrs(ARMORED, MECHANICAL, PSIONIC),
            5.6,
            air=True,
            ground_weapon=Weapon(15, 1.22, bonus_attribute=LIGHT, bonus=7, upgrade=0, range=4),
            upgrades="air",
        ),
        _unit(
            "tempest",
            (250, 175, 5, 42.9),
            "stargate",
            ("fleetbeacon",),
            (200, 100, 2),
            _attrs(ARMORED, MECHANICAL, MASSIVE),
            3.15,
            air=True,
            ground_weapon=Weapon(40, 2.36, upgrade=4, range=10),
            air_weapon=Weapon(
                30, 2.36, bonus_attribute=MASSIVE, bonus=22, upgrade=2, upgrade_bonus=2, range=14
            ),
            upgrades="air",
        ),
        _unit(
            "carrier",
            (350, 250, 6, 64.3),
            "stargate",
            ("fleetbeacon",),
            (300, 150, 2),
            _attrs(ARMORED, MECHANICAL, MASSIVE),
            2.62,
            air=True,
            ground_weapon=Weapon(5, 2.14, hits=16, range=8),
            air_weapon=Weapon(5, 2.14, hits=16, range=8),
            upgrades="air",
        ),
        _unit(
            "mothership",
            (300, 300, 6, 89.3),
            "nexus",
            ("fleetbeacon",),
            (250, 250, 2),
            _attrs(ARMORED, MECHANICAL, PSIONIC, MASSIVE),
            2.82,
            air=True,
            ground_weapon=Weapon(6, 1.58, hits=6, range=7),
            air_weapon=Weapon(6, 1.58, hits=6, range=7),
            upgrades="air",
        ),
    )
}
"""Protoss units (Carrier: eight interceptors included, as after it has rebuilt them)."""

PSIONIC_STORM = Weapon(80, 10.0, upgrade=0, range=9)
"""High Templar with Psionic Storm: one storm (80 damage) per ~10 s of fighting, splash."""

ZERG_UNITS: dict[str, UnitSpec] = {
    u.key: u
    for u in (
        _unit(
            "drone",
            (50, 0, 1, 12.1),
            "larva",
            (),
            (40, 0, 0),
            _attrs(LIGHT, BIOLOGICAL),
            3.94,
            ground_weapon=Weapon(5, 1.07, range=0.2),
            worker=True,
        ),
        _unit(
            "overlord",
            (100, 0, 0, 17.9),
            "larva",
            (),
            (200, 0, 0),
            _attrs(ARMORED, BIOLOGICAL),
            0.9,
            air=True,
        ),
        _unit(
            "queen",
            (150, 0, 2, 35.7),
            "hatchery",
            ("spawningpool",),
            (175, 0, 1),
            _attrs(BIOLOGICAL, PSIONIC),
            1.31,
            ground_weapon=Weapon(4, 0.71, hits=2, range=5),
            air_weapon=Weapon(9, 0.71, range=7),
            upgrades="missile",
        ),
        _unit(
            "zergling",
            (25, 0, 0.5, 17.1),
            "larva",
            ("spawningpool",),
            (35, 0, 0),
            _attrs(LIGHT, BIOLOGICAL),
            4.13,
            ground_weapon=Weapon(5, 0.5),
            upgrades="melee",
        ),
        _unit(
            "baneling",
            (25, 25, 0.5, 14.3),
            "zergling",
            ("banelingnest",),
            (30, 0, 0),
            _attrs(BIOLOGICAL),
            3.5,
            ground_weapon=Weapon(
                16, 1.0, bonus_attribute=LIGHT, bonus=19, upgrade=2, upgrade_bonus=2
            ),
            splash=2.5,
            suicide=True,
            upgrades="melee",
        ),
        _unit(
            "roach",
            (75, 25, 2, 19.3),
            "larva",
            ("roachwarren",),
            (145, 0, 1),
            _attrs(ARMORED, BIOLOGICAL),
            3.15,
            ground_weapon=Weapon(16, 1.43, upgrade=2, range=4),
            upgrades="missile",
        ),
        _unit(
            "ravager",
            (25, 75, 3, 12.1),
            "roach",
            ("roachwarren",),
            (120, 0, 1),
            _attrs(BIOLOGICAL),
            3.85,
            ground_weapon=Weapon(16, 1.14, upgrade=2, range=6),
            splash=0.5,
            upgrades="missile",
        ),
        _unit(
            "hydralisk",
            (100, 50, 2, 23.6),
            "larva",
            ("hydraliskden",),
            (90, 0, 0),
            _attrs(LIGHT, BIOLOGICAL),
            3.15,
            ground_weapon=Weapon(12, 0.59, range=5),
            air_weapon=Weapon(12, 0.59, range=5),
            upgrades="missile",
        ),
        _unit(
            "lurker",
            (50, 100, 3, 18.0),
            "hydralisk",
            ("lurkerden",),
            (200, 0, 1),
            _attrs(ARMORED, BIOLOGICAL),
            4.13,
            ground_weapon=Weapon(
                20, 1.43, bonus_attribute=ARMORED, bonus=10, upgrade=2, upgrade_bonus=1, range=8
            ),
            splash=2.0,
            upgrades="missile",
        ),
        _unit(
            "mutalisk",
            (100, 100, 2, 23.6),
            "larva",
            ("spire",),
            (120, 0, 0),
            _attrs(LIGHT, BIOLOGICAL),
            5.6,
            air=True,
            ground_weapon=Weapon(9, 1.09, range=3),
            air_weapon=Weapon(9, 1.09, range=3),
            splash=0.45,
            upgrades="flyer",
        ),
        _unit(
            "corruptor",
            (150, 100, 2, 28.6),
            "larva",
            ("spire",),
            (200, 0, 2),
            _attrs(ARMORED, BIOLOGICAL),
            4.72,
            air=True,
            air_weapon=Weapon(14, 1.36, bonus_attribute=MASSIVE, bonus=6, upgrade_bonus=1, range=6),
            upgrades="flyer",
        ),
        _unit(
            "broodlord",
            (150, 150, 4, 24.2),
            "corruptor",
            ("greaterspire",),
            (225, 0, 1),
            _attrs(ARMORED, BIOLOGICAL, MASSIVE),
            2.62,
            air=True,
            ground_weapon=Weapon(20, 1.79, upgrade=2, range=10),
            splash=0.5,
            upgrades="flyer",
        ),
        _unit(
            "infestor",
            (100, 150, 2, 35.7),
            "larva",
            ("infestationpit",),
            (90, 0, 0),
            _attrs(ARMORED, BIOLOGICAL, PSIONIC),
            3.15,
            ground_weapon=Weapon(30, 8.0, upgrade=0, range=10),
            air_weapon=Weapon(30, 8.0, upgrade=0, range=10),
            splash=3.0,
        ),
        _unit(
            "swarmhost",
            (100, 75, 3, 28.6),
            "larva",
            ("infestationpit",),
            (160, 0, 1),
            _attrs(ARMORED, BIOLOGICAL),
            3.15,
            ground_weapon=Weapon(10, 1.03, hits=2, upgrade=1, range=3),
            upgrades="melee",
        ),
        _unit(
            "ultralisk",
            (275, 200, 6, 39.3),
            "larva",
            ("ultraliskcavern",),
            (500, 0, 2),
            _attrs(ARMORED, BIOLOGICAL, MASSIVE),
            4.13,
            ground_weapon=Weapon(35, 0.61, upgrade=3, range=1),
            splash=1.0,
            upgrades="melee",
        ),
        _unit(
            "viper",
            (100, 200, 3, 28.6),
            "larva",
            ("hive",),
            (150, 0, 1),
            _attrs(ARMORED, BIOLOGICAL, PSIONIC),
            4.13,
            air=True,
        ),
    )
}
"""Zerg units. Zergling: cost and supply per zergling (an egg holds two)."""

PROTOSS_STRUCTURES: dict[str, StructureSpec] = {
    s.key: s
    for s in (
        StructureSpec("nexus", 400, 0, 71.4, (), 1000, 1000, supply=15),
        StructureSpec("pylon", 100, 0, 17.9, (), 200, 200, supply=8),
        StructureSpec("assimilator", 75, 0, 21.4, (), 300, 300),
        StructureSpec("gateway", 150, 0, 46.4, ("nexus", "pylon"), 500, 500),
        StructureSpec("warpgate", 0, 0, 7.1, ("warpgateresearch",), 500, 500),
        StructureSpec("forge", 150, 0, 32.1, ("nexus", "pylon"), 400, 400),
        StructureSpec("cyberneticscore", 150, 0, 35.7, ("gateway", "pylon"), 550, 550),
        StructureSpec(
            "photoncannon",
            150,
            0,
            28.6,
            ("forge", "pylon"),
            150,
            150,
            weapon=Weapon(20, 0.89, upgrade=0, range=7),
            targets="GA",
        ),
        StructureSpec("shieldbattery", 100, 0, 28.6, ("cyberneticscore", "pylon"), 150, 150),
        StructureSpec("twilightcouncil", 150, 100, 35.7, ("cyberneticscore", "pylon"), 500, 500),
        StructureSpec("roboticsfacility", 150, 100, 46.4, ("cyberneticscore", "pylon"), 450, 450),
        StructureSpec("stargate", 150, 150, 42.9, ("cyberneticscore", "pylon"), 600, 600),
        StructureSpec("templararchive", 150, 200, 35.7, ("twilightcouncil", "pylon"), 500, 500),
        StructureSpec("darkshrine", 150, 150, 71.4, ("twilightcouncil", "pylon"), 500, 500),
        StructureSpec("roboticsbay", 150, 150, 46.4, ("roboticsfacility", "pylon"), 500, 500),
        StructureSpec("fleetbeacon", 300, 200, 42.9, ("stargate", "pylon"), 500, 500),
    )
}
"""Protoss structures; `pylon` in `requires` stands for Pylon power."""

ZERG_STRUCTURES: dict[str, StructureSpec] = {
    s.key: s
    for s in (
        StructureSpec("hatchery", 300, 0, 71.4, (), 1500, 0, supply=6),
        StructureSpec(
            "lair", 150, 100, 57.1, ("spawningpool",), 2000, 0, supply=6, morph_from="hatchery"
        ),
        StructureSpec(
            "hive", 200, 150, 71.4, ("infestationpit",), 2500, 0, supply=6, morph_from="lair"
        ),
        StructureSpec("extractor", 25, 0, 21.4, (), 500, 0),
        StructureSpec("spawningpool", 200, 0, 46.4, (), 1000, 0),
        StructureSpec("evolutionchamber", 75, 0, 25.0, (), 750, 0),
        StructureSpec("roachwarren", 150, 0, 39.3, ("spawningpool",), 850, 0),
        StructureSpec("banelingnest", 100, 50, 42.9, ("spawningpool",), 850, 0),
        StructureSpec("hydraliskden", 100, 100, 28.6, ("lair",), 850, 0),
        StructureSpec("lurkerden", 100, 150, 57.1, ("hydraliskden", "lair"), 850, 0),
        StructureSpec("spire", 200, 200, 71.4, ("lair",), 850, 0),
        StructureSpec("greaterspire", 100, 150, 71.4, ("hive",), 1000, 0, morph_from="spire"),
        StructureSpec("infestationpit", 100, 100, 35.7, ("lair",), 850, 0),
        StructureSpec("ultraliskcavern", 150, 200, 46.4, ("hive",), 850, 0),
        StructureSpec(
            "spinecrawler",
            100,
            0,
            35.7,
            ("spawningpool",),
            300,
            0,
            armor=2,
            weapon=Weapon(25, 1.32, bonus_attribute=ARMORED, bonus=5, upgrade=0, range=7),
            targets="G",
        ),
        StructureSpec(
            "sporecrawler",
            75,
            0,
            21.4,
            ("spawningpool",),
            400,
            0,
            weapon=Weapon(15, 0.61, bonus_attribute=BIOLOGICAL, bonus=15, upgrade=0, range=7),
            targets="A",
        ),
    )
}
"""Zerg structures (mineral cost excludes the Drone the structure consumes)."""

TOWN_HALLS = frozenset({"nexus", "hatchery", "lair", "hive"})


def _levels(
    prefix: str, at: str, costs: tuple[int, int, int], times: tuple[float, float, float], later: str
) -> list[ResearchSpec]:
    specs = []
    for level in (1, 2, 3):
        requires: tuple[str, ...] = () if level == 1 else (later, f"{prefix}{level - 1}")
        cost = costs[level - 1]
        specs.append(ResearchSpec(f"{prefix}{level}", cost, cost, times[level - 1], at, requires))
    return specs


_FORGE_TIMES = (121.4, 144.6, 167.9)
_AIR_TIMES = (128.6, 153.6, 178.6)

PROTOSS_RESEARCH: dict[str, ResearchSpec] = {
    r.key: r
    for r in (
        ResearchSpec("warpgateresearch", 50, 50, 100.0, "cyberneticscore"),
        *_levels(
            "protossairweaponslevel", "cyberneticscore", (100, 175, 250), _AIR_TIMES, "fleetbeacon"
        ),
        *_levels(
            "protossairarmorslevel", "cyberneticscore", (100, 175, 250), _AIR_TIMES, "fleetbeacon"
        ),
        ResearchSpec("adeptpiercingattack", 100, 100, 100.0, "twilightcouncil"),
        ResearchSpec("blinktech", 150, 150, 121.4, "twilightcouncil"),
        ResearchSpec("charge", 100, 100, 100.0, "twilightcouncil"),
        *_levels(
            "protossgroundweaponslevel", "forge", (100, 150, 200), _FORGE_TIMES, "twilightcouncil"
        ),
        *_levels(
            "protossgroundarmorslevel", "forge", (100, 150, 200), _FORGE_TIMES, "twilightcouncil"
        ),
        *_levels("protossshieldslevel", "forge", (150, 200, 250), _FORGE_TIMES, "twilightcouncil"),
        ResearchSpec("extendedthermallance", 150, 150, 100.0, "roboticsbay"),
        ResearchSpec("graviticdrive", 100, 100, 57.1, "roboticsbay"),
        ResearchSpec("observergraviticbooster", 100, 100, 57.1, "roboticsbay"),
        ResearchSpec("psistormtech", 200, 200, 78.6, "templararchive"),
        ResearchSpec("voidrayspeedupgrade", 100, 100, 57.1, "fleetbeacon"),
        ResearchSpec("phoenixrangeupgrade", 150, 150, 64.3, "fleetbeacon"),
        ResearchSpec("tempestgroundattackupgrade", 150, 150, 100.0, "fleetbeacon"),
    )
}
"""The 26 Protoss researches of the action dictionary, keyed like their action names."""

ZERG_RESEARCH: dict[str, ResearchSpec] = {
    r.key: r
    for r in (
        ResearchSpec("zerglingmovementspeed", 100, 100, 78.6, "spawningpool"),
        ResearchSpec("zergmeleeweaponslevel1", 100, 100, 114.3, "evolutionchamber"),
        ResearchSpec(
            "zergmeleeweaponslevel2",
            150,
            150,
            135.7,
            "evolutionchamber",
            ("lair", "zergmeleeweaponslevel1"),
        ),
        ResearchSpec(
            "zergmeleeweaponslevel3",
            200,
            200,
            157.1,
            "evolutionchamber",
            ("hive", "zergmeleeweaponslevel2"),
        ),
        ResearchSpec("zergmissileweaponslevel1", 100, 100, 114.3, "evolutionchamber"),
        ResearchSpec(
            "zergmissileweaponslevel2",
            150,
            150,
            135.7,
            "evolutionchamber",
            ("lair", "zergmissileweaponslevel1"),
        ),
        ResearchSpec(
            "zergmissileweaponslevel3",
            200,
            200,
            157.1,
            "evolutionchamber",
            ("hive", "zergmissileweaponslevel2"),
        ),
        ResearchSpec("zerggroundarmorslevel1", 150, 150, 114.3, "evolutionchamber"),
        ResearchSpec(
            "zerggroundarmorslevel2",
            200,
            200,
            135.7,
            "evolutionchamber",
            ("lair", "zerggroundarmorslevel1"),
        ),
        ResearchSpec(
            "zerggroundarmorslevel3",
            250,
            250,
            157.1,
            "evolutionchamber",
            ("hive", "zerggroundarmorslevel2"),
        ),
        ResearchSpec("zergflyerweaponslevel1", 100, 100, 114.3, "spire"),
        ResearchSpec(
            "zergflyerweaponslevel2", 175, 175, 135.7, "spire", ("lair", "zergflyerweaponslevel1")
        ),
        ResearchSpec(
            "zergflyerweaponslevel3", 250, 250, 157.1, "spire", ("hive", "zergflyerweaponslevel2")
        ),
    )
}
"""The Zerg researches the built-in AI uses (weapon and armor levels, zergling speed)."""

ENEMY_STATE_UNITS: tuple[str, ...] = (
    *(k for k in ZERG_UNITS),
    "spinecrawler",
    "sporecrawler",
)
"""Enemy things counted in the observation (`enemy_<key>`)."""
