"""`presentation="balrog"` replays BALROG's own recordings (tests/data/balrog_golden/textworld,
made by BALROG's `make_env` over its TextWorld fork on IGE's games) step for step."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from bounded.core import Action, ConfigError, IllegalActionError
from bounded.envs.textworld import FREE_TEXT, TextWorldEnv
from bounded.envs.textworld.pool import as_glulx, pool_entry, pool_size

GOLDEN = Path(__file__).parents[2] / "data" / "balrog_golden" / "textworld"
TASKS = ("treasure_hunter", "the_cooking_game", "coin_collector")


def golden(task: str) -> dict[str, Any]:
    with gzip.open(GOLDEN / f"{task}.json.gz", "rt", encoding="utf-8") as data:
        return dict(json.load(data))


def episodes() -> list[tuple[str, dict[str, Any]]]:
    return [(task, episode) for task in TASKS for episode in golden(task)["episodes"]]


def typed(command: str, step: int) -> Action:
    """The command as free text, or (every third step) as an action id: both are typed."""
    if step % 3 == 2:
        return Action(id=command)
    return Action(id=FREE_TEXT, args={"text": command})


@pytest.mark.parametrize(
    ("task", "episode"), episodes(), ids=[f"{t}-{e['seed']}" for t, e in episodes()]
)
def test_each_step_is_balrogs(task: str, episode: dict[str, Any], games_dir: str) -> None:
    env = TextWorldEnv(task=task, presentation="balrog", games_dir=games_dir)
    assert env.presentation == "balrog"
    assert env.instructions == episode["instruction"]
    assert env.config.max_steps == episode["max_steps"]
    obs, _ = env.reset(seed=episode["seed"])
    assert f"{pool_entry(task, episode['seed'])['name']}" == Path(episode["game"]).stem
    assert obs.text == episode["text"]
    for step, want in enumerate(episode["steps"]):
        assert [a.id for a in obs.legal] == [FREE_TEXT]  # BALROG's AlwaysTrue: any string
        assert want["accepted"]
        obs, reward, terminated, truncated, _ = env.step(typed(want["command"], step))
        where = f"step {step} ({want['command']!r})"
        assert obs.text == want["text"], where
        assert reward == want["reward"], where
        assert (terminated, truncated) == (want["terminated"], want["truncated"]), where
        if terminated or truncated:  # BALROG computes its progression when the game ends
            assert env.metrics()["progression"] == pytest.approx(want["progression"]), where
        else:
            assert want["progression"] == 0.0
    assert terminated or truncated
    assert obs.legal == []
    env.close()


def test_the_pool_is_balrogs_order_of_iges_games() -> None:
    assert [pool_size(task) for task in TASKS] == [25, 25, 25]
    assert pool_entry("coin_collector", 0)["name"] == "level_220_seed_100"
    assert pool_entry("coin_collector", 26) == pool_entry("coin_collector", 1)
    assert {pool_entry("the_cooking_game", s)["format"] for s in range(25)} == {"z8"}
    assert {pool_entry("treasure_hunter", s)["format"] for s in range(25)} == {"ulx"}


def test_the_z_machine_text_becomes_the_glulx_text() -> None:
    status = "\n\n\n>" + " " * 128 + "-= Spare Room =-0/3"
    assert as_glulx("You take the keycard." + status, ended=False) == "You take the keycard."
    end = " " * 55 + "*** The End ***\n\nWould you like to QUIT?\n>" + " " * 40
    assert as_glulx(end, ended=True) == " " * 31 + "*** The End ***\n\nWould you like to QUIT?\n>"


def test_a_save_replays_under_balrogs_presentation(games_dir: str) -> None:
    env = TextWorldEnv(task="coin_collector", presentation="balrog", games_dir=games_dir)
    env.reset(seed=3)
    for command in ("go north", "look", "xyzzy"):
        env.step(Action(id=FREE_TEXT, args={"text": command}))
    saved = env.save()
    after, *_ = env.step(Action(id="go south"))
    other = TextWorldEnv(task="coin_collector", presentation="balrog", games_dir=games_dir)
    other.load(saved)
    again, *_ = other.step(Action(id="go south"))
    assert again.text == after.text and other.metrics() == env.metrics()
    env.close()
    other.close()


def test_a_presentation_other_than_the_two_is_refused() -> None:
    with pytest.raises(ConfigError, match="presentation: one of bounded, balrog"):
        TextWorldEnv(presentation="nethack")
    with pytest.raises(ConfigError, match="BALROG's game pool"):
        TextWorldEnv(pool="balrog", settings={"level": 5})
    with pytest.raises(ConfigError, match="BALROG's game pool"):
        TextWorldEnv(presentation="balrog", pool="balrog", settings={"level": 5})
    generated = TextWorldEnv(presentation="balrog", settings={"level": 5})
    assert not generated.config.balrog_pool  # settings ask for a generated game
    with pytest.raises(ConfigError, match="pool"):
        TextWorldEnv(pool="ige")
    assert TextWorldEnv().presentation == "bounded"


def test_bounded_presentation_plays_balrogs_pool_when_asked(games_dir: str) -> None:
    env = TextWorldEnv(task="the_cooking_game", pool="balrog", games_dir=games_dir)
    obs, _ = env.reset(seed=5)
    assert env.presentation == "bounded" and obs.text.startswith("Objective:")
    assert {"look", "inventory", FREE_TEXT} <= {a.id for a in obs.legal}  # admissible + free
    balrog = TextWorldEnv(task="the_cooking_game", presentation="balrog", games_dir=games_dir)
    first, _ = balrog.reset(seed=5)
    assert env.walkthrough == balrog.walkthrough  # the same game
    assert first.text.split("\n")[0] in obs.text
    env.close()
    balrog.close()


def test_balrogs_counter_picks_the_next_game_per_task_in_the_process(games_dir: str) -> None:
    """BALROG's `TextWorldFactory.get_textworld_env` without a seed (its config's default):
    `count[task] += 1`, then game `count[task] % len(pool)`, per process and task."""
    from bounded.envs.textworld import pool

    task = "coin_collector"
    before = pool._STARTED[task]
    env = TextWorldEnv(task=task, presentation="balrog", games_dir=games_dir,
                       game_choice="counter")  # fmt: skip
    games = [env.reset(seed=seed)[1]["game"] for seed in (40, 41, 42)]
    assert games == [(before + n) % pool_size(task) for n in (1, 2, 3)]
    assert env.reset(seed=41)[1]["game"] == games[1]  # a replay of a seed: the same game
    assert env.metrics()["game"] == games[1]
    saved = env.save()
    other = TextWorldEnv(task=task, presentation="balrog", games_dir=games_dir,
                         game_choice="counter")  # fmt: skip
    other.load(saved)
    assert other.metrics()["game"] == games[1] and pool._STARTED[task] == before + 3
    with pytest.raises(ConfigError, match="game_choice='counter'"):
        TextWorldEnv(task=task, game_choice="counter")  # generated games: no pool
    env.close()
    other.close()


def test_an_empty_command_is_typed_as_balrog_types_it(games_dir: str) -> None:
    """BALROG's `AlwaysTrue` holds the empty string too: `check_action_validity` passes it
    on and the game reads an empty line (no default action, no feedback)."""
    env = TextWorldEnv(task="coin_collector", presentation="balrog", games_dir=games_dir)
    env.reset(seed=3)
    obs, reward, terminated, truncated, _ = env.step(Action(id=FREE_TEXT, args={"text": ""}))
    assert obs.text == "I beg your pardon?" and env.metrics()["steps"] == 1
    assert (reward, terminated, truncated) == (0.0, False, False)
    bounded = TextWorldEnv(task="coin_collector", pool="balrog", games_dir=games_dir)
    bounded.reset(seed=3)
    with pytest.raises(IllegalActionError, match="non-empty"):
        bounded.step(Action(id=FREE_TEXT, args={"text": " "}))
    env.close()
    bounded.close()
