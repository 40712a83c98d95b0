"""`bounded demo`'s first job: what a bounded contract is for, in a few minutes.

The same spire game and seed played twice on one model for a few decisions, under the
`typed` contract (a bounded prompt: the state it keeps, not the history) and under
`transcript` (every observation and reply so far), both replying `constrained` so the
games differ by memory alone. The summary sets their prompt tokens per decision side by
side (one stays flat, the other grows with every decision) with the split of each
prompt by layer, and says where the archive and a report of the two games are.

The decision limit keeps the demo short on the embedded model (a decision takes 5-15 s on
2 cores): `COMPARE_DECISIONS` decisions a game, about 3-5 minutes for both.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from bounded.core import DecisionRecord, Observation, RunRecord
from bounded.jobs.demo import SPIRE_REPLY_TOKENS, demo_model
from bounded.protocols import Model
from bounded.runner.build import play
from bounded.runner.spec import GameSpec

COMPARE_CONTRACTS = ("typed", "transcript")
"""The bounded contract, then the growing one."""
COMPARE_DECISIONS = 8
"""Decisions per game: enough for the transcript to outgrow the bounded prompt several
times over, and for both games to fit the embedded model's 8,192-token context."""
SPEED_WINDOW_S = 3600.0
"""Seconds of past decisions the time left is estimated from (rich's default, 30 s, holds
no more than one of the embedded model's decisions, and so shows no estimate)."""
COMPARE_REPLY = "constrained"
"""One decoding for both games (each contract's reply schema, decoded under it)."""


class ComparedGame(BaseModel):
    """One game of the comparison: its run and each decision's prompt size and split."""

    contract: str
    run: RunRecord
    prompt_tokens: list[int]
    """Prompt tokens of each decision, in order."""
    tokens_by_layer: list[dict[str, int]]
    """Each decision's prompt tokens per layer."""

    def mean_by_layer(self) -> dict[str, float]:
        """Mean prompt tokens per decision of each layer, in the order layers appear."""
        totals: dict[str, int] = {}
        for split in self.tokens_by_layer:
            for layer, tokens in split.items():
                totals[layer] = totals.get(layer, 0) + tokens
        count = max(1, len(self.tokens_by_layer))
        return {layer: tokens / count for layer, tokens in totals.items()}


class Comparison(BaseModel):
    games: list[ComparedGame]
    seed: int
    decisions: int


def compare_spec(contract: str, *, seed: int, decisions: int) -> GameSpec:
    """The spire game (Act 1) under `contract`, cut at `decisions`."""
    return GameSpec(
        env="spire", env_options={"acts": 1}, contract=contract,
        contract_config={"reply": COMPARE_REPLY}, seed=seed, tag=f"demo-compare-{contract}",
        max_decisions=decisions, max_tokens=SPIRE_REPLY_TOKENS,
    )  # fmt: skip


Tick = Callable[[str, DecisionRecord], None]


def play_compared(
    llm: Model, contract: str, *, seed: int, decisions: int, archive: Any, tick: Tick
) -> ComparedGame:
    prompts: list[int] = []
    splits: list[dict[str, int]] = []

    def observe(record: DecisionRecord, _obs: Observation) -> None:
        prompts.append(record.prompt_tokens)
        splits.append(dict(record.tokens_by_layer))
        tick(contract, record)

    spec = compare_spec(contract, seed=seed, decisions=decisions)
    run = play(spec, archive=archive, model=llm, observer=observe)
    return ComparedGame(contract=contract, run=run, prompt_tokens=prompts, tokens_by_layer=splits)


def run_comparison(
    model: str | Model,
    *,
    seed: int,
    decisions: int = COMPARE_DECISIONS,
    archive: Any = None,
    base_url: str | None = None,
    console: Console | None = None,
) -> Comparison:
    """Both games on one model, with a bar over their decisions and the time left."""
    llm = demo_model(model, base_url)
    games = []
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(bar_width=12),
        MofNCompleteColumn(),
        TextColumn("decisions"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("left · prompt {task.fields[last]}"),
        console=console,
        disable=console is None,
        speed_estimate_period=SPEED_WINDOW_S,
    ) as progress:
        total = decisions * len(COMPARE_CONTRACTS)
        bar = progress.add_task(COMPARE_CONTRACTS[0], total=total, last="-")

        def tick(contract: str, record: DecisionRecord) -> None:
            progress.update(bar, advance=1, description=contract, last=f"{record.prompt_tokens:,}")

        for number, contract in enumerate(COMPARE_CONTRACTS, start=1):
            game = play_compared(
                llm, contract, seed=seed, decisions=decisions, archive=archive, tick=tick
            )
            games.append(game)
            progress.update(bar, completed=number * decisions)  # a game that ended early
    return Comparison(games=games, seed=seed, decisions=decisions)


def prompt_table(comparison: Comparison) -> Table:
    """Prompt tokens per decision, one column per contract."""
    games = comparison.games
    table = Table(
        title=f"prompt tokens per decision (spire, seed {comparison.seed})",
        title_justify="left",
    )
    table.add_column("decision", justify="right")
    for game in games:
        table.add_column(game.contract, justify="right")
    rows = max(len(game.prompt_tokens) for game in games)
    for index in range(rows):
        cells = [tokens_at(game.prompt_tokens, index) for game in games]
        table.add_row(str(index + 1), *cells)
    table.add_row("growth", *[growth_text(game.prompt_tokens) for game in games], style="bold")
    return table


def tokens_at(tokens: list[int], index: int) -> str:
    return f"{tokens[index]:,}" if index < len(tokens) else "(ended)"


def growth_text(tokens: list[int]) -> str:
    """`+1,234 (x3.1)` from the first decision's prompt to the last's."""
    if not tokens:
        return "-"
    added = tokens[-1] - tokens[0]
    return f"{added:+,} (x{tokens[-1] / max(1, tokens[0]):.1f})"


def layer_table(comparison: Comparison) -> Table:
    """Mean prompt tokens per decision of each layer, and its share, per contract."""
    games = comparison.games
    table = Table(title="mean prompt tokens by layer", title_justify="left")
    table.add_column("layer")
    for game in games:
        table.add_column(game.contract, justify="right")
    means = [game.mean_by_layer() for game in games]
    layers = list(dict.fromkeys(layer for mean in means for layer in mean))
    for layer in sorted(layers):
        table.add_row(layer, *[share_text(mean, layer) for mean in means])
    return table


def share_text(mean: dict[str, float], layer: str) -> str:
    if layer not in mean:
        return "-"
    return f"{mean[layer]:,.0f} ({mean[layer] / max(1.0, sum(mean.values())):.0%})"


def closing_lines(comparison: Comparison, archive: Path, report: Path | None) -> list[str]:
    """Where the games are and what to do next."""
    runs = ", ".join(f"{g.contract} {g.run.run_id[:12]}" for g in comparison.games)
    minutes = sum(g.run.wall_s for g in comparison.games) / 60
    lines = [
        f"played in {minutes:.1f} min; archive: {archive} (runs {runs})",
        f"report: {report}" if report is not None else f"report: bounded report {archive}",
        "the whole spire game (Act 1, typed): bounded demo --full",
    ]
    return lines


__all__ = [
    "COMPARE_CONTRACTS",
    "COMPARE_DECISIONS",
    "ComparedGame",
    "Comparison",
    "closing_lines",
    "compare_spec",
    "layer_table",
    "prompt_table",
    "run_comparison",
]
