"""BALROG's progression: the higher of the dungeon and experience levels' table values."""

from __future__ import annotations

import pytest

from bounded.envs.nethack.progress import Progress, level_progression, progression_table


def test_the_table_starts_at_zero_and_ends_at_ascension() -> None:
    table = progression_table()
    assert table["Dlvl:1"] == 0.0 and table["Xp:1"] == 0.0 and table["You ascend t"] == 1.0
    depths = [table[f"Dlvl:{d}"] for d in range(1, 51)]
    assert depths == sorted(depths)


def test_progression_is_the_better_of_depth_and_experience() -> None:
    table = progression_table()
    assert level_progression(3, 1) == table["Dlvl:3"]
    assert level_progression(1, 5) == table["Xp:5"]
    assert level_progression(10, 2) == pytest.approx(max(table["Dlvl:10"], table["Xp:2"]))


def test_progress_keeps_the_best_levels_reached() -> None:
    progress = Progress()
    progress.update(4, 2)
    progress.update(2, 3)  # went up a level: the deepest one still counts
    assert (progress.max_depth, progress.max_xp_level) == (4, 3)
    assert progress.progression == level_progression(4, 3)
