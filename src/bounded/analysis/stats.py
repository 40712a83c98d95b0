"""The statistics of the paper's tables, all from scipy: Wilson and Clopper-Pearson
intervals for win rates, a seeded percentile bootstrap for mean scores and for the
difference of two cells' mean scores, Fisher's exact test between two cells, and the
percent change of a mean."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

BOOTSTRAP_RESAMPLES = 5_000
BOOTSTRAP_SEED = 0
CONFIDENCE = 0.95

Interval = tuple[float, float]


def _binomial_interval(wins: int, games: int, method: str, confidence: float) -> Interval:
    if games == 0:
        return (float("nan"), float("nan"))
    ci = stats.binomtest(wins, games).proportion_ci(confidence_level=confidence, method=method)
    return (float(ci.low), float(ci.high))


def wilson_interval(wins: int, games: int, confidence: float = CONFIDENCE) -> Interval:
    """The Wilson score interval (no continuity correction) for wins / games."""
    return _binomial_interval(wins, games, "wilson", confidence)


def clopper_pearson_interval(wins: int, games: int, confidence: float = CONFIDENCE) -> Interval:
    """The exact (Clopper-Pearson) interval for wins / games."""
    return _binomial_interval(wins, games, "exact", confidence)


BOOTSTRAP_BATCH_VALUES = 2**18
"""Resampled values a one-sample bootstrap holds at a time (2 MB; with scipy's index and
mean arrays, about 6 MB at its peak, where 2**20 peaked at 25 MB for a cell of 3,334
games): its resamples are drawn in batches of this many values over the sample's size,
so a cell of 5,000 games does not hold 5,000 x 5,000 of them (200 MB) at once. The seeded
generator draws the same resamples batched or not: the interval is the same."""


def bootstrap_mean_interval(
    values: Sequence[float],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = CONFIDENCE,
) -> Interval:
    """Percentile bootstrap interval of the mean, from a seeded generator (same data, same
    interval). Fewer than two values, or all equal, give the degenerate interval."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (float("nan"), float("nan"))
    if data.size == 1 or np.all(data == data[0]):
        return (float(data[0]), float(data[0]))
    result = stats.bootstrap(
        (data,),
        np.mean,
        n_resamples=resamples,
        batch=max(1, BOOTSTRAP_BATCH_VALUES // data.size),
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    return (float(ci.low), float(ci.high))


def _mean_difference(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    """mean(a) - mean(b) along `axis` (vectorised for `scipy.stats.bootstrap`)."""
    return np.asarray(np.mean(a, axis=axis) - np.mean(b, axis=axis))


def bootstrap_difference_interval(
    a: Sequence[float],
    b: Sequence[float],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = CONFIDENCE,
) -> Interval:
    """Percentile bootstrap interval of mean(a) - mean(b): each resample draws `a` and `b`
    independently, with replacement, at their own sizes (`scipy.stats.bootstrap` with two
    samples, `paired=False`), from a seeded generator. A sample of fewer than two values
    gives no interval (NaN); two constant samples give the degenerate interval."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.size < 2 or y.size < 2:
        return (float("nan"), float("nan"))
    if np.all(x == x[0]) and np.all(y == y[0]):
        return (float(x[0] - y[0]), float(x[0] - y[0]))
    result = stats.bootstrap(
        (x, y),
        _mean_difference,
        n_resamples=resamples,
        confidence_level=confidence,
        method="percentile",
        paired=False,
        vectorized=True,
        rng=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    return (float(ci.low), float(ci.high))


def percent_change(before: float, after: float) -> float | None:
    """100 * (after - before) / before; None when `before` is 0."""
    return None if before == 0 else 100.0 * (after - before) / before


def fisher_exact_p(wins_a: int, games_a: int, wins_b: int, games_b: int) -> float:
    """Two-sided Fisher exact p-value for two win rates."""
    table = [[wins_a, games_a - wins_a], [wins_b, games_b - wins_b]]
    return float(stats.fisher_exact(table, alternative="two-sided").pvalue)


def linear_slope(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Least-squares (slope, intercept); a single point has slope 0."""
    if len(xs) < 2 or len(set(xs)) < 2:
        return (0.0, float(ys[0]) if len(ys) else 0.0)
    fit = stats.linregress(np.asarray(xs, dtype=float), np.asarray(ys, dtype=float))
    return (float(fit.slope), float(fit.intercept))


__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "bootstrap_difference_interval",
    "bootstrap_mean_interval",
    "clopper_pearson_interval",
    "fisher_exact_p",
    "linear_slope",
    "percent_change",
    "wilson_interval",
]
