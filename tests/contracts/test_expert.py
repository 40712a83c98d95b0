"""`PlayerContract`: the environment's expert in the contract's seat, slipping to a random
legal action at a known rate; slip 0 plays the expert's game, a seed replays its game,
and a larger slip is a weaker player on the same deals; on every environment record
with an expert, those that read the game they play included."""

import pytest

from bounded.contracts import make_contract
from bounded.core import ConfigError
from bounded.env_records import BUILTIN_RECORDS
from bounded.envs import make
from bounded.envs.spire import SpireEnv, SpireExpert
from bounded.models.none import NoModel
from bounded.registry import load_target
from bounded.runner import run_episode
from bounded.runner.build import play_expert
from bounded.testing import episode

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


PLAYERS = [record for record in BUILTIN_RECORDS if record.expert is not None]


@pytest.mark.parametrize("record", PLAYERS, ids=[record.name for record in PLAYERS])
def test_the_player_builds_every_environments_expert_and_plays_its_game(record):
    # the record's own expert, named by nobody: BabyAI's, Crafter's, TextWorld's and the
    # workbench's read the game they play and are built from the environment
    if not record.runs_here():
        pytest.skip(f"{record.name} does not run on this machine")
    options = dict(record.test_options or {})
    steps = min(record.test_steps, 8)  # enough to play through the seat, and quick

    def player_run(seed):
        contract = make_contract(PLAYER, {"slip": 0.0})
        env = make(record.name, **options)
        try:
            return run_episode(env, contract, NoModel(), seed=seed, env_id=record.env_id,
                               max_decisions=steps)  # fmt: skip
        finally:
            env.close()

    def expert_run(seed):
        env = make(record.name, **options)
        try:
            factory = load_target(record.expert)
            env.reset(seed=seed)  # the expert reads the environment's game
            expert = factory(env) if record.expert_reads_env else factory()
            return play_expert(env, expert, seed=seed, max_decisions=steps)
        finally:
            env.close()

    run = player_run(3)
    assert run.status == "completed", run.error
    assert run.decisions >= 1
    assert run.outcome == expert_run(3).outcome


def test_an_expert_that_reads_the_game_without_its_environment_is_refused_in_one_line():
    contract = make_contract(PLAYER, {"slip": 0.0})
    with pytest.raises(ValueError, match="reads the game it plays"):
        contract.reset(episode("bounded/BabyAI-v0", seed=1))
