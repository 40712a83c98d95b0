"""`presentation="balrog"`: bounded's BabyAI replays the golden episodes recorded from
BALROG's own BabyAI wrapper over its Minigrid fork (`tests/data/balrog_golden/babyai/`):
the same level for the seed (minigrid's encoding of every cell, the agent's position and
direction), mission, instruction prompt, text, vocabulary, step limit, rewards,
progression and episode end, at every step of every task.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from bounded.core import Action, ConfigError
from bounded.envs import make
from bounded.envs.babyai import TASKS, BabyAIEnv, BabyAIExpert

GOLDEN = Path(__file__).parents[2] / "data" / "balrog_golden" / "babyai"
EPISODES: list[dict[str, Any]] = json.loads(
    gzip.decompress((GOLDEN / "episodes.json.gz").read_bytes())
)
LEVELS: dict[str, list[list[Any]]] = json.loads(
    gzip.decompress((GOLDEN / "levels.json.gz").read_bytes())
)


def balrog_babyai(task: str) -> BabyAIEnv:
    env = make("babyai", level=task, presentation="balrog")
    assert isinstance(env, BabyAIEnv)
    return env


def level(env: BabyAIEnv) -> dict:
    game = env.minigrid
    return {
        "grid": game.grid.encode().transpose(1, 0, 2).reshape(-1).tolist(),
        "width": game.width,
        "agent": [int(game.agent_pos[0]), int(game.agent_pos[1]), int(game.agent_dir)],
    }


def seen(env: BabyAIEnv, obs: Any, reward: float, terminated: bool, truncated: bool) -> dict:
    metrics = env.metrics()
    return {
        "long_term_context": obs.history_text,
        "short_term_context": obs.current_only_text.removesuffix("\n"),
        "reward": reward,
        "terminated": terminated,
        "truncated": truncated,
        "stats": {"mission": metrics["mission"], "progression": metrics["progression"]},
    }


def recorded(step: dict) -> dict:
    keys = ("long_term_context", "short_term_context", "stats")
    return {
        **{k: step[k] for k in keys},
        "reward": step.get("reward", 0.0),
        "terminated": step.get("terminated", False),
        "truncated": step.get("truncated", False),
    }


@pytest.mark.parametrize(
    "record", EPISODES, ids=lambda r: f"{r['task'].split('/')[1]}-seed{r['seed']}"
)
def test_the_golden_episode_step_by_step(record: dict) -> None:
    env = balrog_babyai(record["task"].split("/")[1])
    obs, info = env.reset(seed=record["seed"])
    assert level(env) == record["level"]
    assert info["mission"] == record["mission"]
    assert env.instructions == record["instruction"]
    assert env.minigrid.max_steps == record["max_steps"]
    assert [a.id for a in obs.legal] == record["legal"]
    steps = [seen(env, obs, 0.0, False, False)]
    for step in record["steps"]:
        obs, reward, terminated, truncated, _ = env.step(Action(id=step["played"]))
        steps.append(seen(env, obs, reward, terminated, truncated))
        if not (terminated or truncated):
            assert [a.id for a in obs.legal] == record["legal"]
    expected = [recorded(s) for s in [record["reset"], *record["steps"]]]
    for index, (ours, theirs) in enumerate(zip(steps, expected, strict=True)):
        assert ours == theirs, f"step {index}"


@pytest.mark.parametrize("task", list(TASKS))
def test_the_same_two_hundred_levels_as_balrogs_fork(task: str) -> None:
    """Seeds 1-200: mission, step limit and a digest of the level, as the fork made them."""
    env = balrog_babyai(task)
    ours = []
    for seed, *_ in LEVELS[f"BabyAI-MixedTrainLocal-v0/{task}"]:
        _, info = env.reset(seed=seed)
        encoded = json.dumps(level(env), sort_keys=True).encode()
        digest = hashlib.sha256(encoded).hexdigest()
        ours.append([seed, info["mission"], env.minigrid.max_steps, digest])
    assert ours == LEVELS[f"BabyAI-MixedTrainLocal-v0/{task}"]
    assert len(ours) == 200 and len({digest for *_, digest in ours}) == 200


def test_the_records_cover_every_task_wins_losses_and_invalid_strings() -> None:
    tasks = {r["task"].split("/")[1] for r in EPISODES}
    assert tasks == set(TASKS)
    for task in tasks:
        mine = [r for r in EPISODES if r["task"].endswith("/" + task)]
        outcomes = {r["steps"][-1]["stats"]["progression"] for r in mine}
        assert len(mine) >= 5 and outcomes == {0.0, 1.0}
    assert {r["max_steps"] for r in EPISODES} == {64, 128}
    assert any(s["played"] != s["action"] for r in EPISODES for s in r["steps"])


def test_balrogs_levels_step_limits() -> None:
    limits = {task: balrog_babyai(task) for task in TASKS}
    for env in limits.values():
        env.reset(seed=11)
    assert {t: e.minigrid.max_steps for t, e in limits.items()} == {
        "goto": 64, "pickup": 64, "open": 128, "putnext": 128, "pick_up_seq_go_to": 128,
    }  # fmt: skip
    assert limits["open"].minigrid.width == 15 and limits["goto"].minigrid.width == 8


def test_options_are_checked_in_one_line() -> None:
    with pytest.raises(ConfigError, match="presentation: one of bounded, balrog"):
        make("babyai", presentation="text")
    with pytest.raises(ConfigError, match=r"level 'BabyAI-GoToLocal-v0': one of goto, .* under"):
        make("babyai", level="BabyAI-GoToLocal-v0", presentation="balrog")
    with pytest.raises(ConfigError, match=r"^level 'pickpu' \(did you mean 'pickup'\?\): one of"):
        make("babyai", level="pickpu", presentation="balrog")
    assert make("babyai").presentation == "bounded"


def test_the_balrog_presentation_survives_save_and_load() -> None:
    env = balrog_babyai("open")
    env.reset(seed=3)
    for name in ("turn left", "go forward", "toggle"):
        env.step(Action(id=name))
    saved = env.save()
    again = make("babyai")
    again.load(saved)
    assert isinstance(again, BabyAIEnv) and again.presentation == "balrog"
    assert again.save() == saved and again._observe() == env._observe()
    assert again.instructions == env.instructions


@pytest.mark.parametrize("task", list(TASKS))
def test_the_scripted_player_wins_balrogs_levels(task: str) -> None:
    for seed in (1, 2):
        env = balrog_babyai(task)
        obs, _ = env.reset(seed=seed)
        expert = BabyAIExpert(env)
        while obs.legal:
            obs, *_ = env.step(expert.act(obs))
        assert env.metrics()["victory"], (task, seed)
        assert env.metrics()["level"] == f"BabyAI-MixedTrainLocal-v0/{task}"
