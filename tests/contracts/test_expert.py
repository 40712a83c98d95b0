"""`PlayerContract`: the environment's expert in the contract's seat, slipping to a random
legal action at a known rate; slip 0 plays the expert's game, a seed replays its game,
and a larger slip is a weaker player on the same deals."""

import pytest

from bounded.contracts import make_contract
from bounded.core import ConfigError
from bounded.envs import make
from bounded.envs.spire import SpireEnv, SpireExpert
from bounded.models.none import NoModel
from bounded.runner import run_episode
from bounded.runner.build import play_expert

PLAYER = "bounded.contracts.expert:PlayerContract"
SPIRE = "bounded.envs.spire:SpireExpert"


def played(slip, seed):
    contract = make_contract(PLAYER, {"expert": SPIRE, "slip": slip})
    run = run_episode(make("spire"), contract, NoModel(), seed=seed, env_id="bounded/Spire-v0")
    return run


def test_no_slip_plays_the_experts_own_game():
    for seed in (1, 2):
        run = played(0.0, seed)
        env = SpireEnv()
        play_expert(env, SpireExpert(), seed=seed)
        expert = env.metrics()
        assert run.outcome["floor"] == expert["floor"]
        assert run.outcome["victory"] == expert["victory"]


def test_a_seed_replays_the_same_game_and_slipping_costs_floors():
    assert played(0.3, 5).outcome == played(0.3, 5).outcome
    floors = {
        slip: sum(played(slip, s).outcome["floor"] for s in range(1, 9)) for slip in (0.0, 0.6)
    }
    assert floors[0.6] < floors[0.0]


def test_a_slip_outside_0_to_1_or_an_expert_not_named_by_import_path_is_refused():
    with pytest.raises(ConfigError, match="slip must lie in"):
        make_contract(PLAYER, {"expert": SPIRE, "slip": 1.5})
    with pytest.raises(ConfigError, match="expert must be an import path"):
        make_contract(PLAYER, {"expert": "spire"})
