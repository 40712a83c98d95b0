import json
import subprocess
import sys

import pytest

from bounded.core import Action, IllegalActionError, stable_hash
from bounded.envs import make
from bounded.envs.warehouse import WarehouseEnv, WarehouseExpert


def play(env, seed, agent=None):
    agent = agent or WarehouseExpert()
    obs, _ = env.reset(seed=seed)
    texts = []
    while obs.legal:
        texts.append(obs.text)
        obs, _, terminated, _, _ = env.step(agent.act(obs))
        if terminated:
            break
    return texts


def test_registered_under_short_name_and_gymnasium_id():
    assert isinstance(make("warehouse"), WarehouseEnv)
    assert isinstance(make("bounded/Warehouse-v0", horizon=3), WarehouseEnv)


def test_same_seed_same_stream_and_different_seeds_differ():
    env = make("warehouse", horizon=40)
    assert play(env, 7) == play(env, 7)
    assert play(env, 7) != play(env, 8)


def test_same_seed_same_stream_in_another_process():
    code = (
        "from bounded.envs import make; from bounded.core import stable_hash;"
        "e = make('warehouse', horizon=50); print(stable_hash(e.generate(e.config, 11)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    env = make("warehouse", horizon=50)
    assert out.stdout.strip() == stable_hash(env.generate(env.config, 11))


def test_expert_is_always_right_and_counts_are_consistent():
    env = make("warehouse", shelves=3, horizon=200)
    play(env, 3)
    assert env.metrics()["accuracy"] == 1.0
    occupied, shipped = env.counts_after(200)
    assert 0 <= occupied <= 3
    assert shipped == sum(kind == "SHIP" for kind, _ in env.generate(env.config, 3))


def test_stream_never_stores_on_an_occupied_shelf_or_ships_an_empty_one():
    env = make("warehouse", shelves=2, horizon=300)
    occupied: set[int] = set()
    for kind, shelf in env.generate(env.config, 5):
        if kind == "STORE":
            assert shelf not in occupied
            occupied.add(shelf)
        elif kind == "SHIP":
            assert shelf in occupied
            occupied.remove(shelf)


def test_wrong_report_scores_zero():
    env = make("warehouse", horizon=2)
    obs, _ = env.reset(seed=1)
    _, reward, _, _, info = env.step(obs.legal[0].with_args({"occupied": 99, "shipped": 0}))
    assert reward == 0.0 and info["correct"] is False


def test_illegal_action_is_refused_without_changing_state():
    env = make("warehouse", horizon=5)
    env.reset(seed=1)
    before = env.save()
    with pytest.raises(IllegalActionError):
        env.step(Action(id="dance"))
    assert env.save() == before


def test_save_and_load_resume_the_same_episode():
    env = make("warehouse", horizon=10)
    obs, _ = env.reset(seed=4)
    expert = WarehouseExpert()
    for _ in range(4):
        obs, *_ = env.step(expert.act(obs))
    saved = json.loads(json.dumps(env.save()))
    clone = make("warehouse")
    clone.load(saved)
    assert stable_hash(clone.save()) == stable_hash(env.save())
    assert clone.counts_after(10) == env.counts_after(10)


def test_bad_options_are_a_config_error():
    from bounded.core import ConfigError

    with pytest.raises(ConfigError, match="bad options for warehouse"):
        make("warehouse", horizon=0)
    with pytest.raises(ConfigError, match="bad options"):
        make("warehouse", colour="red")


def test_the_replications_defaults_twelve_shelves_and_no_state_hint() -> None:
    env = make("warehouse")
    assert env.config.shelves == 12
    assert env.state_schema is None and env.initial_state is None
    hinted = make("warehouse", state_hint="schema")
    assert hinted.initial_state == {"occupied": 0, "shipped": 0}
    assert hinted.state_schema is not None
    assert set(hinted.state_schema["properties"]) == {"occupied", "shipped"}
    clone = make("warehouse")
    clone.load(hinted.save())
    assert clone.initial_state == {"occupied": 0, "shipped": 0}


def test_a_noop_makes_no_report_and_counts_wrong() -> None:
    env = make("warehouse", horizon=3)
    obs, _ = env.reset(seed=2)
    expert = WarehouseExpert()
    obs, reward, _, _, info = env.step(expert.act(obs))
    assert reward == 1.0
    expert.act(obs)  # the expert keeps counting; the environment gets no report
    obs, reward, _, _, info = env.step(Action(id="noop"))
    assert reward == 0.0 and info["correct"] is False and info["no_report"] is True
    assert info["reported"] == [None, None]
    assert env.metrics()["reports"] == 2 and env.metrics()["correct"] == 1


def test_the_counts_after_each_step_are_those_of_the_stream_so_far():
    env = WarehouseEnv(horizon=200)
    env.reset(seed=5)
    for step in range(0, 201, 7):
        occupied, shipped = set(), 0
        for kind, shelf in env._events[:step]:
            if kind == "STORE":
                occupied.add(shelf)
            elif kind == "SHIP":
                occupied.discard(shelf)
                shipped += 1
        assert env.counts_after(step) == (len(occupied), shipped)
