"""Paired comparisons of two treatments on the seeds both played in each block.

A game's block is its task (environment, matrix point, the options that define the
game: `bounded.analysis.design`); every treatment of a sweep plays the same seeds in
each block, so two are compared game by game on the same deal: the pairs are keyed by
(block, seed), never by the seed alone. Each comparison is made per block and pooled
over the blocks (`bounded.analysis.stratified` gives the statistics and why): for wins,
McNemar's test (pooled: the stratified test, the Cochran-Mantel-Haenszel test of the
matched pairs) with Tango's score interval, its inversion (both continuity-corrected),
and the exact conditional McNemar test beside them; for scores, progression and floors,
the stratified paired t test and its interval, with the bootstrap that resamples seeds
within blocks beside them.
The pooled rows also show the same games analysed as independent samples (Newcombe's
unpaired interval and Fisher's test for wins; the unpaired bootstrap and the Mann-Whitney
test for means) and how much the pairing narrowed the interval. Every test of a call
(pooled and per block) is adjusted together by Holm's method (statsmodels
`multipletests`). Games whose (block, seed) has no game of the other treatment are
listed, never silently dropped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

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
from bounded.analysis.stratified import (
    DiscordantCounts,
    PairKey,
    mcnemar_exact_p,
    mcnemar_p,
    stratified_bootstrap_interval,
    stratified_t,
    tango_interval,
)
from bounded.core import ConfigError, RunRecord

Pair = tuple[CompletedGame, CompletedGame]
Pairs = dict[PairKey, Pair]
"""The pairs, keyed by (block, seed)."""
POOLED = None
"""The `block` of a row pooled over every block."""
METRICS = ("score", "progress", "floor")
"""The per-game values compared as means, where every paired game has one."""


class UnpairedGame(BaseModel):
    """A game whose (block, seed) the other treatment has no completed game of."""

    block: str = ""
    seed: int
    run_id: str


class WinComparison(BaseModel):
    """Win rates of A and B on their pairs, in one block or pooled over the blocks."""

    block: str | None = POOLED
    """The block; None: pooled over every block (the stratified test)."""
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
    """Lower end of Tango's 95% score interval of the difference, continuity-corrected (the
    inversion of the test of `p_value`)."""
    high: float
    p_value: float
    """McNemar's test with Edwards' continuity correction (pooled over blocks: the
    stratified test)."""
    exact_p: float
    """The exact conditional McNemar test (binomial test of the discordant pairs)."""
    p_holm: float | None = None
    """`p_value` adjusted by Holm's method over every test of the call."""
    unpaired_low: float | None = None
    """Pooled rows: Newcombe's interval for two independent samples, same games."""
    unpaired_high: float | None = None
    unpaired_p: float | None = None
    """Pooled rows: Fisher's exact test, same games as independent samples."""

    @property
    def narrowing(self) -> float | None:
        """1 - paired width / unpaired width (how much pairing narrowed the interval)."""
        return _narrowing(self.low, self.high, self.unpaired_low, self.unpaired_high)


class MeanComparison(BaseModel):
    """Mean per-game values (score, progress, floor) of A and B on their pairs."""

    block: str | None = POOLED
    metric: str
    pairs: int
    mean_a: float
    mean_b: float
    difference: float
    """Mean of the paired differences A - B (each block weighted by its pairs)."""
    low: float
    """Lower end of the stratified paired t 95% interval (the test's inversion)."""
    high: float
    p_value: float
    """The stratified paired t test (NaN without degrees of freedom)."""
    df: int = 0
    p_holm: float | None = None
    bootstrap_low: float
    """The percentile bootstrap interval, seeds resampled within blocks."""
    bootstrap_high: float
    unpaired_low: float | None = None
    """Pooled rows: the unpaired bootstrap interval (cells resampled apart), same games."""
    unpaired_high: float | None = None
    unpaired_p: float | None = None
    """Pooled rows: Mann-Whitney U test, same games as independent samples."""
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
    """One comparison A vs B on their (block, seed) pairs."""

    a: str
    b: str
    pairs: int
    """(block, seed) both treatments completed."""
    blocks: list[str] = Field(default_factory=list)
    """The blocks holding a pair, in order."""
    unpaired_a: list[UnpairedGame] = Field(default_factory=list)
    """A's games whose (block, seed) B has no completed game of."""
    unpaired_b: list[UnpairedGame] = Field(default_factory=list)
    wins: WinComparison | None = None
    """Pooled over the blocks; None without a pair."""
    means: list[MeanComparison] = Field(default_factory=list)
    """Pooled over the blocks: score, progress and floor, where every paired game has one."""
    block_wins: list[WinComparison] = Field(default_factory=list)
    """Per block, where there are several."""
    block_means: list[MeanComparison] = Field(default_factory=list)
    anytime: AnytimeInterval | None = None
    """Set when the archive records a stopping rule for this comparison."""

    def tests(self) -> list[WinComparison | MeanComparison]:
        """Every row with a test, pooled first."""
        rows: list[WinComparison | MeanComparison] = [self.wins] if self.wins else []
        return [*rows, *self.means, *self.block_wins, *self.block_means]


def _narrowing(low: float, high: float, u_low: float | None, u_high: float | None) -> float | None:
    if u_low is None or u_high is None:
        return None
    width, unpaired = high - low, u_high - u_low
    if not np.isfinite(width) or not np.isfinite(unpaired) or unpaired <= 0:
        return None
    return float(1.0 - width / unpaired)


def run_designs(runs: Sequence[RunRecord]) -> dict[str, tuple[str, str]]:
    """Each run's treatment and block (`bounded.analysis.design`): run id -> (treatment,
    block label)."""
    from bounded.analysis.design import design_of_runs

    design = design_of_runs(runs)
    return {
        run.run_id: (game.treatment, game.block_label)
        for run, game in zip(runs, design.games, strict=True)
    }


def keyed(
    label: str, games: Sequence[CompletedGame], blocks: Mapping[str, str] | None = None
) -> dict[PairKey, CompletedGame]:
    """A treatment's games by (block, seed) (`blocks`: run id -> block; none: one block);
    a (block, seed) played twice by one treatment cannot be paired."""
    keys = [((blocks or {}).get(g.run_id, ""), g.seed) for g in games]
    counts = Counter(keys)
    repeated = sorted(k for k, count in counts.items() if count > 1)
    if repeated:
        block, seed = repeated[0]
        where = f"seed {seed}" + (f" in block {block}" if block else "")
        raise ConfigError(
            f"cell {label!r} holds {where} {counts[repeated[0]]} times ({len(repeated)} "
            "(block, seed) repeated): a paired comparison needs one game per seed and block "
            "(split the cell with --by cell or --by env_id)"
        )
    return dict(zip(keys, games, strict=True))


def pair_games(
    label_a: str,
    games_a: Sequence[CompletedGame],
    label_b: str,
    games_b: Sequence[CompletedGame],
    blocks: Mapping[str, str] | None = None,
) -> tuple[Pairs, list[UnpairedGame], list[UnpairedGame]]:
    """The pairs on common (block, seed), and each side's games without a partner."""
    a, b = keyed(label_a, games_a, blocks), keyed(label_b, games_b, blocks)

    def unpaired(mine: dict[PairKey, CompletedGame], other: set[PairKey]) -> list[UnpairedGame]:
        return [
            UnpairedGame(block=k[0], seed=k[1], run_id=mine[k].run_id)
            for k in sorted(set(mine) - other)
        ]

    pairs = {k: (a[k], b[k]) for k in sorted(set(a) & set(b))}
    return pairs, unpaired(a, set(b)), unpaired(b, set(a))


def win_comparison(pairs: Pairs, block: str | None = POOLED) -> WinComparison:
    """McNemar's test with Tango's interval, and the exact McNemar test, over the pairs'
    wins; pooled rows add the unpaired analysis of the same games."""
    counts = DiscordantCounts.of([(a.victory, b.victory) for a, b in pairs.values()])
    n = counts.pairs
    wins_a, wins_b = counts.both + counts.only_a, counts.both + counts.only_b
    low, high = tango_interval(counts.only_a, counts.only_b, n)
    found = WinComparison(
        block=block, pairs=n, both=counts.both, only_a=counts.only_a, only_b=counts.only_b,
        neither=counts.neither, rate_a=wins_a / n, rate_b=wins_b / n,
        difference=(wins_a - wins_b) / n, low=low, high=high,
        p_value=mcnemar_p(counts.only_a, counts.only_b),
        exact_p=mcnemar_exact_p(counts.only_a, counts.only_b),
    )  # fmt: skip
    if block is POOLED:
        from statsmodels.stats.proportion import confint_proportions_2indep

        u_low, u_high = confint_proportions_2indep(wins_a, n, wins_b, n, method="newcomb")
        found.unpaired_low, found.unpaired_high = float(u_low), float(u_high)
        found.unpaired_p = fisher_exact_p(wins_a, n, wins_b, n)
    return found


def paired_bootstrap_interval(
    differences: Sequence[float],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean paired difference of one block: resamples
    whole pairs, from a seeded generator."""
    return stratified_bootstrap_interval(
        [differences], resamples=resamples, seed=seed, confidence=confidence
    )


def mean_comparison(
    metric: str,
    values: Mapping[PairKey, tuple[float, float]],
    *,
    block: str | None = POOLED,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> MeanComparison:
    """The stratified paired t and the bootstrap within blocks of one per-game value;
    pooled rows add the unpaired analysis of the same games."""
    blocks: dict[str, list[float]] = {}
    for (name, _), (a, b) in sorted(values.items()):
        blocks.setdefault(name, []).append(a - b)
    tested = stratified_t(list(blocks.values()))
    boot = stratified_bootstrap_interval(list(blocks.values()), resamples=resamples, seed=seed)
    x = np.array([a for a, _ in values.values()], dtype=float)
    y = np.array([b for _, b in values.values()], dtype=float)
    found = MeanComparison(
        block=block, metric=metric, pairs=len(values), mean_a=float(x.mean()),
        mean_b=float(y.mean()), difference=tested.estimate, low=tested.low, high=tested.high,
        p_value=tested.p_value, df=tested.df, bootstrap_low=boot[0], bootstrap_high=boot[1],
        resamples=resamples, seed=seed,
    )  # fmt: skip
    if block is POOLED:
        u_low, u_high = bootstrap_difference_interval(
            list(x), list(y), resamples=resamples, seed=seed
        )
        unpaired_p = float(stats.mannwhitneyu(x, y).pvalue)
        found.unpaired_low, found.unpaired_high = u_low, u_high
        found.unpaired_p = 1.0 if np.isnan(unpaired_p) else unpaired_p
    return found


def metric_values(pairs: Pairs, metric: str) -> dict[PairKey, tuple[float, float]] | None:
    """Each pair's `metric` (A's, B's), when every paired game has one."""
    found = {}
    for key, (a, b) in pairs.items():
        value_a, value_b = getattr(a, metric), getattr(b, metric)
        if value_a is None or value_b is None:
            return None
        found[key] = (float(value_a), float(value_b))
    return found


def _compared(
    pairs: Pairs, block: str | None, resamples: int, seed: int
) -> tuple[WinComparison, list[MeanComparison]]:
    means = []
    for metric in METRICS:
        values = metric_values(pairs, metric)
        if values is not None and len(values) > 1:
            means.append(
                mean_comparison(metric, values, block=block, resamples=resamples, seed=seed)
            )
    return win_comparison(pairs, block), means


def compare_paired(
    label_a: str,
    games_a: Sequence[CompletedGame],
    label_b: str,
    games_b: Sequence[CompletedGame],
    *,
    blocks: Mapping[str, str] | None = None,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> PairedComparison:
    """A vs B on their (block, seed) pairs, pooled and per block (the module's docstring);
    `blocks` maps run id -> block (none: every game in one block)."""
    pairs, only_a, only_b = pair_games(label_a, games_a, label_b, games_b, blocks)
    names = list(dict.fromkeys(block for block, _ in pairs))
    found = PairedComparison(
        a=label_a, b=label_b, pairs=len(pairs), blocks=names, unpaired_a=only_a,
        unpaired_b=only_b,
    )  # fmt: skip
    if not pairs:
        return found
    found.wins, found.means = _compared(pairs, POOLED, resamples, seed)
    if len(names) > 1:
        for name in names:
            mine = {key: pair for key, pair in pairs.items() if key[0] == name}
            wins, means = _compared(mine, name, resamples, seed)
            found.block_wins.append(wins)
            found.block_means += means
    return found


def adjust_holm(comparisons: Sequence[PairedComparison]) -> int:
    """Set `p_holm` on every test of the comparisons (pooled and per block), adjusted
    together by Holm's method; returns the number of tests in the family."""
    from statsmodels.stats.multitest import multipletests

    tests = [test for c in comparisons for test in c.tests() if not np.isnan(test.p_value)]
    if not tests:
        return 0
    adjusted = multipletests([test.p_value for test in tests], method="holm")[1]
    for test, p in zip(tests, adjusted, strict=True):
        test.p_holm = float(p)
    return len(tests)


__all__ = [
    "METRICS",
    "POOLED",
    "AnytimeInterval",
    "MeanComparison",
    "PairedComparison",
    "Pairs",
    "UnpairedGame",
    "WinComparison",
    "adjust_holm",
    "compare_paired",
    "keyed",
    "mean_comparison",
    "metric_values",
    "pair_games",
    "paired_bootstrap_interval",
    "run_designs",
    "win_comparison",
]
