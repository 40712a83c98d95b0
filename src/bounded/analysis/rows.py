"""A cell table's row: one condition's games, their wins, scores and costs (the cell table
in `bounded.analysis.tables` builds them; `bounded.analysis.compare` compares two)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class CellRow(BaseModel):
    """One row of the cell table."""

    label: str
    """The row's name: its cell, then its grouping values, joined by ` / `."""
    cell: str = ""
    """The cell (condition) the row belongs to: an explicit cell's label, else the value of
    the first grouping field (the condition tag unless told otherwise)."""
    group: dict[str, str] = Field(default_factory=dict)
    """The values of the remaining grouping fields (`--by`), e.g. {"model": "..."}."""
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
    scores: list[float] = Field(default_factory=list)
    """Each counted game's derived score, in start order (empty without scores)."""
    mean_floor: float | None = None
    """Mean floor reached (None for environments without floors)."""
    minutes_per_floor: float | None = None
    """Total wall minutes / total floors reached (None without floors)."""
    tokens_per_game: float | None = None
    """Mean prompt + completion tokens per game (None where no tokens were recorded)."""
    tokens_per_point: float | None = None
    """Total prompt + completion tokens / total score points."""
    fresh_tokens_per_point: float | None = None
    """Total fresh tokens (prompt - cached + completion) / total score points."""
    fresh_tokens_per_game: float | None = None
    """Mean fresh tokens (prompt - cached + completion) per game."""
    cost_per_game: float | None = None
    """Mean cost per game at each model's prices (`bounded.analysis.cost`); None where a
    model of its games is unpriced (`unpriced`)."""
    cost_per_point: float | None = None
    """Total cost / total score points."""
    unpriced: list[str] = Field(default_factory=list)
    """The models of its games that no price source prices: its cost reads unpriced."""
    latency_s_per_game: float | None = None
    """Mean modelled seconds of model calls per game (local models only)."""
    decisions_per_game: float = 0.0
    """Mean decisions per game."""
    model_calls_per_game: float = 0.0
    """Mean model calls per game."""
    effective_action_rate: float | None = None
    """Mean effective actions per decision (the environment's empty action left out);
    None where the games recorded none."""
    wall_s_per_game: float = 0.0
    """Mean wall time per game, seconds."""
    fallback_rate: float | None = None
    """Fallbacks per recorded decision (`bounded.analysis.fallbacks`); None where its games
    recorded no decisions."""
    parse_error_rate: float | None = None
    """Replies the contract could not read, per recorded decision."""
    invalid_action_rate: float | None = None
    """Actions named outside the legal set, per recorded decision."""
    fallback_wins: int = 0
    """Games counted that were won on fallbacks (a decision executed a fallback)."""
    fallback_wins_left_out: int = 0
    """Games won on fallbacks left out of the row (`--exclude-fallback-wins`)."""
    run_ids: list[str] = Field(default_factory=list)
    """The runs counted, in start order."""
    env_ids: list[str] = Field(default_factory=list)
    """The environments of its games (one, unless a row was asked to pool several)."""
    mean_progress: float | None = None
    """Mean progress in percent (BALROG's progression), when every game recorded one."""
    progress_low: float | None = None
    progress_high: float | None = None
    """The percentile bootstrap interval of `mean_progress`."""


__all__ = ["CellRow"]
