"""The craft metrics table in the layout of EpicStar's Table 1.

One row per (condition tag, level), or per (tag, level, opponent style) with `by_style`
(the paper's Figure 2): games, wins, win rate, and the means of the TextStarCraft II
metrics PBR, RUR, APU and TR, the effective actions per step (actions other than the
empty action: agents acting at different rates show it), plus tokens per game (prompt +
completion) and model calls per game. Only completed runs count. Under the table, the
parity report of the tags (`bounded.analysis.parity`, levels and styles pooled).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bounded.analysis.parity import (
    ParityReport,
    effective_rate,
    parity_of_runs,
    render_parity_markdown,
)
from bounded.core import ConfigError, RunRecord, victory_of

METRICS = ("pbr", "rur", "apu", "tr")

CRAFT_ENV = "bounded/Craft-v0"
"""The craft environment's canonical id (the archive holds no other name for it)."""

GroupKey = tuple[Any, ...]
"""(tag, level) or (tag, level, style)."""


class CraftTableRow(BaseModel):
    """One cell of the table."""

    tag: str
    """Condition tag (contract or preset)."""
    level: Any = None
    """Difficulty level of the built-in AI."""
    style: str | None = None
    """The built-in AI's style, for a table by style (None: styles pooled)."""
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
    effective_actions_per_step: float | None = None
    """Mean effective actions per decision, the empty action left out (None for runs
    that predate the metric)."""
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


def style_of(run: RunRecord) -> str | None:
    """The run's opponent style: from its outcome, else its spec's options."""
    for source in (run.outcome, run.spec.get("env_options", {})):
        if "style" in source:
            return str(source["style"])
    return None


def style_group(run: RunRecord) -> GroupKey:
    return (*default_group(run), style_of(run))


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
    rows = [summarise(key, cell) for key, cell in cells.items()]
    return sorted(rows, key=lambda r: (r.tag, str(r.level), r.style or ""))


def summarise(key: GroupKey, runs: list[RunRecord]) -> CraftTableRow:
    tag, level, *style = key
    games = len(runs)
    wins = sum(victory_of(run.outcome) for run in runs)
    means = {name: mean(metric(run.outcome, name) for run in runs) for name in METRICS}
    return CraftTableRow(
        tag=tag,
        level=level,
        style=style[0] if style else None,
        effective_actions_per_step=mean(effective_rate(run.outcome) for run in runs),
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

    rows = list(rows)
    styled = any(r.style is not None for r in rows)
    lines = [
        f"| tag | level |{' style |' if styled else ''} games | win rate | PBR | RUR | APU | TR "
        "| effective actions/step | tokens/game | calls/game |",
        "|---|---|" + ("---|" if styled else "") + "---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        style = f" {r.style or '-'} |" if styled else ""
        lines.append(
            f"| {r.tag} | {r.level if r.level is not None else '-'} |{style} {r.games} "
            f"| {r.win_rate:.1%} ({r.wins}/{r.games}) | {cell(r.pbr)} | {cell(r.rur, 1)} "
            f"| {cell(r.apu)} | {cell(r.tr)} | {cell(r.effective_actions_per_step, 2)} "
            f"| {r.tokens_per_game:,.0f} "
            f"| {r.model_calls_per_game:.1f} |"
        )
    return "\n".join(lines)


def craft_parity(runs: Iterable[RunRecord]) -> ParityReport:
    """The parity report of the table's tags (levels and styles pooled)."""
    tags: dict[str, list[RunRecord]] = {}
    for run in runs:
        if run.status == "completed":
            tags.setdefault(run.tag or run.contract, []).append(run)
    return parity_of_runs((tag, {}, tagged) for tag, tagged in sorted(tags.items()))


def craft_table_command(
    archive: str | Path, experiment: str | None = None, *, by_style: bool = False
) -> str:
    """`bounded craft-table ARCHIVE [--experiment NAME] [--by-style]`: the table of an
    archive's craft runs, with the parity report of its tags under it."""
    from bounded.archive import Archive

    source = Path(archive)
    if not source.is_file():
        raise ConfigError(f"archive not found: {source}")
    with Archive(source, read_only=True) as store:
        runs = [r for r in store.runs(experiment=experiment) if r.env_id == CRAFT_ENV]
    table = render_craft_table(craft_table(runs, style_group if by_style else default_group))
    parity = craft_parity(runs)
    if not parity.compared:
        return table
    return f"{table}\n\n{render_parity_markdown(parity)}"


__all__ = [
    "CraftTableRow",
    "craft_parity",
    "craft_table",
    "craft_table_command",
    "default_group",
    "render_craft_table",
    "style_group",
]
