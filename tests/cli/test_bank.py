"""`bounded bank NAME` and an environment's own commands are built from its record: a toy
plugin (tests/data/tally-plugin) installed with its record's bank recipe gets its bank
built by the one CLI command, and its declared command registered, with nothing in
bounded naming it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bounded.contracts.episodic.bank import EpisodicBank
from bounded.testing.plugins import install_plugin, run_with_plugin

PLUGIN_SOURCE = Path(__file__).parents[1] / "data" / "tally-plugin"


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory) -> Path:
    return install_plugin(PLUGIN_SOURCE, tmp_path_factory.mktemp("tally-site"))


def bounded(plugin_path: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_with_plugin(plugin_path, *args, cwd=cwd, env={"COLUMNS": "120"})


def test_a_plugins_bank_recipe_is_built_by_bounded_bank(plugin_path, tmp_path) -> None:
    listed = bounded(plugin_path, "bank", "--help", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "tally" in listed.stdout and "craft" in listed.stdout
    helped = bounded(plugin_path, "bank", "tally", "--help", cwd=tmp_path)
    assert "expert's winning games" in helped.stdout
    assert "--games" in helped.stdout and "runs/banks/tally.npz" in helped.stdout

    done = bounded(plugin_path, "bank", "tally", "--games", "4", "--seed", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = Path("runs/banks/tally.npz")
    # games 0 and 2 play `exact` (targets 2 + seed % 3: 3 and 2) and win, taking target + 1
    # decisions; games 1 and 3 play `over` and lose
    assert done.stdout.strip() == f"tally: kept 2 of 4 games, 7 entries -> {out}"
    bank = EpisodicBank.load(tmp_path / out)
    assert [(g.seed, g.strategy) for g in bank.game_info] == [(1, "exact"), (3, "exact")]
    assert [g.entries for g in bank.game_info] == [4, 3]
    assert bank.meta == {"env": "tally/Tally-v0", "games": 4, "seed": 1}


def test_an_environment_without_a_bank_is_no_bank_command(plugin_path, tmp_path) -> None:
    done = bounded(plugin_path, "bank", "warehouse", cwd=tmp_path)
    assert done.returncode != 0
    assert "No such command 'warehouse'" in done.stderr


def test_a_plugins_declared_command_is_a_bounded_command(plugin_path, tmp_path) -> None:
    done = bounded(plugin_path, "tally-target", "--seed", "4", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "target 3"
    listed = bounded(plugin_path, "--help", cwd=tmp_path)
    assert "tally-target" in listed.stdout and "spire" in listed.stdout
