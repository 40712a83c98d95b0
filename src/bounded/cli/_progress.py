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
22 CPU seconds of a 128-game sweep in one process.

Given the archive, the display also reads back the games in flight every `poll_every`
seconds (`DecisionWatch`): each worker's line shows the decisions of its game so far, so a
long game shows progress, and the whole sweep's line the time left (`bounded.sweeps.pace`)
at the rate decisions were played since the sweep began."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from rich.console import Console, Group
from rich.live import Live
from rich.markup import escape
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

from bounded.archive import Archive
from bounded.core import RunRecord
from bounded.runner import GameSpec
from bounded.runner.spec import GameKey, run_key
from bounded.sweeps.board import CellProgress, SweepBoard
from bounded.sweeps.executors import GameResult
from bounded.sweeps.pace import Pace, board_pace, pace_text
from bounded.sweeps.sweep import SweepEvents

PLAIN_INTERVAL = 30.0
"""Seconds between the cell lines printed where the display is not a terminal."""
WORKER_LINES = 16
"""The most slots (games played at once) shown a line each."""
POLL_EVERY = 5.0
"""Seconds between two readings of the games in flight from the archive."""


class SweepProgress(SweepEvents):
    """A rich display of a sweep's games, on `console`."""

    def __init__(
        self,
        console: Console,
        *,
        interval: float = PLAIN_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
        archive: Path | None = None,
        poll_every: float = POLL_EVERY,
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
            TextColumn("{task.fields[note]}", markup=False),
            console=console,
            transient=False,
            auto_refresh=console.is_terminal,  # elsewhere drawn once, at the end
        )
        self.total: TaskID | None = None
        self.workers: list[TaskID] = []
        self.played: list[int] = []
        self.watch = DecisionWatch(self, archive, poll_every) if archive is not None else None

    def begin(self, planned: int, skipped: int, workers: int) -> None:
        self.total = self.progress.add_task("all games", total=planned, completed=skipped, note="")
        share = -(-(planned - skipped) // workers)  # games per worker if all take equally long
        shown = workers if workers <= WORKER_LINES else 0
        self.workers = [
            self.progress.add_task(f"worker {i + 1}: idle", total=share, note="")
            for i in range(shown)
        ]
        self.played = [0] * len(self.workers)
        if self.console.is_terminal and self.board is not None:
            self.live = Live(Group(self.progress, CellTable(self.board)), console=self.console)
            self.live.start()
        else:
            self.progress.start()
            self.print_cells(force=True)
        if self.watch is not None:
            self.watch.start(self.clock())

    def planned(self, board: SweepBoard) -> None:
        self.board = board

    def end(self) -> None:
        if self.watch is not None:
            self.watch.stop()
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
        lines = cell_lines(self.board)
        if self.watch is not None:
            lines.append(f"{self.board.experiment or 'sweep'}: {pace_text(self.watch.pace())}")
        for line in lines:
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)

    def started(self, slot: int, spec: GameSpec) -> None:
        if self.watch is not None:
            self.watch.started(slot, spec)
        if self.board is not None:
            self.board.started(spec)
            self.print_cells()
        if self.workers:
            label = escape(spec.label)
            self.progress.update(self.workers[slot], description=f"worker {slot + 1}: {label}")

    def settle(self, completed: int) -> None:
        """Show the final count as the archive has it."""
        if self.total is not None:
            self.progress.update(self.total, completed=completed)

    def finished(self, slot: int, result: GameResult, spend: str = "") -> None:
        if self.watch is not None:
            self.watch.finished(slot, result.run)
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
            description=f"worker {slot + 1}: done {escape(result.spec.label)}{status}",
            completed=self.played[slot],
            total=max(share, self.played[slot]),
        )


class DecisionWatch:
    """The games in flight as the archive has them, read every `every` seconds on a
    thread of its own: their decisions so far (on each worker's line) and the sweep's
    pace (on the line of all games)."""

    def __init__(self, display: SweepProgress, archive: Path, every: float) -> None:
        self.display, self.archive, self.every = display, archive, every
        self.slots: dict[int, GameSpec] = {}
        self.baseline: dict[GameKey, int] = {}
        """Decisions a game in flight had when first read (a resumed game's earlier ones)."""
        self.decisions: dict[GameKey, int] = {}
        self.ended_decisions = 0
        self.began_at = 0.0
        self.began_wall = 0.0
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()

    def start(self, now: float) -> None:
        self.began_at, self.began_wall = now, time.time()
        self.thread = threading.Thread(target=self.loop, name="decision-watch", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join()

    def loop(self) -> None:
        while not self.stopping.wait(self.every):
            try:
                self.poll()
            except Exception:  # an archive being written may be briefly unreadable
                continue

    def started(self, slot: int, spec: GameSpec) -> None:
        with self.lock:
            self.slots[slot] = spec
        if slot < len(self.display.workers):
            self.display.progress.update(self.display.workers[slot], note="")

    def finished(self, slot: int, run: RunRecord) -> None:
        """The game's decisions in this sweep join those played."""
        with self.lock:
            spec = self.slots.pop(slot, None)
            key = spec.key if spec is not None else run_key(run)
            self.ended_decisions += max(0, run.decisions - self.baseline.pop(key, 0))
            self.decisions.pop(key, None)

    def poll(self) -> None:
        """Read the games in flight, then show what they tell."""
        board = self.display.board
        if board is None:
            return
        with Archive(self.archive, read_only=True) as store:
            running = store.runs(experiment=board.experiment, status="running")
        self.read(running)
        self.show()

    def read(self, running: list[RunRecord]) -> None:
        with self.lock:
            playing = {spec.key for spec in self.slots.values()}
            for run in running:
                key = run_key(run)
                if key not in playing:
                    continue  # a game of an earlier sweep, not played now
                if key not in self.baseline:
                    new = run.started_at >= self.began_wall
                    self.baseline[key] = 0 if new else run.decisions
                self.decisions[key] = run.decisions
            board = self.display.board
            if board is not None:
                for cell in board.cells.values():
                    cell.playing_decisions = []
                for spec in self.slots.values():
                    if spec.key in self.decisions:
                        board.cell(spec.cell, spec.env).playing_decisions.append(
                            self.decisions[spec.key]
                        )

    def played(self) -> int:
        """Decisions played in this sweep so far."""
        with self.lock:
            playing = sum(d - self.baseline.get(k, 0) for k, d in self.decisions.items())
            return self.ended_decisions + max(0, playing)

    def pace(self) -> Pace:
        board = self.display.board
        planned = board_pace(board) if board is not None else Pace(None, 0.0)
        elapsed = self.display.clock() - self.began_at
        rate = self.played() / elapsed if elapsed > 0 else 0.0
        return replace(planned, per_second=rate)

    def show(self) -> None:
        display = self.display
        if display.total is not None:
            display.progress.update(display.total, note=pace_text(self.pace()))
        with self.lock:
            notes = {
                slot: f"decision {self.decisions[spec.key]:,} of at most {spec.max_decisions:,}"
                for slot, spec in self.slots.items()
                if spec.key in self.decisions
            }
        for slot, note in notes.items():
            if slot < len(display.workers):
                display.progress.update(display.workers[slot], note=note)
        display.print_cells()


def games_text(cell: CellProgress) -> str:
    return f"{cell.completed}/{cell.total if cell.total is not None else '?'}"


def cost_text(cell: CellProgress, currency: str = "") -> str:
    """`0.0123 USD` (no currency: `0.0123`), or `unpriced (MODEL)`
    (`bounded.analysis.cost.money`); a cell of an unpriced model reads unpriced before its
    first game too."""
    return cell.cost_text(currency)


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
    table = Table(title=escape(f"{board.experiment}: games per cell"), title_justify="left")
    for name in ("cell", "env", "games", "failed", "playing", "prompt", "completion", "cost"):
        table.add_column(name, justify="left" if name in ("cell", "env") else "right")
    for cell in [*board.cells.values(), board.totals()]:
        table.add_row(
            escape(cell.cell), escape(cell.env), games_text(cell), str(cell.failed),
            str(cell.running),
            f"{cell.prompt_tokens:,}", f"{cell.completion_tokens:,}", escape(cost_text(cell)),
            style="bold" if cell.cell == "all" else None,
        )  # fmt: skip
    return table


class CellTable:
    """The board's table as it is at each refresh of the live display."""

    def __init__(self, board: SweepBoard) -> None:
        self.board = board

    def __rich__(self) -> Table:
        return board_table(self.board)


__all__ = ["DecisionWatch", "SweepProgress", "board_table", "cell_lines"]
