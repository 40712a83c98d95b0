"""`presentation="balrog"` against BALROG's own wrappers (tests/data/balrog_golden/nethack)."""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bounded.core import Action, ConfigError, IllegalActionError
from bounded.envs.checker import check_bounded_env
from bounded.envs.nethack.env import NetHackEnv

GOLDEN = Path(__file__).parents[2] / "data" / "balrog_golden" / "nethack"


@cache
def golden(name: str) -> Any:
    with gzip.open(GOLDEN / name, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def episodes() -> list[dict[str, Any]]:
    return golden("episodes.json.gz")["episodes"]


def short_term(obs: Any) -> str:
    """BALROG's short-term context of an observation: what only the current one shows."""
    return str(obs.current_only_text).removesuffix("\n")


def test_the_option_is_checked_and_exposed() -> None:
    with pytest.raises(ConfigError, match="presentation: one of bounded, balrog, not 'fancy'"):
        NetHackEnv(presentation="fancy")
    assert NetHackEnv().presentation == "bounded"
    env = NetHackEnv(presentation="balrog")
    assert env.presentation == "balrog"
    assert env.config.max_steps == 100_000
    assert NetHackEnv(presentation="balrog", max_steps=7).config.max_steps == 7
    assert NetHackEnv().config.max_steps == 10_000


def test_instructions_and_vocabulary_are_balrogs() -> None:
    env = NetHackEnv(presentation="balrog")
    obs, _ = env.reset(seed=1)
    for episode in episodes():
        assert env.instructions == episode["instruction_prompt"]
        assert [a.id for a in obs.legal] == episode["vocabulary"]
    assert env.default_action() == Action(id="esc")
    env.close()


@pytest.mark.parametrize("index", range(len(episodes())))
def test_an_episode_replays_balrogs_text_rewards_stats_and_end(index: int) -> None:
    episode = episodes()[index]
    env = NetHackEnv(presentation="balrog")
    obs, _ = env.reset(seed=episode["seed"])
    assert obs.history_text == episode["reset"]["long_term_context"]
    assert env.observation_space.contains(obs)
    assert short_term(obs) == episode["reset"]["short_term_context"]
    assert obs.state["stats"] == episode["reset"]["stats"]
    vocabulary = episode["vocabulary"]
    refusal_checked = False
    for number, record in enumerate(episode["steps"]):
        where = f"seed {episode['seed']} step {number} ({record['action']!r})"
        if "error" in record:
            if not refusal_checked:
                check_refusal_ends_the_episode(env, record["action"], obs.text)
                refusal_checked = True
            continue
        obs, reward, terminated, truncated, _ = env.step(Action(id=record["action"]))
        assert obs.history_text == record["text"], where
        assert short_term(obs) == record["short"], where
        assert reward == record["reward"], where
        assert (terminated, truncated) == (record["terminated"], record["truncated"]), where
        assert obs.state["stats"] == record["stats"], where
        ended = terminated or truncated
        assert [a.id for a in obs.legal] == ([] if ended else vocabulary), where
    env.close()


def check_refusal_ends_the_episode(env: NetHackEnv, word: str, text: str) -> None:
    """A word BALROG's step raises on ends a copy of the game where it stands."""
    copy = NetHackEnv()
    copy.load(env.save())
    obs, reward, terminated, truncated, info = copy.step(Action(id=word))
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert obs.text == text and obs.legal == []
    assert info["ended_by"] == copy.metrics()["ended_by"] == "balrog-error"
    copy.close()


def test_a_word_outside_the_vocabulary_is_refused() -> None:
    env = NetHackEnv(presentation="balrog")
    env.reset(seed=1)
    with pytest.raises(IllegalActionError, match="not one of BALROG's words"):
        env.step(Action(id="overview"))
    env.close()


def test_a_save_replays_under_balrogs_presentation() -> None:
    episode = episodes()[0]
    env = NetHackEnv(presentation="balrog")
    env.reset(seed=episode["seed"])
    steps = [r for r in episode["steps"] if "error" not in r][:40]
    for record in steps:
        obs, *_ = env.step(Action(id=record["action"]))
    loaded = NetHackEnv()
    loaded.load(env.save())
    assert loaded.presentation == "balrog"
    assert loaded.balrog is not None
    assert loaded.balrog.observation("balrog").history_text == obs.history_text == steps[-1]["text"]
    env.close()
    loaded.close()


def test_balrogs_presentation_passes_the_conformance_checks() -> None:
    check_bounded_env(lambda: NetHackEnv(presentation="balrog", max_steps=20), seeds=(0,), steps=20)
