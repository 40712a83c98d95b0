"""EpicStar against its baseline under the shipped experiment file: the agents it compares
act at acting rates within 10% of each other, and the parity report flags the
throttled Chain of Summarization the file used before (an action on 3 steps of 5).

Both play some of the file's own level-5 games with the same scripted explorer (the craft
expert's plan as every model reply), each agent at the settings the file gives it. What
the explorer plays says nothing about which memory a model would use better; what is
tested is that the comparison is a fair one."""

from __future__ import annotations

from pathlib import Path

import pytest

from bounded.analysis.parity import parity_of_runs
from bounded.core import RunRecord
from bounded.jobs.craft_bank import bootstrap_craft_bank
from bounded.jobs.scripted_players import ExpertExplorer
from bounded.runner import GameSpec, play
from bounded.sweeps.experiment import load_experiment

EXPERIMENT = Path(__file__).parents[3] / "experiments" / "epicstar_paper.toml"
THROTTLED = {"interval": 5, "decisions": 3}


@pytest.fixture(scope="module")
def bank(tmp_path_factory) -> Path:
    built, report = bootstrap_craft_bank(seed=0)  # the file's: five wins of levels 6-7
    assert report.kept == 5
    path = tmp_path_factory.mktemp("bank") / "craft.npz"
    built.save(path)
    return path


def level_5_games(tag: str) -> list[GameSpec]:
    """The file's level-5 games of one agent on one map, seed 0 (five styles)."""
    return [
        spec
        for spec in load_experiment(EXPERIMENT).plan()
        if spec.tag == tag and spec.seed == 0
        and spec.env_options["level"] == 5 and spec.env_options["map"] == "crossroads"
    ]  # fmt: skip


def play_games(games: list[GameSpec], bank: Path, **config: object) -> list[RunRecord]:
    runs = []
    for spec in games:
        settings = {**spec.contract_config, **config}
        if "bank" in settings:
            settings["bank"] = str(bank)
        explorer = ExpertExplorer()
        game = spec.model_copy(update={"contract_config": settings, "model": explorer.model.id})
        run = play(game, model=explorer.model, observer=explorer.see)
        assert run.status == "completed", run.error
        runs.append(run)
    return runs


def test_the_files_agents_act_at_matched_effective_rates(bank) -> None:
    tags = ("episodic", "episodic-no-fusion", "summary")
    played = {tag: play_games(level_5_games(tag), bank) for tag in tags}
    report = parity_of_runs((tag, {}, runs) for tag, runs in played.items())
    rates = {cell.label: cell.acting_rate for cell in report.cells}
    assert all(rate is not None and rate > 0 for rate in rates.values())
    assert [d.setting for d in report.differences] == [], report.lines()
    assert report.matched


def test_a_throttled_summary_is_flagged_against_episodic(bank) -> None:
    episodic = play_games(level_5_games("episodic"), bank)
    throttled = play_games(level_5_games("summary"), bank, **THROTTLED)
    report = parity_of_runs([("episodic", {}, episodic), ("summary", {}, throttled)])
    [difference] = report.differences
    assert difference.setting == "acting rate"
    rates = {cell.label: cell.acting_rate or 0.0 for cell in report.cells}
    assert rates["summary"] < 0.9 * rates["episodic"]
    assert report.lines()[0].startswith("parity: acting rate differs: episodic ")
