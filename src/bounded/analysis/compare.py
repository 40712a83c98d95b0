"""Comparisons between rows of a cell table: the difference of two cells' mean scores with
a bootstrap interval, and the percent change of the mean score from one condition to
another within each group (the paper's cross-backbone table)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from bounded.analysis.stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    bootstrap_difference_interval,
    percent_change,
)
from bounded.core import ConfigError

if TYPE_CHECKING:
    from bounded.analysis.rows import CellRow


class ScoreDifference(BaseModel):
    """mean score of `a` minus mean score of `b`, with its bootstrap interval."""

    a: str
    b: str
    games_a: int
    games_b: int
    mean_a: float
    mean_b: float
    difference: float
    """mean_a - mean_b."""
    low: float
    """Lower end of the percentile bootstrap 95% interval of the difference."""
    high: float
    """Upper end of that interval."""
    resamples: int = BOOTSTRAP_RESAMPLES
    seed: int = BOOTSTRAP_SEED


class ScoreChange(BaseModel):
    """The change of the mean score from condition `a` to condition `b` in one group."""

    a: str
    b: str
    group: dict[str, str] = Field(default_factory=dict)
    """The grouping values shared by both rows (e.g. {"model": "qwen3.6-27b"})."""
    label: str
    """The group's values joined by ` / ` ("all" without grouping)."""
    games_a: int
    wins_a: int
    mean_a: float
    games_b: int
    wins_b: int
    mean_b: float
    change_pct: float | None
    """100 * (mean_b - mean_a) / mean_a; None when mean_a is 0."""


def scores_of(row: CellRow) -> list[float]:
    """A row's per-game scores; a row without scores cannot be compared."""
    if row.mean_score is None or not row.scores:
        raise ConfigError(f"cell {row.label!r} has no scores to compare")
    return row.scores


def score_difference(
    row_a: CellRow,
    row_b: CellRow,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> ScoreDifference:
    """mean(a) - mean(b) with a seeded percentile bootstrap interval that resamples each
    cell independently (see `bootstrap_difference_interval`)."""
    a, b = scores_of(row_a), scores_of(row_b)
    low, high = bootstrap_difference_interval(a, b, resamples=resamples, seed=seed)
    mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
    return ScoreDifference(
        a=row_a.label, b=row_b.label, games_a=len(a), games_b=len(b), mean_a=mean_a,
        mean_b=mean_b, difference=mean_a - mean_b, low=low, high=high, resamples=resamples,
        seed=seed,
    )  # fmt: skip


def _group_key(row: CellRow) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(row.group.items()))


def score_changes(rows_a: Sequence[CellRow], rows_b: Sequence[CellRow]) -> list[ScoreChange]:
    """Per group present in both conditions (rows with the same grouping values), the
    percent change of the mean score from `a` to `b`, in the order of `rows_a`."""
    by_group = {_group_key(row): row for row in rows_b}
    changes = []
    for row_a in rows_a:
        row_b = by_group.get(_group_key(row_a))
        if row_b is None:
            continue
        mean_a, mean_b = sum(scores_of(row_a)) / row_a.games, sum(scores_of(row_b)) / row_b.games
        changes.append(
            ScoreChange(
                a=row_a.cell, b=row_b.cell, group=dict(row_a.group),
                label=" / ".join(row_a.group.values()) or "all",
                games_a=row_a.games, wins_a=row_a.wins, mean_a=mean_a,
                games_b=row_b.games, wins_b=row_b.wins, mean_b=mean_b,
                change_pct=percent_change(mean_a, mean_b),
            )
        )  # fmt: skip
    if not changes:
        raise ConfigError(
            f"--change {rows_a[0].cell},{rows_b[0].cell}: no group has games in both cells"
        )
    return changes


__all__ = ["ScoreChange", "ScoreDifference", "score_changes", "score_difference", "scores_of"]
