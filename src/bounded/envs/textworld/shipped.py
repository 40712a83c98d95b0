"""Generated TextWorld games shipped with bounded, so that the first games at bounded's
presentation start at once instead of waiting for TextWorld to generate them (25 s to
several minutes a game on 2 cores; a treasure hunt's quest search dominates).

A shipped game is a generated game generated in advance: `scripts/build_textworld_games.py`
runs the generator (`games.ensure_game`, the same child process, settings and seeds) and
packs the two files it writes per game (`.z8` and `.json`, named by task, seed and the
digest of the generator version and settings, `games.game_path`) into
`data/generated_games.tar.xz`, listed in `data/generated_games.json`. `ensure_game` looks
for a game in the cache, then here, then generates it: a seed or setting not shipped is
generated as before, and a change to the generator (`GENERATOR_VERSION`, the settings, the
quest budget) changes the names, so a shipped copy is never used for a game it is not.
"""

from __future__ import annotations

import json
import os
import tarfile
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
SHIPPED_ARCHIVE = DATA / "generated_games.tar.xz"
SHIPPED_MANIFEST = DATA / "generated_games.json"


@cache
def manifest() -> dict[str, Any]:
    if not SHIPPED_MANIFEST.exists():
        return {"games": []}
    return dict(json.loads(SHIPPED_MANIFEST.read_text()))


def shipped_names() -> frozenset[str]:
    """`task/name` (no suffix) of every shipped game."""
    return frozenset(manifest()["games"])


def member_name(path: Path) -> str:
    """A cached game's `.z8` path as a shipped name: `task/name`."""
    return f"{path.parent.name}/{path.stem}"


def unpack_shipped(path: Path) -> bool:
    """Put the shipped copy of the game whose `.z8` belongs at `path` (its `.json` beside
    it) in place, atomically; False where it is not shipped."""
    name = member_name(path)
    if name not in shipped_names():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(dir=path.parent) as work,
        tarfile.open(SHIPPED_ARCHIVE, "r:xz") as archive,
    ):
        for suffix in (".json", ".z8"):  # the story last: its presence marks a whole game
            member = archive.extractfile(name + suffix)
            if member is None:
                raise FileNotFoundError(f"{SHIPPED_ARCHIVE} lacks {name}{suffix}")
            staged = Path(work) / (path.stem + suffix)
            staged.write_bytes(member.read())
            os.replace(staged, path.with_suffix(suffix))
    return True


__all__ = ["SHIPPED_ARCHIVE", "SHIPPED_MANIFEST", "member_name", "shipped_names", "unpack_shipped"]
