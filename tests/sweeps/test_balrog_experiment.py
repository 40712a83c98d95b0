"""`experiments/balrog.toml` is BALROG's protocol: its episode counts and step limits on
every environment and task available here, for each agent."""

from collections import Counter
from pathlib import Path

from bounded.sweeps.experiment import load_experiment

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
