"""Prerequisites are enforced: refused with the missing requirement named, accepted once met."""

import pytest

from bounded.envs.craft import CraftEnv
from bounded.envs.craft.data import PROTOSS_STRUCTURES
from bounded.envs.craft.sim import Structure

from .conftest import act


def _env_with(*structures: str, research: tuple[str, ...] = ()) -> CraftEnv:
    env = CraftEnv()
    env.reset(seed=0)
    world = env.world
    world.player.minerals = world.player.gas = 5000
    for key in structures:
        spec = PROTOSS_STRUCTURES[key]
        world.player.structures.append(
            Structure(
                uid=world.next_uid(), key=key, base=0, build_left=0.0, hp=spec.hp + spec.shields
            )
        )
    for key in research:
        world.player.research[key] = 0.0
    world.player.structures_changed()
    return env


def _result(env: CraftEnv, action: str) -> dict:
    _, _, _, _, info = env.step(act(action))
    return info["actions"][0]


@pytest.mark.parametrize(
    ("have", "research", "action", "missing"),
    [
        ((), (), "BUILD GATEWAY", "requires a powered pylon"),
        (("pylon",), (), "BUILD CYBERNETICSCORE", "requires gateway"),
        (("pylon",), (), "BUILD PHOTONCANNON", "requires forge"),
        (("pylon", "gateway"), (), "TRAIN STALKER", "requires cyberneticscore"),
        (
            ("pylon", "gateway", "cyberneticscore"),
            (),
            "BUILD TEMPLARARCHIVE",
            "requires twilightcouncil",
        ),
        (("pylon", "roboticsfacility"), (), "TRAIN COLOSSUS", "requires roboticsbay"),
        (("pylon", "stargate"), (), "TRAIN CARRIER", "requires fleetbeacon"),
        (("pylon", "gateway"), (), "TRAIN HIGHTEMPLAR", "requires templararchive"),
        (("pylon",), (), "RESEARCH CHARGE", "requires a completed twilightcouncil"),
        (
            ("pylon", "forge"),
            ("protossgroundweaponslevel1",),
            "RESEARCH PROTOSSGROUNDWEAPONSLEVEL2",
            "requires twilightcouncil",
        ),
        (
            ("pylon", "forge", "twilightcouncil"),
            (),
            "RESEARCH PROTOSSGROUNDWEAPONSLEVEL2",
            "requires protossgroundweaponslevel1",
        ),
        (
            ("pylon", "cyberneticscore"),
            ("protossairweaponslevel1",),
            "RESEARCH PROTOSSAIRWEAPONSLEVEL2",
            "requires fleetbeacon",
        ),
        (("pylon", "gateway"), (), "TRAIN MOTHERSHIP", "requires fleetbeacon"),
    ],
)
def test_missing_prerequisite_is_refused_with_its_name(have, research, action, missing):
    env = _env_with(*have, research=research)
    assert action not in {a.id for a in env._observe().legal}
    result = _result(env, action)
    assert not result["ok"]
    assert result["reason"] == missing


@pytest.mark.parametrize(
    ("have", "research", "action"),
    [
        (("pylon",), (), "BUILD GATEWAY"),
        (("pylon", "gateway"), (), "BUILD CYBERNETICSCORE"),
        (("pylon", "gateway", "cyberneticscore"), (), "TRAIN STALKER"),
        (("pylon", "roboticsfacility", "roboticsbay"), (), "TRAIN COLOSSUS"),
        (("pylon", "twilightcouncil"), (), "RESEARCH CHARGE"),
        (
            ("pylon", "forge", "twilightcouncil"),
            ("protossgroundweaponslevel1",),
            "RESEARCH PROTOSSGROUNDWEAPONSLEVEL2",
        ),
    ],
)
def test_met_prerequisites_are_accepted(have, research, action):
    env = _env_with(*have, research=research)
    assert action in {a.id for a in env._observe().legal}
    assert _result(env, action)["ok"]


def test_research_cannot_repeat():
    env = _env_with("pylon", "twilightcouncil")
    assert _result(env, "RESEARCH CHARGE")["ok"]
    assert _result(env, "RESEARCH CHARGE")["reason"] == "already researching"


def test_warpgate_research_turns_gateways_into_warp_gates():
    env = _env_with("pylon", "gateway", "gateway", "cyberneticscore")
    assert _result(env, "RESEARCH WARPGATERESEARCH")["ok"]
    obs = env._observe()
    while obs.state["warpgate_count"] < 2:
        obs, *_ = env.step(act("EMPTY ACTION"))
        assert obs.t < 140
    assert obs.state["gateway_count"] == 0 and obs.state["warpgateresearch_done"] == 1
    assert _result(env, "TRAIN ZEALOT")["ok"]
