"""A rule-based Protoss player: the baseline and the source of winning games.

Two build orders: `gateway` (a two-base gateway timing: warp gates, Charge, a robotics
facility for Immortals, forge upgrades, attacking at ~60 army supply) and `robo` (a
three-base robotics macro build: Immortals and Colossi with Extended Thermal Lance
behind Stalkers and Zealots, attacking at ~90 army supply). Both answer air units
with Stalkers, Phoenixes and cannons, retreat when an attack has lost most of its
army, and keep probes, pylons and production going. The expert reads only the
observation (`state` and `legal`), like a model would.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from bounded.core import Action, Observation
from bounded.envs.craft.data import PROTOSS_RESEARCH, PROTOSS_STRUCTURES, PROTOSS_UNITS

BUILDS = ("gateway", "robo")
AIR_ENEMIES = ("mutalisk", "corruptor", "broodlord", "viper")
GATEWAY_UNITS = ("zealot", "adept", "stalker", "sentry", "hightemplar", "darktemplar")
PRODUCTION = ("gateway", "warpgate", "roboticsfacility", "stargate")
GAS_SURPLUS = 600


class Wish(NamedTuple):
    """An action the expert wants, its cost, and whether to save up for it if unaffordable."""

    action: str
    minerals: float = 0
    gas: float = 0
    supply: float = 0
    reserve: bool = False


class _Plan:
    """Actions chosen for one decision, with the resources they leave."""

    def __init__(self, obs: Observation) -> None:
        self.state = obs.state
        self.legal = {a.id for a in obs.legal}
        self.actions: list[str] = []
        self.capacity = max(1, obs.max_actions)
        self.minerals = float(obs.state["minerals"])
        self.gas = float(obs.state["gas"])
        self.supply = float(obs.state["supply_left"])

    @property
    def full(self) -> bool:
        return len(self.actions) >= self.capacity

    def take(self, wish: Wish) -> bool:
        action, minerals, gas, supply, reserve = wish
        if self.full:
            return False
        affordable = minerals <= self.minerals and gas <= self.gas and supply <= self.supply
        if action not in self.legal or not affordable:
            if reserve and not affordable:
                self.minerals -= minerals
                self.gas -= gas
            return False
        self.actions.append(action)
        self.minerals -= minerals
        self.gas -= gas
        self.supply -= supply
        return True


class CraftExpert:
    """Scripted player for `bounded/Craft-v0`; `act(obs)` returns a plan of up to `max_actions`."""

    def __init__(self, build: str = "gateway") -> None:
        if build not in BUILDS:
            raise ValueError(f"unknown build {build!r} (known: {', '.join(BUILDS)})")
        self.build = build
        self.reset()

    def reset(self) -> None:
        """Forget the previous game (called by `act` when game time goes back)."""
        self.attack_supply = 0.0
        self.next_attack_at = self._first_attack()
        self.scouted = False
        self._last_time = -1.0

    def _first_attack(self) -> float:
        return 60.0 if self.build == "gateway" else 90.0

    def act(self, obs: Observation) -> list[Action]:
        s = obs.state
        if s["game_time"] < self._last_time:
            self.reset()
        self._last_time = s["game_time"]
        plan = _Plan(obs)
        for wish in self._wishes(s):
            plan.take(wish)
            if plan.full:
                break
        chosen = plan.actions or ["EMPTY ACTION"]
        by_id = {a.id: a for a in obs.legal}
        return [by_id.get(a, Action(id=a)) for a in chosen]

    # -- wishes, most urgent first ------------------------------------------------

    @staticmethod
    def threatened(s: dict[str, Any]) -> bool:
        """The enemy army last seen outweighs ours (early and mid game)."""
        recent = s["game_time"] - s["enemy_seen_at"] <= 180
        return recent and s["enemy_army_supply"] > 0.8 * s["army_supply"] and s["game_time"] < 900

    def _wishes(self, s: dict[str, Any]) -> Iterator[Wish]:
        yield from self._army_control(s)
        yield from self._supply(s)
        if s["army_supply"] >= 30 and s["game_time"] >= 360 and self._count(s, "nexus") < 3:
            yield Wish("BUILD NEXUS", 400, 0, 0, True)
        if s["gas"] >= GAS_SURPLUS:
            yield from self._gas_sinks(s)
        if self.threatened(s):
            yield from self._units(s)
        yield from self._probes(s)
        yield from self._structures(s)
        yield from self._research(s)
        yield from self._units(s)
        yield from self._chrono(s)
        yield from self._scouting(s)

    def _gas_sinks(self, s: dict[str, Any]) -> Iterator[Wish]:
        """Spend banked gas: templar tech, High Templar (merged into Archons), Stalkers."""
        if s["twilightcouncil_count"] and not self._count(s, "templararchive"):
            yield Wish("BUILD TEMPLARARCHIVE", 150, 200, 0)
        for _ in range(s["gateway_count"] + s["warpgate_count"]):
            yield self._train("hightemplar" if s["templararchive_count"] else "stalker")

    def _army_control(self, s: dict[str, Any]) -> Iterator[Wish]:
        army = s["army_supply"]
        if s["army_attacking"]:
            if army < 0.4 * self.attack_supply:
                self.next_attack_at = min(180.0, max(self.next_attack_at, self.attack_supply) * 1.2)
                yield Wish("MULTI-RETREAT", 0, 0, 0)
            return
        enemy = s["enemy_army_supply"] if s["game_time"] - s["enemy_seen_at"] <= 240 else 0
        if (army >= self.next_attack_at and army >= 1.3 * enemy) or s["supply_used"] >= 185:
            self.attack_supply = army
            yield Wish("MULTI-ATTACK", 0, 0, 0)

    def _supply(self, s: dict[str, Any]) -> Iterator[Wish]:
        production = sum(s[f"{k}_count"] for k in (*PRODUCTION, "nexus"))
        cap_after = s["supply_cap"] + 8 * s["planning_pylon_count"] + 15 * s["planning_nexus_count"]
        if cap_after >= 200:
            return
        margin = 3 + 2 * production
        wanted = 1 + production // 5
        if (
            s["supply_left"] + 8 * s["planning_pylon_count"] < margin
            and s["planning_pylon_count"] < wanted
        ):
            yield Wish("BUILD PYLON", 100, 0, 0)
        if s["supply_used"] >= 13 and s["pylon_count"] + s["planning_pylon_count"] == 0:
            yield Wish("BUILD PYLON", 100, 0, 0)

    def _probes(self, s: dict[str, Any]) -> Iterator[Wish]:
        bases = s["nexus_count"] + s["planning_nexus_count"]
        target = min(22 * bases, 70)
        have = s["probe_count"] + s["planning_probe_count"]
        for _ in range(
            max(0, min(2 * s["nexus_count"] - s["planning_probe_count"], target - have))
        ):
            yield Wish("TRAIN PROBE", 50, 0, 1)

    def _count(self, s: dict[str, Any], key: str) -> int:
        return int(s[f"{key}_count"] + s[f"planning_{key}_count"])

    def _structure_goals(self, s: dict[str, Any]) -> list[tuple[str, int]]:
        t, supply = s["game_time"], s["supply_used"]
        bases = s["nexus_count"]
        goals: list[tuple[str, int]] = []
        if supply >= 14 and s["pylon_count"]:
            goals.append(("gateway", 1))
        if self._count(s, "gateway") + self._count(s, "warpgate") >= 1 and supply >= 16:
            goals.append(("assimilator", 1))
        if supply >= 19 or t >= 100:
            goals.append(("nexus", 2))
        if s["gateway_count"] + s["warpgate_count"]:
            goals.append(("cyberneticscore", 1))
        if s["cyberneticscore_count"] and supply >= 22:
            goals.append(("assimilator", 2))
        enemy_air = sum(s[f"enemy_{k}"] for k in AIR_ENEMIES)
        if s["cyberneticscore_count"]:
            gateways = (
                3 + 2 * max(0, bases - 1) if self.build == "gateway" else 2 + max(0, bases - 1)
            )
            goals.append(("gateway", min(gateways, 10)))
            goals.append(("roboticsfacility", 1))
            if self.build == "gateway":
                goals.append(("twilightcouncil", 1))
            if enemy_air:
                goals.append(("stargate", 1))
        if s["cyberneticscore_count"] and s["nexus_count"] >= 2:
            goals.append(("shieldbattery", 1 if t < 300 else 2))
        if t >= 240 and bases >= 2:
            if s["gas"] < 400:
                goals.append(("assimilator", 4))
            goals.append(("forge", 1))
        if self.build == "robo" and s["roboticsfacility_count"] and t >= 300:
            goals.append(("roboticsbay", 1))
            goals.append(("roboticsfacility", 2))
        if t >= (300 if self.build == "robo" else 360) and s["army_supply"] >= 16:
            goals.append(("nexus", 3))
            goals.append(("roboticsfacility", 2))
            goals.append(("twilightcouncil", 1))
            if s["gas"] < 400:
                goals.append(("assimilator", 6))
        if t >= 450 and s["gas"] >= 300 and s["twilightcouncil_count"]:
            goals.append(("templararchive", 1))
        if t >= 600 and supply >= 120:
            goals.append(("nexus", 4))
            goals.append(("forge", 2))
        if enemy_air and s["forge_count"]:
            goals.append(("photoncannon", 2 * bases))
        return goals

    def _structures(self, s: dict[str, Any]) -> Iterator[Wish]:
        for key, count in self._structure_goals(s):
            have = self._count(s, key)
            if key == "gateway":
                have += self._count(s, "warpgate")
            if have < count:
                spec = PROTOSS_STRUCTURES[key]
                yield Wish(f"BUILD {key.upper()}", spec.minerals, spec.gas, 0, key == "nexus")

    def _research_goals(self, s: dict[str, Any]) -> list[str]:
        goals = ["warpgateresearch"]
        if self.build == "gateway":
            goals.append("charge")
        goals += ["protossgroundweaponslevel1", "protossgroundarmorslevel1"]
        if self.build == "robo":
            goals.append("extendedthermallance")
        goals += [
            "protossgroundweaponslevel2",
            "protossshieldslevel1",
            "protossgroundarmorslevel2",
            "blinktech",
            "charge",
            "psistormtech",
            "protossgroundweaponslevel3",
            "protossgroundarmorslevel3",
        ]
        if s["stargate_count"]:
            goals.append("protossairweaponslevel1")
        return goals

    def _research(self, s: dict[str, Any]) -> Iterator[Wish]:
        for key in self._research_goals(s):
            if not s[f"{key}_done"] and not s[f"{key}_researching"]:
                spec = PROTOSS_RESEARCH[key]
                yield Wish(f"RESEARCH {key.upper()}", spec.minerals, spec.gas, 0)

    def _gateway_mix(self, s: dict[str, Any]) -> list[str]:
        enemy_air = sum(s[f"enemy_{k}"] for k in AIR_ENEMIES)
        roaches = s["enemy_roach"] + s["enemy_ravager"]
        light = s["enemy_zergling"] + s["enemy_baneling"] + s["enemy_hydralisk"]
        if enemy_air > 4 or s["enemy_baneling"] > 4:
            return ["stalker", "stalker", "zealot"]
        if s["templararchive_count"] and s["gas"] >= 300:
            return ["hightemplar", "hightemplar", "zealot"]
        if s["hightemplar_count"] < 4 and s["psistormtech_done"] and light > 20:
            return ["hightemplar", "zealot", "stalker"]
        if roaches > light or s["gas"] > 2 * s["minerals"]:
            return ["stalker", "zealot", "stalker"]
        if s["charge_done"] or self.build == "gateway":
            return ["zealot", "zealot", "stalker"]
        return ["stalker", "zealot"]

    def _units(self, s: dict[str, Any]) -> Iterator[Wish]:
        keep_storm = 2 if s["psistormtech_done"] else 0
        for _ in range(max(0, (s["hightemplar_count"] - keep_storm) // 2)):
            yield Wish("MORPH ARCHON", 0, 0, 0)
        enemy_air = sum(s[f"enemy_{k}"] for k in AIR_ENEMIES)
        queued = sum(
            s[f"planning_{k}_count"] for k in ("phoenix", "voidray", "oracle", "tempest", "carrier")
        )
        for _ in range(max(0, 2 * s["stargate_count"] - queued)):
            unit = (
                "phoenix"
                if enemy_air and s["enemy_mutalisk"] >= s["enemy_broodlord"]
                else "voidray"
            )
            yield self._train(unit)
        light = s["enemy_zergling"] + s["enemy_baneling"] + s["enemy_hydralisk"]
        queued = sum(
            s[f"planning_{k}_count"] for k in ("immortal", "colossus", "observer", "disruptor")
        )
        for i in range(max(0, 2 * s["roboticsfacility_count"] - queued)):
            if s["observer_count"] + s["planning_observer_count"] == 0 and s["game_time"] >= 300:
                yield self._train("observer")
            elif s["roboticsbay_count"] and (light >= 12 or i % 2 == 1):
                yield self._train("colossus")
            else:
                yield self._train("immortal")
        mix = self._gateway_mix(s)
        if s["cyberneticscore_count"] == 0 and s["game_time"] >= 150:
            mix = ["zealot"]
        gates = s["gateway_count"] + s["warpgate_count"]
        queued = sum(s[f"planning_{k}_count"] for k in GATEWAY_UNITS)
        for i in range(max(0, 2 * gates - queued)):
            yield self._train(mix[i % len(mix)])

    @staticmethod
    def _train(unit: str) -> Wish:
        spec = PROTOSS_UNITS[unit]
        return Wish(f"TRAIN {unit.upper()}", spec.minerals, spec.gas, spec.supply)

    def _chrono(self, s: dict[str, Any]) -> Iterator[Wish]:
        if s["nexus_energy"] < 50:
            return
        if s["warpgateresearch_researching"]:
            yield Wish("CHRONOBOOST CYBERNETICSCORE", 0, 0, 0)
        if s["forge_count"] and any(
            s[f"{k}_researching"] for k in PROTOSS_RESEARCH if "ground" in k
        ):
            yield Wish("CHRONOBOOST FORGE", 0, 0, 0)
        if s["planning_probe_count"]:
            yield Wish("CHRONOBOOST NEXUS", 0, 0, 0)

    def _scouting(self, s: dict[str, Any]) -> Iterator[Wish]:
        if not self.scouted and s["game_time"] >= 150:
            self.scouted = True
            yield Wish("SCOUTING PROBE", 0, 0, 0)
        if s["observer_count"] and s["game_time"] - s["enemy_seen_at"] > 120:
            yield Wish("SCOUTING OBSERVER", 0, 0, 0)
