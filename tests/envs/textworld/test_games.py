"""Generating TextWorld games: a treasure hunt whose quest search passes its budget, or
whose walkthrough is shorter than its quest, is passed over for the episode's next
generator seed, the same way in any process, and an episode none of whose generator
seeds gives one is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bounded.core import BoundedError
from bounded.envs.textworld import games
from bounded.envs.textworld.games import (
    QUEST_SEARCH_BUDGET,
    SEED_STRIDE,
    ensure_game,
    game_path,
    generator_seeds,
)

HUNT = {"level": 5}
"""A small hunt: its quest (3 steps) is found in 4 or 5 search steps, depending on the
seed (seed 2: 5; its next generator seed, 100002: 4)."""


def metadata(path: Path) -> dict:
    return json.loads(path.with_suffix(".json").read_text())["metadata"]


def test_the_generator_seeds_of_an_episode_start_with_its_own_seed():
    seeds = generator_seeds(7)
    assert seeds[0] == 7 and seeds[1] == 7 + SEED_STRIDE and len(set(seeds)) == len(seeds)


def test_a_seed_past_the_search_budget_is_passed_over_the_same_way_in_any_cache(
    tmp_path, monkeypatch
):
    monkeypatch.setitem(QUEST_SEARCH_BUDGET, "treasure_hunter", 4)
    within = ensure_game("treasure_hunter", 1, HUNT, tmp_path / "a")
    passed = ensure_game("treasure_hunter", 2, HUNT, tmp_path / "a")
    assert metadata(within)["generator_seed"] == 1
    assert metadata(passed)["generator_seed"] == 2 + SEED_STRIDE
    again = ensure_game("treasure_hunter", 2, HUNT, tmp_path / "b")  # a fresh child process
    assert metadata(again) == metadata(passed)
    assert again.read_bytes() == passed.read_bytes()


def test_the_budget_is_part_of_a_cached_games_name(tmp_path, monkeypatch):
    hunt, coins = (
        game_path("treasure_hunter", 2, HUNT, tmp_path),
        game_path("coin_collector", 2, {"level": 3}, tmp_path),
    )
    monkeypatch.setitem(QUEST_SEARCH_BUDGET, "treasure_hunter", 4)
    assert game_path("treasure_hunter", 2, HUNT, tmp_path) != hunt
    assert game_path("coin_collector", 2, {"level": 3}, tmp_path) == coins  # no budget


def test_an_episode_without_a_quest_within_the_budget_is_refused_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setitem(QUEST_SEARCH_BUDGET, "treasure_hunter", 1)
    monkeypatch.setattr(games, "GENERATOR_SEEDS", 2)
    with pytest.raises(BoundedError) as raised:
        ensure_game("treasure_hunter", 3, HUNT, tmp_path)
    message = str(raised.value)
    assert message.startswith("TextWorld could not generate treasure_hunter seed 3: ")
    assert "no quest found within 1 search steps with a walkthrough" in message
    assert "of its 2 generator seeds (3, 100003)" in message and "\n" not in message
    assert not list((tmp_path / "treasure_hunter").glob("*.z8"))


def test_a_hunt_whose_walkthrough_is_shorter_than_its_quest_is_passed_over(tmp_path):
    """Level 20 (10 rooms, a 10-step quest): seed 0's map lets a 5-step walkthrough win;
    its next generator seed's walkthrough is the whole quest."""
    path = ensure_game("treasure_hunter", 0, {"level": 20}, tmp_path)
    found = metadata(path)
    assert found["generator_seed"] == SEED_STRIDE
    assert len(found["walkthrough"]) == found["quest_length"] == 10
