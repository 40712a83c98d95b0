"""`presentation="balrog"` against BALROG's own wrappers (tests/data/balrog_golden/minihack)."""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bounded.core import Action, ConfigError
from bounded.envs.checker import check_bounded_env
from bounded.envs.minihack.env import MiniHackEnv

GOLDEN = Path(__file__).parents[2] / "data" / "balrog_golden" / "minihack"


@cache
def tasks() -> list[dict[str, Any]]:
    with gzip.open(GOLDEN / "episodes.json.gz", "rt", encoding="utf-8") as handle:
        return json.load(handle)["tasks"]


CASES = [(t["task"], i) for t in tasks() for i in range(len(t["episodes"]))]


def short_term(obs: Any) -> str:
    """BALROG's short-term context of an observation: what only the current one shows."""
    return str(obs.current_only_text).removesuffix("\n")


def test_the_option_is_checked_and_exposed() -> None:
    with pytest.raises(ConfigError, match="presentation: one of bounded, balrog, not 'fancy'"):
        MiniHackEnv(presentation="fancy")
    assert MiniHackEnv().presentation == "bounded"
    env = MiniHackEnv(presentation="balrog")
    assert env.presentation == "balrog"
    assert env.config.max_steps == 100
    assert env.default_action() == Action(id="north", label="move north")


@pytest.mark.parametrize(("task", "index"), CASES)
def test_an_episode_replays_balrogs_prompt_text_rewards_stats_and_end(
    task: str, index: int
) -> None:
    episode = next(t for t in tasks() if t["task"] == task)["episodes"][index]
    env = MiniHackEnv(task=task, presentation="balrog")
    obs, _ = env.reset(seed=episode["seed"])
    assert env.instructions == episode["instruction_prompt"]
    assert [a.id for a in obs.legal] == episode["vocabulary"]
    assert obs.history_text == episode["reset"]["long_term_context"]
    assert env.observation_space.contains(obs)
    assert short_term(obs) == episode["reset"]["short_term_context"]
    assert obs.state["stats"] == episode["reset"]["stats"]
    for number, record in enumerate(episode["steps"]):
        where = f"{task} seed {episode['seed']} step {number} ({record['action']!r})"
        obs, reward, terminated, truncated, _ = env.step(Action(id=record["action"]))
        assert obs.history_text == record["text"], where
        assert short_term(obs) == record["short"], where
        assert reward == record["reward"], where
        assert (terminated, truncated) == (record["terminated"], record["truncated"]), where
        assert obs.state["stats"] == record["stats"], where
        ended = terminated or truncated
        assert [a.id for a in obs.legal] == ([] if ended else episode["vocabulary"]), where
    metrics = env.metrics()
    assert metrics["progression"] == episode["steps"][-1]["stats"]["progression"]
    env.close()


def test_a_save_replays_under_balrogs_presentation() -> None:
    task = tasks()[0]
    episode = task["episodes"][0]
    env = MiniHackEnv(task=task["task"], presentation="balrog")
    env.reset(seed=episode["seed"])
    for record in episode["steps"][:30]:
        obs, *_ = env.step(Action(id=record["action"]))
    loaded = MiniHackEnv()
    loaded.load(env.save())
    assert loaded.presentation == "balrog"
    assert loaded.balrog is not None
    again = loaded.balrog.observation("balrog")
    assert again.history_text == obs.history_text == episode["steps"][29]["text"]
    env.close()
    loaded.close()


def test_balrogs_presentation_passes_the_conformance_checks() -> None:
    check_bounded_env(
        lambda: MiniHackEnv(task="quest-easy", presentation="balrog", max_steps=20),
        seeds=(0,),
        steps=20,
    )
