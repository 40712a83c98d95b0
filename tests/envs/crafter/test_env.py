"""`bounded/Crafter-v0`: seeded play across processes, BALROG's settings and actions, the
text of what the player sees, progression checked against Crafter's own
`info["achievements"]` on a hand-worked trace, save/load, and the scripted player (its
conformance checks: `tests/envs/test_conformance.py`, from its record)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bounded.core import Action, ConfigError, IllegalActionError
from bounded.envs import make
from bounded.envs.checker import trajectory_digest
from bounded.envs.crafter import ACHIEVEMENTS, ACTIONS, CrafterEnv, CrafterExpert


def crafter(**options) -> CrafterEnv:
    env = make("crafter", **options)
    assert isinstance(env, CrafterEnv)
    return env


def test_same_seed_same_world_in_another_process() -> None:
    code = (
        "from bounded.envs import make; from bounded.envs.checker import trajectory_digest;"
        "print(trajectory_digest(lambda: make('crafter'), 3, 120))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    here = trajectory_digest(lambda: crafter(), 3, 120)
    assert out.stdout.strip().splitlines()[-1] == here
    assert trajectory_digest(lambda: crafter(), 4, 120) != here


def test_balrogs_settings_and_the_seventeen_actions_by_name() -> None:
    env = crafter()
    obs, _ = env.reset(seed=1)
    assert (env.config.area, env.config.view, env.config.max_steps) == (64, 9, 2_000)
    assert [a.id for a in obs.legal] == list(ACTIONS) and len(ACTIONS) == 17
    assert len(ACHIEVEMENTS) == 22 and "collect diamond" in env.instructions
    assert env.default_action().id == "Noop"


def test_the_text_names_what_is_seen_with_direction_and_distance() -> None:
    obs, _ = crafter().reset(seed=1)
    assert "- tree 4 steps east" in obs.text
    assert "- cow 3 steps north and 1 step east" in obs.text
    assert "You face south; in front of you: grass." in obs.text
    assert "health 9/9, food 9/9, drink 9/9, energy 9/9" in obs.text
    assert "Your inventory is empty." in obs.text


def test_progression_follows_crafters_own_achievements_on_a_hand_worked_trace() -> None:
    """Seed 1: the nearest tree is 4 steps east. Three steps east put it in front; `Do`
    collects one wood, Crafter's `collect_wood` achievement: progression 1/22."""
    env = crafter()
    env.reset(seed=1)
    for name in ("Move East", "Move East", "Move East"):
        _, reward, *_, info = env.step(Action(id=name))
        assert reward == 0.0 and not any(info["achievements"].values())
    obs, reward, _, _, info = env.step(Action(id="Do"))
    unlocked = [name for name, count in info["achievements"].items() if count > 0]
    assert unlocked == ["collect_wood"] and reward == 1.0
    assert obs.state["inventory"] == {"wood": 1}
    assert env.metrics()["progression"] == pytest.approx(1 / 22)
    assert env.outcome().progress == pytest.approx(1 / 22) and env.outcome().score == 1.0


def test_a_save_replays_to_the_same_world() -> None:
    env = crafter()
    obs, _ = env.reset(seed=2)
    expert = CrafterExpert(env, seed=2)
    for _ in range(80):
        obs, *_ = env.step(expert.act(obs))
    saved = env.save()
    other = crafter()
    other.load(saved)
    assert other.save() == saved
    assert other._observe() == env._observe()
    with pytest.raises(ConfigError, match="not a Crafter save"):
        other.load({"config": {}})


def test_the_step_limit_truncates_and_a_finished_game_refuses_actions() -> None:
    env = crafter(max_steps=3)
    env.reset(seed=0)
    results = [env.step(Action(id="Noop")) for _ in range(3)]
    assert results[-1][3] and not results[-1][2] and results[-1][0].legal == []
    assert env.outcome().ended_by == "step-limit"
    with pytest.raises(IllegalActionError):
        env.step(Action(id="Noop"))
    with pytest.raises(ConfigError, match="bad Crafter settings"):
        crafter(view=2)


def test_the_scripted_player_unlocks_achievements_and_death_ends_the_game() -> None:
    env = crafter()
    obs, _ = env.reset(seed=1)
    expert = CrafterExpert(env, seed=1)
    done = False
    while not done:
        obs, _, terminated, truncated, _ = env.step(expert.act(obs))
        done = terminated or truncated
    metrics = env.metrics()
    assert metrics["score"] >= 12  # it reached 16 of 22 on seed 1 when written
    assert {"place_table", "make_wood_pickaxe", "collect_stone"} <= set(metrics["achievements"])
    if terminated:
        assert metrics["ended_by"] == "death" and metrics["health"] == 0
    assert "The game is over" in obs.text
