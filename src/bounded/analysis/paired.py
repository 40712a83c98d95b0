"""Paired comparisons of two cells on their common seeds.

Every cell of a sweep plays the same seeds, so two cells are compared game by game on
the same deal. For wins: the 2x2 table of the pairs (both won, only A, only B, neither),
the exact McNemar test (statsmodels `mcnemar(exact=True)`: a binomial test of the
discordant pairs) and Newcombe's hybrid score interval for the paired difference of win
rates (Newcombe 1998, "Improved confidence intervals for the difference between binomial
proportions based on paired data", Statistics in Medicine 17:2635, method 10, from the
Wilson intervals of statsmodels `proportion_confint`). For scores and floors reached: a
seeded percentile bootstrap of the mean paired difference (scipy `bootstrap` over the
pairs) and the Wilcoxon signed-rank test (scipy `wilcoxon`). Beside each, the same games
analysed as independent samples (Newcombe's unpaired interval and Fisher's test for
wins; the unpaired bootstrap and the Mann-Whitney test for scores), and how much the
pairing narrowed the interval. Several tests in one call are adjusted together by Holm's
method (statsmodels `multipletests`). Games whose seed has no game in the other cell are
listed, never silently dropped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, Field
from scipy import stats

from bounded.analysis.games import CompletedGame
from bounded.analysis.stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    CONFIDENCE,
    bootstrap_difference_interval,
    fisher_exact_p,
)
from bounded.core import ConfigError

Pair = tuple[CompletedGame, CompletedGame]


class UnpairedGame(BaseModel):
    """A game whose seed the other cell has no completed game of."""

    seed: int
    run_id: str


class WinComparison(BaseModel):
    """Win rates of A and B on their common seeds."""

    pairs: int
    both: int
    """Pairs both won."""
    only_a: int
    """Pairs A won and B lost (discordant)."""
    only_b: int
    """Pairs B won and A lost (discordant)."""
    neither: int
    rate_a: float
    rate_b: float
    difference: float
    """rate_a - rate_b."""
    low: float
    """Lower end of Newcombe's paired 95% interval of the difference."""
    high: float
    p_value: float
    """Exact McNemar test (two-sided binomial test of the discordant pairs)."""
    p_holm: float | None = None
    """`p_value` adjusted by Holm's method over every test of the call."""
    unpaired_low: float
    """Newcombe's interval for two independent samples, same games."""
    unpaired_high: float
    unpaired_p: float
    """Fisher's exact test, same games as independent samples."""

    @property
    def narrowing(self) -> float | None:
        """1 - paired width / unpaired width (how much pairing narrowed the interval)."""
        return _narrowing(self.low, self.high, self.unpaired_low, self.unpaired_high)


class MeanComparison(BaseModel):
    """Mean per-game values (score, floor) of A and B on their common seeds."""

    metric: str
    pairs: int
    mean_a: float
    mean_b: float
    difference: float
    """Mean of the paired differences A - B."""
    low: float
    """Lower end of the paired percentile bootstrap 95% interval."""
    high: float
    p_value: float
    """Wilcoxon signed-rank test of the paired differences (zero differences dropped)."""
    p_holm: float | None = None
    unpaired_low: float
    """The unpaired bootstrap interval (cells resampled apart), same games."""
    unpaired_high: float
    unpaired_p: float
    """Mann-Whitney U test, same games as independent samples."""
    resamples: int = BOOTSTRAP_RESAMPLES
    seed: int = BOOTSTRAP_SEED

    @property
    def narrowing(self) -> float | None:
        return _narrowing(self.low, self.high, self.unpaired_low, self.unpaired_high)


class AnytimeInterval(BaseModel):
    """The anytime-valid interval of a sweep stopped when decided (`bounded sweep
    --until-decided`): it replaces the fixed-size intervals of that comparison."""

    metric: str
    level: float
    rule: str
    pairs: int
    """Pairs counted at the stop."""
    low: float
    high: float
    estimate: float
    decided: bool
    reason: str


class PairedComparison(BaseModel):
    """One comparison A vs B on their common seeds."""

    a: str
    b: str
    pairs: int
    """Seeds both cells completed."""
    unpaired_a: list[UnpairedGame] = Field(default_factory=list)
    """A's games whose seed B has no completed game of."""
    unpaired_b: list[UnpairedGame] = Field(default_factory=list)
    wins: WinComparison | None = None
    """None without a pair."""
    means: list[MeanComparison] = Field(default_factory=list)
    """Score and floor, where every paired game has one."""
    anytime: AnytimeInterval | None = None
    """Set when the archive records a stopping rule for this comparison."""


def _narrowing(low: float, high: float, u_low: float, u_high: float) -> float | None:
    width, unpaired = high - low, u_high - u_low
    if not np.isfinite(width) or not np.isfinite(unpaired) or unpaired <= 0:
        return None
    return float(1.0 - width / unpaired)


def by_seed(label: str, games: Sequence[CompletedGame]) -> dict[int, CompletedGame]:
    """A cell's games by seed; a seed played twice in one cell cannot be paired."""
    counts = Counter(game.seed for game in games)
    repeated = sorted(seed for seed, count in counts.items() if count > 1)
    if repeated:
        raise ConfigError(
            f"cell {label!r} holds seed {repeated[0]} {counts[repeated[0]]} times "
            f"({len(repeated)} seeds repeated): a paired comparison needs one game per seed "
            "(split the cell with --by cell or --by env_id)"
        )
    return {game.seed: game for game in games}


def pair_games(
    label_a: str, games_a: Sequence[CompletedGame], label_b: str, games_b: Sequence[CompletedGame]
) -> tuple[list[Pair], list[CompletedGame], list[CompletedGame]]:
    """The pairs on common seeds (by seed), and each side's games without a partner."""
    a, b = by_seed(label_a, games_a), by_seed(label_b, games_b)
    common = sorted(set(a) & set(b))
    only_a = [a[seed] for seed in sorted(set(a) - set(b))]
    only_b = [b[seed] for seed in sorted(set(b) - set(a))]
    return [(a[seed], b[seed]) for seed in common], only_a, only_b


def newcombe_paired_interval(
    both: int, only_a: int, only_b: int, neither: int, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    """Newcombe's (1998) method 10 for p_A - p_B from paired binary outcomes: the Wilson
    intervals of the two margins combined with the phi correlation of the 2x2 table."""
    from statsmodels.stats.proportion import proportion_confint

    n = both + only_a + only_b + neither
    if n == 0:
        return (float("nan"), float("nan"))
    wins_a, wins_b = both + only_a, both + only_b
    (l1, l2), (u1, u2) = proportion_confint(
        np.array([wins_a, wins_b]), n, alpha=1 - confidence, method="wilson"
    )
    p1, p2 = wins_a / n, wins_b / n
    margins = float(wins_a) * (n - wins_a) * wins_b * (n - wins_b)
    phi = (both * neither - only_a * only_b) / np.sqrt(margins) if margins > 0 else 0.0
    d1, e1 = p1 - l1, u1 - p1
    d2, e2 = p2 - l2, u2 - p2
    low = (p1 - p2) - np.sqrt(max(d1**2 - 2 * phi * d1 * e2 + e2**2, 0.0))
    high = (p1 - p2) + np.sqrt(max(e1**2 - 2 * phi * e1 * d2 + d2**2, 0.0))
    return (float(max(low, -1.0)), float(min(high, 1.0)))


def mcnemar_exact_p(only_a: int, only_b: int) -> float:
    """The exact McNemar test: two-sided binomial test of the discordant pairs."""
    from statsmodels.stats.contingency_tables import mcnemar

    if only_a + only_b == 0:
        return 1.0
    return float(mcnemar([[0, only_a], [only_b, 0]], exact=True).pvalue)


def win_comparison(pairs: Sequence[Pair]) -> WinComparison:
    """The paired and the unpaired analysis of the pairs' wins."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    table = Counter((a.victory, b.victory) for a, b in pairs)
    both, only_a = table[(True, True)], table[(True, False)]
    only_b, neither = table[(False, True)], table[(False, False)]
    n = len(pairs)
    wins_a, wins_b = both + only_a, both + only_b
    low, high = newcombe_paired_interval(both, only_a, only_b, neither)
    u_low, u_high = confint_proportions_2indep(wins_a, n, wins_b, n, method="newcomb")
    return WinComparison(
        pairs=n, both=both, only_a=only_a, only_b=only_b, neither=neither,
        rate_a=wins_a / n, rate_b=wins_b / n, difference=(wins_a - wins_b) / n, low=low,
        high=high, p_value=mcnemar_exact_p(only_a, only_b), unpaired_low=float(u_low),
        unpaired_high=float(u_high), unpaired_p=fisher_exact_p(wins_a, n, wins_b, n),
    )  # fmt: skip


def paired_bootstrap_interval(
    differences: Sequence[float],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean paired difference: resamples whole pairs
    (scipy `bootstrap` over the differences), from a seeded generator."""
    data = np.asarray(differences, dtype=float)
    if data.size == 0:
        return (float("nan"), float("nan"))
    if data.size == 1 or np.all(data == data[0]):
        return (float(data[0]), float(data[0]))
    result = stats.bootstrap(
        (data,), np.mean, n_resamples=resamples, confidence_level=confidence,
        method="percentile", rng=np.random.default_rng(seed),
    )  # fmt: skip
    return (float(result.confidence_interval.low), float(result.confidence_interval.high))


def signed_rank_p(differences: Sequence[float]) -> float:
    """Two-sided Wilcoxon signed-rank p-value (zero differences dropped; all zero: 1)."""
    data = np.asarray(differences, dtype=float)
    if not np.any(data != 0):
        return 1.0
    return float(stats.wilcoxon(data, zero_method="wilcox").pvalue)


def mean_comparison(
    metric: str, a: Sequence[float], b: Sequence[float], *, resamples: int, seed: int
) -> MeanComparison:
    """The paired and unpaired analysis of one per-game value over the pairs."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    differences = x - y
    low, high = paired_bootstrap_interval(differences, resamples=resamples, seed=seed)
    u_low, u_high = bootstrap_difference_interval(list(a), list(b), resamples=resamples, seed=seed)
    unpaired_p = float(stats.mannwhitneyu(x, y).pvalue)
    unpaired_p = 1.0 if np.isnan(unpaired_p) else unpaired_p
    return MeanComparison(
        metric=metric, pairs=len(x), mean_a=float(x.mean()), mean_b=float(y.mean()),
        difference=float(differences.mean()), low=low, high=high,
        p_value=signed_rank_p(differences), unpaired_low=u_low, unpaired_high=u_high,
        unpaired_p=unpaired_p, resamples=resamples, seed=seed,
    )  # fmt: skip


def _values(pairs: Sequence[Pair], metric: str) -> tuple[list[float], list[float]] | None:
    """Each side's `metric` over the pairs, when every paired game has one."""
    a = [getattr(game_a, metric) for game_a, _ in pairs]
    b = [getattr(game_b, metric) for _, game_b in pairs]
    if any(value is None for value in a + b):
        return None
    return [float(v) for v in a], [float(v) for v in b]


def compare_paired(
    label_a: str,
    games_a: Sequence[CompletedGame],
    label_b: str,
    games_b: Sequence[CompletedGame],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> PairedComparison:
    """A vs B on their common seeds (see the module's docstring)."""
    pairs, only_a, only_b = pair_games(label_a, games_a, label_b, games_b)
    found = PairedComparison(
        a=label_a, b=label_b, pairs=len(pairs),
        unpaired_a=[UnpairedGame(seed=g.seed, run_id=g.run_id) for g in only_a],
        unpaired_b=[UnpairedGame(seed=g.seed, run_id=g.run_id) for g in only_b],
    )  # fmt: skip
    if not pairs:
        return found
    found.wins = win_comparison(pairs)
    for metric in ("score", "floor"):
        values = _values(pairs, metric)
        if values is not None and len(pairs) > 1:
            found.means.append(mean_comparison(metric, *values, resamples=resamples, seed=seed))
    return found


def adjust_holm(comparisons: Sequence[PairedComparison]) -> int:
    """Set `p_holm` on every test of the comparisons, adjusted together by Holm's method;
    returns the number of tests in the family."""
    from statsmodels.stats.multitest import multipletests

    tests: list[WinComparison | MeanComparison] = []
    for comparison in comparisons:
        tests += [comparison.wins] if comparison.wins is not None else []
        tests += comparison.means
    if not tests:
        return 0
    adjusted = multipletests([test.p_value for test in tests], method="holm")[1]
    for test, p in zip(tests, adjusted, strict=True):
        test.p_holm = float(p)
    return len(tests)


__all__ = [
    "AnytimeInterval",
    "MeanComparison",
    "PairedComparison",
    "UnpairedGame",
    "WinComparison",
    "adjust_holm",
    "compare_paired",
    "mcnemar_exact_p",
    "newcombe_paired_interval",
    "pair_games",
    "paired_bootstrap_interval",
    "signed_rank_p",
]
