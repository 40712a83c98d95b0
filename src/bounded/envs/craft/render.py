"""What the player sees: the flat `state` dict and the Chain-of-Summarization-style text."""

from __future__ import annotations

from typing import Any

from bounded.envs.craft.data import (
    PROTOSS_RESEARCH,
    PROTOSS_STRUCTURES,
    PROTOSS_UNITS,
    ZERG_STRUCTURES,
    ZERG_UNITS,
)
from bounded.envs.craft.maps import distance
from bounded.envs.craft.world import World, clock

PLAYER_STRUCTURES = tuple(PROTOSS_STRUCTURES)
PLAYER_UNITS = tuple(PROTOSS_UNITS)
RESEARCH_KEYS = tuple(PROTOSS_RESEARCH)
ENEMY_UNITS = tuple(ZERG_UNITS)
ENEMY_STRUCTURES = tuple(ZERG_STRUCTURES)
ENEMY_TOWN_HALLS = ("hatchery", "lair", "hive")


def _structure_counts(world: World) -> tuple[dict[str, int], dict[str, int]]:
    done = dict.fromkeys(PLAYER_STRUCTURES, 0)
    building = dict.fromkeys(PLAYER_STRUCTURES, 0)
    for s in world.player.structures:
        (done if s.done else building)[s.key] += 1
    return done, building


def state_dict(world: World) -> dict[str, Any]:
    """The flat observation dict: every key present at every step."""
    player = world.player
    used, cap = player.supply_used(), player.supply_cap()
    nexus_energy = max(
        (s.energy for s in player.structures if s.key == "nexus" and s.done), default=0.0
    )
    state: dict[str, Any] = {
        "game_time": int(world.time),
        "minerals": int(player.minerals),
        "gas": int(player.gas),
        "supply_used": int(used),
        "supply_cap": cap,
        "supply_left": int(cap - used),
        "worker_supply": player.workers,
        "army_supply": int(player.army_supply()),
        "mineral_workers": player.mineral_workers,
        "gas_workers": player.gas_workers,
        "base_count": len(player.town_hall_bases()),
        "nexus_energy": int(nexus_energy),
    }
    done, building = _structure_counts(world)
    for key in PLAYER_STRUCTURES:
        state[f"{key}_count"] = done[key]
        state[f"planning_{key}_count"] = building[key]
    army = player.army_units()
    producing = player.producing()
    for key in PLAYER_UNITS:
        alive = player.workers if key == "probe" else army.get(key, 0)
        state[f"{key}_count"] = alive
        state[f"planning_{key}_count"] = producing.get(key, 0)
    for key in RESEARCH_KEYS:
        left = player.research.get(key)
        state[f"{key}_done"] = int(left is not None and left <= 0)
        state[f"{key}_researching"] = int(left is not None and left > 0)
    seen_units = world.vision.units
    seen_structures = world.vision.structure_totals()
    for key in ENEMY_UNITS:
        state[f"enemy_{key}"] = seen_units.get(key, 0)
    for key in ENEMY_STRUCTURES:
        state[f"enemy_{key}"] = seen_structures.get(key, 0)
    state["enemy_base_count"] = sum(seen_structures.get(k, 0) for k in ENEMY_TOWN_HALLS)
    state["enemy_army_supply"] = int(
        sum(ZERG_UNITS[k].supply * n for k, n in seen_units.items() if ZERG_UNITS[k].is_army)
    )
    state["enemy_seen_at"] = int(world.vision.seen_at)
    state["army_attacking"] = int(world.attacking)
    state["army_location"] = _army_location(world)
    return state


def _army_location(world: World) -> str:
    group = world.player.groups.get("field") if world.attacking else world.player.groups["home"]
    if group is None or not group.size:
        return "none"
    places: list[tuple[str, tuple[float, float]]] = [("middle", world.map.middle)]
    names = ("main", "natural", "third", "fourth", "fifth", "sixth")
    places += [(f"our {names[i]}", site.pos) for i, site in enumerate(world.player.sites)]
    places += [(f"enemy {names[i]}", site.pos) for i, site in enumerate(world.enemy.sites)]
    return min(places, key=lambda p: distance(p[1], group.pos))[0]


def _section(title: str, lines: list[str]) -> list[str]:
    return [f"{title}:", *(lines or ["- none"])]


def summary_text(
    world: World, state: dict[str, Any], last_actions: list[dict[str, Any]], events: list[str]
) -> str:
    """TextStarCraft II's L1 summary of the current step, plus action results and events."""
    lines = [f"At {clock(world.time)} game time, our current situation is as follows:", ""]
    lines += _section(
        "Resources",
        [
            f"- Game time: {clock(world.time)}",
            f"- Worker supply: {state['worker_supply']}",
            f"- Mineral: {state['minerals']}",
            f"- Gas: {state['gas']}",
            f"- Supply left: {state['supply_left']}",
            f"- Supply cap: {state['supply_cap']}",
            f"- Supply used: {state['supply_used']}",
            f"- Army supply: {state['army_supply']}",
            f"- Bases: {state['base_count']} (mineral workers {state['mineral_workers']}, "
            f"gas workers {state['gas_workers']})",
            f"- Nexus energy: {state['nexus_energy']}",
        ],
    )
    lines += _section(
        "Buildings",
        [
            f"- {key} count: {state[f'{key}_count']}"
            for key in PLAYER_STRUCTURES
            if state[f"{key}_count"]
        ],
    )
    lines += _section(
        "Units",
        [
            f"- {key} count: {state[f'{key}_count']}"
            for key in PLAYER_UNITS
            if state[f"{key}_count"]
        ],
    )
    planning = [
        f"- Planning {key} count: {state[f'planning_{key}_count']}"
        for key in (*PLAYER_STRUCTURES, *PLAYER_UNITS)
        if state[f"planning_{key}_count"]
    ]
    lines += _section("Planning", planning)
    done = [k for k in RESEARCH_KEYS if state[f"{k}_done"]]
    doing = [k for k in RESEARCH_KEYS if state[f"{k}_researching"]]
    lines += _section(
        "Research",
        [
            *(f"- Completed: {k}" for k in done),
            *(f"- In progress: {k}" for k in doing),
        ],
    )
    enemy_units = [f"- {k}: {state[f'enemy_{k}']}" for k in ENEMY_UNITS if state[f"enemy_{k}"]]
    enemy_structures = [
        f"- {k}: {state[f'enemy_{k}']}" for k in ENEMY_STRUCTURES if state[f"enemy_{k}"]
    ]
    seen = (
        "never seen"
        if state["enemy_seen_at"] < 0
        else f"last seen at {clock(state['enemy_seen_at'])}"
    )
    lines += [
        f"Enemy ({seen}):",
        *_section("Unit", enemy_units),
        *_section("Structure", enemy_structures),
    ]
    army = "attacking" if state["army_attacking"] else "defending"
    lines += [f"Our army: {army}, at {state['army_location']}."]
    if last_actions:
        lines += _section(
            "Last actions",
            [
                f"- {a['id']}: " + ("succeeded" if a["ok"] else f"failed: {a['reason']}")
                for a in last_actions
            ],
        )
    if events:
        lines += _section("Events", [f"- {e}" for e in events[-12:]])
    return "\n".join(lines)
