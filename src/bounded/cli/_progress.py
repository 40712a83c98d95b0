"""`bounded sweep`'s progress display: one bar for the whole sweep and one line per worker,
drawn from the sweep's events (`bounded.sweeps.sweep.SweepEvents`)."""

from __future__ import annotations

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

from bounded.runner import GameSpec
from bounded.sweeps.executors import GameResult
from bounded.sweeps.sweep import SweepEvents


class SweepProgress(SweepEvents):
    """A rich display of a sweep's games, on `console`."""

    def __init__(self, console: Console) -> None:
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self.total: TaskID | None = None
        self.workers: list[TaskID] = []
        self.played: list[int] = []

    def begin(self, planned: int, skipped: int, workers: int) -> None:
        self.total = self.progress.add_task("all games", total=planned, completed=skipped)
        share = -(-(planned - skipped) // workers)  # games per worker if all take equally long
        self.workers = [
            self.progress.add_task(f"worker {i + 1}: idle", total=share) for i in range(workers)
        ]
        self.played = [0] * workers
        self.progress.start()

    def end(self) -> None:
        self.progress.stop()

    def started(self, slot: int, spec: GameSpec) -> None:
        self.progress.update(self.workers[slot], description=f"worker {slot + 1}: {spec.label}")

    def settle(self, completed: int) -> None:
        """Show the final count as the archive has it."""
        if self.total is not None:
            self.progress.update(self.total, completed=completed)

    def finished(self, slot: int, result: GameResult, spend: str = "") -> None:
        if self.total is None:
            return
        if spend:
            self.progress.update(self.total, description=f"all games, {spend}")
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


__all__ = ["SweepProgress"]
