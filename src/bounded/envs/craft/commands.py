"""The player's 72 actions: a feasibility check that names the reason, and the effect.

`check(world, name)` returns None when the action can be carried out now, else the
reason it cannot; `execute(world, name)` checks, then carries it out, and returns the
same reason (None on success). Nothing here raises for an infeasible action.
"""

from __future__ import annotations

from collections.abc import Callable

from bounded.envs.craft.actions import (
    BUILD_TARGETS,
    CHRONO_TARGETS,
    EMPTY_ACTION,
    RESEARCH_TARGETS,
    SCOUT_UNITS,
    TRAIN_TARGETS,
)
from bounded.envs.craft.data import PROTOSS_RESEARCH, PROTOSS_STRUCTURES, PROTOSS_UNITS
from bounded.envs.craft.economy import GEYSERS_PER_BASE
from bounded.envs.craft.sim import (
    CHRONO_COST,
    CHRONO_DURATION,
    QUEUE_LIMIT,
    WARP_IN_TIME,
    Pending,
    Side,
    Structure,
)
from bounded.envs.craft.world import World

ARCHON_MORPH = 8.6
TEMPLARS = ("hightemplar", "darktemplar")

Check = Callable[[World, str], str | None]


def _cost_reason(side: Side, minerals: float, gas: float) -> str | None:
    if side.minerals < minerals:
        return f"not enough minerals (need {minerals}, have {int(side.minerals)})"
    if side.gas < gas:
        return f"not enough gas (need {gas}, have {int(side.gas)})"
    return None


def _requirement_reason(side: Side, requires: tuple[str, ...]) -> str | None:
    missing = [r for r in requires if not side.has_done(r)]
    if not missing:
        return None
    names = ", ".join("a powered pylon" if r == "pylon" else r for r in missing)
    return f"requires {names}"


def _supply_reason(side: Side, supply: float) -> str | None:
    free = side.supply_cap() - side.supply_used()
    if supply > free:
        return f"supply blocked (need {supply:g}, {max(0.0, free):g} free)"
    return None


def _producer(world: World, unit: str) -> Structure | None:
    side = world.player
    spec = PROTOSS_UNITS[unit]
    kinds = ("gateway", "warpgate") if spec.producer == "gateway" else (spec.producer,)
    candidates = [
        s
        for s in side.structures
        if s.key in kinds
        and s.done
        and not s.job.startswith("morph:")
        and (s.idle and s.cooldown <= 0 if s.key == "warpgate" else s.load < QUEUE_LIMIT)
    ]
    candidates.sort(key=lambda s: (s.key != "warpgate", s.load, -s.chrono_left, s.uid))
    return candidates[0] if candidates else None


# -- train ---------------------------------------------------------------------


def check_train(world: World, name: str) -> str | None:
    side = world.player
    unit = TRAIN_TARGETS[name]
    spec = PROTOSS_UNITS[unit]
    producer = "gateway or warp gate" if spec.producer == "gateway" else spec.producer
    if not (
        side.has_done(spec.producer) or (spec.producer == "gateway" and side.has_done("warpgate"))
    ):
        return f"requires a completed {producer}"
    reason = _requirement_reason(side, spec.requires)
    if reason:
        return reason
    if unit == "mothership" and side.army_units().get("mothership", 0) + side.producing().get(
        "mothership", 0
    ):
        return "only one mothership at a time"
    if _producer(world, unit) is None:
        return f"no {producer} with a free queue slot or a ready warp gate"
    return _cost_reason(side, spec.minerals, spec.gas) or _supply_reason(side, spec.supply)


def do_train(world: World, name: str) -> None:
    side = world.player
    unit = TRAIN_TARGETS[name]
    spec = PROTOSS_UNITS[unit]
    producer = _producer(world, unit)
    assert producer is not None
    side.charge(spec.minerals, spec.gas)
    if producer.key == "warpgate":
        producer.cooldown = spec.warp_cooldown
        side.pending.append(Pending(unit, WARP_IN_TIME))
    elif producer.job:
        producer.queue.append(f"unit:{unit}")
    else:
        producer.job, producer.job_left = f"unit:{unit}", spec.build_time


def _templars(world: World) -> list[str]:
    home = world.player.groups["home"]
    return [k for k in TEMPLARS for _ in range(home.units.get(k, 0))][:2]


def check_archon(world: World, name: str) -> str | None:
    if len(_templars(world)) < 2:
        return "needs two high templar or dark templar at home"
    return None


def do_archon(world: World, name: str) -> None:
    home = world.player.groups["home"]
    for key in _templars(world):
        home.take(key)
    world.player.pending.append(Pending("archon", ARCHON_MORPH))


# -- build ---------------------------------------------------------------------


def _geyser_base(side: Side) -> int | None:
    for base in side.town_hall_bases():
        used = sum(1 for s in side.structures if s.key == "assimilator" and s.base == base)
        if used < GEYSERS_PER_BASE:
            return base
    return None


def _build_site(world: World, key: str) -> int | None:
    side = world.player
    if key == "nexus":
        return world.free_site(side)
    if key == "assimilator":
        return _geyser_base(side)
    if key in ("photoncannon", "shieldbattery"):
        return _forward_base(world)
    return min(side.town_hall_bases(done=False), default=0)


def _forward_base(world: World) -> int:
    side = world.player
    bases = side.town_hall_bases() or side.town_hall_bases(done=False) or [0]
    enemy_main = world.enemy.sites[0].pos
    return min(
        bases,
        key=lambda b: (
            (side.sites[b].pos[0] - enemy_main[0]) ** 2
            + (side.sites[b].pos[1] - enemy_main[1]) ** 2
        ),
    )


def check_build(world: World, name: str) -> str | None:
    side = world.player
    key = BUILD_TARGETS[name]
    spec = PROTOSS_STRUCTURES[key]
    if side.workers <= 0:
        return "no probe to build with"
    reason = _requirement_reason(side, spec.requires)
    if reason:
        return reason
    if key == "nexus" and world.free_site(side) is None:
        return "no free expansion"
    if key == "assimilator" and _geyser_base(side) is None:
        return "no free geyser at a completed nexus"
    return _cost_reason(side, spec.minerals, spec.gas)


def do_build(world: World, name: str) -> None:
    side = world.player
    key = BUILD_TARGETS[name]
    spec = PROTOSS_STRUCTURES[key]
    base = _build_site(world, key)
    assert base is not None
    side.charge(spec.minerals, spec.gas)
    side.structures.append(
        Structure(
            uid=world.next_uid(),
            key=key,
            base=base,
            build_left=spec.build_time,
            hp=spec.hp + spec.shields,
        )
    )


# -- research ------------------------------------------------------------------


def check_research(world: World, name: str) -> str | None:
    side = world.player
    key = RESEARCH_TARGETS[name]
    spec = PROTOSS_RESEARCH[key]
    if key in side.research:
        return "already researched" if side.research[key] <= 0 else "already researching"
    if not side.has_done(spec.at):
        return f"requires a completed {spec.at}"
    reason = _requirement_reason(side, spec.requires)
    if reason:
        return reason
    if not any(s.key == spec.at and s.idle for s in side.structures):
        return f"no idle {spec.at}"
    return _cost_reason(side, spec.minerals, spec.gas)


def do_research(world: World, name: str) -> None:
    side = world.player
    key = RESEARCH_TARGETS[name]
    spec = PROTOSS_RESEARCH[key]
    at = min((s for s in side.structures if s.key == spec.at and s.idle), key=lambda s: s.uid)
    side.charge(spec.minerals, spec.gas)
    side.research[key] = spec.time
    at.job, at.job_left = f"research:{key}", spec.time


# -- other ---------------------------------------------------------------------


def check_scout(world: World, name: str) -> str | None:
    side = world.player
    unit = SCOUT_UNITS[name]
    if any(s.unit == unit for s in side.scouts):
        return f"a scouting {unit} is already out"
    if unit == "probe":
        return None if side.workers > 1 else "no probe to spare"
    if not side.groups["home"].units.get(unit, 0):
        return f"no {unit} at home"
    return None


def do_scout(world: World, name: str) -> None:
    world.send_scout(SCOUT_UNITS[name])


def _army_size(world: World) -> int:
    return sum(g.size for g in world.player.groups.values())


def check_attack(world: World, name: str) -> str | None:
    if not _army_size(world):
        return "no army units"
    if world.attacking and not world.player.groups["home"].size:
        return "the army is already attacking"
    return None


def do_attack(world: World, name: str) -> None:
    player = world.player
    home = player.groups["home"]
    field_group = player.groups.get("field")
    if field_group is None:
        field_group = player.groups["field"] = type(home)("field", home.pos)
    if home.size:
        if field_group.size == 0:
            field_group.pos = home.pos
        field_group.merge(home)
    world.attacking = True
    world.note("Our army attacks.")


def check_retreat(world: World, name: str) -> str | None:
    if "field" not in world.player.groups or not world.attacking:
        return "no army is attacking"
    return None


def do_retreat(world: World, name: str) -> None:
    world.attacking = False
    world.note("Our army retreats.")


def _chrono_target(world: World, key: str) -> Structure | None:
    side = world.player
    candidates = [s for s in side.structures if s.key == key and s.done and s.chrono_left <= 0]
    candidates.sort(key=lambda s: (not s.job, s.uid))
    return candidates[0] if candidates else None


def _chrono_nexus(world: World) -> Structure | None:
    nexuses = [s for s in world.player.structures if s.key == "nexus" and s.done]
    best = max(nexuses, key=lambda s: (s.energy, -s.uid), default=None)
    return best if best is not None and best.energy >= CHRONO_COST else None


def check_chrono(world: World, name: str) -> str | None:
    key = CHRONO_TARGETS[name]
    if _chrono_nexus(world) is None:
        return f"no nexus with {CHRONO_COST:g} energy"
    if not world.player.has_done(key):
        return f"requires a completed {key}"
    if _chrono_target(world, key) is None:
        return f"every {key} is already chrono boosted"
    return None


def do_chrono(world: World, name: str) -> None:
    nexus = _chrono_nexus(world)
    target = _chrono_target(world, CHRONO_TARGETS[name])
    assert nexus is not None and target is not None
    nexus.energy -= CHRONO_COST
    target.chrono_left = CHRONO_DURATION


def _nothing(world: World, name: str) -> str | None:
    return None


def _do_nothing(world: World, name: str) -> None:
    return None


def _handlers(name: str) -> tuple[Check, Callable[[World, str], None]]:
    if name in TRAIN_TARGETS:
        return check_train, do_train
    if name == "MORPH ARCHON":
        return check_archon, do_archon
    if name in BUILD_TARGETS:
        return check_build, do_build
    if name in RESEARCH_TARGETS:
        return check_research, do_research
    if name in SCOUT_UNITS:
        return check_scout, do_scout
    if name == "MULTI-ATTACK":
        return check_attack, do_attack
    if name == "MULTI-RETREAT":
        return check_retreat, do_retreat
    if name in CHRONO_TARGETS:
        return check_chrono, do_chrono
    if name == EMPTY_ACTION:
        return _nothing, _do_nothing
    raise KeyError(name)


def check(world: World, name: str) -> str | None:
    """None if `name` can be carried out now, else why not."""
    if world.outcome is not None:
        return "the game is over"
    return _handlers(name)[0](world, name)


def execute(world: World, name: str) -> str | None:
    """Carry out `name` if feasible; return the reason it failed, or None."""
    reason = check(world, name)
    if reason is None:
        _handlers(name)[1](world, name)
    return reason


__all__ = ["check", "execute"]
