"""What full vision (levels 8-10) changes in the Zerg AI, and what it leaves alone (1-7)."""

import subprocess
import sys

import pytest

from bounded.envs.craft.data import ZERG_STRUCTURES
from bounded.envs.craft.sim import Structure, harvest
from bounded.envs.craft.world import World
from bounded.envs.craft.zerg import LEVELS, MAX_MACRO_HATCHES, VISION_MAXED_SUPPLY


def _world(level: int, style: str = "rush") -> World:
    return World(level=level, style=style, map_name="crossroads", seed=0, time_limit=1800)


def _finish(world: World, *keys: str, base: int = 0) -> None:
    """Give the Zerg finished structures (tech, extractors) at `base`."""
    for key in keys:
        spec = ZERG_STRUCTURES[key]
        world.enemy.structures.append(
            Structure(uid=world.next_uid(), key=key, base=base, build_left=0, hp=spec.hp)
        )
    world.enemy.structures_changed()


def _hatcheries(world: World) -> int:
    return world.enemy.count_structures("hatchery")


def test_only_cheating_levels_see_the_whole_map():
    assert [lvl for lvl, p in LEVELS.items() if p.full_vision] == [8, 9, 10]
    assert all(LEVELS[lvl].harvest_end == 1.0 for lvl in range(1, 9))
    assert LEVELS[9].harvest_end > 1.0 and LEVELS[10].harvest_start > 1.0


@pytest.mark.parametrize(("level", "switches"), [(7, False), (8, True)])
def test_full_vision_counters_the_players_army(level, switches):
    world = _world(level)
    _finish(world, "spawningpool", "roachwarren", "banelingnest")
    world.player.groups["home"].add("zealot", 12)
    before = dict(world.ai.mix())
    if world.ai.profile.full_vision:
        world.ai._choose_counter_mix()
    else:
        world.ai.update(1.0)
    after = world.ai.mix()
    assert (after != before) is switches
    if switches:
        enemy = world.player_army_stacks()

        def rate(mix: dict[str, float]) -> float:
            return world.strength_ratio(world.ai._mix_stacks(mix, 24), enemy)

        assert rate(after) > rate(before)


def test_counter_mix_ignores_units_without_tech():
    world = _world(8)
    world.player.groups["home"].add("zealot", 12)
    before = dict(world.ai.mix())
    world.ai._choose_counter_mix()  # no spawning pool yet: nothing to compare
    assert world.ai.mix() == before


def test_harvest_respects_a_gas_worker_limit():
    world = _world(5)
    side = world.enemy
    _finish(world, "extractor", "extractor")
    side.workers = 30
    harvest(side, 1.0)
    assert side.gas_workers == 6
    side.gas_worker_limit = 0
    gas = side.gas
    harvest(side, 1.0)
    assert side.gas_workers == 0 and side.gas == gas
    assert side.mineral_workers == 30


@pytest.mark.parametrize(("level", "limited"), [(7, False), (8, True)])
def test_full_vision_moves_drones_off_an_unspendable_gas_bank(level, limited):
    world = _world(level)
    world.enemy.gas, world.enemy.minerals = 900.0, 50.0
    world.ai.update(0.1)
    assert (world.enemy.gas_worker_limit == 0) is limited
    world.enemy.gas = 100.0
    world.ai.update(0.1)
    assert world.enemy.gas_worker_limit is None


@pytest.mark.parametrize(("level", "expands"), [(7, False), (8, True)])
def test_full_vision_takes_a_base_early_once_saturated(level, expands):
    world = _world(level)
    world.time = 60.0
    world.enemy.minerals = 1000.0
    world.enemy.workers = 16
    assert world.ai._expand() is expands
    assert _hatcheries(world) == (2 if expands else 1)


def test_saturation_does_not_trigger_an_expansion_under_attack():
    world = _world(8)
    world.time = 60.0
    world.enemy.minerals = 1000.0
    world.enemy.workers = 16
    world.player.groups["home"].add("zealot", 4)
    world.player.groups["home"].pos = world.base_positions(world.enemy)[0]
    assert not world.ai._expand()


@pytest.mark.parametrize("level", [7, 8])
def test_macro_hatcheries_only_with_full_vision_and_capped(level):
    world = _world(level)
    for hall in world.enemy.structures:
        hall.larva = 0
    built = 0
    for _ in range(MAX_MACRO_HATCHES + 2):
        world.enemy.minerals = 1000.0
        built += world.ai._macro_hatchery()
    assert built == (MAX_MACRO_HATCHES if world.ai.profile.full_vision else 0)


@pytest.mark.parametrize(("level", "launches"), [(7, True), (8, False)])
def test_full_vision_holds_a_wave_the_player_would_beat(level, launches):
    world = _world(level)
    home = world.enemy.groups["home"]
    supply, earliest = world.ai.wave_target()
    world.time = earliest + 1
    home.add("zergling", int(2 * supply) + 2)
    world.player.groups["home"].add("archon", 30)
    world.ai._control_army()
    assert ("wave" in world.enemy.groups) is launches


def test_full_vision_attacks_anyway_when_maxed():
    world = _world(8)
    home = world.enemy.groups["home"]
    _, earliest = world.ai.wave_target()
    world.time = earliest + 1
    world.enemy.workers = VISION_MAXED_SUPPLY
    home.add("zergling", 200)
    world.player.groups["home"].add("archon", 30)
    world.ai._control_army()
    assert "wave" in world.enemy.groups


GAME = """
from bounded.core import stable_hash
from bounded.envs.craft import CraftEnv, CraftExpert

env = CraftEnv(level=8, style="power")
expert = CraftExpert()
obs, _ = env.reset(seed=3)
while obs.t < 720 and env.world.outcome is None:
    obs, *_ = env.step(expert.act(obs))
print(stable_hash([obs.state, env.world.events, env.metrics()]))
"""


def test_full_vision_games_are_deterministic_across_processes():
    def run(hash_seed: str) -> str:
        out = subprocess.run(
            [sys.executable, "-c", GAME],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": hash_seed},
        )
        return out.stdout.strip()

    first = run("1")
    assert len(first) == 64
    assert first == run("777")
