import copy

import pytest

from bounded.core import Action, IllegalActionError
from bounded.envs import make
from bounded.envs.craft import ACTION_NAMES, MAPS, CraftEnv
from bounded.envs.craft.maps import distance

from .conftest import act, play_expert


def test_reset_observation_contract():
    env = CraftEnv(level=5, style="timing")
    obs, info = env.reset(seed=3)
    assert obs.kind == "macro"
    assert obs.t == 0 == obs.state["game_time"]
    assert obs.max_actions == 5
    assert obs.state["minerals"] == 50 and obs.state["worker_supply"] == 12
    assert obs.state["supply_used"] == 12 and obs.state["supply_cap"] == 15
    assert obs.state["nexus_count"] == 1 and obs.state["warpgateresearch_done"] == 0
    assert obs.state["enemy_zergling"] == 0 and obs.state["enemy_seen_at"] == -1
    assert all(isinstance(v, (int, float, str)) for v in obs.state.values())
    ids = [a.id for a in obs.legal]
    assert "EMPTY ACTION" in ids and "TRAIN PROBE" in ids
    assert "BUILD GATEWAY" not in ids
    assert set(ids) <= set(ACTION_NAMES)
    assert "Resources:" in obs.text and "Mineral: 50" in obs.text
    assert info["seed"] == 3 and list(info["action_mask"]) == [1] * len(obs.legal)


def test_state_keys_are_stable_across_steps():
    env = CraftEnv()
    obs, _ = env.reset(seed=0)
    keys = set(obs.state)
    for _ in range(5):
        obs, *_ = env.step(act("TRAIN PROBE"))
        assert set(obs.state) == keys


def test_registered_with_gymnasium():
    env = make("craft", level=2, style="rush", map="longbridge")
    assert isinstance(env, CraftEnv)
    assert env.config.level == 2 and env.config.map == "longbridge"


def test_unknown_action_raises():
    env = CraftEnv()
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(Action(id="TRAIN MARINE"))


def test_infeasible_action_fails_with_reason_in_info_and_text():
    env = CraftEnv()
    env.reset(seed=0)
    obs, _, _, _, info = env.step(act("BUILD GATEWAY", "TRAIN PROBE"))
    first, second = info["actions"]
    assert first == {"id": "BUILD GATEWAY", "ok": False, "reason": "requires a powered pylon"}
    assert second["ok"] and second["reason"] == ""
    assert "BUILD GATEWAY: failed: requires a powered pylon" in obs.text
    assert "TRAIN PROBE: succeeded" in obs.text


def test_actions_in_one_decision_share_resources():
    env = CraftEnv()
    env.reset(seed=0)
    env.step(act("EMPTY ACTION"))
    env.world.player.minerals = 120
    _, _, _, _, info = env.step(act("TRAIN PROBE", "TRAIN PROBE", "TRAIN PROBE"))
    assert [a["ok"] for a in info["actions"]] == [True, True, False]
    assert info["actions"][2]["reason"].startswith("not enough minerals")


def test_too_many_actions_raise():
    env = CraftEnv(max_actions=2)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(act("EMPTY ACTION", "EMPTY ACTION", "EMPTY ACTION"))


@pytest.mark.parametrize("until", [0, 420])
def test_each_of_the_72_actions_executes_or_fails_with_a_reason(until):
    env = play_expert(CraftEnv(level=3, style="macro"), seed=1, until=until)
    for name in ACTION_NAMES:
        trial = copy.deepcopy(env)
        legal = {a.id for a in trial._observe().legal}
        _, _, _, _, info = trial.step(act(name))
        (result,) = info["actions"]
        assert result["ok"] == (name in legal), name
        assert result["ok"] or result["reason"], name


def test_legal_actions_succeed_as_a_plan_of_one():
    env = play_expert(CraftEnv(level=3, style="power"), seed=2, until=360)
    obs = env._observe()
    assert len(obs.legal) > 10
    for action in obs.legal:
        trial = copy.deepcopy(env)
        _, _, _, _, info = trial.step([action])
        assert info["actions"][0]["ok"], (action.id, info["actions"][0]["reason"])


def test_save_load_replays_the_same_game():
    env = play_expert(CraftEnv(level=4, style="rush", map="highlands"), seed=5, until=300)
    saved = env.save()
    restored = CraftEnv()
    restored.load(saved)
    assert restored.config == env.config
    assert restored._observe().state == env._observe().state
    assert restored.metrics() == env.metrics()


def test_metrics_report_outcome_and_paper_metrics():
    env = play_expert(CraftEnv(level=1, style="timing"), seed=0)
    m = env.metrics()
    assert m["outcome"] == "victory" and m["victory"] is True
    assert 0 < m["game_time"] < 1800
    for key in ("pbr", "apu", "tr"):
        assert 0.0 <= m[key] <= 1.0
    assert m["rur"] > 0 and m["tr"] > 0
    assert m["resources_spent"] <= m["resources_collected"] + 50


def test_time_limit_ends_in_timeout():
    env = CraftEnv(level=1, style="macro", time_limit=120)
    env.reset(seed=0)
    truncated = terminated = False
    while not (truncated or terminated):
        _, reward, terminated, truncated, _ = env.step(act("EMPTY ACTION"))
    assert truncated and not terminated and reward == 0.0
    assert env.metrics()["outcome"] == "timeout" and not env.metrics()["victory"]
    with pytest.raises(IllegalActionError):
        env.step(act("EMPTY ACTION"))


def test_maps_differ_in_distances_and_layout():
    rush = {name: round(m.rush_distance) for name, m in MAPS.items()}
    assert len(MAPS) >= 2 and len(set(rush.values())) == len(MAPS)
    naturals = {name: round(distance(m.bases[0], m.bases[1])) for name, m in MAPS.items()}
    assert len(set(naturals.values())) > 1


def test_instructions_name_the_setting():
    env = CraftEnv(level=6, style="air", map="longbridge")
    assert "level 6" in env.instructions and "air" in env.instructions
    assert "longbridge" in env.instructions and "EMPTY ACTION" in env.instructions
