"""The cell table: wins, win rate with its interval, mean score with a bootstrap interval,
and what the games cost, per condition; plus a pooled descriptive row and Fisher tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from bounded.analysis.games import Game, completed_games, first_by_start, group_games
from bounded.analysis.stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    bootstrap_mean_interval,
    clopper_pearson_interval,
    fisher_exact_p,
    wilson_interval,
)
from bounded.core import ConfigError, RunRecord


class CellRow(BaseModel):
    """One row of the table."""

    label: str
    """The cell's name (its condition tag, or the grouping values joined by ` / `)."""
    games: int
    """Completed games counted."""
    wins: int
    """Victories among them."""
    win_rate: float
    """wins / games."""
    win_low: float
    """Lower end of the 95% interval of the win rate."""
    win_high: float
    """Upper end of the 95% interval of the win rate."""
    interval: str = "wilson"
    """`wilson` for a cell, `clopper-pearson` for the pooled descriptive row."""
    mean_score: float | None = None
    """Mean derived score (None when the environment has no score)."""
    score_low: float | None = None
    """Lower end of the bootstrap 95% interval of the mean score."""
    score_high: float | None = None
    """Upper end of the bootstrap 95% interval of the mean score."""
    tokens_per_game: float | None = None
    """Mean prompt + completion tokens per game (None where no tokens were recorded)."""
    tokens_per_point: float | None = None
    """Total tokens / total score points."""
    decisions_per_game: float = 0.0
    """Mean decisions per game."""
    model_calls_per_game: float = 0.0
    """Mean model calls per game."""
    wall_s_per_game: float = 0.0
    """Mean wall time per game, seconds."""
    run_ids: list[str] = Field(default_factory=list)
    """The runs counted, in start order."""


class FisherTest(BaseModel):
    """Fisher's exact test between two rows."""

    a: str
    b: str
    p_value: float


class CellTable(BaseModel):
    """A whole table."""

    title: str = ""
    group_by: list[str] = Field(default_factory=lambda: ["tag"])
    first_n: int | None = None
    """Games counted per cell: the first N completed by start time (None: all)."""
    rows: list[CellRow] = Field(default_factory=list)
    pooled: CellRow | None = None
    fisher: list[FisherTest] = Field(default_factory=list)

    def row(self, label: str) -> CellRow:
        for row in self.rows:
            if row.label == label:
                return row
        raise ConfigError(f"no cell {label!r} (cells: {', '.join(r.label for r in self.rows)})")


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def cell_row(
    label: str,
    games: Sequence[Game],
    *,
    interval: str = "wilson",
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> CellRow:
    n, wins = len(games), sum(g.victory for g in games)
    low, high = (clopper_pearson_interval if interval == "clopper-pearson" else wilson_interval)(
        wins, n
    )
    scores = [g.score for g in games if g.score is not None]
    row = CellRow(
        label=label,
        games=n,
        wins=wins,
        win_rate=wins / n if n else float("nan"),
        win_low=low,
        win_high=high,
        interval=interval,
        decisions_per_game=_mean([g.decisions for g in games]),
        model_calls_per_game=_mean([g.model_calls for g in games]),
        wall_s_per_game=_mean([g.wall_s for g in games]),
        run_ids=[g.run_id for g in games],
    )
    if scores and len(scores) == n:
        row.mean_score = _mean(scores)
        row.score_low, row.score_high = bootstrap_mean_interval(
            scores, resamples=resamples, seed=seed
        )
    tokens = [g.tokens for g in games]
    if any(tokens):
        row.tokens_per_game = _mean(tokens)
        if scores and sum(scores) > 0:
            row.tokens_per_point = sum(tokens) / sum(scores)
    return row


def cell_table(
    runs: Iterable[RunRecord],
    *,
    by: Sequence[str] = ("tag",),
    cells: Sequence[tuple[str, str]] | None = None,
    first_n: int | None = None,
    pool: bool = False,
    pool_tags: bool = False,
    fisher: Sequence[tuple[str, str]] = (),
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    title: str = "",
) -> CellTable:
    """The table over completed runs.

    Cells are the groups of `by` (the condition tag unless told otherwise), or, with
    `cells`, the given (label, tag) pairs in that order. Each cell counts its first
    `first_n` completed games by start time. `pool` adds a descriptive row over all
    counted games with an exact Clopper-Pearson interval; `fisher` names pairs of rows.
    Streams with different tags are never pooled into one cell unless `pool_tags`.
    """
    if "tag" not in by and not pool_tags:
        by = ("tag", *by)
    games = completed_games(runs)
    if cells is not None:
        by = ("tag",)
        by_tag = group_games(games, by)
        selected = [(label, by_tag.get((tag,), [])) for label, tag in cells]
    else:
        selected = [
            (" / ".join(value or "(none)" for value in key), group)
            for key, group in group_games(games, tuple(by)).items()
        ]
    table = CellTable(title=title, group_by=list(by), first_n=first_n)
    for label, group in selected:
        counted = first_by_start(group, first_n)
        table.rows.append(cell_row(label, counted, resamples=resamples, seed=seed))
    if pool and table.rows:
        counted_ids = {run_id for row in table.rows for run_id in row.run_ids}
        pooled = [g for g in games if g.run_id in counted_ids]
        table.pooled = cell_row(
            "pooled (descriptive)",
            first_by_start(pooled),
            interval="clopper-pearson",
            resamples=resamples,
            seed=seed,
        )
    for a, b in fisher:
        row_a, row_b = table.row(a), table.row(b)
        p = fisher_exact_p(row_a.wins, row_a.games, row_b.wins, row_b.games)
        table.fisher.append(FisherTest(a=a, b=b, p_value=p))
    return table


__all__ = ["CellRow", "CellTable", "FisherTest", "cell_row", "cell_table"]
