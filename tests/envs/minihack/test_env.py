"""`bounded/MiniHack-v0`: bounded's conformance check on every task (Gymnasium's:
`tests/envs/test_conformance.py`), seeded play across processes, BALROG's tasks, step
limit and success metric on a hand-worked trace, NetHack's text and words, save/load,
Boxoban refused with its reason, and the scripted player through the mazes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bounded.core import Action, ConfigError, IllegalActionError, Observation
from bounded.envs import make
from bounded.envs.checker import check_bounded_env, trajectory_digest
from bounded.envs.minihack import TASKS, MiniHackEnv, MiniHackExpert
from bounded.envs.minihack.knowledge import minihack_knowledge, minihack_situation


def minihack(**options) -> MiniHackEnv:
    env = make("minihack", **options)
    assert isinstance(env, MiniHackEnv)
    return env


@pytest.mark.parametrize("task", ["mazewalk-15x15", "quest-easy"])
def test_check_bounded_env_passes(task) -> None:
    check_bounded_env(lambda: minihack(task=task, max_steps=30), seeds=(0, 1), steps=30)


def test_same_seed_same_level_in_another_process() -> None:
    code = (
        "from bounded.envs import make; from bounded.envs.checker import trajectory_digest;"
        "print(trajectory_digest(lambda: make('minihack', task='corridor-r3'), 2, 40))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    here = trajectory_digest(lambda: minihack(task="corridor-r3"), 2, 40)
    assert out.stdout.strip().splitlines()[-1] == here
    assert trajectory_digest(lambda: minihack(task="corridor-r3"), 3, 40) != here


def test_balrogs_tasks_and_the_tasks_own_keys_in_nethacks_words() -> None:
    assert set(TASKS) == {"mazewalk-9x9", "mazewalk-15x15", "corridor-r3",
                          "corridorbattle-dark", "quest-easy", "quest-medium"}  # fmt: skip
    maze = minihack()
    obs, _ = maze.reset(seed=3)
    assert maze.config.max_steps == 100 and maze.default_action().id == "north"
    assert [a.id for a in obs.legal] == ["north", "east", "south", "west", "northeast",
                                         "southeast", "southwest", "northwest"]  # fmt: skip
    assert "Map:" in obs.text and "staircase down 1 west" in obs.text
    corridor, _ = minihack(task="corridor-r3").reset(seed=1)
    assert {"open", "kick", "search"} <= {a.id for a in corridor.legal}


def test_boxoban_is_refused_because_its_levels_are_a_download() -> None:
    with pytest.raises(ConfigError, match="Boxoban level files"):
        make("minihack", task="MiniHack-Boxoban-Hard-v0")
    with pytest.raises(ConfigError, match="unknown MiniHack task"):
        make("minihack", task="MiniHack-Nowhere-v0")


def test_progression_is_success_on_a_hand_worked_trace() -> None:
    """MazeWalk 9x9, seed 3: the stairs are one step west. East first (progression 0,
    MiniHack's reward 0), then two steps west reach `>`: success, progression 1."""
    env = minihack()
    env.reset(seed=3)
    _, reward, terminated, *_ = env.step(Action(id="east"))
    assert (reward, terminated, env.metrics()["progression"]) == (0.0, False, 0.0)
    env.step(Action(id="west"))
    obs, reward, terminated, truncated, _ = env.step(Action(id="west"))
    assert reward == 1.0 and terminated and not truncated and obs.legal == []
    assert env.outcome().victory and env.outcome().progress == 1.0
    assert env.outcome().ended_by == "victory"
    with pytest.raises(IllegalActionError):
        env.step(Action(id="west"))


def test_the_step_limit_truncates_without_success() -> None:
    env = minihack(task="mazewalk-15x15", max_steps=3)
    env.reset(seed=0)
    results = [env.step(Action(id="north")) for _ in range(3)]
    assert results[-1][3] and env.outcome().ended_by == "step-limit"
    assert env.outcome().progress == 0.0


def test_a_save_replays_to_the_same_level() -> None:
    env = minihack(task="quest-easy")
    obs, _ = env.reset(seed=1)
    expert = MiniHackExpert(1)
    for _ in range(10):
        obs, *_ = env.step(expert.act(obs))
    saved = env.save()
    other = minihack(task="quest-easy")
    other.load(saved)
    assert other.save() == saved and other._observe() == env._observe()
    with pytest.raises(ConfigError, match="not a MiniHack save"):
        other.load({"seed": 0})


def test_the_scripted_player_solves_the_mazes() -> None:
    for task in ("mazewalk-9x9", "mazewalk-15x15"):
        for seed in (1, 2):
            env = minihack(task=task)
            obs, _ = env.reset(seed=seed)
            expert = MiniHackExpert(seed)
            done = False
            while not done:
                obs, _, terminated, truncated, _ = env.step(expert.act(obs))
                done = terminated or truncated
            assert env.outcome().victory, (task, seed)


def test_knowledge_keys_rules_on_the_task() -> None:
    rules = minihack_knowledge().rules
    quest = Observation(kind="command", state={"task": "MiniHack-Quest-Easy-v0", "hp": 5,
                                               "max_hp": 20, "monsters": []})  # fmt: skip
    situation = minihack_situation(quest)
    assert situation.encounter == "quest" and situation.hp == 5
    assert "task:quest" in {r.id for r in rules.retrieve(situation)}
    fired = {s.id for s in minihack_knowledge().skills["hand"].fired(situation)}
    assert "low-hp" in fired
