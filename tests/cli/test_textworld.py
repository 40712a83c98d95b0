"""`bounded textworld-games`: an experiment's or a task's TextWorld games made before play."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bounded.cli import main
from bounded.envs.textworld.games import game_path, game_settings
from bounded.envs.textworld.prepare import GameNeed, needs_of

SMALL = {"settings": {"level": 3}}


def call(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main([str(arg) for arg in argv])
        raise SystemExit(0)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_a_tasks_seeds_are_generated_once(capsys, tmp_path: Path) -> None:
    options = json.dumps({**SMALL, "games_dir": str(tmp_path)})
    argv = ("textworld-games", "--task", "coin_collector", "--seeds", "1-2", "--options", options)
    code, out, _ = call(capsys, *argv, "--workers", 2)
    assert code == 0 and "2 of 2 ready" in out
    settings = game_settings("coin_collector", SMALL["settings"])
    paths = [game_path("coin_collector", seed, settings, tmp_path) for seed in (1, 2)]
    assert all(p.exists() and p.with_suffix(".json").exists() for p in paths)
    stamps = [p.stat().st_mtime_ns for p in paths]
    assert call(capsys, *argv)[0] == 0
    assert [p.stat().st_mtime_ns for p in paths] == stamps  # kept, not generated again


def test_balrogs_pool_is_unpacked_once_for_every_seed(capsys, tmp_path: Path) -> None:
    options = json.dumps({"presentation": "balrog", "games_dir": str(tmp_path)})
    code, out, _ = call(capsys, "textworld-games", "--seeds", "0-24", "--options", options)
    assert code == 0 and "1 of 1 ready" in out
    assert len(list(tmp_path.glob("balrog_pool-v*/treasure_hunter/*.z8"))) == 25


def test_an_experiments_needs_are_its_textworld_games_without_repeats(tmp_path: Path) -> None:
    games = [
        ("textworld", {"task": "coin_collector", **SMALL, "games_dir": str(tmp_path)}, 1),
        ("textworld", {"task": "coin_collector", **SMALL, "games_dir": str(tmp_path)}, 1),
        ("bounded/TextWorld-v0", {"pool": "balrog", "games_dir": str(tmp_path)}, 1),
        ("textworld", {"presentation": "balrog", "games_dir": str(tmp_path)}, 7),
        ("crafter", {}, 1),
    ]
    needs = needs_of(games)
    assert [n.label for n in needs] == ["coin_collector seed 1", "BALROG's game pool"]
    assert needs[1] == GameNeed(tmp_path)


def test_bad_options_are_one_line(capsys) -> None:
    code, _, err = call(capsys, "textworld-games", "--options", '{"task": "chess"}')
    assert code != 0 and "unknown TextWorld task" in err
    code, _, err = call(capsys, "textworld-games", "--seeds", "a-b")
    assert code != 0 and "--seeds" in err
