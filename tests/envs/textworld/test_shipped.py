"""The generated games shipped with bounded: a shipped game is unpacked into an empty cache
instead of generated, byte for byte the generator's files; a seed or settings not shipped
is generated as before; and a shipped game is what the generator makes of its seed."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from bounded.envs import make
from bounded.envs.textworld import games, shipped
from bounded.envs.textworld.games import ensure_game, game_path, game_settings

FIRST = [(task, 1) for task in ("treasure_hunter", "the_cooking_game", "coin_collector")]


def shipped_game(task: str, seed: int) -> bool:
    path = game_path(task, seed, game_settings(task, None), Path("cache"))
    return shipped.member_name(path) in shipped.shipped_names()


def no_generation(*args, **kwargs):
    raise AssertionError("generated a game that ships")


@pytest.mark.parametrize(("task", "seed"), [g for g in FIRST if shipped_game(*g)])
def test_a_shipped_game_is_unpacked_not_generated(tmp_path, monkeypatch, task, seed):
    monkeypatch.setattr(games, "generate_game", no_generation)
    path = ensure_game(task, seed, game_settings(task, None), tmp_path)
    name = shipped.member_name(path)
    with tarfile.open(shipped.SHIPPED_ARCHIVE, "r:xz") as archive:
        for suffix in (".z8", ".json"):
            member = archive.extractfile(name + suffix)
            assert member is not None
            assert path.with_suffix(suffix).read_bytes() == member.read()
    assert not [p for p in path.parent.iterdir() if p.is_dir()]  # no staging folder left
    env = make("textworld", task=task, games_dir=str(tmp_path))
    obs, _ = env.reset(seed=seed)
    assert obs.legal and obs.text
    env.close()


def test_the_first_seed_of_every_task_ships():
    assert all(shipped_game(*game) for game in FIRST)


def test_a_seed_or_settings_not_shipped_is_generated(tmp_path, monkeypatch):
    asked: list[tuple[str, int]] = []

    def generate(task, seed, settings, path):
        asked.append((task, seed))
        return path

    monkeypatch.setattr(games, "generate_game", generate)
    ensure_game("coin_collector", 123_456, game_settings("coin_collector", None), tmp_path)
    ensure_game("coin_collector", 1, {"level": 3}, tmp_path)
    assert asked == [("coin_collector", 123_456), ("coin_collector", 1)]


@pytest.mark.slow
def test_a_shipped_game_is_what_the_generator_makes_of_its_seed(tmp_path):
    """The shipped coin collector of seed 1 against a fresh generation (about 30 s): the
    same game description but for where TextWorld is installed, and the same story but
    for its compile date."""
    settings = game_settings("coin_collector", None)
    fresh = games.generate_game("coin_collector", 1, settings, game_path(
        "coin_collector", 1, settings, tmp_path / "fresh"))  # fmt: skip
    unpacked = ensure_game("coin_collector", 1, settings, tmp_path / "shipped")
    assert unpacked.name == fresh.name
    assert described(unpacked) == described(fresh)
    assert undated(unpacked.read_bytes()) == undated(fresh.read_bytes())


def described(game: Path) -> dict:
    """A game's description without its grammar folder: TextWorld writes the absolute path
    of its own install there (`.../site-packages/textworld/...`), which differs between
    checkouts and is read only to generate a game, never to play one."""
    description = json.loads(game.with_suffix(".json").read_text())
    grammars = description["KB"].pop("text_grammars_path")
    assert grammars.endswith("textworld_data/text_grammars")
    return description


def undated(story: bytes) -> bytes:
    """A Z-machine story without its serial number (header bytes 0x12-0x17: Inform writes
    the compile date, YYMMDD, there)."""
    return story[:0x12] + story[0x18:]
