"""A sweep that stops when decided: `bounded sweep FILE --until-decided A B`.

A and B are treatments (tags, contracts or presets) or cells. The games the file plans
for both are paired on (block, seed) (`bounded.analysis.design`: a matrix file's points
are its blocks) and played in looks of `--block` seeds of every block, in the file's
seed order (each look one ordinary, resumable sweep of those games of A and B only; the
file's other games are not played by it). After each look the anytime-valid confidence
sequence of the mean paired difference A - B (`bounded.analysis.anytime`) is computed
over every block's pairs so far, taken seed by seed and block by block, so that it
decides on the stratified comparison: its mean is the mean of the blocks' differences,
each block weighted by its pairs, which the betting sequence covers for independent
pairs of different means as well as for identically distributed ones. The sweep stops
the first time it excludes 0, or when the seeds, the game budget (`--max-games` per
treatment) or the cost budget (`--budget`) run out. Because the sequence is valid at
every look at once, stopping at the first decided look keeps its level. The rule, its
level, every look and the point it stopped at are recorded in the archive (a snapshot of
kind `until-decided`), where `bounded analyze --compare A B` finds them. Run again, the
sweep walks the same looks (the games already played are skipped) and comes to the same
decision.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bounded.analysis.anytime import SEQUENTIAL_KIND, SequentialRecord, look
from bounded.analysis.games import CompletedGame, completed_games
from bounded.archive import Archive
from bounded.core import ConfigError
from bounded.registry import did_you_mean
from bounded.runner.spec import GameSpec
from bounded.sweeps.experiment import Experiment
from bounded.sweeps.stages import Plan
from bounded.sweeps.sweep import SweepSummary, run_sweep

DEFAULT_BLOCK = 10
SCORE_RANGE = (0.0, 100.0)


class Stopping(BaseModel):
    """The stopping rule asked for."""

    a: str
    b: str
    metric: str = "wins"
    level: float = 0.05
    block: int = DEFAULT_BLOCK
    max_games: int | None = None
    """Games per treatment at most, over all blocks (default: every (block, seed) the file
    plans for both)."""
    score_range: tuple[float, float] = SCORE_RANGE
    """The least and the most a game can score (the bets' scale, `--metric score`)."""

    def bounds(self) -> tuple[float, float]:
        """The range of a paired difference."""
        if self.metric == "wins":
            return (-1.0, 1.0)
        low, high = self.score_range
        return (low - high, high - low)

    def check(self) -> None:
        if self.metric not in ("wins", "score"):
            raise ConfigError(f"--metric must be wins or score, got {self.metric!r}")
        if not 0 < self.level < 1:
            raise ConfigError(f"--level must lie strictly between 0 and 1, got {self.level:g}")
        if self.block < 1:
            raise ConfigError(f"--block must be at least 1, got {self.block}")
        if self.max_games is not None and self.max_games < 1:
            raise ConfigError(f"--max-games must be at least 1, got {self.max_games}")
        if self.score_range[1] <= self.score_range[0]:
            raise ConfigError(
                f"--score-range must be LOW,HIGH with LOW < HIGH, got {self.score_range}"
            )
        if self.a == self.b:
            raise ConfigError("--until-decided compares two different cells")


class SequentialSummary(BaseModel):
    """What a sweep stopped when decided did: the record and each block's sweep."""

    record: SequentialRecord
    sweeps: list[SweepSummary]

    @property
    def played(self) -> int:
        return sum(summary.played for summary in self.sweeps)

    @property
    def spent(self) -> float:
        return sum(summary.spent for summary in self.sweeps)


class Planned(BaseModel):
    """A's and B's planned games on their common (block, seed), in the order they are
    played: seed by seed in the file's order, every block's game of each seed."""

    keys: list[tuple[str, int]]
    games: dict[str, dict[tuple[str, int], str]]
    """Per treatment (A, B): (block, seed) -> its cell."""

    def blocks(self) -> list[str]:
        return list(dict.fromkeys(block for block, _ in self.keys))

    def seeds(self) -> list[int]:
        return list(dict.fromkeys(seed for _, seed in self.keys))


def common_games(experiment: Experiment, plan: Plan, stopping: Stopping) -> Planned:
    """The (block, seed) the file's `plan` plays for both A and B."""
    from bounded.analysis.design import design_of_plan

    specs = plan.cells
    design = design_of_plan(spec.model_dump() for spec in specs)
    cells = list(dict.fromkeys(spec.cell for spec in specs))
    games: dict[str, dict[tuple[str, int], str]] = {}
    order: list[int] = []
    for name in (stopping.a, stopping.b):
        mine = [(s, g) for s, g in zip(specs, design.games, strict=True) if s.cell == name] or [
            (s, g) for s, g in zip(specs, design.games, strict=True) if g.treatment == name
        ]
        if not mine:
            raise ConfigError(
                f"--until-decided: no cell or treatment {name!r} in experiment "
                f"{experiment.name!r}{did_you_mean(name, cells)} (cells: {', '.join(cells)})"
            )
        games[name] = {(game.block_label, spec.seed): spec.cell for spec, game in mine}
        order = order or list(dict.fromkeys(spec.seed for spec, _ in mine))
    common = set(games[stopping.a]) & set(games[stopping.b])
    if not common:
        raise ConfigError(f"--until-decided: cells {stopping.a!r} and {stopping.b!r} share no seed")
    blocks = sorted({block for block, _ in common})
    keys = [(block, seed) for seed in order for block in blocks if (block, seed) in common]
    return Planned(keys=keys, games={name: games[name] for name in (stopping.a, stopping.b)})


def differences(
    games: list[CompletedGame], stopping: Stopping, planned: Planned, keys: list[tuple[str, int]]
) -> tuple[list[float], int]:
    """The paired differences A - B of the (block, seed) both completed, in `keys` order,
    and the number of those keys either has not completed."""
    done = {(g.cell, g.seed): g for g in games}
    found, missing = [], 0
    for key in keys:
        a = done.get((planned.games[stopping.a][key], key[1]))
        b = done.get((planned.games[stopping.b][key], key[1]))
        if a is None or b is None:
            missing += 1
            continue
        found.append(_value(a, stopping) - _value(b, stopping))
    return found, missing


def _value(game: CompletedGame, stopping: Stopping) -> float:
    if stopping.metric == "wins":
        return float(game.victory)
    if game.score is None:
        raise ConfigError(f"--metric score: game {game.run_id[:12]} ({game.cell}) has no score")
    low, high = stopping.score_range
    if not low <= game.score <= high:
        raise ConfigError(
            f"--score-range {low:g},{high:g}: game {game.run_id[:12]} ({game.cell}) scored "
            f"{game.score:g}"
        )
    return game.score


def archived_games(path: Path, experiment: str) -> list[CompletedGame]:
    with Archive(path, read_only=True) as archive:
        return completed_games(archive.runs(experiment=experiment))


def run_until_decided(
    experiment: Experiment,
    stopping: Stopping,
    *,
    archive_path: Path | None = None,
    plan: Plan | None = None,
    budget: float | None = None,
    on_look: Callable[[SequentialRecord], None] | None = None,
    **sweep_options: Any,
) -> SequentialSummary:
    """Play A's and B's common (block, seed) in looks until the confidence sequence
    excludes 0 (see the module's docstring); `plan`: the experiment's plan as the command
    built it (default: built here), which every look plays from; `sweep_options` go to
    each look's `run_sweep`."""
    stopping.check()
    path = Path(archive_path or experiment.archive)
    plan = plan if plan is not None else experiment.stages(path)
    planned = common_games(experiment, plan, stopping)
    seeds, blocks = planned.seeds(), len(planned.blocks())
    limit = min(len(seeds), math.ceil((stopping.max_games or len(seeds) * blocks) / blocks))
    lo, hi = stopping.bounds()
    record = SequentialRecord(
        experiment=experiment.name, a=stopping.a, b=stopping.b, metric=stopping.metric,
        level=stopping.level, lo=lo, hi=hi, block=stopping.block, seeds=seeds[:limit],
        keys=[key for key in planned.keys if key[1] in set(seeds[:limit])],
        max_games=limit * blocks,
    )  # fmt: skip
    sweeps: list[SweepSummary] = []
    spent = 0.0
    for end in range(min(stopping.block, limit), limit + stopping.block, stopping.block):
        chosen = set(seeds[: min(end, limit)])
        keys = [key for key in planned.keys if key[1] in chosen]
        left = None if budget is None else max(budget - spent, 0.0)
        only = look_games(planned, keys)
        summary = run_sweep(
            experiment, archive_path=path, plan=plan, budget=left, only=only, **sweep_options
        )
        sweeps.append(summary)
        spent += summary.spent
        diffs, missing = differences(archived_games(path, experiment.name), stopping, planned, keys)
        record.looks.append(look(diffs, lo, hi, stopping.level))
        record.stopped_at = len(diffs)
        if on_look is not None:
            on_look(record)
        reason = _reason(record, summary, missing)
        if reason:
            record.reason = reason
            break
        if end >= limit:
            record.reason = "seeds exhausted" if limit == len(seeds) else "game budget"
            break
    save_record(path, record)
    return SequentialSummary(record=record, sweeps=sweeps)


def look_games(planned: Planned, keys: list[tuple[str, int]]) -> Callable[[GameSpec], bool]:
    """Keeps A's and B's games on `keys`."""
    chosen = {(cells[key], key[1]) for cells in planned.games.values() for key in keys}
    return lambda spec: (spec.cell, spec.seed) in chosen


def _reason(record: SequentialRecord, summary: SweepSummary, missing: int) -> str:
    """Why the sweep stops after this block ("" to go on)."""
    if record.looks[-1].decided:
        return "decided"
    if summary.not_started:
        return "cost budget"
    if summary.failed or missing:
        return "games failed"
    return ""


def save_record(path: Path, record: SequentialRecord) -> None:
    """Record the rule and where it stopped in the archive."""
    record.recorded_at = time.time()
    with Archive(path) as archive:
        archive.put_snapshot(SEQUENTIAL_KIND, record.model_dump(mode="json"))


__all__ = [
    "DEFAULT_BLOCK",
    "Planned",
    "SequentialSummary",
    "Stopping",
    "common_games",
    "run_until_decided",
]
