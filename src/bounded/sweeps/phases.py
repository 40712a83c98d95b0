"""Learning phases of a sweep: where each stands, how it resumes, how it is frozen.

Learning phases (`[[phases]]`, see `bounded.sweeps.experiment`) are played first, in
order, one game after another in the driver's process, whatever the executor: each game
learns from the store the previous one left. A phase whose games are all completed is
frozen (`bounded.stores.snapshot.freeze_to`) and recorded in the archive as a
`snapshots` row of kind `phase` (`PhaseRecord`: the store's hash, the snapshot's path,
the runs in play order and the frozen files themselves); only then do the cells that read
it play, on the executor's workers, and only if the snapshot still hashes as recorded.

Resume across phases: a recorded phase is never replayed. A phase killed half-way is
**continued** when its store is exactly what its last completed game left (the
directory's hash equals that run's `store_hashes["dir"]`): the completed games are kept
and the rest are played on that store, as an uninterrupted phase would have played them; a
game killed mid-game continues from its checkpoint (`bounded.runner.resume`) when the
store is still what its checkpoint recorded (the first game's too), so a kill costs at
most the decision in flight, as in a cell.
Only when the store differs (a driver killed inside a postrun's write, after the store
changed but before the run was marked completed) can the store before that game not be
recovered, and then the phase is **replayed from a clean store**: its store is cleared
and its runs deleted. A learning game that fails stops its phase (the next games would
learn from a store that missed it); the next sweep replays it on the same store.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from bounded.archive import Archive
from bounded.archive.progress import checkpoints
from bounded.archive.queries import snapshots_of_kind
from bounded.core import ConfigError, RunRecord
from bounded.runner.resume import resumable_games
from bounded.runner.spec import GameSpec, run_key
from bounded.stores.directory import clear_store, has_content
from bounded.stores.snapshot import (
    content_files,
    directory_hash,
    freeze_to,
    manifest_hash,
    remove_snapshot,
)
from bounded.sweeps.stages import PhasePlan, Plan
from bounded.sweeps.store_use import store_use

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
    interrupted: str | None = None
    """The run of the first pending game to continue from its checkpoint (killed mid-game
    on the store it still finds), not replayed."""

    def describe(self, phase: PhasePlan) -> str:
        """One line for a dry run."""
        if self.record is not None:
            return f"phase {self.phase}: frozen {self.record.hash[:16]} at {self.record.snapshot}"
        left = f"{len(self.pending)}/{len(phase.games)} games to play"
        if self.restart:
            how = "replayed from a clean store: it differs from what its last game left"
        elif self.interrupted is not None:
            how = f"continued on its store, game {self.pending[0].seed} from its checkpoint"
        elif len(self.pending) < len(phase.games):
            how = "continued on its store"
        else:
            how = "starts from a clean store"
        return f"phase {self.phase}: {left} ({how}) in {phase.store}, then frozen to {phase.frozen}"


def phase_record(archive: Archive, experiment: str, phase: str) -> PhaseRecord | None:
    """The latest record of a frozen phase, if any."""
    found = None
    for data in snapshots_of_kind(archive, PHASE_KIND):
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
    pending = phase.games[len(kept) :]
    unfinished = [run for run in runs if run.status != "completed"]
    interrupted = resumable_on_store(
        archive, phase.store, pending[:1], unfinished, first=not completed
    )
    consistent = kept and len(kept) == len(completed) and store_is(phase.store, kept[-1])
    if consistent or (not completed and interrupted is not None):
        stale = [run for run in unfinished if interrupted is None or run != interrupted]
        return PhaseResume(
            phase=phase.name,
            pending=pending,
            stale=stale,
            interrupted=interrupted.run_id if interrupted is not None else None,
        )
    return PhaseResume(
        phase=phase.name, pending=phase.games, stale=runs, clear=True, restart=bool(completed)
    )


def resumable_on_store(
    archive: Archive, store: Path, games: list[GameSpec], unfinished: list[RunRecord], first: bool
) -> RunRecord | None:
    """An interrupted run of one of `games` that can continue from its checkpoint on the
    store as it is now: its checkpoint's store hash is the directory's (nothing written
    since), or, for the phase's `first` game, the store does not exist yet (its game
    starts from a clean store; the resume itself checks the hash its contract sees)."""
    resumable, _ = resumable_games(archive, games, unfinished)
    if not resumable:
        return None
    run = resumable[0]
    if not store.is_dir():
        return run if first else None
    point = checkpoints(archive, [run.run_id]).get(run.run_id)
    saved = point.store_hashes.get("dir") if point is not None else None
    return run if saved is not None and saved == directory_hash(store) else None


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


__all__ = [
    "PHASE_KIND",
    "PhaseRecord",
    "PhaseResume",
    "freeze_phase",
    "phase_record",
    "prepare_phase",
    "resume_phase",
    "shared_stores",
    "snapshot_problem",
    "store_problems",
]
