"""BabyAI's view as BALROG-style lines."""

from __future__ import annotations

import numpy as np
from minigrid.core.constants import COLOR_TO_IDX, OBJECT_TO_IDX

from bounded.envs.babyai.describe import describe, where


def view() -> np.ndarray:
    image = np.zeros((7, 7, 3), dtype=np.uint8)
    image[:, :, 0] = OBJECT_TO_IDX["empty"]
    image[:, 0, 0] = OBJECT_TO_IDX["wall"]  # a wall six steps ahead
    image[1, 4] = (OBJECT_TO_IDX["ball"], COLOR_TO_IDX["red"], 0)
    image[3, 5] = (OBJECT_TO_IDX["door"], COLOR_TO_IDX["blue"], 2)
    return image


def test_where_names_sides_then_forward() -> None:
    assert where(-2, 1) == "2 steps left and 1 step forward"
    assert where(1, 0) == "1 step right"
    assert where(0, 3) == "3 steps forward"


def test_describe_lists_walls_then_things_nearest_first() -> None:
    assert describe(view()) == [
        "a wall 6 steps forward",
        "a locked blue door 1 step forward",
        "a red ball 2 steps left and 2 steps forward",
    ]
