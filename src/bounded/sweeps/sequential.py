"""A sweep that stops when decided: `bounded sweep FILE --until-decided A B`.

The seeds the file plans for both cells A and B are played in blocks, in the file's
order (each block one ordinary, resumable sweep of those games of A and B only; the
file's other cells are not played by it). After each block the anytime-valid confidence
sequence of the mean paired difference A - B (`bounded.analysis.anytime`) is computed
over the pairs so far, taken in seed order; the sweep stops the first time it excludes
0, or when the seeds, the game budget (`--max-games` per cell) or the cost budget
(`--budget`) run out. Because the sequence is valid at every look at once, stopping at
the first decided look keeps its level. The rule, its level, every look and the point it
stopped at are recorded in the archive (a snapshot of kind `until-decided`), where
`bounded analyze --compare A B` finds them. Run again, the sweep walks the same blocks
(the games already played are skipped) and comes to the same decision.
"""

from __future__ import annotations

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
from bounded.sweeps.experiment import Experiment, GameSpec
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
    """Games per cell at most (default: every seed the file plans for both)."""
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


def common_seeds(experiment: Experiment, archive_path: Path, stopping: Stopping) -> list[int]:
    """The seeds the file plans for both cells, in A's order."""
    plan = experiment.stages(archive_path)
    cells = list(dict.fromkeys(spec.cell for spec in plan.cells))
    seeds: dict[str, list[int]] = {}
    for name in (stopping.a, stopping.b):
        seeds[name] = [spec.seed for spec in plan.cells if spec.cell == name]
        if not seeds[name]:
            raise ConfigError(
                f"--until-decided: no cell {name!r} in experiment {experiment.name!r}"
                f"{did_you_mean(name, cells)} (cells: {', '.join(cells)})"
            )
    other = set(seeds[stopping.b])
    common = [seed for seed in seeds[stopping.a] if seed in other]
    if not common:
        raise ConfigError(f"--until-decided: cells {stopping.a!r} and {stopping.b!r} share no seed")
    return common


def differences(
    games: list[CompletedGame], stopping: Stopping, seeds: list[int]
) -> tuple[list[float], int]:
    """The paired differences A - B of the seeds both cells completed, in `seeds` order,
    and the number of those seeds either cell has not completed."""
    mine = {(g.cell, g.seed): g for g in games}
    found, missing = [], 0
    for seed in seeds:
        a, b = mine.get((stopping.a, seed)), mine.get((stopping.b, seed))
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
    budget: float | None = None,
    on_look: Callable[[SequentialRecord], None] | None = None,
    **sweep_options: Any,
) -> SequentialSummary:
    """Play A's and B's common seeds in blocks until the confidence sequence excludes 0
    (see the module's docstring); `sweep_options` go to each block's `run_sweep`."""
    stopping.check()
    path = Path(archive_path or experiment.archive)
    seeds = common_seeds(experiment, path, stopping)
    limit = min(len(seeds), stopping.max_games or len(seeds))
    lo, hi = stopping.bounds()
    record = SequentialRecord(
        experiment=experiment.name, a=stopping.a, b=stopping.b, metric=stopping.metric,
        level=stopping.level, lo=lo, hi=hi, block=stopping.block, seeds=seeds[:limit],
        max_games=limit,
    )  # fmt: skip
    sweeps: list[SweepSummary] = []
    spent = 0.0
    for end in range(min(stopping.block, limit), limit + stopping.block, stopping.block):
        chosen = set(seeds[: min(end, limit)])
        left = None if budget is None else max(budget - spent, 0.0)
        only = block_games(stopping, chosen)
        summary = run_sweep(experiment, archive_path=path, budget=left, only=only, **sweep_options)
        sweeps.append(summary)
        spent += summary.spent
        diffs, missing = differences(
            archived_games(path, experiment.name), stopping, seeds[: min(end, limit)]
        )
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


def block_games(stopping: Stopping, seeds: set[int]) -> Callable[[GameSpec], bool]:
    """Keeps the games of A and B on `seeds`."""
    cells = (stopping.a, stopping.b)
    return lambda spec: spec.cell in cells and spec.seed in seeds


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
    "SequentialSummary",
    "Stopping",
    "common_seeds",
    "run_until_decided",
]
