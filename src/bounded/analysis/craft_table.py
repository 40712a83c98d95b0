"""The craft metrics table in the layout of EpicStar's Table 1.

One row per (condition tag, level): games, wins, win rate, and the means of the
TextStarCraft II metrics PBR, RUR, APU and TR, the game actions per step (so that
agents acting at different rates show it), plus tokens per game (prompt + completion)
and model calls per game. Only completed runs count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bounded.core import ConfigError, RunRecord, victory_of

METRICS = ("pbr", "rur", "apu", "tr", "actions_per_step")

CRAFT_ENV = "bounded/Craft-v0"
"""The craft environment's canonical id (the archive holds no other name for it)."""

GroupKey = tuple[str, Any]


class CraftTableRow(BaseModel):
    """One cell of the table."""

    tag: str
    """Condition tag (contract or preset)."""
    level: Any = None
    """Difficulty level of the built-in AI."""
    games: int
    """Completed games."""
    wins: int
    """Games won."""
    win_rate: float
    """wins / games."""
    pbr: float | None = None
    """Mean population-block ratio."""
    rur: float | None = None
    """Mean resource utilisation rate."""
    apu: float | None = None
    """Mean average population utilisation."""
    tr: float | None = None
    """Mean technology rate."""
    actions_per_step: float | None = None
    """Mean actions given per decision (None for runs that predate the metric)."""
    tokens_per_game: float
    """Mean prompt + completion tokens per game."""
    prompt_tokens_per_game: float
    """Mean prompt tokens per game."""
    model_calls_per_game: float
    """Mean model calls per game (contract side calls included)."""


def metric(outcome: Mapping[str, Any], name: str) -> float | None:
    """A metric of an outcome by name, in any letter case, as a float."""
    for key, value in outcome.items():
        if key.lower() == name and isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None


def level_of(run: RunRecord) -> Any:
    """The run's level: from its outcome, else from the settings it was built with (its
    spec; older sweeps kept them in the model parameters), else None."""
    for source in (run.outcome, run.spec.get("env_options", {}), run.model_params):
        if "level" in source:
            return source["level"]
    return None


def default_group(run: RunRecord) -> GroupKey:
    return (run.tag or run.contract, level_of(run))


def mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def craft_table(
    runs: Iterable[RunRecord], group: Callable[[RunRecord], GroupKey] = default_group
) -> list[CraftTableRow]:
    """The table's rows, sorted by tag then level."""
    cells: dict[GroupKey, list[RunRecord]] = {}
    for run in runs:
        if run.status == "completed":
            cells.setdefault(group(run), []).append(run)
    rows = [summarise(tag, level, cell) for (tag, level), cell in cells.items()]
    return sorted(rows, key=lambda r: (r.tag, str(r.level)))


def summarise(tag: str, level: Any, runs: list[RunRecord]) -> CraftTableRow:
    games = len(runs)
    wins = sum(victory_of(run.outcome) for run in runs)
    means = {name: mean(metric(run.outcome, name) for run in runs) for name in METRICS}
    return CraftTableRow(
        tag=tag,
        level=level,
        games=games,
        wins=wins,
        win_rate=wins / games,
        **means,
        tokens_per_game=sum(r.prompt_tokens + r.completion_tokens for r in runs) / games,
        prompt_tokens_per_game=sum(r.prompt_tokens for r in runs) / games,
        model_calls_per_game=sum(r.model_calls for r in runs) / games,
    )


def render_craft_table(rows: Iterable[CraftTableRow]) -> str:
    """A Markdown table (one line per row)."""

    def cell(value: float | None, digits: int = 3) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    lines = [
        "| tag | level | games | win rate | PBR | RUR | APU | TR | actions/step "
        "| tokens/game | calls/game |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.tag} | {r.level if r.level is not None else '-'} | {r.games} "
            f"| {r.win_rate:.1%} ({r.wins}/{r.games}) | {cell(r.pbr)} | {cell(r.rur, 1)} "
            f"| {cell(r.apu)} | {cell(r.tr)} | {cell(r.actions_per_step, 2)} "
            f"| {r.tokens_per_game:,.0f} "
            f"| {r.model_calls_per_game:.1f} |"
        )
    return "\n".join(lines)


def craft_table_command(archive: str | Path, experiment: str | None = None) -> str:
    """`bounded craft-table ARCHIVE [--experiment NAME]`: the table of an archive's craft runs."""
    from bounded.archive import Archive

    source = Path(archive)
    if not source.is_file():
        raise ConfigError(f"archive not found: {source}")
    with Archive(source, read_only=True) as store:
        runs = [r for r in store.runs(experiment=experiment) if r.env_id == CRAFT_ENV]
    return render_craft_table(craft_table(runs))


__all__ = ["CraftTableRow", "craft_table", "craft_table_command", "render_craft_table"]
