"""One game: the player's side, the AI's side, the clock, fights, vision and the outcome."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from bounded.envs.craft import combat
from bounded.envs.craft.combat import Stack
from bounded.envs.craft.data import PROTOSS_RESEARCH, PROTOSS_STRUCTURES, ZERG_UNITS
from bounded.envs.craft.maps import MAPS, Point, distance
from bounded.envs.craft.metrics import Tally
from bounded.envs.craft.sim import (
    CHRONO_SPEED,
    DEFEND_RADIUS,
    ENERGY_REGEN,
    ENGAGE_RANGE,
    MAX_ENERGY,
    SIGHT_RANGE,
    TICK,
    Group,
    Scout,
    Side,
    Structure,
    fighters_at_base,
    group_speed,
    group_stacks,
    harvest,
    move_towards,
    new_side,
    write_back,
)
from bounded.envs.craft.zerg import ZergAI

WARPGATE_MORPH = 7.1
BATTERY_HEAL = 50.4
"""Shields a Shield Battery restores per second in a fight at its base."""
MAX_BATTERIES = 4
OBSERVER_REFRESH = 10.0


@dataclass
class Vision:
    """What the player has seen of the enemy."""

    units: dict[str, int] = field(default_factory=dict)
    structures: dict[int, dict[str, int]] = field(default_factory=dict)
    """Base index -> structure kind -> count, as last seen there."""
    seen_at: float = -1.0

    def structure_totals(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for kinds in self.structures.values():
            for key, n in kinds.items():
                totals[key] = totals.get(key, 0) + n
        return totals


class World:
    """The whole simulation of one game; `advance(seconds)` runs it."""

    def __init__(
        self, *, level: int, style: str, map_name: str, seed: int, time_limit: float
    ) -> None:
        self.map = MAPS[map_name]
        self.time = 0.0
        self.time_limit = time_limit
        self.player = new_side("protoss", self.map, enemy=False)
        self.enemy = new_side("zerg", self.map, enemy=True)
        self.ai = ZergAI(self, level, style, random.Random(f"craft-ai:{seed}"))
        self.vision = Vision()
        self.tally = Tally()
        self.outcome: str | None = None
        self.events: list[str] = []
        self._uid = 1
        self.attacking = False

    # -- helpers used by the AI and the commands --------------------------------

    def next_uid(self) -> int:
        self._uid += 1
        return self._uid

    def note(self, message: str) -> None:
        self.events.append(f"[{clock(self.time)}] {message}")

    @staticmethod
    def describe_units(units: dict[str, int]) -> str:
        parts = [f"{n} {key}" for key, n in sorted(units.items()) if n]
        return ", ".join(parts) if parts else "nothing"

    def other(self, side: Side) -> Side:
        return self.enemy if side is self.player else self.player

    def base_positions(self, side: Side) -> list[Point]:
        return [side.sites[b].pos for b in sorted({s.base for s in side.structures})]

    def rally(self, side: Side) -> Point:
        """The side's most forward base with a town hall (its army waits there)."""
        bases = side.town_hall_bases() or sorted({s.base for s in side.structures}) or [0]
        enemy_main = self.other(side).sites[0].pos
        best = min(bases, key=lambda b: distance(side.sites[b].pos, enemy_main))
        return side.sites[best].pos

    def free_site(self, side: Side) -> int | None:
        """The next base site (in expansion order) with no town hall of either side."""
        other = self.other(side)
        taken_other = {self._site_index_of(other, b, side) for b in other.occupied_bases()}
        armies = [g.pos for g in other.groups.values() if g.size]
        for index, site in enumerate(side.sites):
            if index in side.occupied_bases() or index in taken_other:
                continue
            if any(distance(site.pos, a) <= DEFEND_RADIUS for a in armies):
                continue
            return index
        return None

    def _site_index_of(self, owner: Side, base: int, viewer: Side) -> int:
        """The index in `viewer`'s site list of `owner`'s base `base` (same place)."""
        pos = owner.sites[base].pos
        for i, site in enumerate(viewer.sites):
            if distance(site.pos, pos) < 1:
                return i
        return -1

    def nearest_base_of(self, side: Side, origin: Point) -> Point | None:
        positions = self.base_positions(side)
        return min(positions, key=lambda p: distance(p, origin), default=None)

    def intruder_near(self, side: Side) -> Point | None:
        """Position of the other side's group closest to one of `side`'s bases, if within reach."""
        bases = self.base_positions(side)
        best: tuple[float, Point] | None = None
        for group in self.other(side).groups.values():
            if not group.size:
                continue
            d = min((distance(group.pos, b) for b in bases), default=1e9)
            if d <= DEFEND_RADIUS and (best is None or d < best[0]):
                best = (d, group.pos)
        return best[1] if best else None

    def player_army_stacks(self) -> list[Stack]:
        stacks: list[Stack] = []
        for group in self.player.groups.values():
            stacks.extend(group_stacks(self.player, group))
        return stacks

    def player_stacks_near(self, pos: Point) -> list[Stack]:
        stacks: list[Stack] = []
        for group in self.player.groups.values():
            if group.size and distance(group.pos, pos) <= ENGAGE_RANGE:
                stacks.extend(group_stacks(self.player, group))
        for base in range(len(self.player.sites)):
            if distance(self.player.sites[base].pos, pos) <= ENGAGE_RANGE:
                stacks.extend(
                    s for s in fighters_at_base(self.player, base) if s.fighter.priority == 0
                )
        return stacks

    @staticmethod
    def strength_ratio(own: list[Stack], enemy: list[Stack]) -> float:
        mine = combat.strength(own, enemy)
        theirs = combat.strength(enemy, own)
        if theirs <= 0:
            return float("inf") if mine > 0 else 1.0
        return mine / theirs

    # -- the clock ----------------------------------------------------------------

    def advance(self, seconds: float) -> None:
        end = self.time + seconds
        while self.outcome is None and self.time < end - 1e-9:
            self.tick()

    def tick(self) -> None:
        dt = TICK
        for side in (self.player, self.enemy):
            harvest(side, dt)
            self._progress(side, dt)
        self.ai.update(dt)
        self._steer_player()
        self._move(dt)
        self._fights(dt)
        self._scouts(dt)
        self._look()
        for side in (self.player, self.enemy):
            side.clamp_assignment()
        self._count(dt)
        self.time += dt
        self._check_end()

    # -- production ---------------------------------------------------------------

    def _progress(self, side: Side, dt: float) -> None:
        for s in list(side.structures):
            if s.build_left > 0:
                s.build_left -= dt
                if s.build_left <= 0:
                    self._completed(side, s)
                continue
            rate = CHRONO_SPEED if s.chrono_left > 0 else 1.0
            s.chrono_left = max(0.0, s.chrono_left - dt)
            if s.key == "nexus":
                s.energy = min(MAX_ENERGY, s.energy + ENERGY_REGEN * dt)
            if s.cooldown > 0:
                s.cooldown = max(0.0, s.cooldown - dt * rate)
            if s.job:
                s.job_left -= dt * rate
                if s.job_left <= 0:
                    self._finish_job(side, s)
            if s.key == "gateway" and s.idle and side.has_done("warpgateresearch"):
                s.job, s.job_left = "morph:warpgate", WARPGATE_MORPH
        for pending in list(side.pending):
            pending.left -= dt
            if pending.left <= 0:
                side.pending.remove(pending)
                self._arrive(side, pending.unit, pending.count)

    def _completed(self, side: Side, s: Structure) -> None:
        s.build_left = 0.0
        side.structures_changed()
        if s.key == "nexus":
            s.energy = 50.0 if s.energy <= 0 else s.energy
        if side is self.player:
            self.note(f"{s.key} completed.")

    def _finish_job(self, side: Side, s: Structure) -> None:
        kind, _, key = s.job.partition(":")
        s.job, s.job_left = "", 0.0
        if s.queue:
            s.job = s.queue.pop(0)
            s.job_left = side.units[s.job[5:]].build_time
        if kind == "unit":
            self._arrive(side, key, 1)
        elif kind == "research":
            side.research[key] = 0.0
            side.invalidate_fighters()
            if side is self.player:
                self.note(f"Research {key} completed.")
        elif kind == "morph":
            spec = side.structure_specs[key]
            s.key = key
            side.structures_changed()
            s.hp = spec.hp + spec.shields

    def _arrive(self, side: Side, unit: str, count: int) -> None:
        if unit == side.worker_key:
            side.workers += count
        elif unit == "overlord":
            side.overlords += count
        else:
            side.groups["home"].add(unit, count)

    # -- armies -------------------------------------------------------------------

    def _steer_player(self) -> None:
        player = self.player
        home = player.groups["home"]
        intruder = self.intruder_near(player)
        home.target = intruder if intruder is not None else self.rally(player)
        field_group = player.groups.get("field")
        if field_group is None:
            return
        if not field_group.size:
            del player.groups["field"]
            self.attacking = False
            return
        if self.attacking:
            field_group.target = self.nearest_base_of(self.enemy, field_group.pos)
        else:
            rally = self.rally(player)
            field_group.target = rally
            if distance(field_group.pos, rally) < 3:
                home.merge(field_group)
                del player.groups["field"]

    def _move(self, dt: float) -> None:
        for side in (self.player, self.enemy):
            for group in side.groups.values():
                if group.size and not group.engaged and group.target is not None:
                    group.pos = move_towards(group.pos, group.target, group_speed(side, group) * dt)

    def _fights(self, dt: float) -> None:
        nodes: list[tuple[Side, Group | int]] = []
        for side in (self.player, self.enemy):
            for group in side.groups.values():
                group.engaged = False
                if group.size:
                    nodes.append((side, group))
            for base in sorted({s.base for s in side.structures}):
                nodes.append((side, base))
        parent = list(range(len(nodes)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        positions = [self._node_pos(node) for node in nodes]
        contested = set()
        for i, (side_i, obj_i) in enumerate(nodes):
            if not isinstance(obj_i, Group):
                continue
            for j, (side_j, _) in enumerate(nodes):
                if i == j or distance(positions[i], positions[j]) > ENGAGE_RANGE:
                    continue
                parent[find(i)] = find(j)
                if side_i is not side_j:
                    contested.add(i)
        clusters: dict[int, list[int]] = {}
        for i in range(len(nodes)):
            clusters.setdefault(find(i), []).append(i)
        for members in clusters.values():
            if any(i in contested for i in members):
                self._resolve([nodes[i] for i in members], dt)

    def _node_pos(self, node: tuple[Side, Group | int]) -> Point:
        side, obj = node
        return obj.pos if isinstance(obj, Group) else side.sites[obj].pos

    def _resolve(self, members: list[tuple[Side, Group | int]], dt: float) -> None:
        stacks: dict[int, list[Stack]] = {id(self.player): [], id(self.enemy): []}
        for side, obj in members:
            made = (
                group_stacks(side, obj) if isinstance(obj, Group) else fighters_at_base(side, obj)
            )
            stacks[id(side)].extend(made)
        mine, theirs = stacks[id(self.player)], stacks[id(self.enemy)]
        if not combat.can_fight(mine, theirs):
            return
        batteries = sum(
            1
            for s in mine
            if isinstance(s.owner, Structure) and s.owner.key == "shieldbattery" and s.owner.done
        )
        heal = BATTERY_HEAL * min(batteries, MAX_BATTERIES)
        lost_p, lost_e = combat.fight_round(mine, theirs, dt, heal_a=heal)
        for _, obj in members:
            if isinstance(obj, Group):
                obj.engaged = True
        for side, side_stacks, lost in ((self.player, mine, lost_p), (self.enemy, theirs, lost_e)):
            for s in write_back(side, side_stacks):
                self._structure_lost(side, s)
            side.workers -= lost.get(side.worker_key, 0)
            for key, n in lost.items():
                side.lost[key] = side.lost.get(key, 0) + n
                self.other(side).killed[key] = self.other(side).killed.get(key, 0) + n
        if lost_p or lost_e:
            self._note_losses(lost_p, lost_e)
        self._see([m for m in members if m[0] is self.enemy])

    def _note_losses(self, lost_p: dict[str, int], lost_e: dict[str, int]) -> None:
        parts = []
        if lost_p:
            parts.append(f"we lost {self.describe_units(lost_p)}")
        if lost_e:
            parts.append(f"the enemy lost {self.describe_units(lost_e)}")
        self.note("Fight: " + "; ".join(parts) + ".")

    def _structure_lost(self, side: Side, s: Structure) -> None:
        owner = "Our" if side is self.player else "An enemy"
        self.note(f"{owner} {s.key} was destroyed.")
        if s.job.startswith("research:"):
            side.research.pop(s.job[9:], None)
        if side is self.enemy and s.base in self.vision.structures:
            kinds = self.vision.structures[s.base]
            if kinds.get(s.key, 0) > 0:
                kinds[s.key] -= 1

    # -- scouting and vision --------------------------------------------------------

    def send_scout(self, unit: str) -> None:
        player = self.player
        if unit != "probe":
            player.groups["home"].take(unit)
        start = player.sites[0].pos if unit == "probe" else player.groups["home"].pos
        player.scouts.append(Scout(unit=unit, pos=start, target=self.enemy.sites[0].pos))

    def _scouts(self, dt: float) -> None:
        player = self.player
        for scout in list(player.scouts):
            if scout.stationed:
                if self._detected(scout):
                    self._lose_scout(scout)
                elif int(self.time) % int(OBSERVER_REFRESH) == 0:
                    self._snapshot()
                continue
            speed = player.units[scout.unit].speed
            scout.pos = move_towards(scout.pos, scout.target, speed * dt)
            if scout.pos != scout.target:
                continue
            if scout.returning:
                player.scouts.remove(scout)
                if scout.unit != "probe":
                    player.groups["home"].add(scout.unit)
                continue
            self._snapshot()
            self.note(f"Our {scout.unit} scouted the enemy base.")
            if scout.unit == "observer":
                scout.stationed = True
                if self._detected(scout):
                    self._lose_scout(scout)
            elif self._scout_dies(scout):
                self._lose_scout(scout)
            else:
                scout.returning = True
                scout.target = player.sites[0].pos

    def _detected(self, scout: Scout) -> bool:
        return self.enemy.count_structures("sporecrawler", done=True) > 0

    def _scout_dies(self, scout: Scout) -> bool:
        units = self.enemy.army_units()
        if scout.unit == "phoenix":
            anti_air = sum(n for k, n in units.items() if ZERG_UNITS[k].air_weapon is not None)
            return anti_air + 2 * self.enemy.count_structures("sporecrawler", done=True) >= 3
        return sum(units.values()) >= 2

    def _lose_scout(self, scout: Scout) -> None:
        player = self.player
        player.scouts.remove(scout)
        if scout.unit == "probe":
            player.workers -= 1
        player.lost[scout.unit] = player.lost.get(scout.unit, 0) + 1
        self.enemy.killed[scout.unit] = self.enemy.killed.get(scout.unit, 0) + 1
        self.note(f"Our scouting {scout.unit} was killed.")

    def _snapshot(self) -> None:
        """Full sight of the enemy's bases and of its army at home."""
        enemy = self.enemy
        units = dict(enemy.groups["home"].units)
        units["drone"] = enemy.workers
        units["overlord"] = enemy.overlords
        self.vision.units.update({k: units.get(k, 0) for k in ZERG_UNITS})
        self.vision.structures = {}
        for s in enemy.structures:
            kinds = self.vision.structures.setdefault(s.base, {})
            kinds[s.key] = kinds.get(s.key, 0) + 1
        self.vision.seen_at = self.time

    def _look(self) -> None:
        """Enemy groups and bases within sight of the player's army or bases."""
        eyes = [g.pos for g in self.player.groups.values() if g.size]
        eyes += self.base_positions(self.player)
        seen: dict[str, int] = {}
        for group in self.enemy.groups.values():
            if group.size and any(distance(group.pos, e) <= SIGHT_RANGE for e in eyes):
                for key, n in group.units.items():
                    seen[key] = seen.get(key, 0) + n
        if seen:
            self.vision.units.update(seen)
            self.vision.seen_at = self.time
        army_eyes = [g.pos for g in self.player.groups.values() if g.size]
        for base in sorted({s.base for s in self.enemy.structures}):
            pos = self.enemy.sites[base].pos
            if any(distance(pos, e) <= SIGHT_RANGE for e in army_eyes):
                kinds: dict[str, int] = {}
                for s in self.enemy.structures:
                    if s.base == base:
                        kinds[s.key] = kinds.get(s.key, 0) + 1
                self.vision.structures[base] = kinds
                self.vision.seen_at = self.time

    def _see(self, members: list[tuple[Side, Group | int]]) -> None:
        for _, obj in members:
            if isinstance(obj, Group):
                self.vision.units.update(obj.units)
        self.vision.seen_at = self.time

    # -- bookkeeping ----------------------------------------------------------------

    def _count(self, dt: float) -> None:
        tally = self.tally
        player = self.player
        used, cap = player.supply_used(), player.supply_cap()
        tally.record(time=self.time, dt=dt, used=used, cap=cap, spent=player.spent)
        tally.built.update(key for key in PROTOSS_STRUCTURES if player.has_done(key))
        tally.peak_supply = max(tally.peak_supply, used)
        tally.peak_army = max(tally.peak_army, player.army_supply())
        tally.peak_workers = max(tally.peak_workers, player.workers)
        tally.peak_bases = max(tally.peak_bases, len(player.town_hall_bases()))

    def _check_end(self) -> None:
        if not self.enemy.structures:
            self.outcome = "victory"
        elif not self.player.structures:
            self.outcome = "defeat"
        elif self.time >= self.time_limit:
            self.outcome = "timeout"
        if self.outcome:
            self.note(f"Game over: {self.outcome}.")

    def technologies_done(self) -> int:
        return sum(1 for key in PROTOSS_RESEARCH if self.player.has_done(key))


def clock(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 60:02d}:{whole % 60:02d}"
