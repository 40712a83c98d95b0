"""`experiments/balrog.toml` is BALROG's protocol: its episode counts and step limits on
every environment and task available here, for each agent."""

from collections import Counter
from pathlib import Path

import pytest

from bounded.core import ConfigError
from bounded.sweeps.experiment import load_experiment, parse_experiment

FILE = Path(__file__).parents[2] / "experiments" / "balrog.toml"


def test_every_agent_plays_balrogs_episode_counts() -> None:
    games = load_experiment(FILE).plan()
    agents = {g.tag for g in games}
    assert {"balrog-naive", "balrog-cot", "balrog-robust-naive", "balrog-robust-cot"} <= agents
    assert {"state", "typed", "summary", "transcript"} <= agents
    per_env = Counter(g.env for g in games if g.tag == "balrog-cot")
    assert per_env == {"nethack": 5, "minihack": 30, "babyai": 50, "crafter": 10, "textworld": 30}
    crafter = next(g for g in games if g.env == "crafter")
    assert crafter.env_options["max_steps"] == 2000
    textworld = {g.env_options["task"] for g in games if g.env == "textworld"}
    assert textworld == {"treasure_hunter", "the_cooking_game", "coin_collector"}


def test_every_cell_plays_balrogs_presentation_so_every_agent_sees_the_same_games() -> None:
    games = load_experiment(FILE).plan()
    assert {g.env_options.get("presentation") for g in games} == {"balrog"}


def balrog_draw(cells: dict[str, dict[str, object]], games: int | None = 3) -> list:
    defaults = {"env": "babyai", "model": "scripted", "contract": "balrog-naive"}
    data = {
        "experiment": {"name": "draw"},
        "defaults": {**defaults, **({"games": games} if games else {})},
        "cells": [{"tag": tag, **settings} for tag, settings in cells.items()],
    }
    return parse_experiment(data).plan()


def test_balrogs_seed_draw_gives_each_cell_its_own_32_bit_seeds_and_names_itself() -> None:
    """BALROG's evaluator seeds each episode with `get_unique_seed` (the first 8 hex digits
    of a SHA-256, drawn per process and episode): unrelated seeds per agent. The paired
    default plays every cell on the same seeds."""
    games = balrog_draw({"a": {"seed_draw": "balrog"}, "b": {"seed_draw": "balrog"},
                         "p": {"first_seed": 0}, "q": {"first_seed": 0}})  # fmt: skip
    seeds = {tag: [g.seed for g in games if g.tag == tag] for tag in "abpq"}
    assert seeds["p"] == seeds["q"] == [0, 1, 2]
    assert len(set(seeds["a"]) | set(seeds["b"])) == 6  # unrelated: no seed shared
    assert all(0 <= s < 2**32 for s in seeds["a"] + seeds["b"])
    assert {g.tag: g.seed_draw for g in games} == {"a": "balrog", "b": "balrog",
                                                   "p": "paired", "q": "paired"}  # fmt: skip
    again = balrog_draw({"a": {"seed_draw": "balrog"}})
    assert [g.seed for g in again] == seeds["a"]  # a resumed sweep plans the same games


def test_balrogs_seed_draw_with_explicit_seeds_is_refused() -> None:
    with pytest.raises(ConfigError, match="seed_draw"):
        balrog_draw({"a": {"seed_draw": "balrog", "seeds": [1, 2]}}, games=None)
