"""Sweeps: play every game an experiment plans, exactly once, resumably.

A game is found by (experiment, cell, seed) and is the same game only if its whole spec
is (`bounded.runner.identity`). Before playing, the driver checks every planned game's
settings, played or not, and compares each completed game with the file: a cell whose
games were played under other settings refuses the sweep before any game, one line per
cell (`SweepRefused`); a refused sweep, like a dry run, writes nothing (no archive, no
lock file). Completed games are skipped; an interrupted game of the same spec (its
process killed, or stopped by a signal) continues from its last decision
(`bounded.runner.resume.resumable_games`); the rows of other incomplete games (a failed
game, a `running` row of an older version) are deleted and the game is played again.
A sweep holds the experiment's lease on the archive (`bounded.archive.progress`): a lock
file beside the archive (removed when the sweep ends) keeps two drivers from racing, and
a local worker writes its game as `bounded run` does, each decision with its run row and
a checkpoint, in transactions that each check the lease
(`bounded.archive.sink.ArchiveSink`), its end refusing a second completed copy: a killed
sweep loses at most the decision in flight of each game, its orphans (if any outlived
it) can write nothing once the next sweep has taken the lease over, and duplicates
cannot exist. Ray workers stream the same rows to the driver's node, written there under
the same checks (`bounded.sweeps.ray_stream`).
With `budget`, games start only while the spend stays within it
(`bounded.sweeps.estimate`).

Learning phases are played first (`bounded.sweeps.phases` says how they resume and
freeze); the cells that read a phase's store play after it is frozen.
"""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from pydantic import BaseModel, Field

from bounded.archive import Archive
from bounded.archive.progress import (
    Lease,
    current_lease,
    lease_holder_line,
    lease_scope,
    release_lease,
    take_lease,
)
from bounded.archive.sqlite import ArchiveError
from bounded.core import BoundedError, ConfigError, Interrupted
from bounded.runner.spec import GameSpec, run_key
from bounded.sweeps.board import SweepBoard, seeded, store_plan
from bounded.sweeps.concurrency import check_concurrency, concurrent_executor
from bounded.sweeps.estimate import (
    Budget,
    SweepPrices,
    check_budget,
)
from bounded.sweeps.executors import Executor, GameResult, make_executor, play_in_archive
from bounded.sweeps.experiment import Experiment
from bounded.sweeps.phases import (
    PHASE_KIND,
    PhaseRecord,
    PhaseResume,
    freeze_phase,
    phase_record,
    prepare_phase,
    resume_phase,
)
from bounded.sweeps.preflight import preflight
from bounded.sweeps.stages import Plan
from bounded.sweeps.survey import (
    SweepPlan,
    dry_run,
    duplicate_games,
    estimate,
    pending_games,
    survey,
    surveyed,
)

MAX_FAILURES = 5
"""Games failed in a row after which a sweep starts no more (`--max-failures`)."""


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
    """Rows deleted before replaying their games: incomplete ones, and the completed games
    of a phase replayed from a clean store."""
    frozen: dict[str, str] = Field(default_factory=dict)
    """Phase -> the hash its store was frozen with (this sweep's and earlier ones')."""
    restarted: list[str] = Field(default_factory=list)
    """Phases replayed from a clean store (their store differed from what their last
    completed game left)."""
    waiting: list[str] = Field(default_factory=list)
    """Cells not played because the phase they read is not frozen yet."""
    took_over: str = ""
    """The stale lease this sweep took over (a killed sweep's), as `pid N (dead) since T`."""
    resumed: int = 0
    """Games played now that continued an interrupted run from its last decision."""
    spent: float = 0.0
    """What the games played now cost at the sweep's prices (unpriced models left out)."""
    unpriced: list[str] = Field(default_factory=list)
    """Models of games played now that have no price."""
    budget: float | None = None
    """The `--budget` the sweep ran under."""
    not_started: int = 0
    """Games the budget (or `stopped`) did not let start (the next sweep plays them)."""
    budget_note: str = ""
    """Why the budget stopped the sweep, when the estimate of the games in flight did."""
    stopped: str = ""
    """Why the sweep stopped starting games after too many failed in a row ("" if not)."""

    @property
    def completed(self) -> int:
        return self.skipped + self.played - len(self.failed)


@contextmanager
def experiment_lock(archive_path: Path, experiment: str) -> Iterator[None]:
    """An exclusive lock per (archive, experiment); the OS releases it if the driver dies
    (it is what proves a lease's holder alive). Its file is removed when the lock is
    released; a driver that locked a file just removed locks the new one instead."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", experiment)
    lock_path = archive_path.with_name(f"{archive_path.name}.{safe}.lock")
    fd = locked_file(lock_path, archive_path, experiment)
    try:
        yield
    finally:
        with suppress(FileNotFoundError):
            lock_path.unlink()  # still held: no other driver holds this file
        os.close(fd)


def locked_file(lock_path: Path, archive_path: Path, experiment: str) -> int:
    """The open, exclusively locked lock file (the one at `lock_path` now)."""
    while True:
        fd = open_lock_file(lock_path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(fd)
            raise ConfigError(
                f"another sweep of experiment {experiment!r} is running on {archive_path}"
                f"{holder_note(archive_path, experiment)}"
            ) from exc
        try:
            if os.stat(lock_path).st_ino == os.fstat(fd).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)  # its holder removed it as we opened it: lock the file there now


def open_lock_file(lock_path: Path) -> int:
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except FileExistsError as exc:  # mkdir met a file where a directory should be
        raise ArchiveError(
            f"cannot write the archive's lock file {lock_path}: {lock_path.parent} is not a "
            "directory"
        ) from exc
    except OSError as exc:
        raise ArchiveError(
            f"cannot write the archive's lock file {lock_path}: {exc.strerror or exc}"
        ) from exc


def holder_note(archive_path: Path, experiment: str) -> str:
    """` (lease held by pid N (alive) since ...)`, read without writing; "" when unknown."""
    try:
        with Archive(archive_path, read_only=True) as archive:
            lease = current_lease(archive, lease_scope(experiment))
    except BoundedError:
        return ""
    return f" (lease held by {lease_holder_line(lease)})" if lease else ""


@contextmanager
def sweep_lease(archive: Archive, experiment: str) -> Iterator[tuple[Lease, Lease | None]]:
    """The experiment's lease, taken (over a dead holder's, if one was left) and released;
    the caller holds `experiment_lock`."""
    lease, stale = take_lease(archive, lease_scope(experiment))
    try:
        yield lease, stale
    finally:
        with suppress(BoundedError):
            release_lease(archive, lease)


class SweepEvents:
    """What a sweep tells as it plays, for a display (`bounded sweep`'s progress bars);
    this base hears everything and shows nothing."""

    def planned(self, board: SweepBoard) -> None:
        """Before `begin`: every cell's games planned and those already completed, with
        their tokens and cost (`bounded.sweeps.board`); the display may keep and update it."""

    def begin(self, planned: int, skipped: int, workers: int) -> None:
        """Before the first game: games planned, already completed, and workers."""

    def started(self, slot: int, spec: GameSpec) -> None:
        """A game started on worker `slot`."""

    def finished(self, slot: int, result: GameResult, spend: str = "") -> None:
        """A game ended on worker `slot`; `spend` is the budget's line (empty: none)."""

    def settle(self, completed: int) -> None:
        """The planned games completed in the archive, as the sweep ends."""

    def end(self) -> None:
        """After the last game, however the sweep ended."""


def check_plan(experiment: Experiment, plan: Plan) -> None:
    keys = [spec.key for spec in plan.games]
    if len(set(keys)) != len(keys):
        raise ConfigError(f"experiment {experiment.name!r} plans the same (cell, seed) twice")


class SweepInterrupted(Interrupted, KeyboardInterrupt):
    """A sweep stopped by a signal: what it kept (every completed game stays archived). A
    KeyboardInterrupt still, for Python callers."""

    def __init__(self, reason: str, completed: int, planned: int, archive: Path) -> None:
        super().__init__(
            f"{reason}: {completed}/{planned} games completed and kept in {archive}; the "
            "games in flight continue from their last decision in the next sweep"
        )
        self.completed, self.planned = completed, planned


class SweepRefused(ConfigError):
    """A sweep stopped before its first game; `problems` holds one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def refuse(state: SweepPlan) -> None:
    """Stop before any game when the survey found problems."""
    if state.problems:
        raise SweepRefused(state.problems)


def refuse_unreachable(games: list[GameSpec]) -> None:
    """Stop before any game when a model cannot be built or an endpoint not reached."""
    problems = preflight(games).problems
    if problems:
        raise SweepRefused(problems)


def run_sweep(
    experiment: Experiment,
    *,
    archive_path: Path | None = None,
    plan: Plan | None = None,
    executor: str | Executor = "local",
    workers: int = 1,
    address: str | None = None,
    events: SweepEvents | None = None,
    budget: float | None = None,
    prices: list[str] | None = None,
    concurrency: int | None = None,
    only: Callable[[GameSpec], bool] | None = None,
    max_failures: int | None = None,
) -> SweepSummary:
    """Play the experiment's missing games (its phases first) and return what was done.
    `plan`: the experiment's plan as the command built it (`Experiment.stages` of the
    archive's path; default: built here); with `budget`, start games only while the spend
    stays within it (`bounded.sweeps.estimate`; `prices`: `--price` specs over the file's
    `[prices]`); `concurrency` (default: the file's, else 1) games in flight per worker,
    for remote models (`bounded.sweeps.concurrency`); `only` plays only the cell games it
    accepts, every planned game still checked (a sweep stopped when decided plays its
    blocks so, `bounded.sweeps.sequential`); `events` hears each game start and end (a
    display); games stop starting once `max_failures` (default `MAX_FAILURES`; 0: never)
    have failed in a row. Before any game every model is built and every endpoint reached
    once (`bounded.sweeps.preflight`)."""
    path = Path(archive_path or experiment.archive)
    plan = plan if plan is not None else experiment.stages(path)
    check_plan(experiment, plan)
    costs = SweepPrices.of(experiment.spec.prices, prices or [], experiment.spec.currency)
    check_budget(budget, costs, game_models(plan.games))
    games_at_once = concurrency if concurrency is not None else experiment.concurrency
    check_concurrency(games_at_once, game_models(plan.games))
    if not isinstance(executor, str):
        runner = executor
    elif games_at_once > 1:
        runner = concurrent_executor(
            executor, archive_path=str(path), workers=workers, concurrency=games_at_once,
            address=address,
        )  # fmt: skip
    else:
        runner = make_executor(executor, archive_path=path, workers=workers, address=address)
    with surveyed(path) as archive:  # a refused file leaves nothing behind
        first = survey(experiment, archive, plan)
        refuse(first)
        refuse_unreachable(first.pending)
    with experiment_lock(path, experiment.name), Archive(path) as archive:
        # Again, under the lock, so that it is current (the models were checked above).
        state = survey(experiment, archive, plan, models=False)
        refuse(state)
        if only is not None:
            state.cells = [spec for spec in state.cells if only(spec)]
        per_game = {}
        if budget is not None:
            per_game = {e.cell: e.per_game for e in estimate(state, archive) if e.error is None}
        with sweep_lease(archive, experiment.name) as (lease, stale):
            runner.archive_path, runner.lease = str(path), lease
            limit = Budget(budget, costs, per_game)
            failures = MAX_FAILURES if max_failures is None else max_failures
            sweep = Sweep(archive, path, state, events or SweepEvents(), runner, limit, failures)
            sweep.lease = lease
            if stale is not None:
                sweep.summary.took_over = lease_holder_line(stale)
            try:
                sweep.play()
            except KeyboardInterrupt as exc:
                done, reason = sweep.completed_now(), str(exc) or "interrupted"
                raise SweepInterrupted(reason, done, len(plan.games), path) from None
        duplicates = duplicate_games(archive, experiment.name)
        if duplicates:  # a bug, never a user's mistake: say so loudly
            raise RuntimeError(f"sweep produced duplicate games: {sorted(duplicates)[:5]}")
    return sweep.summary


def game_models(games: list[GameSpec]) -> list[str]:
    """Every model spec the games name (tiers included)."""
    return sorted({m for spec in games for m in (spec.model, *spec.models.values())})


class Sweep:
    """One sweep's playing: the phases in order in this process, then the cells that can
    play on the executor."""

    def __init__(
        self,
        archive: Archive,
        path: Path,
        state: SweepPlan,
        events: SweepEvents,
        runner: Executor,
        budget: Budget | None = None,
        max_failures: int | None = MAX_FAILURES,
    ) -> None:
        self.archive, self.path, self.state, self.runner = archive, path, state, runner
        self.lease: Lease | None = None
        self.budget = budget or Budget(None, SweepPrices(), {})
        self.max_failures = max_failures
        self.failed_in_row = 0
        runner.gate = self.may_start
        plan = state.plan
        pending = state.pending
        self.summary = SweepSummary(
            experiment=plan.games[0].experiment if plan.games else "",
            archive=str(path),
            planned=len(plan.games),
            skipped=len(plan.games) - len(pending),
            removed=len(state.stale) + sum(len(phase.stale) for phase in state.phases),
            restarted=[phase.phase for phase in state.phases if phase.restart],
        )
        self.summary.budget = self.budget.limit
        self.events = events

    def started(self, slot: int, spec: GameSpec) -> None:
        self.budget.started(slot, spec)
        self.events.started(slot, spec)

    def may_start(self, spec: GameSpec) -> bool:
        return not self.summary.stopped and self.budget.may_start(spec)

    def done(self, slot: int, result: GameResult) -> None:
        self.summary.played += 1
        self.summary.resumed += result.resumed
        if result.run.status != "completed":
            self.summary.failed.append(f"{result.spec.label}: {result.run.error}")
            self.count_failure(result)
        else:
            self.failed_in_row = 0
        self.budget.finished(slot, result.run)
        self.summary.spent, self.summary.unpriced = self.budget.spent, self.budget.unpriced
        self.events.finished(slot, result, self.budget.line())

    def count_failure(self, result: GameResult) -> None:
        """Stop starting games once `max_failures` have failed in a row."""
        self.failed_in_row += 1
        limit = self.max_failures
        if limit and self.failed_in_row >= limit and not self.summary.stopped:
            self.summary.stopped = (
                f"stopped after {self.failed_in_row} failed games in a row (the last, "
                f"{result.spec.label}: {result.run.error})"
            )

    def play(self) -> None:
        self.runner.resumes = {run_key(run): run.run_id for run in self.state.resumable}
        for run in self.state.stale:
            self.archive.delete_run(run.run_id)
        self.events.planned(self.board())
        self.events.begin(self.summary.planned, self.summary.skipped, self.runner.workers)
        try:
            for resume in self.state.phases:
                self.play_phase(resume)
            self.play_cells()
        finally:  # the archive's count: games written by workers whose end went unseen
            self.events.settle(self.completed_now())
            self.events.end()
            if self.budget.refused or self.summary.stopped:
                self.summary.not_started = len(self.state.pending) - self.summary.played
            self.summary.budget_note = self.budget.stop_reason

    def board(self) -> SweepBoard:
        """The plan's cells as the archive has them now, stored for `bounded view`."""
        games = self.state.plan.games
        board = SweepBoard.planned(games, self.budget.prices)
        runs = self.archive.runs(experiment=self.summary.experiment, status="completed")
        seeded(board, runs, {spec.key for spec in games})
        store_plan(self.archive, board)
        return board

    def completed_now(self) -> int:
        """Planned games completed in the archive now."""
        planned = {spec.key for spec in self.state.plan.games}
        runs = self.archive.runs(experiment=self.summary.experiment, status="completed")
        return len(planned & {run_key(run) for run in runs})

    def play_phase(self, resume: PhaseResume) -> None:
        """Play a phase's games in order, in this process; freeze it once all completed."""
        phase = self.state.plan.phase(resume.phase)
        if resume.record is None:
            prepare_phase(self.archive, resume, phase)
            for spec in resume.pending:
                if not self.may_start(spec):
                    return
                self.started(0, spec)
                resumed = resume.interrupted if spec == resume.pending[0] else None
                result = play_in_archive(spec, str(self.path), self.lease, resumed)
                self.done(0, result)
                if result.run.status != "completed":
                    return  # the next games would learn from a store that missed this one
            resume.record = freeze_phase(self.archive, phase)
        self.summary.frozen[phase.name] = resume.record.hash

    def play_cells(self) -> None:
        """Play the cells whose phase (if any) is frozen; the others wait for a later sweep."""
        plan, frozen = self.state.plan, self.summary.frozen
        ready = [s for s in self.state.cells if plan.reads.get(s.cell, "") in ("", *frozen)]
        waiting = [s for s in self.state.cells if s not in ready]
        self.summary.waiting = sorted({spec.cell for spec in waiting})
        if self.budget.refused or self.summary.stopped:  # a phase stopped: nothing else starts
            return
        self.runner.execute(ready, self.started, self.done)


__all__ = [
    "MAX_FAILURES",
    "PHASE_KIND",
    "PhaseRecord",
    "PhaseResume",
    "SweepEvents",
    "SweepInterrupted",
    "SweepPlan",
    "SweepRefused",
    "SweepSummary",
    "dry_run",
    "duplicate_games",
    "experiment_lock",
    "freeze_phase",
    "pending_games",
    "phase_record",
    "resume_phase",
    "run_sweep",
    "survey",
]
