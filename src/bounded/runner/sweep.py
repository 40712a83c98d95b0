"""Sweeps: play every game an experiment plans, exactly once, resumably.

A game is identified by (experiment, cell, seed). Before playing, the driver looks in
the archive: completed games are skipped, and the rows of incomplete ones (a game that
was killed or failed) are deleted and the game is played again. A lock file beside
the archive keeps two drivers of the same experiment from racing each other.
"""

from __future__ import annotations

import fcntl
import os
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel, Field
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from bounded.archive import Archive
from bounded.core import ConfigError, RunRecord
from bounded.runner.executors import Executor, GameResult, make_executor
from bounded.runner.experiment import Experiment, GameSpec, stable_key

GameKey = tuple[str, str, int]


class SweepSummary(BaseModel):
    """What one `bounded sweep` did."""

    experiment: str
    """Experiment name."""
    archive: str
    """Archive path."""
    planned: int
    """Games the experiment plans."""
    skipped: int
    """Games already completed before this sweep."""
    played: int = 0
    """Games played now."""
    failed: list[str] = Field(default_factory=list)
    """`cell seed N: error` for each game that failed now (rerun by the next sweep)."""
    removed: int = 0
    """Incomplete rows deleted before replaying their games."""

    @property
    def completed(self) -> int:
        return self.skipped + self.played - len(self.failed)


def run_key(run: RunRecord) -> GameKey:
    return (run.experiment, run.cell, run.seed)


def pending_games(archive: Archive, plan: list[GameSpec]) -> tuple[list[GameSpec], list[RunRecord]]:
    """The games still to play, and the incomplete rows of planned games to clear first."""
    if not plan:
        return [], []
    planned = {spec.key for spec in plan}
    existing = archive.runs(experiment=plan[0].experiment)
    done = {run_key(r) for r in existing if r.status == "completed"}
    stale = [r for r in existing if r.status != "completed" and run_key(r) in planned]
    return [spec for spec in plan if spec.key not in done], stale


def duplicate_games(archive: Archive, experiment: str) -> dict[GameKey, int]:
    """Keys with more than one completed run: a sweep must never produce any."""
    counts = Counter(run_key(r) for r in archive.runs(experiment=experiment, status="completed"))
    return {key: n for key, n in counts.items() if n > 1}


def check_settings(games: list[GameSpec]) -> None:
    """Build each distinct environment and contract once, so that a misspelt name or a bad
    option stops the sweep before any game starts (not in a worker, hours later)."""
    from bounded.runner.build import check_spec

    checked: set[str] = set()
    for spec in games:
        key = stable_key([spec.env, spec.env_options, spec.contract, spec.contract_config])
        if key not in checked:
            check_spec(spec)
            checked.add(key)


def write_result(archive: Archive, result: GameResult) -> None:
    """Save a game a worker returned: the row first as `running`, so that a driver killed
    half-way leaves an incomplete row (rerun next time), never a short completed game."""
    archive.save_run(result.run.model_copy(update={"status": "running"}))
    for record in result.decisions:
        archive.add_decision(record)
    archive.save_run(result.run)


@contextmanager
def experiment_lock(archive_path: Path, experiment: str) -> Iterator[None]:
    """An exclusive lock per (archive, experiment); the OS releases it if the driver dies."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", experiment)
    lock_path = archive_path.with_name(f"{archive_path.name}.{safe}.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise ConfigError(
                f"another sweep of experiment {experiment!r} is running on {archive_path}"
            ) from exc
        yield
    finally:
        os.close(fd)


class SweepProgress:
    """A rich display: one bar for the whole sweep and one line per worker."""

    def __init__(self, console: Console, total: int, skipped: int, workers: int) -> None:
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self.total = self.progress.add_task("all games", total=total, completed=skipped)
        share = -(-(total - skipped) // workers)  # games per worker if all take equally long
        self.workers: list[TaskID] = [
            self.progress.add_task(f"worker {i + 1}: idle", total=share) for i in range(workers)
        ]
        self.played = [0] * workers

    def __enter__(self) -> SweepProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def started(self, slot: int, spec: GameSpec) -> None:
        self.progress.update(self.workers[slot], description=f"worker {slot + 1}: {spec.label}")

    def finished(self, slot: int, result: GameResult) -> None:
        self.played[slot] += 1
        status = "" if result.run.status == "completed" else f" ({result.run.status})"
        task = self.workers[slot]
        share = self.progress.tasks[task].total or 0
        self.progress.update(
            task,
            description=f"worker {slot + 1}: done {result.spec.label}{status}",
            completed=self.played[slot],
            total=max(share, self.played[slot]),
        )
        self.progress.advance(self.total)


def run_sweep(
    experiment: Experiment,
    *,
    archive_path: Path | None = None,
    executor: str | Executor = "local",
    workers: int = 1,
    address: str | None = None,
    console: Console | None = None,
) -> SweepSummary:
    """Play the experiment's missing games and return what was done."""
    path = Path(archive_path or experiment.archive)
    plan = experiment.plan()
    keys = [spec.key for spec in plan]
    if len(set(keys)) != len(keys):
        raise ConfigError(f"experiment {experiment.name!r} plans the same (cell, seed) twice")
    runner = (
        make_executor(executor, archive_path=path, workers=workers, address=address)
        if isinstance(executor, str)
        else executor
    )
    with experiment_lock(path, experiment.name), Archive(path) as archive:
        pending, stale = pending_games(archive, plan)
        check_settings(pending)
        for run in stale:
            archive.delete_run(run.run_id)
        summary = SweepSummary(
            experiment=experiment.name,
            archive=str(path),
            planned=len(plan),
            skipped=len(plan) - len(pending),
            removed=len(stale),
        )

        def done(slot: int, result: GameResult) -> None:
            if not result.written:
                write_result(archive, result)
            summary.played += 1
            if result.run.status != "completed":
                summary.failed.append(f"{result.spec.label}: {result.run.error}")
            display.finished(slot, result)

        display = SweepProgress(
            console or Console(stderr=True), len(plan), summary.skipped, runner.workers
        )
        with display:
            runner.execute(pending, display.started, done)
        duplicates = duplicate_games(archive, experiment.name)
        if duplicates:  # a bug, never a user's mistake: say so loudly
            raise RuntimeError(f"sweep produced duplicate games: {sorted(duplicates)[:5]}")
    return summary


__all__ = [
    "SweepSummary",
    "duplicate_games",
    "experiment_lock",
    "pending_games",
    "run_sweep",
    "write_result",
]
