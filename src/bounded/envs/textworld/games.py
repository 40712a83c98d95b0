"""TextWorld games generated offline from a seed with TextWorld's own challenge generators,
compiled once and kept in a cache directory.

BALROG plays three TextWorld challenges from a set of games generated in advance (from
Intelligent Go-Explore); here each game is generated from its seed with the settings
BALROG's documentation gives (`BALROG_SETTINGS`). TextWorld's generator iterates over
sets, so its output depends on Python's hash seed: games are generated in a child
process with `PYTHONHASHSEED=0`, so the same seed and settings give the same game in any
process. A generated game is two files, the compiled story (`.z8`) and TextWorld's game
description (`.json`, which holds the walkthrough), written atomically: parallel workers
may generate the same game and one of them wins.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bounded.core import BoundedError

CHALLENGES: dict[str, str] = {
    "treasure_hunter": "tw-treasure_hunter",
    "the_cooking_game": "tw-cooking",
    "coin_collector": "tw-coin_collector",
}
"""BALROG's task names -> TextWorld's challenge ids."""

BALROG_SETTINGS: dict[str, dict[str, Any]] = {
    "treasure_hunter": {"level": 30},
    "the_cooking_game": {
        "recipe": 5, "take": 5, "go": 12, "open": True, "cook": True, "cut": True,
        "drop": True, "recipe_seed": 0, "split": None,
    },
    "coin_collector": {"level": 120},
}  # fmt: skip
"""BALROG's settings: treasure hunter at level 30 (20 rooms, locked doors and containers,
a quest of 20 steps), the cooking game with 5 ingredients, 12 rooms to go through and
every skill (open, cook, cut, drop), coin collector at level 120 (40 rooms with
distractors, the coin 20 rooms away)."""

COOKING_DEFAULTS: dict[str, Any] = {"recipe_seed": 0, "split": None}
WITHOUT_SOLUTION = frozenset({"treasure_hunter", "coin_collector"})
"""Games whose objective names only the quest's last step (TextWorld's
`only_last_action`), as BALROG removes the solution from them; TextWorld's own objective
spells out every move."""
GENERATOR_VERSION = "1"
"""Part of a cached game's name: bump when the way games are generated changes."""
GENERATION_TIMEOUT_S = 600


def cache_dir() -> Path:
    """`$BOUNDED_TEXTWORLD_GAMES`, else `$XDG_CACHE_HOME/bounded/textworld` (~/.cache)."""
    given = os.environ.get("BOUNDED_TEXTWORLD_GAMES")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bounded" / "textworld"


def game_settings(task: str, overrides: dict[str, Any] | None) -> dict[str, Any]:
    """BALROG's settings for `task`, with `overrides` applied (a cooking game's missing
    `recipe_seed` and `split` filled)."""
    settings = {**BALROG_SETTINGS[task], **(overrides or {})}
    if task == "the_cooking_game":
        settings = {**COOKING_DEFAULTS, **settings}
    return settings


def game_path(task: str, seed: int, settings: dict[str, Any], games_dir: Path) -> Path:
    """Where the compiled game of (task, seed, settings) lives (`.z8`; `.json` beside it)."""
    key = json.dumps([GENERATOR_VERSION, settings], sort_keys=True)
    digest = hashlib.sha256(key.encode()).hexdigest()[:10]
    return games_dir / task / f"{task}-seed{seed}-{digest}.z8"


def ensure_game(task: str, seed: int, settings: dict[str, Any], games_dir: Path) -> Path:
    """The compiled game, generated first if the cache lacks it."""
    path = game_path(task, seed, settings, games_dir)
    if path.exists() and path.with_suffix(".json").exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent) as work:
        target = Path(work) / path.name
        spec = json.dumps({"task": task, "seed": seed, "settings": settings, "path": str(target)})
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        command = [sys.executable, "-m", "bounded.envs.textworld.games", spec]
        try:
            done = subprocess.run(
                command, env=env, capture_output=True, text=True, timeout=GENERATION_TIMEOUT_S
            )
        except subprocess.TimeoutExpired as exc:
            raise BoundedError(f"generating {task} seed {seed} took over {exc.timeout} s") from exc
        if done.returncode != 0 or not target.exists():
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise BoundedError(f"TextWorld could not generate {task} seed {seed}: {last}")
        os.replace(target.with_suffix(".json"), path.with_suffix(".json"))
        os.replace(target, path)
    return path


def _generate(spec: dict[str, Any]) -> None:
    """Generate and compile one game (run in the child process)."""
    import textworld
    import textworld.challenges
    from textworld.generator.game import GameOptions

    options = GameOptions()
    options.seeds = int(spec["seed"])
    options.path = spec["path"]
    options.file_ext = ".z8"
    options.force_recompile = True
    options.grammar.only_last_action = spec["task"] in WITHOUT_SOLUTION
    _, make, _ = textworld.challenges.CHALLENGES[CHALLENGES[spec["task"]]]
    game = make(spec["settings"], options)
    textworld.generator.compile_game(game, options)


if __name__ == "__main__":
    _generate(json.loads(sys.argv[1]))


__all__ = [
    "BALROG_SETTINGS",
    "CHALLENGES",
    "cache_dir",
    "ensure_game",
    "game_path",
    "game_settings",
]
