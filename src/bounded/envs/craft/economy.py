"""Harvesting: income per worker with saturation, per base, after an empirical model.

Minerals (per minute, per worker): the first two workers on a near patch bring ~63,
on a far patch ~55; a third worker adds ~34 on a far patch and ~17 on a near one. A
base has 5 near and 3 far patches (16 workers ~958/min, 24 workers ~1142/min); once the
four small patches run dry (the last 3600 minerals) 2 near and 2 far remain. Gas: 1, 2
or 3 workers on a geyser bring ~50, ~102, ~149 per minute.
"""

from __future__ import annotations

from itertools import accumulate

BASE_MINERALS = 4 * 1800 + 4 * 900
SMALL_PATCHES_GONE_AT = 4 * 900
"""Remaining minerals of a base when its four small patches are mined out (evenly mined)."""
GEYSER_GAS = 2250
GEYSERS_PER_BASE = 2
WORKERS_PER_GEYSER = 3
EFFICIENT_WORKERS = 16


def _cumulative(near: int, far: int) -> tuple[float, ...]:
    rates = [63] * (2 * near) + [55] * (2 * far) + [34] * far + [17] * near
    return (0.0, *(total / 60.0 for total in accumulate(rates)))


_MINERAL_INCOME = {8: _cumulative(5, 3), 4: _cumulative(2, 2)}
_GAS_INCOME = (0.0, 50 / 60, 102 / 60, 149 / 60)


def mineral_patches(remaining: float) -> int:
    if remaining <= 0:
        return 0
    return 8 if remaining > SMALL_PATCHES_GONE_AT else 4


def mineral_income(workers: int, remaining: float) -> float:
    """Minerals per second that `workers` bring from a base with `remaining` minerals."""
    patches = mineral_patches(remaining)
    if patches == 0 or workers <= 0:
        return 0.0
    table = _MINERAL_INCOME[patches]
    return table[min(workers, len(table) - 1)]


def saturation(remaining: float) -> int:
    """Most mineral workers a base can use (three per patch)."""
    return 3 * mineral_patches(remaining)


def gas_income(workers: int) -> float:
    """Gas per second from one geyser worked by `workers` (at most 3 count)."""
    return _GAS_INCOME[max(0, min(workers, WORKERS_PER_GEYSER))]
