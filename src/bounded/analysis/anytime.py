"""An anytime-valid confidence sequence for the mean paired difference of two cells.

The construction is the betting confidence sequence of Waudby-Smith and Ramdas (2024),
"Estimating means of bounded random variables by betting", Journal of the Royal
Statistical Society B 86(1):1-27, with their aGRAPA bets (approximate growth-rate
adaptive: the bet that approximately maximises the capital's growth against each
candidate mean, so the test is powerful against the alternative the data show). No
maintained package of it installs cleanly here (`confseq` 0.0.11 is a source release
that compiles C++ against Boost and pybind11 2.6), so it is written out, and its validity
under continuous monitoring is checked by simulation in the tests.

Each pair's difference `D` (A's win minus B's, 1/0/-1; or A's score minus B's) lies in a
known range `[lo, hi]` and is rescaled to `x = (D - lo) / (hi - lo)` in [0, 1]. Against
a candidate mean `m` a gambler stakes `l_t(m)` on `x_t - m`; the capital is
`K_t(m) = prod (1 + l_i(m) (x_i - m))`. The bet is predictable (from the pairs before
t only): `l_t(m) = (mu_{t-1} - m) / (s2_{t-1} + (mu_{t-1} - m)^2)`, clipped to
`[-c / (1 - m), c / m]` with `c = 1/2`, so that capital never reaches 0; `mu` and `s2`
are the running mean and variance with a prior of one observation (1/2 and 1/4). Under a
true mean `m`, `K_t(m)` is a nonnegative martingale starting at 1, so by Ville's
inequality the chance that it *ever* reaches `1/alpha` is at most `alpha`. The confidence
sequence is the running intersection over time of `{m : K_t(m) < 1/alpha}`: it covers the
true mean at every time at once, so it may be looked at after every game and a sweep
stopped the first time it excludes 0, at level `alpha`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from bounded.archive import Archive

BET_CAP = 0.5
"""`c`: the largest fraction of capital a bet may stake (Waudby-Smith and Ramdas's 1/2)."""
GRID = 2001
"""Candidate means on [0, 1]; each end of the interval is then found between two
neighbours of this grid on a finer one of `REFINE` points, and rounded outwards to it."""
REFINE = 201
RULE = "betting confidence sequence, aGRAPA bets (Waudby-Smith and Ramdas 2024)"


def running_estimates(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean and variance estimates before each t (last axis), with their prior."""
    t = np.arange(1, x.shape[-1] + 1, dtype=float)
    means = (0.5 + np.cumsum(x, axis=-1)) / (t + 1)
    variances = (0.25 + np.cumsum((x - means) ** 2, axis=-1)) / (t + 1)
    start = (*x.shape[:-1], 1)
    before_mean = np.concatenate([np.full(start, 0.5), means[..., :-1]], axis=-1)
    before_var = np.concatenate([np.full(start, 0.25), variances[..., :-1]], axis=-1)
    return before_mean, before_var


def log_capital(x: np.ndarray, m: np.ndarray, alpha: float) -> np.ndarray:
    """log K_t(m) for every t and every candidate m: shape `x.shape + m.shape`. (`alpha`
    does not enter the aGRAPA bets; it is kept for the callers' symmetry.)"""
    x = np.asarray(x, dtype=float)
    m = np.asarray(m, dtype=float)
    mean, var = (estimate[..., None] for estimate in running_estimates(x))
    gap = mean - m
    bets = gap / (var + gap**2)
    with np.errstate(divide="ignore"):
        low = np.where(m < 1, -BET_CAP / np.where(m < 1, 1 - m, 1.0), -np.inf)
        high = np.where(m > 0, BET_CAP / np.where(m > 0, m, 1.0), np.inf)
    bets = np.clip(bets, low, high)
    return np.asarray(np.cumsum(np.log1p(bets * (x[..., None] - m)), axis=-2))


def rejects(x: np.ndarray, m: float, alpha: float) -> np.ndarray:
    """Whether the capital against mean `m` has reached 1/alpha by each time (last axis):
    the confidence sequence's running intersection excludes `m` from then on."""
    capital = log_capital(x, np.array([m]), alpha)[..., 0]
    return np.asarray(np.maximum.accumulate(capital, axis=-1) >= np.log(1 / alpha))


class Look(BaseModel):
    """The confidence sequence at one look (after the next seeds of every block)."""

    pairs: int
    low: float
    high: float
    decided: bool
    """Whether the interval excludes 0 (the running intersection)."""


def confidence_sequence(
    differences: Sequence[float], lo: float, hi: float, alpha: float
) -> tuple[float, float]:
    """The running intersection, after all the differences, on the differences' scale."""
    data = np.asarray(differences, dtype=float)
    if data.size == 0:
        return (lo, hi)
    if np.any(data < lo) or np.any(data > hi):
        raise ValueError(f"a paired difference lies outside [{lo:g}, {hi:g}]")
    x = (data - lo) / (hi - lo)
    grid = np.linspace(0.0, 1.0, GRID)
    inside = np.flatnonzero(~_excluded(x, grid, alpha))
    if inside.size == 0:  # every candidate excluded: the sequence is empty to the grid
        centre = float(np.mean(x))
        return (lo + (hi - lo) * centre, lo + (hi - lo) * centre)
    low = _edge(x, grid[max(inside[0] - 1, 0)], grid[inside[0]], alpha, lower=True)
    high = _edge(x, grid[inside[-1]], grid[min(inside[-1] + 1, GRID - 1)], alpha, lower=False)
    return (lo + (hi - lo) * low, lo + (hi - lo) * high)


def _excluded(x: np.ndarray, means: np.ndarray, alpha: float) -> np.ndarray:
    """Whether each candidate mean has been excluded at some time (running intersection)."""
    return np.asarray(np.any(log_capital(x, means, alpha) >= np.log(1 / alpha), axis=0))


def _edge(x: np.ndarray, start: float, end: float, alpha: float, *, lower: bool) -> float:
    """An end of the interval between two grid neighbours, on a finer grid, rounded
    outwards: the last excluded point before the first included one (lower end), or the
    first excluded point after the last included one (upper end)."""
    if start == end:
        return float(start)
    fine = np.linspace(start, end, REFINE)
    inside = np.flatnonzero(~_excluded(x, fine, alpha))
    if inside.size == 0:
        return float(start if lower else end)
    if lower:
        return float(fine[max(inside[0] - 1, 0)])
    return float(fine[min(inside[-1] + 1, REFINE - 1)])


def look(differences: Sequence[float], lo: float, hi: float, alpha: float) -> Look:
    """The sequence after these pairs, and whether it excludes 0 (computed at 0 exactly)."""
    low, high = confidence_sequence(differences, lo, hi, alpha)
    data = np.asarray(differences, dtype=float)
    decided = bool(data.size) and bool(
        rejects((data - lo) / (hi - lo), (0.0 - lo) / (hi - lo), alpha)[-1]
    )
    return Look(pairs=int(data.size), low=low, high=high, decided=decided)


SEQUENTIAL_KIND = "until-decided"
"""The snapshot kind under which a sweep stopped when decided records its rule."""


class SequentialRecord(BaseModel):
    """What `bounded sweep --until-decided A B` did, as recorded in the archive."""

    experiment: str
    a: str
    b: str
    metric: str
    """`wins` or `score`."""
    level: float
    """alpha: the chance of ever excluding a true difference of 0."""
    lo: float
    """Smallest possible paired difference (the scale of the bets)."""
    hi: float
    block: int
    """Seeds per look (`--block`): the sequence was looked at after each such many more
    seeds of every block."""
    rule: str = RULE
    seeds: list[int] = Field(default_factory=list)
    """The seeds in the order they were played (records of one block, before blocks)."""
    keys: list[tuple[str, int]] = Field(default_factory=list)
    """The (block, seed) pairs in the order they were played (pairs are taken in this
    order: each look adds the next seeds of every block)."""
    looks: list[Look] = Field(default_factory=list)
    stopped_at: int = 0
    """Pairs counted when the sweep stopped."""
    reason: str = ""
    """`decided`, `seeds exhausted`, `game budget`, `cost budget`, or `games failed`."""
    max_games: int = 0
    """Games per cell the sweep was allowed."""
    recorded_at: float = 0.0

    def played(self, held: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
        """The (block, seed) pairs in the order played; for a record of seeds alone, each
        seed's pairs among `held`."""
        if self.keys:
            return [(block, seed) for block, seed in self.keys]
        return [key for seed in self.seeds for key in held if key[1] == seed]

    @property
    def interval(self) -> tuple[float, float]:
        last = self.looks[-1] if self.looks else None
        return (last.low, last.high) if last else (self.lo, self.hi)


def sequential_records(archive: Archive) -> list[SequentialRecord]:
    """Every recorded sweep stopped when decided, oldest first."""
    from bounded.archive.queries import snapshots_of_kind

    return [
        SequentialRecord.model_validate(content)
        for content in snapshots_of_kind(archive, SEQUENTIAL_KIND)
    ]


def record_for(records: Sequence[SequentialRecord], a: str, b: str) -> SequentialRecord | None:
    """The latest record of the comparison A vs B (either order)."""
    found = [r for r in records if {r.a, r.b} == {a, b}]
    return found[-1] if found else None


__all__ = [
    "RULE",
    "SEQUENTIAL_KIND",
    "Look",
    "SequentialRecord",
    "confidence_sequence",
    "log_capital",
    "look",
    "record_for",
    "rejects",
    "running_estimates",
    "sequential_records",
]
