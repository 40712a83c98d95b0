"""The report's plots, one set per environment: rows of different environments are never
drawn on one axis, since their scores, progress and win rates do not compare.

Per environment: BALROG's progression (each row's mean progress in percent, its standard
error as BALROG reports it) where its games record progress; the win rate with its
interval only where the environment's games are won in practice (`EnvRecord.wins`); the
derived score per game; tokens per score point. A row that pools games of several
environments (an explicit `--pool`) gets a set of its own, named with all of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, Field

from bounded.analysis.balrog import mean_and_error
from bounded.analysis.games import CompletedGame
from bounded.analysis.rows import CellRow
from bounded.analysis.tables import CellTable
from bounded.env_records import env_record
from bounded.report import plots


class EnvPlots(BaseModel):
    """One environment's plots (SVG text by kind: progression, winrate, scores, tokens)."""

    env: str
    """The environment's short name (several, comma-separated, for a pooled row)."""
    slug: str
    """`env` as it goes into element ids."""
    rows: list[str] = Field(default_factory=list)
    figures: dict[str, str] = Field(default_factory=dict)
    wins: bool = True
    """Whether a win rate is drawn (the environment's games are won in practice)."""


def env_names(row: CellRow) -> str:
    return ", ".join(sorted({plots.short_env(env) for env in row.env_ids})) or "(none)"


def wins_measured(row: CellRow) -> bool:
    """Whether every environment of the row is won in practice (unknown ones are)."""
    records = [env_record(env) for env in row.env_ids]
    return all(record is None or record.wins for record in records)


def progression(
    rows: Sequence[CellRow], games: dict[str, CompletedGame]
) -> tuple[list[str], list[float], list[float]]:
    """The rows whose every game recorded progress: labels, means and standard errors."""
    labels, means, errors = [], [], []
    for row in rows:
        values = [games[i].progress for i in row.run_ids if i in games]
        if not values or any(value is None for value in values):
            continue
        mean, error = mean_and_error([float(value or 0.0) for value in values])
        labels.append(row.label)
        means.append(mean)
        errors.append(error)
    return labels, means, errors


def env_figures(
    rows: Sequence[CellRow], games: Sequence[CompletedGame], wins: bool
) -> dict[str, str]:
    by_id = {game.run_id: game for game in games}
    figures = {}
    labels, means, errors = progression(rows, by_id)
    if labels:
        figures["progression"] = plots.progression_plot(labels, means, errors)
    if wins:
        figures["winrate"] = plots.win_rate_plot(rows)
    scores = plots.scores_by_row(rows, games)
    if any(scores):
        figures["scores"] = plots.score_plot([row.label for row in rows], scores)
    if any(row.tokens_per_point is not None for row in rows):
        figures["tokens"] = plots.tokens_per_point_plot(rows)
    return figures


def env_plots(table: CellTable, games: Sequence[CompletedGame]) -> list[EnvPlots]:
    """The table's rows (its pooled row last) grouped by environment, each group's plots,
    in the order the environments first appear."""
    groups: dict[str, list[CellRow]] = {}
    for row in table.rows + ([table.pooled] if table.pooled else []):
        if row.games:
            groups.setdefault(env_names(row), []).append(row)
    sets = []
    for env, rows in groups.items():
        wins = all(wins_measured(row) for row in rows)
        slug = re.sub(r"[^a-z0-9]+", "-", env.lower()).strip("-") or "env"
        figures = env_figures(rows, games, wins)
        sets.append(EnvPlots(env=env, slug=slug, rows=[r.label for r in rows], figures=figures,
                             wins=wins))  # fmt: skip
    return sets


__all__ = ["EnvPlots", "env_plots"]
