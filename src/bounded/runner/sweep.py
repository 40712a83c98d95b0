"""Sweeps: play every game an experiment plans, exactly once, resumably.

A game is identified by (experiment, cell, seed). Before playing, the driver looks in
the archive: completed games are skipped, and the rows of incomplete ones (a failed
game, or a `running` row of an older version) are deleted and the game is played again.
A sweep holds the experiment's lease on the archive (`bounded.archive.progress`): a
lock file beside the archive keeps two drivers from racing, and a game is written whole,
run row in its final state with its decisions, in one transaction that checks the lease
and that no completed twin exists, so a killed sweep leaves no partial game, its orphans
(if any outlived it) can write nothing once the next sweep has taken the lease over, and
duplicates cannot exist.

Learning phases are played first (`bounded.runner.phases` says how they resume and
freeze); the cells that read a phase's store play after it is frozen.
"""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
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
from bounded.archive.progress import (
    Lease,
    commit_game,
    current_lease,
    lease_holder_line,
    lease_scope,
    release_lease,
    take_lease,
)
from bounded.core import BoundedError, ConfigError, RunRecord
from bounded.runner.executors import Executor, GameResult, make_executor, play_game
from bounded.runner.experiment import (
    Experiment,
    GameSpec,
    Plan,
    stable_key,
)
from bounded.runner.phases import (
    PHASE_KIND,
    PhaseRecord,
    PhaseResume,
    freeze_phase,
    phase_record,
    prepare_phase,
    resume_phase,
    shared_stores,
    snapshot_problem,
    store_problems,
)
from bounded.runner.spec import GameKey, duplicates_of, run_key


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

    @property
    def completed(self) -> int:
        return self.skipped + self.played - len(self.failed)


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
    return duplicates_of(archive.runs(experiment=experiment, status="completed"))


def settings_problems(games: list[GameSpec], plan: Plan | None = None) -> list[str]:
    """Build each distinct environment and contract once; a line per one that fails,
    naming the cell or phase (from `plan`) whose settings it is."""
    from bounded.runner.build import check_spec

    checked: set[str] = set()
    found = []
    for spec in games:
        key = stable_key([spec.env, spec.env_options, spec.contract, spec.contract_config])
        if key in checked:
            continue
        checked.add(key)
        try:
            check_spec(spec)
        except ConfigError as exc:
            entry = plan.entries.get(spec.cell, spec.cell) if plan else spec.cell
            found.append(f"{entry}: {exc}" if entry else str(exc))
    return list(dict.fromkeys(found))  # a cell's games differ in options, not in problems


def check_settings(games: list[GameSpec], plan: Plan | None = None) -> None:
    """Build each distinct environment and contract once, so that a misspelt name or a bad
    option stops the sweep before any game starts (not in a worker, hours later)."""
    problems = settings_problems(games, plan)
    if problems:
        raise ConfigError("; ".join(problems))


def write_result(archive: Archive, result: GameResult, lease: Lease | None = None) -> None:
    """Save a game a worker returned (Ray), whole, under the sweep's lease."""
    commit_game(archive, result.run, result.decisions, lease)


@contextmanager
def experiment_lock(archive_path: Path, experiment: str) -> Iterator[None]:
    """An exclusive lock per (archive, experiment); the OS releases it if the driver dies
    (it is what proves a lease's holder alive)."""
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
                f"{holder_note(archive_path, experiment)}"
            ) from exc
        yield
    finally:
        os.close(fd)


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


class SweepPlan(BaseModel):
    """What a sweep (or its dry run) found before playing: every phase's state, the cell
    games still to play, and the problems that stop it."""

    plan: Plan
    phases: list[PhaseResume] = Field(default_factory=list)
    cells: list[GameSpec] = Field(default_factory=list)
    """Cell games still to play."""
    stale: list[RunRecord] = Field(default_factory=list)
    """Incomplete cell rows to delete first."""
    problems: list[str] = Field(default_factory=list)
    """One line each; any stops the sweep before its first game."""

    @property
    def pending(self) -> list[GameSpec]:
        return [spec for phase in self.phases for spec in phase.pending] + self.cells


def survey(
    experiment: Experiment, archive: Archive, plan: Plan, *, every_game: bool = False
) -> SweepPlan:
    """Read where every phase and cell stands and check every setting and store the games
    to play need (`every_game`: build every game's contract, played or not, as a dry run
    does). Changes nothing."""
    problems = experiment.problems()
    found = SweepPlan(plan=plan, problems=[p.line for p in problems] + shared_stores(plan))
    found.cells, found.stale = pending_games(archive, plan.cells)
    reading = {plan.reads.get(spec.cell) for spec in (plan.cells if every_game else found.cells)}
    for phase in plan.phases:
        try:
            resume = resume_phase(archive, phase)
        except ConfigError as exc:
            found.problems.append(str(exc))
            continue
        found.phases.append(resume)
        if resume.record is not None and phase.name in reading:
            line = snapshot_problem(plan, phase, resume.record)
            found.problems += [line] if line else []
    games = plan.games if every_game else found.pending
    wrong = {p.entry for p in problems}
    checked = [spec for spec in games if plan.entries.get(spec.cell) not in wrong]
    found.problems += settings_problems(checked, plan)
    found.problems += store_problems(plan, plan.cells if every_game else found.cells)
    return found


def dry_run(experiment: Experiment, archive_path: Path | None = None) -> SweepPlan:
    """What `bounded sweep` would do, and what stops it, without playing or changing
    anything (the archive is created if missing)."""
    path = Path(archive_path or experiment.archive)
    plan = experiment.stages(path)
    with Archive(path) as archive:
        return survey(experiment, archive, plan, every_game=True)


def check_plan(experiment: Experiment, plan: Plan) -> None:
    keys = [spec.key for spec in plan.games]
    if len(set(keys)) != len(keys):
        raise ConfigError(f"experiment {experiment.name!r} plans the same (cell, seed) twice")


def run_sweep(
    experiment: Experiment,
    *,
    archive_path: Path | None = None,
    executor: str | Executor = "local",
    workers: int = 1,
    address: str | None = None,
    console: Console | None = None,
) -> SweepSummary:
    """Play the experiment's missing games (its phases first) and return what was done."""
    path = Path(archive_path or experiment.archive)
    plan = experiment.stages(path)
    check_plan(experiment, plan)
    runner = (
        make_executor(executor, archive_path=path, workers=workers, address=address)
        if isinstance(executor, str)
        else executor
    )
    with experiment_lock(path, experiment.name), Archive(path) as archive:
        state = survey(experiment, archive, plan)
        if state.problems:
            raise ConfigError("; ".join(state.problems))
        with sweep_lease(archive, experiment.name) as (lease, stale):
            runner.lease = lease
            sweep = Sweep(archive, path, state, console or Console(stderr=True), runner)
            sweep.lease = lease
            if stale is not None:
                sweep.summary.took_over = lease_holder_line(stale)
            sweep.play()
        duplicates = duplicate_games(archive, experiment.name)
        if duplicates:  # a bug, never a user's mistake: say so loudly
            raise RuntimeError(f"sweep produced duplicate games: {sorted(duplicates)[:5]}")
    return sweep.summary


class Sweep:
    """One sweep's playing: the phases in order in this process, then the cells that can
    play on the executor."""

    def __init__(
        self, archive: Archive, path: Path, state: SweepPlan, console: Console, runner: Executor
    ) -> None:
        self.archive, self.path, self.state, self.runner = archive, path, state, runner
        self.lease: Lease | None = None
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
        self.display = SweepProgress(console, len(plan.games), self.summary.skipped, runner.workers)

    def done(self, slot: int, result: GameResult) -> None:
        if not result.written:
            write_result(self.archive, result, self.lease)
        self.summary.played += 1
        if result.run.status != "completed":
            self.summary.failed.append(f"{result.spec.label}: {result.run.error}")
        self.display.finished(slot, result)

    def play(self) -> None:
        for run in self.state.stale:
            self.archive.delete_run(run.run_id)
        with self.display:
            for resume in self.state.phases:
                self.play_phase(resume)
            self.play_cells()

    def play_phase(self, resume: PhaseResume) -> None:
        """Play a phase's games in order, in this process; freeze it once all completed."""
        phase = self.state.plan.phase(resume.phase)
        if resume.record is None:
            prepare_phase(self.archive, resume, phase)
            for spec in resume.pending:
                self.display.started(0, spec)
                result = play_game(spec, str(self.path), lease=self.lease)
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
        self.runner.execute(ready, self.display.started, self.done)


__all__ = [
    "PHASE_KIND",
    "PhaseRecord",
    "PhaseResume",
    "SweepPlan",
    "SweepSummary",
    "check_settings",
    "dry_run",
    "duplicate_games",
    "experiment_lock",
    "freeze_phase",
    "pending_games",
    "phase_record",
    "resume_phase",
    "run_sweep",
    "survey",
    "write_result",
]
