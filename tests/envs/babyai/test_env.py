"""`bounded/BabyAI-v0`: seeded play across processes, BALROG's text and actions, the
success metric, and minigrid's bot winning every BALROG task (its conformance checks:
`tests/envs/test_conformance.py`, from its record)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bounded.core import Action, ConfigError, IllegalActionError
from bounded.envs import make
from bounded.envs.babyai import ACTIONS, TASKS, BabyAIEnv, BabyAIExpert
from bounded.envs.checker import trajectory_digest


def babyai(**options) -> BabyAIEnv:
    env = make("babyai", **options)
    assert isinstance(env, BabyAIEnv)
    return env


def test_same_seed_same_episode_in_another_process() -> None:
    code = (
        "import sys; from bounded.envs import make;"
        "from bounded.envs.checker import trajectory_digest;"
        "print(trajectory_digest(lambda: make('babyai', level='putnext'), 4, 40))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    here = trajectory_digest(lambda: babyai(level="putnext"), 4, 40)
    assert out.stdout.strip().splitlines()[-1] == here
    assert trajectory_digest(lambda: babyai(level="putnext"), 5, 40) != here


def test_the_text_is_the_mission_and_what_the_agent_sees() -> None:
    env = babyai()
    obs, info = env.reset(seed=0)
    assert obs.text.startswith(f"Mission: {info['mission']}\n")
    assert "a wall" in obs.text and "You see" not in obs.text
    assert [a.id for a in obs.legal] == list(ACTIONS)
    assert info["mission"] in env.instructions


def test_the_bot_accomplishes_every_balrog_task_and_success_is_progression_one() -> None:
    for task in TASKS:
        env = babyai(level=task)
        obs, _ = env.reset(seed=2)
        expert = BabyAIExpert(env)
        done = False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(expert.act(obs))
            done = terminated or truncated
        assert terminated and reward > 0, task
        assert env.outcome().victory and env.outcome().progress == 1.0
        assert env.metrics()["progression"] == 1.0 and obs.legal == []


def test_the_step_limit_truncates_without_success() -> None:
    env = babyai(max_steps=3)
    env.reset(seed=0)
    results = [env.step(Action(id="turn left")) for _ in range(3)]
    assert results[-1][3] and not results[-1][2]
    assert env.outcome().ended_by == "step-limit" and env.outcome().progress == 0.0
    with pytest.raises(IllegalActionError):
        env.step(Action(id="turn left"))


def test_the_default_action_is_balrogs_go_forward() -> None:
    env = babyai()
    env.reset(seed=0)
    assert env.default_action().id == "go forward"
    assert env.default_action() in env.choices().legal


def test_a_save_replays_and_bad_input_is_one_line() -> None:
    env = babyai()
    env.reset(seed=1)
    for action_id in ["turn left", "go forward", "toggle"]:
        env.step(Action(id=action_id))
    saved = json.loads(json.dumps(env.save()))
    copy = babyai()
    copy.load(saved)
    assert copy.save() == saved
    assert copy.step(Action(id="go forward"))[0] == env.step(Action(id="go forward"))[0]
    with pytest.raises(ConfigError, match="unknown BabyAI level"):
        babyai(level="BabyAI-Nothing-v0")
    with pytest.raises(IllegalActionError):
        env.step(Action(id="jump"))
