"""BALROG's NetHack progression: the human-data win probability of the deepest dungeon
level and the highest experience level an episode reached, whichever is higher.

The table is BALROG's (`data/balrog_progression.json`, MIT; see `data/README.md`):
Dlvl 1 and Xp 1 are 0, ascension is 1.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

TABLE_FILE = "balrog_progression.json"


@cache
def progression_table() -> dict[str, float]:
    """`Dlvl:N` / `Xp:N` / ... -> win probability."""
    text = (resources.files("bounded.envs.nethack") / "data" / TABLE_FILE).read_text("utf-8")
    return {key: float(value) for key, value in json.loads(text).items()}


def level_progression(depth: int, xp_level: int) -> float:
    """The progression of having reached `depth` and `xp_level` (0 for unknown levels)."""
    table = progression_table()
    return max(table.get(f"Dlvl:{depth}", 0.0), table.get(f"Xp:{xp_level}", 0.0))


@dataclass
class Progress:
    """The best dungeon and experience levels an episode reached, and its progression."""

    max_depth: int = 1
    max_xp_level: int = 1

    def update(self, depth: int, xp_level: int) -> None:
        self.max_depth = max(self.max_depth, depth)
        self.max_xp_level = max(self.max_xp_level, xp_level)

    @property
    def progression(self) -> float:
        return level_progression(self.max_depth, self.max_xp_level)


__all__ = ["Progress", "level_progression", "progression_table"]
