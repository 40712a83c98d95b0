"""TextStarCraft II's Protoss action dictionary: 72 macro actions in four categories.

The names are the ids of `Observation.legal` and of the actions a model returns, so a
prompt written for TextStarCraft II names the same actions here.
"""

from __future__ import annotations

ACTION_DICTIONARY: dict[str, dict[int, str]] = {
    "TRAIN UNIT": {
        0: "TRAIN PROBE",
        1: "TRAIN ZEALOT",
        2: "TRAIN ADEPT",
        3: "TRAIN STALKER",
        4: "TRAIN SENTRY",
        5: "TRAIN HIGHTEMPLAR",
        6: "TRAIN DARKTEMPLAR",
        7: "TRAIN VOIDRAY",
        8: "TRAIN CARRIER",
        9: "TRAIN TEMPEST",
        10: "TRAIN ORACLE",
        11: "TRAIN PHOENIX",
        12: "TRAIN MOTHERSHIP",
        13: "TRAIN OBSERVER",
        14: "TRAIN IMMORTAL",
        15: "TRAIN WARPPRISM",
        16: "TRAIN COLOSSUS",
        17: "TRAIN DISRUPTOR",
        18: "MORPH ARCHON",
    },
    "BUILD STRUCTURE": {
        19: "BUILD PYLON",
        20: "BUILD ASSIMILATOR",
        21: "BUILD NEXUS",
        22: "BUILD GATEWAY",
        23: "BUILD CYBERNETICSCORE",
        24: "BUILD FORGE",
        25: "BUILD TWILIGHTCOUNCIL",
        26: "BUILD ROBOTICSFACILITY",
        27: "BUILD STARGATE",
        28: "BUILD TEMPLARARCHIVE",
        29: "BUILD DARKSHRINE",
        30: "BUILD ROBOTICSBAY",
        31: "BUILD FLEETBEACON",
        32: "BUILD PHOTONCANNON",
        33: "BUILD SHIELDBATTERY",
    },
    "RESEARCH TECHNIQUE": {
        34: "RESEARCH WARPGATERESEARCH",
        35: "RESEARCH PROTOSSAIRWEAPONSLEVEL1",
        36: "RESEARCH PROTOSSAIRWEAPONSLEVEL2",
        37: "RESEARCH PROTOSSAIRWEAPONSLEVEL3",
        38: "RESEARCH PROTOSSAIRARMORSLEVEL1",
        39: "RESEARCH PROTOSSAIRARMORSLEVEL2",
        40: "RESEARCH PROTOSSAIRARMORSLEVEL3",
        41: "RESEARCH ADEPTPIERCINGATTACK",
        42: "RESEARCH BLINKTECH",
        43: "RESEARCH CHARGE",
        44: "RESEARCH PROTOSSGROUNDWEAPONSLEVEL1",
        45: "RESEARCH PROTOSSGROUNDWEAPONSLEVEL2",
        46: "RESEARCH PROTOSSGROUNDWEAPONSLEVEL3",
        47: "RESEARCH PROTOSSGROUNDARMORSLEVEL1",
        48: "RESEARCH PROTOSSGROUNDARMORSLEVEL2",
        49: "RESEARCH PROTOSSGROUNDARMORSLEVEL3",
        50: "RESEARCH PROTOSSSHIELDSLEVEL1",
        51: "RESEARCH PROTOSSSHIELDSLEVEL2",
        52: "RESEARCH PROTOSSSHIELDSLEVEL3",
        53: "RESEARCH EXTENDEDTHERMALLANCE",
        54: "RESEARCH GRAVITICDRIVE",
        55: "RESEARCH OBSERVERGRAVITICBOOSTER",
        56: "RESEARCH PSISTORMTECH",
        57: "RESEARCH VOIDRAYSPEEDUPGRADE",
        58: "RESEARCH PHOENIXRANGEUPGRADE",
        59: "RESEARCH TEMPESTGROUNDATTACKUPGRADE",
    },
    "OTHER ACTION": {
        60: "SCOUTING PROBE",
        61: "SCOUTING OBSERVER",
        62: "SCOUTING ZEALOT",
        63: "SCOUTING PHOENIX",
        64: "MULTI-ATTACK",
        65: "MULTI-RETREAT",
        66: "CHRONOBOOST NEXUS",
        67: "CHRONOBOOST CYBERNETICSCORE",
        68: "CHRONOBOOST TWILIGHTCOUNCIL",
        69: "CHRONOBOOST STARGATE",
        70: "CHRONOBOOST FORGE",
        71: "EMPTY ACTION",
    },
}
"""Category -> {index: action name}, exactly as TextStarCraft II numbers them."""

ACTION_NAMES: tuple[str, ...] = tuple(
    name for category in ACTION_DICTIONARY.values() for _, name in sorted(category.items())
)
"""The 72 action names in index order."""

EMPTY_ACTION = "EMPTY ACTION"

TRAIN_TARGETS: dict[str, str] = {
    "TRAIN PROBE": "probe",
    "TRAIN ZEALOT": "zealot",
    "TRAIN ADEPT": "adept",
    "TRAIN STALKER": "stalker",
    "TRAIN SENTRY": "sentry",
    "TRAIN HIGHTEMPLAR": "hightemplar",
    "TRAIN DARKTEMPLAR": "darktemplar",
    "TRAIN VOIDRAY": "voidray",
    "TRAIN CARRIER": "carrier",
    "TRAIN TEMPEST": "tempest",
    "TRAIN ORACLE": "oracle",
    "TRAIN PHOENIX": "phoenix",
    "TRAIN MOTHERSHIP": "mothership",
    "TRAIN OBSERVER": "observer",
    "TRAIN IMMORTAL": "immortal",
    "TRAIN WARPPRISM": "warpprism",
    "TRAIN COLOSSUS": "colossus",
    "TRAIN DISRUPTOR": "disruptor",
}
"""Train actions -> unit key (MORPH ARCHON is handled on its own)."""

BUILD_TARGETS: dict[str, str] = {
    name: name.removeprefix("BUILD ").lower()
    for name in ACTION_DICTIONARY["BUILD STRUCTURE"].values()
}
"""Build actions -> structure key (`BUILD TEMPLARARCHIVE` -> `templararchive`)."""

RESEARCH_TARGETS: dict[str, str] = {
    name: name.removeprefix("RESEARCH ").lower()
    for name in ACTION_DICTIONARY["RESEARCH TECHNIQUE"].values()
}
"""Research actions -> research key (`RESEARCH CHARGE` -> `charge`)."""

CHRONO_TARGETS: dict[str, str] = {
    name: name.removeprefix("CHRONOBOOST ").lower()
    for name in ACTION_DICTIONARY["OTHER ACTION"].values()
    if name.startswith("CHRONOBOOST ")
}
"""Chrono boost actions -> structure key they boost."""

SCOUT_UNITS: dict[str, str] = {
    "SCOUTING PROBE": "probe",
    "SCOUTING OBSERVER": "observer",
    "SCOUTING ZEALOT": "zealot",
    "SCOUTING PHOENIX": "phoenix",
}
"""Scouting actions -> the unit sent."""

__all__ = [
    "ACTION_DICTIONARY",
    "ACTION_NAMES",
    "BUILD_TARGETS",
    "CHRONO_TARGETS",
    "EMPTY_ACTION",
    "RESEARCH_TARGETS",
    "SCOUT_UNITS",
    "TRAIN_TARGETS",
]
