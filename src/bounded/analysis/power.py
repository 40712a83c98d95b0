"""Power before paying: the games per cell a paired comparison needs, and the smallest
difference a number of games can detect.

**Wins** (the paired design, analysed by the exact McNemar test): games per cell from
Connor's formula (Connor 1987, "Sample size for testing differences in proportions for
the paired-sample design", Biometrics 43:207; the textbook form in Chow, Shao and Wang,
"Sample Size Calculations in Clinical Research", section on McNemar's test):

    n = (z_{1-alpha/2} sqrt(psi) + z_{power} sqrt(psi - delta^2))^2 / delta^2

where `delta = p10 - p01` is the difference of the win rates and `psi = p10 + p01` the
chance that a pair is discordant. The discordant cells follow from the two win rates and
their correlation over seeds (phi): `p11 = pA pB + rho sqrt(pA qA pB qB)`. Beside it, the
power of the exact McNemar test at that n, computed exactly (the discordant count is
binomial, and so is A's share of it given the count). **Scores** (paired t on the
differences, statsmodels `TTestPower`): `n` for an effect `delta / sd(A - B)`.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel
from scipy import optimize, stats

from bounded.core import ConfigError

ALPHA = 0.05
POWER = 0.8


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


def connor_games(cells: Joint, alpha: float = ALPHA, power: float = POWER) -> int:
    """Games per cell (pairs) for the McNemar test to detect `cells.difference`."""
    delta, psi = abs(cells.difference), cells.discordant
    if delta == 0:
        raise ConfigError("a difference of 0 cannot be detected: give --effect")
    z_alpha, z_power = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(power)
    root = z_alpha * math.sqrt(psi) + z_power * math.sqrt(max(psi - delta**2, 0.0))
    return math.ceil(root**2 / delta**2 - 1e-9)


def connor_power(n: int, cells: Joint, alpha: float = ALPHA) -> float:
    """The normal-approximation power of the McNemar test with n pairs (Connor)."""
    delta, psi = abs(cells.difference), cells.discordant
    spread = math.sqrt(max(psi - delta**2, 1e-300))
    z_alpha = stats.norm.ppf(1 - alpha / 2)
    return float(stats.norm.cdf((math.sqrt(n) * delta - z_alpha * math.sqrt(psi)) / spread))


def exact_mcnemar_power(n: int, cells: Joint, alpha: float = ALPHA) -> float:
    """The exact power of the two-sided exact McNemar test at level alpha with n pairs:
    the sum over the discordant count k ~ Binomial(n, psi) of the chance that A's share
    b ~ Binomial(k, p10 / psi) falls where the test rejects (2 P(min(b, k - b)) <= alpha
    under a fair coin)."""
    psi = cells.discordant
    if n < 1 or psi <= 0:
        return 0.0
    share = cells.only_a / psi
    total = 0.0
    weights = stats.binom.pmf(np.arange(n + 1), n, psi)
    for k in range(1, n + 1):
        below = np.arange(k + 1)
        tails = 2 * stats.binom.cdf(below, k, 0.5)
        cut = int(np.flatnonzero(tails <= alpha)[-1]) if np.any(tails <= alpha) else -1
        if cut < 0:
            continue
        chance = stats.binom.cdf(cut, k, share) + stats.binom.sf(k - cut - 1, k, share)
        total += weights[k] * chance
    return float(total)


def detectable_win_difference(
    n: int, rate_b: float, rho: float = 0.0, alpha: float = ALPHA, power: float = POWER
) -> float | None:
    """The smallest rate_a - rate_b > 0 that n pairs detect with `power` (Connor), from
    B's rate; None when even rate_a = 1 is not detected."""

    def gap(delta: float) -> float:
        rate_a = rate_b + delta
        cells = joint(rate_a, rate_b, feasible(rho, rate_a, rate_b))
        return connor_power(n, cells, alpha) - power

    top = 1.0 - rate_b
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


def paired_t_games(delta: float, sd: float, alpha: float = ALPHA, power: float = POWER) -> int:
    """Pairs for a paired t-test (statsmodels `TTestPower`) to detect a mean difference
    `delta` when the paired differences have standard deviation `sd`."""
    from statsmodels.stats.power import TTestPower

    if delta == 0 or sd <= 0:
        raise ConfigError("a score plan needs a non-zero --effect and a positive --sd")
    n = TTestPower().solve_power(effect_size=abs(delta) / sd, alpha=alpha, power=power)
    return max(math.ceil(float(n) - 1e-9), 2)


def paired_t_power(n: int, delta: float, sd: float, alpha: float = ALPHA) -> float:
    from statsmodels.stats.power import TTestPower

    return float(TTestPower().power(effect_size=abs(delta) / sd, nobs=n, alpha=alpha))


def detectable_score_difference(
    n: int, sd: float, alpha: float = ALPHA, power: float = POWER
) -> float | None:
    """The smallest mean difference n pairs detect with `power` (paired t)."""
    from statsmodels.stats.power import TTestPower

    if n < 2 or sd <= 0:
        return None
    effect = TTestPower().solve_power(nobs=n, alpha=alpha, power=power)
    return float(effect) * sd


__all__ = [
    "ALPHA",
    "POWER",
    "Joint",
    "connor_games",
    "connor_power",
    "detectable_score_difference",
    "detectable_win_difference",
    "exact_mcnemar_power",
    "joint",
    "paired_t_games",
    "paired_t_power",
]
