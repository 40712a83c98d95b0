"""`bounded sweep`'s progress display, drawn from the sweep's events
(`bounded.sweeps.sweep.SweepEvents`): one bar for the whole sweep, one line per worker,
and a table per cell (games completed of those planned, failures, games in flight,
tokens and cost so far, `bounded.sweeps.board`).

On a terminal it all updates in place; elsewhere (a log file) the bars are drawn once at
the end (nothing redraws them in between) and the cells are printed as plain lines, at the
start, at most every `interval` seconds while games start and end, and at the end.

A sweep of more than `WORKER_LINES` slots (`--workers 2 --concurrency 64` has 128) shows
no line per slot: the cells' "playing" column counts its games in flight, and the driver's
threads, which play the games, do not share its GIL with a table of 128 lines measured at
every refresh. Redrawing (even for a log file, where nothing is shown) took about 3 of the
22 CPU seconds of a 128-game sweep in one process."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console, Group
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from bounded.runner import GameSpec
from bounded.sweeps.board import CellProgress, SweepBoard
from bounded.sweeps.executors import GameResult
from bounded.sweeps.sweep import SweepEvents

PLAIN_INTERVAL = 30.0
"""Seconds between the cell lines printed where the display is not a terminal."""
WORKER_LINES = 16
"""The most slots (games played at once) shown a line each."""


class SweepProgress(SweepEvents):
    """A rich display of a sweep's games, on `console`."""

    def __init__(
        self,
        console: Console,
        *,
        interval: float = PLAIN_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.board: SweepBoard | None = None
        self.live: Live | None = None
        self.interval, self.clock = interval, clock
        self.printed_at: float | None = None
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=False,
            auto_refresh=console.is_terminal,  # elsewhere drawn once, at the end
        )
        self.total: TaskID | None = None
        self.workers: list[TaskID] = []
        self.played: list[int] = []

    def begin(self, planned: int, skipped: int, workers: int) -> None:
        self.total = self.progress.add_task("all games", total=planned, completed=skipped)
        share = -(-(planned - skipped) // workers)  # games per worker if all take equally long
        shown = workers if workers <= WORKER_LINES else 0
        self.workers = [
            self.progress.add_task(f"worker {i + 1}: idle", total=share) for i in range(shown)
        ]
        self.played = [0] * len(self.workers)
        if self.console.is_terminal and self.board is not None:
            self.live = Live(Group(self.progress, CellTable(self.board)), console=self.console)
            self.live.start()
        else:
            self.progress.start()
            self.print_cells(force=True)

    def planned(self, board: SweepBoard) -> None:
        self.board = board

    def end(self) -> None:
        if self.live is not None:
            self.live.stop()
            return
        self.progress.stop()
        self.print_cells(force=True)

    def print_cells(self, *, force: bool = False) -> None:
        """The cells as plain lines, when `interval` has passed since the last (or `force`)."""
        if self.board is None or self.live is not None:
            return
        now = self.clock()
        if not force and self.printed_at is not None and now - self.printed_at < self.interval:
            return
        self.printed_at = now
        for line in cell_lines(self.board):
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)

    def started(self, slot: int, spec: GameSpec) -> None:
        if self.board is not None:
            self.board.started(spec)
            self.print_cells()
        if self.workers:
            self.progress.update(self.workers[slot], description=f"worker {slot + 1}: {spec.label}")

    def settle(self, completed: int) -> None:
        """Show the final count as the archive has it."""
        if self.total is not None:
            self.progress.update(self.total, completed=completed)

    def finished(self, slot: int, result: GameResult, spend: str = "") -> None:
        if self.board is not None:
            self.board.finished(result.run)
            self.print_cells()
        if self.total is None:
            return
        if spend:
            self.progress.update(self.total, description=f"all games, {spend}")
        self.progress.advance(self.total)
        if not self.workers:
            return
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


def games_text(cell: CellProgress) -> str:
    return f"{cell.completed}/{cell.total if cell.total is not None else '?'}"


def cost_text(cell: CellProgress, currency: str = "") -> str:
    """`0.0123 USD` (no currency: `0.0123`), or `unpriced (MODEL)`
    (`bounded.analysis.cost.money`)."""
    from bounded.analysis.cost import money

    return money(cell.cost, cell.unpriced, currency)


def cell_lines(board: SweepBoard) -> list[str]:
    """One line per cell and one for them all: `typed.crafter: 3/10 games, 1 failed, ...`."""
    total = board.totals()
    total.cell = f"{board.experiment or 'sweep'} (all cells)"
    return [
        f"{cell.cell}: {games_text(cell)} games, {cell.failed} failed, {cell.running} playing, "
        f"{cell.prompt_tokens:,} prompt + {cell.completion_tokens:,} completion tokens, "
        f"cost {cost_text(cell, board.prices.currency)}"
        for cell in [*board.cells.values(), total]
    ]


def board_table(board: SweepBoard) -> Table:
    """The cells as a rich table, the total last."""
    table = Table(title=f"{board.experiment}: games per cell", title_justify="left")
    for name in ("cell", "env", "games", "failed", "playing", "prompt", "completion", "cost"):
        table.add_column(name, justify="left" if name in ("cell", "env") else "right")
    for cell in [*board.cells.values(), board.totals()]:
        table.add_row(
            cell.cell, cell.env, games_text(cell), str(cell.failed), str(cell.running),
            f"{cell.prompt_tokens:,}", f"{cell.completion_tokens:,}", cost_text(cell),
            style="bold" if cell.cell == "all" else None,
        )  # fmt: skip
    return table


class CellTable:
    """The board's table as it is at each refresh of the live display."""

    def __init__(self, board: SweepBoard) -> None:
        self.board = board

    def __rich__(self) -> Table:
        return board_table(self.board)


__all__ = ["SweepProgress", "board_table", "cell_lines"]
