"""Power before paying: the seeds per block a paired comparison needs, and the smallest
difference a number of seeds can detect, for the tests `bounded analyze --compare` runs
(`bounded.analysis.stratified`) on blocks x seeds.

**Wins** (McNemar's test with Edwards' continuity correction on the discordant pairs
pooled over the blocks): the pairs from Connor's formula (Connor 1987, "Sample size for
testing differences in proportions for the paired-sample design", Biometrics 43:207; the
textbook form in Chow, Shao and Wang, "Sample Size Calculations in Clinical Research",
section on McNemar's test), generalised to blocks:

    N = (z_{1-alpha/2} sqrt(psi) + z_{power} sqrt(v))^2 / delta^2

where, averaged over the blocks, `delta = p10 - p01` is the difference of the win rates,
`psi = p10 + p01` the chance that a pair is discordant and `v` the mean of
`psi_k - delta_k^2` (with one block, Connor's `psi - delta^2`). Each block's discordant
cells follow from its two win rates and their correlation over seeds within the block
(phi): `p11 = pA pB + rho sqrt(pA qA pB qB)`. Connor's formula is for the uncorrected
test; the seeds per block are the fewest from there on at which its normal approximation
with the correction (`B - C - 1` against `z sqrt(N psi)`) reaches the power. Beside it, the
power of the test itself at those seeds, simulated (seeded) from the blocks' cells through
the same function the analysis calls. **Scores** (the stratified paired t, N - K degrees
of freedom): the power from the noncentral t with noncentrality `delta sqrt(N) / sd`,
`sd` the standard deviation of paired differences within blocks (one block: statsmodels
`TTestPower`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel
from scipy import optimize, stats

from bounded.analysis.stratified import CORRECTION
from bounded.core import ConfigError

ALPHA = 0.05
POWER = 0.8
SIMULATED_SWEEPS = 20_000
"""Simulated sweeps behind a predicted power (its Monte Carlo error under 0.4 points)."""


class Joint(BaseModel):
    """The chances of a pair's four outcomes (A's result first)."""

    both: float
    only_a: float
    only_b: float
    neither: float

    @property
    def discordant(self) -> float:
        return self.only_a + self.only_b

    @property
    def difference(self) -> float:
        return self.only_a - self.only_b


def joint(rate_a: float, rate_b: float, rho: float = 0.0) -> Joint:
    """The pair's outcome chances from two win rates and their correlation (phi)."""
    for name, rate in (("A's win rate", rate_a), ("B's win rate", rate_b)):
        if not 0.0 <= rate <= 1.0:
            raise ConfigError(f"{name} must lie in [0, 1], got {rate:g}")
    both = rate_a * rate_b + rho * math.sqrt(rate_a * (1 - rate_a) * rate_b * (1 - rate_b))
    cells = Joint(
        both=both, only_a=rate_a - both, only_b=rate_b - both, neither=1 - rate_a - rate_b + both
    )
    if min(cells.both, cells.only_a, cells.only_b, cells.neither) < -1e-12:
        raise ConfigError(
            f"a correlation of {rho:g} is impossible for win rates {rate_a:g} and {rate_b:g}"
        )
    return cells


def connor_pairs(blocks: Sequence[Joint], alpha: float = ALPHA, power: float = POWER) -> int:
    """Pairs in all (over the blocks, equally many per block) for McNemar's test, without
    continuity correction, to detect the blocks' mean difference (Connor over blocks)."""
    delta = abs(float(np.mean([cells.difference for cells in blocks])))
    psi = float(np.mean([cells.discordant for cells in blocks]))
    spread = float(np.mean([cells.discordant - cells.difference**2 for cells in blocks]))
    if delta == 0:
        raise ConfigError("a difference of 0 cannot be detected: give --effect")
    z_alpha, z_power = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(power)
    root = z_alpha * math.sqrt(psi) + z_power * math.sqrt(max(spread, 0.0))
    return math.ceil(root**2 / delta**2 - 1e-9)


def connor_games(cells: Joint, alpha: float = ALPHA, power: float = POWER) -> int:
    """Pairs for McNemar's test to detect `cells.difference` in one block (Connor)."""
    return connor_pairs([cells], alpha, power)


def connor_power(
    seeds: int,
    blocks: Sequence[Joint] | Joint,
    alpha: float = ALPHA,
    correction: float = CORRECTION,
) -> float:
    """The normal-approximation power of McNemar's test (continuity-corrected unless
    `correction=0`) with `seeds` pairs per block."""
    cells = [blocks] if isinstance(blocks, Joint) else list(blocks)
    n = seeds * len(cells)
    delta = abs(float(np.mean([c.difference for c in cells])))
    psi = float(np.mean([c.discordant for c in cells]))
    spread = math.sqrt(max(float(np.mean([c.discordant - c.difference**2 for c in cells])), 1e-300))
    z_alpha = stats.norm.ppf(1 - alpha / 2)
    reach = n * delta - correction - z_alpha * math.sqrt(n * psi)
    return float(stats.norm.cdf(reach / (math.sqrt(n) * spread)))


def mcnemar_seeds(blocks: Sequence[Joint], alpha: float = ALPHA, power: float = POWER) -> int:
    """The fewest seeds per block at which the corrected test reaches the power (normal
    approximation), from Connor's uncorrected pairs on."""
    seeds = max(math.ceil(connor_pairs(blocks, alpha, power) / len(blocks)), 1)
    while connor_power(seeds, blocks, alpha) < power:
        seeds += 1
    return seeds


def mcnemar_power(
    seeds: int,
    blocks: Sequence[Joint],
    alpha: float = ALPHA,
    *,
    draws: int = SIMULATED_SWEEPS,
    seed: int = 0,
) -> float:
    """The power of McNemar's test over the blocks (`stratified.mcnemar_p`, the test the
    analysis runs) with `seeds` pairs per block: the share of `draws` simulated sweeps
    (seeded) whose pooled discordant pairs it rejects."""
    from bounded.analysis.stratified import mcnemar_p

    if seeds < 1:
        return 0.0
    rng = np.random.default_rng(seed)
    only_a = np.zeros(draws, dtype=int)
    only_b = np.zeros(draws, dtype=int)
    for cells in blocks:
        chances = np.clip([cells.both, cells.only_a, cells.only_b, cells.neither], 0.0, None)
        tables = rng.multinomial(seeds, chances / chances.sum(), size=draws)
        only_a += tables[:, 1]
        only_b += tables[:, 2]
    outcomes = Counter(zip(only_a.tolist(), only_b.tolist(), strict=True))
    rejected = sum(count for (b, c), count in outcomes.items() if mcnemar_p(b, c) <= alpha)
    return rejected / draws


def block_cells(rates_b: Sequence[float], effect: float, rho: float) -> list[Joint]:
    """Each block's pair chances: B's rate there, A's = B's + effect, the correlation
    clipped to what the two rates allow."""
    found = []
    for rate_b in rates_b:
        rate_a = rate_b + effect
        found.append(joint(rate_a, rate_b, feasible(rho, rate_a, rate_b)))
    return found


def detectable_win_difference(
    seeds: int,
    rates_b: Sequence[float] | float,
    rho: float = 0.0,
    alpha: float = ALPHA,
    power: float = POWER,
) -> float | None:
    """The smallest rate_a - rate_b > 0 (the same in every block) that `seeds` pairs per
    block detect with `power` (Connor over blocks), from B's rate in each block; None when
    even rate_a = 1 is not detected."""
    rates = [rates_b] if isinstance(rates_b, float | int) else list(rates_b)

    def gap(delta: float) -> float:
        return connor_power(seeds, block_cells(rates, delta, rho), alpha) - power

    top = 1.0 - max(rates)
    if top <= 0 or gap(top) < 0:
        return None
    return float(optimize.brentq(gap, 1e-6, top, xtol=1e-6))


def feasible(rho: float, rate_a: float, rate_b: float) -> float:
    """`rho` clipped to what the two rates allow (for the search over differences)."""
    if rate_a in (0.0, 1.0) or rate_b in (0.0, 1.0):
        return 0.0
    scale = math.sqrt(rate_a * (1 - rate_a) * rate_b * (1 - rate_b))
    high = (min(rate_a, rate_b) - rate_a * rate_b) / scale
    low = (max(0.0, rate_a + rate_b - 1) - rate_a * rate_b) / scale
    return min(max(rho, low), high)


def stratified_t_power(
    seeds: int, blocks: int, delta: float, sd: float, alpha: float = ALPHA
) -> float:
    """The power of the stratified paired t (N - K degrees of freedom) with `seeds` pairs
    in each of `blocks` blocks, paired differences of standard deviation `sd` within a
    block: the noncentral t's chance beyond the two-sided critical values."""
    n, df = seeds * blocks, seeds * blocks - blocks
    if df < 1 or sd <= 0:
        return 0.0
    critical = stats.t.ppf(1 - alpha / 2, df)
    shift = abs(delta) * math.sqrt(n) / sd
    upper = float(stats.nct.sf(critical, df, shift))
    lower = float(np.nan_to_num(stats.nct.cdf(-critical, df, shift)))  # scipy: NaN for ~0
    return upper + lower


def stratified_t_seeds(
    delta: float, sd: float, blocks: int = 1, alpha: float = ALPHA, power: float = POWER
) -> int:
    """The fewest seeds per block at which the stratified paired t detects `delta`."""
    if delta == 0 or sd <= 0:
        raise ConfigError("a score plan needs a non-zero --effect and a positive --sd")
    seeds = 2
    while stratified_t_power(seeds, blocks, delta, sd, alpha) < power:
        seeds += 1
    return seeds


def detectable_score_difference(
    seeds: int, sd: float, blocks: int = 1, alpha: float = ALPHA, power: float = POWER
) -> float | None:
    """The smallest mean difference `seeds` pairs per block detect with `power`."""
    if seeds * blocks - blocks < 1 or sd <= 0:
        return None

    def gap(delta: float) -> float:
        return stratified_t_power(seeds, blocks, delta, sd, alpha) - power

    top = 40.0 * sd / math.sqrt(seeds * blocks)  # a noncentrality of 40: certain detection
    return float(optimize.brentq(gap, 1e-9 * sd, top, xtol=1e-9 * sd))


__all__ = [
    "ALPHA",
    "POWER",
    "Joint",
    "block_cells",
    "connor_games",
    "connor_pairs",
    "connor_power",
    "detectable_score_difference",
    "detectable_win_difference",
    "joint",
    "mcnemar_power",
    "mcnemar_seeds",
    "stratified_t_power",
    "stratified_t_seeds",
]
