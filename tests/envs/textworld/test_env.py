"""`bounded/TextWorld-v0`: conformance, the same generated game in another process,
BALROG's observation options, progression checked against TextWorld's own score on a
hand-worked trace, free text, save/load, the step limit, and the scripted player winning
each of BALROG's three games."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

from bounded.core import Action, ConfigError, IllegalActionError
from bounded.envs import make
from bounded.envs.checker import check_bounded_env, trajectory_digest
from bounded.envs.textworld import CHALLENGES, FREE_TEXT, TextWorldEnv, TextWorldExpert
from bounded.envs.textworld.games import BALROG_SETTINGS, game_path, game_settings

SMALL = {
    "treasure_hunter": {"level": 5},
    "the_cooking_game": {"recipe": 1, "take": 1, "go": 1, "open": True, "cook": True, "cut": True},
    "coin_collector": {"level": 3},
}
"""Settings that generate in a few seconds (BALROG's take 10-30 s a game)."""


def textworld(games_dir: str, task: str = "coin_collector", **options) -> TextWorldEnv:
    env = make("textworld", task=task, settings=SMALL[task], games_dir=games_dir, **options)
    assert isinstance(env, TextWorldEnv)
    return env


def test_gymnasium_check_env_passes_without_warnings(games_dir) -> None:
    options = {
        "task": "coin_collector",
        "settings": SMALL["coin_collector"],
        "games_dir": games_dir,
    }
    env = gymnasium.make("bounded/TextWorld-v0", **options).unwrapped
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    env.close()
    assert [str(w.message) for w in caught] == []


def test_check_bounded_env_passes(games_dir) -> None:
    check_bounded_env(lambda: textworld(games_dir, max_steps=12), seeds=(0, 1), steps=12)


def test_the_same_seed_generates_the_same_game_in_another_process(games_dir, tmp_path) -> None:
    """A fresh cache in a child process generates the game again: the same play."""
    spec = json.dumps({"task": "coin_collector", "settings": SMALL["coin_collector"],
                       "games_dir": str(tmp_path)})  # fmt: skip
    code = (
        "import json, sys; from bounded.envs import make;"
        "from bounded.envs.checker import trajectory_digest;"
        "o = json.loads(sys.argv[1]);"
        "print(trajectory_digest(lambda: make('textworld', **o), 2, 10))"
    )
    out = subprocess.run([sys.executable, "-c", code, spec], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-800:]
    here = trajectory_digest(lambda: textworld(games_dir), 2, 10)
    assert out.stdout.strip().splitlines()[-1] == here
    assert trajectory_digest(lambda: textworld(games_dir), 3, 10) != here


def test_balrogs_games_settings_and_observation_options(games_dir) -> None:
    assert set(CHALLENGES) == {"treasure_hunter", "the_cooking_game", "coin_collector"}
    assert BALROG_SETTINGS["coin_collector"] == {"level": 120}
    assert game_settings("the_cooking_game", {"recipe": 1})["go"] == 12
    env = textworld(games_dir)
    obs, _ = env.reset(seed=1)
    assert env.config.max_steps == 80
    assert obs.text.startswith("Objective: ") and "Score: 0 out of 1. Steps: 0 of 80." in obs.text
    assert "take a trip" not in obs.text.lower()  # the objective names the goal, not the way
    assert [a.id for a in obs.legal][-1] == FREE_TEXT and "look" in [a.id for a in obs.legal]
    bare, _ = textworld(games_dir, objective=False, score=False).reset(seed=1)
    assert "Objective" not in bare.text and "Score" not in bare.text
    assert env.default_action().id == "help"
    with pytest.raises(ConfigError, match="unknown TextWorld task"):
        make("textworld", task="zork")


def test_progression_follows_textworlds_own_score_on_a_hand_worked_trace(games_dir) -> None:
    """The cooking game (one ingredient) scores a point per step of the recipe: the
    walkthrough's commands raise TextWorld's score one by one, and progression is that
    score over the maximum until the meal is eaten (a win: 1)."""
    env = textworld(games_dir, task="the_cooking_game")
    obs, _ = env.reset(seed=4)
    top = obs.state["max_score"]
    assert top >= 3 and env.metrics()["progression"] == 0.0
    for command in env.walkthrough:
        game_score_before = obs.state["score"]
        obs, reward, terminated, _, _ = env.step(Action(id=FREE_TEXT, args={"text": command}))
        assert reward == obs.state["score"] - game_score_before
        expected = 1.0 if obs.state["won"] else obs.state["score"] / top
        assert env.metrics()["progression"] == pytest.approx(expected)
        assert obs.state["progression"] == pytest.approx(expected)
    assert terminated and env.outcome().victory and env.outcome().score == top
    assert env.outcome().ended_by == "victory" and obs.legal == []


def test_free_text_reaches_the_parser_and_other_ids_are_refused(games_dir) -> None:
    env = textworld(games_dir)
    env.reset(seed=1)
    obs, reward, *_ = env.step(Action(id=FREE_TEXT, args={"text": "dance wildly"}))
    assert reward == 0.0 and "Steps: 1 of 80" in obs.text
    obs, *_ = env.step(env.default_action())
    assert obs.t == 2
    with pytest.raises(IllegalActionError, match="not a command the game admits"):
        env.step(Action(id="fly away"))
    with pytest.raises(IllegalActionError, match="non-empty"):
        env.step(Action(id=FREE_TEXT, args={"text": " "}))


def test_a_save_replays_to_the_same_game(games_dir) -> None:
    env = textworld(games_dir, task="treasure_hunter")
    env.reset(seed=2)
    for command in ("look", "inventory", "go north"):
        env.step(Action(id=FREE_TEXT, args={"text": command}))
    saved = env.save()
    other = textworld(games_dir, task="treasure_hunter")
    other.load(saved)
    assert other.save() == saved and other._observe() == env._observe()
    with pytest.raises(ConfigError, match="not a TextWorld save"):
        other.load({"seed": 1})


def test_the_step_limit_truncates(games_dir) -> None:
    env = textworld(games_dir, max_steps=2)
    env.reset(seed=1)
    env.step(Action(id="look"))
    obs, _, terminated, truncated, _ = env.step(Action(id="look"))
    assert truncated and not terminated and obs.legal == []
    assert env.outcome().ended_by == "step-limit" and not env.outcome().victory


@pytest.mark.parametrize("task", sorted(SMALL))
def test_the_scripted_player_wins_each_game(games_dir, task) -> None:
    env = textworld(games_dir, task=task)
    obs, _ = env.reset(seed=3)
    expert = TextWorldExpert(env)
    done = False
    while not done:
        obs, _, terminated, truncated, _ = env.step(expert.act(obs))
        done = terminated or truncated
    assert env.outcome().victory and env.outcome().progress == 1.0, task


def test_games_are_cached_under_their_settings(games_dir) -> None:
    env = textworld(games_dir)
    env.reset(seed=1)
    path = game_path("coin_collector", 1, game_settings("coin_collector", SMALL["coin_collector"]),
                     Path(games_dir))  # fmt: skip
    assert path.exists() and path.with_suffix(".json").exists()
