"""Killed runs: which are stale, which can be resumed, resuming them, closing the rest.

A run played into an archive keeps a checkpoint (`bounded.archive.progress`) naming its
owner process. A run still `running` whose owner is gone is **stale**. It is
**resumable** when its checkpoint holds the contract's memory (every built-in contract
saves one) and its game spec: `resume_run` rebuilds the game from the spec, replays the
recorded actions from the seed (checking that the environment shows each recorded
decision what it showed then), restores the contract's memory and the runner's
counters, and plays on under the same run id. With a deterministic model (the scripted
ones, the embedded model at temperature 0) the resumed run is identical, decision for
decision, to one never killed. `close_stale` marks stale runs `failed` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from bounded.archive import Archive
from bounded.archive.progress import (
    Checkpoint,
    Lease,
    checkpoints,
    owner_alive,
    owner_pid,
    this_owner,
    write_checkpoint,
)
from bounded.archive.sink import ArchiveSink
from bounded.archive.totals import list_unchecked
from bounded.core import ConfigError, RunRecord
from bounded.protocols import Model
from bounded.runner.identity import differences
from bounded.runner.resumption import ResumeError, Resumption
from bounded.runner.spec import GameKey, GameSpec, run_key


@dataclass
class RunHealth:
    """What a run's row and checkpoint say about it."""

    run: RunRecord
    checkpoint: Checkpoint | None
    stale: bool
    """`running`, and no live process owns it."""
    blocker: str | None
    """Why it cannot be resumed; None when it can."""

    @property
    def resumable(self) -> bool:
        return self.blocker is None

    @property
    def label(self) -> str:
        """The status as `bounded runs` shows it."""
        if not self.stale:
            return self.run.status
        return "stale (resumable)" if self.resumable else "stale"


def blocker(run: RunRecord, point: Checkpoint | None) -> str | None:
    """Why a run cannot be resumed, or None."""
    if run.status == "completed":
        return "it is completed"
    if point is None:
        return "no checkpoint (a run of an older bounded, or one not written as it went)"
    if not run.spec:
        return "no game spec recorded"
    if point.decisions and point.memory is None:
        return f"contract {run.contract!r} saves no memory snapshot"
    return None


def is_stale(run: RunRecord, point: Checkpoint | None) -> bool:
    """`running` with no live owner (a run with no checkpoint has no owner on record; one
    owned on another host is never called stale from here)."""
    if run.status != "running":
        return False
    return point is None or owner_alive(point.owner) is False


def health(archive: Archive, runs: list[RunRecord]) -> list[RunHealth]:
    points = checkpoints(archive, [r.run_id for r in runs if r.status != "completed"])
    found = []
    for run in runs:
        point = points.get(run.run_id)
        found.append(RunHealth(run, point, is_stale(run, point), blocker(run, point)))
    return found


def find_run(archive: Archive, run_id: str) -> RunRecord:
    """The run with this id, or the one whose id starts with it."""
    run = archive.run(run_id)
    if run is not None:
        return run
    matches = [r for r in archive.runs() if r.run_id.startswith(run_id)] if run_id else []
    if len(matches) == 1:
        return matches[0]
    what = "no run" if not matches else f"{len(matches)} runs"
    raise ConfigError(f"{what} with id {run_id!r} in {archive.path}")


def claim(
    archive: Archive, run_id: str, lease: Lease | None = None, *, owner_lost: bool = False
) -> Resumption:
    """The run to resume, made ours (its checkpoint names this process) in one transaction
    under a sweep's `lease`, so that two resumes of one run cannot both play it.
    `owner_lost`: the caller knows the run's owner is gone (a Ray worker that Ray reported
    dead, whose pid cannot be checked from here)."""
    run = find_run(archive, run_id)
    if run.status not in ("running", "failed"):
        raise ResumeError(f"run {run.run_id[:12]} cannot be resumed: it is {run.status}")
    point = checkpoints(archive, [run.run_id]).get(run.run_id)
    reason = blocker(run, point)
    if reason is not None or point is None:
        raise ResumeError(f"run {run.run_id[:12]} cannot be resumed: {reason}")
    if run.status == "running" and not owner_lost and owner_alive(point.owner) is not False:
        where = f"pid {owner_pid(point.owner)}" + (
            "" if owner_alive(point.owner) else " on another host"
        )
        raise ResumeError(f"run {run.run_id[:12]} is still being played ({where})")
    decisions = archive.decisions(run.run_id)
    if len(decisions) != point.decisions:
        raise ResumeError(
            f"run {run.run_id[:12]} has {len(decisions)} decisions, its checkpoint "
            f"{point.decisions}"
        )
    with ArchiveSink(archive, lease).transaction() as db:
        mine = Checkpoint(**{**point.__dict__, "owner": this_owner()})
        write_checkpoint(db, mine)
        list_unchecked(db, run.run_id)  # a failed run's checkpoint taken again
    return Resumption(run=run, decisions=decisions, checkpoint=mine)


def resume_run(archive_path: str | Path, run_id: str, *, model: Model | None = None) -> RunRecord:
    """Continue a killed (or failed) run from its last recorded decision."""
    from bounded.runner.build import build_game, run_game

    with Archive(archive_path) as archive:
        resumption = claim(archive, run_id)
        spec = GameSpec.model_validate(resumption.run.spec)
        return run_game(build_game(spec, model=model), archive=archive, resume=resumption)


def resumable_games(
    archive: Archive,
    plan: list[GameSpec],
    stale: list[RunRecord],
    inputs_of: Callable[[GameSpec], Mapping[str, str] | None] | None = None,
) -> tuple[list[RunRecord], list[RunRecord]]:
    """Of the incomplete rows of planned games, those to continue from their checkpoint
    (an interrupted game of the same spec, and of the same inputs where `inputs_of` gives
    the planned game's: `running` with its process gone, or failed by a signal; one per
    game, the furthest) and those to delete and replay."""
    specs = {spec.key: spec for spec in plan}
    best: dict[GameKey, RunRecord] = {}
    for found in health(archive, stale):
        run = found.run
        interrupted = found.stale or (
            run.status == "failed" and (run.error or "").startswith("KeyboardInterrupt")
        )
        spec = specs.get(run_key(run))
        if not interrupted or not found.resumable or spec is None or not same_spec(run, spec):
            continue
        if inputs_of is not None and differences(spec, inputs_of(spec), run, stores=False):
            continue
        held = best.get(run_key(run))
        if held is None or run.decisions > held.decisions:
            best[run_key(run)] = run
    keep = {run.run_id for run in best.values()}
    return list(best.values()), [run for run in stale if run.run_id not in keep]


def same_spec(run: RunRecord, spec: GameSpec | None) -> bool:
    if spec is None or not run.spec:
        return False
    try:
        return GameSpec.model_validate(run.spec) == spec
    except ValueError:
        return False


def close_stale(archive: Archive, *, resumable_too: bool = False) -> list[RunHealth]:
    """Mark stale runs `failed` with the reason (resumable ones only when asked); returns
    those closed."""
    closed = []
    for found in health(archive, archive.runs(status="running")):
        if not found.stale or (found.resumable and not resumable_too):
            continue
        run, point = found.run, found.checkpoint
        owner = f"its process (pid {owner_pid(point.owner)}) is gone" if point else "no owner"
        why = found.blocker or "closed though resumable (bounded runs --close-stale --resumable)"
        error = f"stale: {owner} after {run.decisions} decisions; {why}"
        ArchiveSink(archive).end(run.model_copy(update={"status": "failed", "error": error}))
        closed.append(found)
    return closed


__all__ = [
    "ResumeError",
    "RunHealth",
    "blocker",
    "claim",
    "close_stale",
    "find_run",
    "health",
    "is_stale",
    "resumable_games",
    "resume_run",
    "same_spec",
]
