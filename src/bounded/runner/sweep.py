"""Sweeps: play every game an experiment plans, exactly once, resumably.

A game is identified by (experiment, cell, seed). Before playing, the driver looks in
the archive: completed games are skipped, and the rows of incomplete ones (a game that
was killed or failed) are deleted and the game is played again. A lock file beside
the archive keeps two drivers of the same experiment from racing each other.

Learning phases (`[[phases]]`, see `bounded.runner.experiment`) are played first, in
order, one game after another in the driver's process, whatever the executor: each game
learns from the store the previous one left. A phase whose games are all completed is
frozen (`bounded.stores.snapshot.freeze_to`) and recorded in the archive as a
`snapshots` row of kind `phase` (`PhaseRecord`: the store's hash, the snapshot's path,
the runs in play order and the frozen files themselves); only then do the cells that read
it play, on the executor's workers, and only if the snapshot still hashes as recorded.

Resume across phases: a recorded phase is never replayed. A phase killed half-way is
**continued** when its store is exactly what its last completed game left (the
directory's hash equals that run's `store_hashes["dir"]`): the completed games are kept
and the rest are played on that store, as an uninterrupted phase would have played them.
Only when the store differs (a driver killed inside a postrun's write, after the store
changed but before the run was marked completed) can the store before that game not be
recovered, and then the phase is **replayed from a clean store**: its store is cleared
and its runs deleted. A learning game that fails stops its phase (the next games would
learn from a store that missed it); the next sweep replays it on the same store.
"""

from __future__ import annotations

import fcntl
import json
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
from bounded.runner.executors import Executor, GameResult, make_executor, play_game
from bounded.runner.experiment import (
    Experiment,
    GameSpec,
    PhasePlan,
    Plan,
    stable_key,
    store_use,
)
from bounded.stores.directory import clear_store, has_content
from bounded.stores.snapshot import (
    content_files,
    directory_hash,
    freeze_to,
    manifest_hash,
    remove_snapshot,
)

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
    """Rows deleted before replaying their games: incomplete ones, and the completed games
    of a phase replayed from a clean store."""
    frozen: dict[str, str] = Field(default_factory=dict)
    """Phase -> the hash its store was frozen with (this sweep's and earlier ones')."""
    restarted: list[str] = Field(default_factory=list)
    """Phases replayed from a clean store (their store differed from what their last
    completed game left)."""
    waiting: list[str] = Field(default_factory=list)
    """Cells not played because the phase they read is not frozen yet."""

    @property
    def completed(self) -> int:
        return self.skipped + self.played - len(self.failed)


PHASE_KIND = "phase"
"""The `snapshots.kind` of a frozen phase's record."""


class PhaseRecord(BaseModel):
    """A frozen learning phase, as the archive keeps it (a `snapshots` row of kind
    `phase`)."""

    experiment: str
    phase: str
    hash: str
    """The store's snapshot hash when it was frozen (`directory_hash`)."""
    snapshot: str
    """The frozen copy the cells read."""
    store: str
    """The store the phase's games wrote."""
    runs: list[str]
    """The phase's runs, in play order."""
    seeds: list[int]
    """Their seeds, in play order."""
    files: dict[str, str] = Field(default_factory=dict)
    """The frozen files themselves (name -> text), so that the archive holds the snapshot."""


class PhaseResume(BaseModel):
    """Where a phase stands, and what a sweep does with it."""

    phase: str
    record: PhaseRecord | None = None
    """Set once the phase is frozen: nothing is played again."""
    pending: list[GameSpec] = Field(default_factory=list)
    """Its games still to play, in order."""
    stale: list[RunRecord] = Field(default_factory=list)
    """Its rows to delete first."""
    clear: bool = False
    """Whether its store is cleared first (a start or a replay from a clean store)."""
    restart: bool = False
    """Whether completed games are replayed (the store differed from what they left)."""

    def describe(self, phase: PhasePlan) -> str:
        """One line for a dry run."""
        if self.record is not None:
            return f"phase {self.phase}: frozen {self.record.hash[:16]} at {self.record.snapshot}"
        left = f"{len(self.pending)}/{len(phase.games)} games to play"
        if self.restart:
            how = "replayed from a clean store: it differs from what its last game left"
        elif len(self.pending) < len(phase.games):
            how = "continued on its store"
        else:
            how = "starts from a clean store"
        return f"phase {self.phase}: {left} ({how}) in {phase.store}, then frozen to {phase.frozen}"


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
    return found


def check_settings(games: list[GameSpec], plan: Plan | None = None) -> None:
    """Build each distinct environment and contract once, so that a misspelt name or a bad
    option stops the sweep before any game starts (not in a worker, hours later)."""
    problems = settings_problems(games, plan)
    if problems:
        raise ConfigError("; ".join(problems))


def phase_record(archive: Archive, experiment: str, phase: str) -> PhaseRecord | None:
    """The latest record of a frozen phase, if any."""
    rows = archive.execute(
        "SELECT content FROM snapshots WHERE kind = ? ORDER BY created_at", (PHASE_KIND,)
    )
    found = None
    for row in rows:
        data = json.loads(row["content"])
        if data.get("experiment") == experiment and data.get("phase") == phase:
            found = data
    return PhaseRecord.model_validate(found) if found is not None else None


def resume_phase(archive: Archive, phase: PhasePlan) -> PhaseResume:
    """Where a phase stands: frozen, to continue on its store, or to play from a clean
    store (see the module's docstring). Reads only; `prepare_phase` acts on it."""
    experiment = phase.games[0].experiment if phase.games else ""
    record = phase_record(archive, experiment, phase.name)
    if record is not None:
        return frozen_resume(phase, record)
    runs = [run for run in archive.runs(experiment=experiment) if run.cell == phase.name]
    completed = {run_key(run): run for run in runs if run.status == "completed"}
    kept = []
    for spec in phase.games:
        if spec.key not in completed:
            break
        kept.append(completed[spec.key])
    if not runs and has_content(phase.store):
        raise ConfigError(
            f"phases.{phase.name}.store: {str(phase.store)!r} already holds stores that no "
            "game of this phase wrote (remove it, or give the phase another store)"
        )
    if kept and len(kept) == len(completed) and store_is(phase.store, kept[-1]):
        stale = [run for run in runs if run.status != "completed"]
        return PhaseResume(phase=phase.name, pending=phase.games[len(kept) :], stale=stale)
    return PhaseResume(
        phase=phase.name, pending=phase.games, stale=runs, clear=True, restart=bool(completed)
    )


def frozen_resume(phase: PhasePlan, record: PhaseRecord) -> PhaseResume:
    """A frozen phase: nothing to play, unless its plan has seeds the record lacks."""
    missing = [spec.seed for spec in phase.games if spec.seed not in record.seeds]
    if missing:
        raise ConfigError(
            f"phases.{phase.name}: frozen after seeds {record.seeds}, but it now plans "
            f"{[spec.seed for spec in phase.games]} (name a new phase to learn again)"
        )
    return PhaseResume(phase=phase.name, record=record)


def store_is(store: Path, run: RunRecord) -> bool:
    """Whether a store directory holds exactly what `run` left in it."""
    left = run.store_hashes.get("dir")
    return left is not None and store.is_dir() and directory_hash(store) == left


def prepare_phase(archive: Archive, resume: PhaseResume, phase: PhasePlan) -> None:
    """Clear the store (first: a driver killed between the two steps then finds runs and
    a store that differs, and clears again), then delete the rows to replay."""
    if resume.clear:
        clear_store(phase.store)
    for run in resume.stale:
        archive.delete_run(run.run_id)


def freeze_phase(archive: Archive, phase: PhasePlan) -> PhaseRecord:
    """Freeze a phase's store to its snapshot and record it (the record is the commit
    point: a copy left by a driver killed before it is made again)."""
    remove_snapshot(phase.frozen)
    digest = freeze_to(phase.store, phase.frozen)
    experiment = phase.games[0].experiment if phase.games else ""
    runs = {run_key(r): r for r in archive.runs(experiment=experiment, status="completed")}
    played = [runs[spec.key] for spec in phase.games]
    files = content_files(phase.frozen)
    record = PhaseRecord(
        experiment=experiment,
        phase=phase.name,
        hash=digest,
        snapshot=str(phase.frozen),
        store=str(phase.store),
        runs=[run.run_id for run in played],
        seeds=[run.seed for run in played],
        files={name: data.decode() for name, data in files.items()},
    )
    archive.put_snapshot(PHASE_KIND, record.model_dump(mode="json"))
    return record


def snapshot_problem(plan: Plan, phase: PhasePlan, record: PhaseRecord) -> str | None:
    """A line when a frozen phase's snapshot is missing or no longer hashes as recorded."""
    readers = sorted({plan.entries.get(spec.cell, spec.cell) for spec in plan.readers(phase.name)})
    who = ", ".join(readers) or f"phases.{phase.name}"
    if not phase.frozen.is_dir():
        return (
            f"{who}: the snapshot of phase {phase.name!r} is missing: {str(phase.frozen)!r} "
            f"(recorded hash {record.hash})"
        )
    actual, manifest = directory_hash(phase.frozen), manifest_hash(phase.frozen)
    if actual != record.hash:
        return (
            f"{who}: the snapshot {str(phase.frozen)!r} of phase {phase.name!r} hashes to "
            f"{actual}, but the phase recorded {record.hash}: refusing to read it"
        )
    if manifest != record.hash:
        return (
            f"{who}: the manifest of snapshot {str(phase.frozen)!r} says {manifest}, but "
            f"phase {phase.name!r} recorded {record.hash}: refusing to read it"
        )
    return None


def store_problems(plan: Plan, cells: list[GameSpec]) -> list[str]:
    """Stores the cells name themselves (`contract_config.store_dir`, no phase): frozen
    layers need one that exists, and a snapshot must hash as its manifest says."""
    found, seen = [], set()
    for spec in cells:
        store = spec.contract_config.get("store_dir")
        if store is None or spec.cell in plan.reads or (spec.cell, store) in seen:
            continue
        seen.add((spec.cell, store))
        use = store_use(spec.model_dump())
        entry = plan.entries.get(spec.cell, spec.cell)
        path = Path(str(store))
        if not path.is_dir():
            if use is not None and use.frozen:
                found.append(f"{entry}.contract_config.store_dir: {str(path)!r} does not exist")
            continue
        recorded = manifest_hash(path)
        if recorded is not None and directory_hash(path) != recorded:
            found.append(
                f"{entry}.contract_config.store_dir: snapshot {str(path)!r} hashes to "
                f"{directory_hash(path)}, its manifest says {recorded}"
            )
    return found


def shared_stores(plan: Plan) -> list[str]:
    """A line per phase whose store is another phase's."""
    owner: dict[Path, str] = {}
    found = []
    for phase in plan.phases:
        first = owner.setdefault(phase.store, phase.name)
        if first != phase.name:
            found.append(f"phases.{phase.name}.store: {str(phase.store)!r} is phase {first!r}'s")
    return found


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
        sweep = Sweep(archive, path, state, console or Console(stderr=True), runner)
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
            write_result(self.archive, result)
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
                result = play_game(spec, str(self.path))
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
