"""The games BALROG plays: Intelligent Go-Explore's pool, shipped with bounded.

BALROG (`balrog/environments/textworld/base.py`) plays the games IGE generated in advance,
25 per task, registered in the order `sorted(glob("*.ulx")) + sorted(glob("*.z8"))`, and
picks game `seed % 25` for a seeded episode. They ship here as one xz archive
(`data/balrog_pool.tar.xz`, built by `scripts/build_textworld_pool.py`, listed in
`data/balrog_pool.json`) and are unpacked once into the games cache, so an episode's
first decision waits for no generation.

IGE's treasure hunts and coin collectors are Glulx stories, which TextWorld 1.7 no longer
plays: they ship compiled to the Z-machine from IGE's own Inform 7 source, and
`as_glulx` turns the Z-machine's text into what BALROG's Glulx interpreter prints (the
same game text; the Z-machine adds its prompt and status line and centres in a wider
screen).
"""

from __future__ import annotations

import json
import lzma
import os
import re
import tarfile
import tempfile
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
POOL_ARCHIVE = DATA / "balrog_pool.tar.xz"
POOL_MANIFEST = DATA / "balrog_pool.json"
POOL_TASKS = ("coin_collector", "the_cooking_game", "treasure_hunter")
POOL_VERSION = "1"
"""Part of the folder the pool is unpacked to: bump when the archive changes."""

_PROMPT = re.compile(r"\s*>[^\n]*\Z")
"""The Z-machine's closing prompt and status line (`\\n\\n>   -= Kitchen =-0/3`)."""
_FINAL_PROMPT = re.compile(r"\n>[^\n]*\Z")
_CENTRED = re.compile(r"^ +(?=\*\*\* .* \*\*\*$)", re.MULTILINE)
WIDER_BY = 24
"""Half the columns the Z-machine's screen (Jericho's) has over the Glulx one (cheapglk's):
a centred line (`*** The End ***`) starts 24 columns further right."""


@cache
def manifest() -> dict[str, Any]:
    return dict(json.loads(POOL_MANIFEST.read_text()))


def pool_size(task: str) -> int:
    return len(manifest()["tasks"][task])


def pool_entry(task: str, seed: int) -> dict[str, str]:
    """The game BALROG plays for a seeded episode: `seed % len(pool)` (a game index, for
    `counter_game`'s, likewise)."""
    games = manifest()["tasks"][task]
    return dict(games[seed % len(games)])


_STARTED: Counter[str] = Counter()
"""Episodes started per task in this process (`counter_game`)."""
_PICKED: dict[tuple[str, int], int] = {}
"""(task, seed) -> the game `counter_game` picked for it in this process."""


def counter_game(task: str, seed: int) -> int:
    """The game BALROG's `TextWorldFactory` picks for an unseeded episode (its default,
    `envs.env_kwargs.seed: null`): a per-process, per-task counter, raised before each
    episode, so the n-th episode of a task in a process plays game `n % len(pool)` (1, 2,
    ...: a process's first episode plays game 1). An episode of a seed already started
    here (a replay) gets the game it got then."""
    if (task, seed) not in _PICKED:
        _STARTED[task] += 1
        _PICKED[(task, seed)] = _STARTED[task] % pool_size(task)
    return _PICKED[(task, seed)]


def pool_game(task: str, seed: int, games_dir: Path) -> Path:
    """The `.z8` of the episode's game (its `.json` beside it), the pool unpacked first
    where `games_dir` lacks it."""
    return ensure_pool(games_dir) / task / f"{pool_entry(task, seed)['name']}.z8"


def ensure_pool(games_dir: Path) -> Path:
    """The folder of the unpacked pool in `games_dir`, unpacked first if missing."""
    root = games_dir / f"balrog_pool-v{POOL_VERSION}"
    if not (root / "complete").exists():
        unpack(root)
    return root


def unpack(root: Path) -> None:
    """Unpack the archive into `root`, atomically (parallel workers: one of them wins)."""
    root.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root.parent) as work:
        with lzma.open(POOL_ARCHIVE) as packed, tarfile.open(fileobj=packed) as archive:
            if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
                archive.extractall(work, filter="data")
            else:
                archive.extractall(work)  # our own archive
        (Path(work) / "complete").touch()
        try:
            os.rename(work, root)
        except OSError:  # another process unpacked it first
            if not (root / "complete").exists():
                raise
        else:
            os.mkdir(work)  # for TemporaryDirectory's cleanup


def as_glulx(text: str, ended: bool) -> str:
    """The Z-machine's text of a turn as BALROG's Glulx interpreter prints it: without
    the closing prompt and status line during play; at the game's end with the bare `>`
    it leaves, and centred lines 24 columns further left."""
    if not ended:
        return _PROMPT.sub("", text)
    text = _FINAL_PROMPT.sub("\n>", text)
    return _CENTRED.sub(lambda m: m.group(0)[WIDER_BY:], text)


__all__ = [
    "POOL_ARCHIVE",
    "POOL_MANIFEST",
    "POOL_TASKS",
    "as_glulx",
    "counter_game",
    "ensure_pool",
    "pool_entry",
    "pool_game",
    "pool_size",
]
