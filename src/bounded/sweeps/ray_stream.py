"""Ray games written as they are played: workers stream each decision to the driver's node.

A Ray worker may run on a machine without the archive, so it writes nothing itself: its
`StreamSink` sends each of a game's rows (start, each decision with its checkpoint, end)
to one `ArchiveWriter` actor pinned to the driver's node, and waits for the commit, as a
local worker waits for SQLite. The writer owns the archive and applies the calls in
order through an `ArchiveSink` under the sweep's lease, so a Ray game is written exactly
as a local one: a worker lost mid-game leaves its game checkpointed at its last decision,
and the driver plays it on from there on another worker (`bounded.sweeps.executors`).

The writer also knows which worker plays which run: a run's rows are accepted only from
the worker that started (or resumed) it, so once the driver has declared a worker lost
(`lost`), nothing it may still send is written.
"""

from __future__ import annotations

from typing import Any

from bounded.archive import Archive
from bounded.archive.progress import Checkpoint, Lease, LeaseLost
from bounded.archive.sink import ArchiveSink
from bounded.core import BoundedError, DecisionRecord, RunRecord
from bounded.runner.resumption import Resumption
from bounded.runner.spec import GameKey, run_key


class ArchiveWriter:
    """The driver-side end of the stream (a Ray actor): the archive's only writer for Ray
    games."""

    def __init__(self, archive_path: str, lease: Lease | None) -> None:
        self.archive = Archive(archive_path)
        self.sink = ArchiveSink(self.archive, lease)
        self.lease = lease
        self.players: dict[str, str] = {}
        """Run id -> the owner (`host:pid:start`) of the worker playing it now."""
        self.runs: dict[GameKey, str] = {}
        """Game -> the run it is played under."""
        self.ended: dict[GameKey, RunRecord] = {}
        """Game -> its final row, once written."""

    def start(self, run: RunRecord, point: Checkpoint) -> None:
        self.sink.start(run, point)
        self.players[run.run_id] = point.owner
        self.runs[run_key(run)] = run.run_id

    def decision(self, record: DecisionRecord, run: RunRecord, point: Checkpoint) -> None:
        self._check_player(run.run_id, point.owner)
        self.sink.decision(record, run, point)

    def end(self, run: RunRecord, owner: str) -> RunRecord:
        self._check_player(run.run_id, owner)
        ended = self.sink.end(run)
        del self.players[run.run_id]
        self.ended[run_key(ended)] = ended
        return ended

    def claim(self, run_id: str) -> Resumption:
        """Make an interrupted run resumable by the worker asking (its start then names
        it the player); the driver only asks for runs whose player is gone."""
        from bounded.runner.resume import claim

        self.players.pop(run_id, None)
        return claim(self.archive, run_id, self.lease, owner_lost=True)

    def lost(self, key: GameKey) -> tuple[str | None, RunRecord | None]:
        """The driver saw the worker playing this game die: refuse anything more from it,
        and say which run to resume (None: it had not started one), or the game's final
        row when the worker died after writing it."""
        run_id = self.runs.get(key)
        if run_id is not None:
            self.players.pop(run_id, None)
        ended = self.ended.get(key)
        return run_id, ended if ended is not None and ended.run_id == run_id else None

    def _check_player(self, run_id: str, owner: str) -> None:
        player = self.players.get(run_id)
        if player != owner:
            raise LeaseLost(f"run {run_id[:12]} is no longer played by this worker")


class StreamSink:
    """A `GameSink` that hands each row to the driver's `ArchiveWriter` and waits for its
    commit (a refusal there, such as `LeaseLost`, is raised here)."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self.owner = ""

    def start(self, run: RunRecord, point: Checkpoint) -> None:
        self.owner = point.owner
        self._call(self.writer.start, run, point)

    def decision(self, record: DecisionRecord, run: RunRecord, point: Checkpoint) -> None:
        self._call(self.writer.decision, record, run, point)

    def end(self, run: RunRecord) -> RunRecord:
        ended: RunRecord = self._call(self.writer.end, run, self.owner)
        return ended

    def claim(self, run_id: str) -> Resumption:
        resumption: Resumption = self._call(self.writer.claim, run_id)
        return resumption

    @staticmethod
    def _call(method: Any, *args: Any) -> Any:
        import ray

        try:
            return ray.get(method.remote(*args))
        except ray.exceptions.RayTaskError as exc:  # the writer's own refusal, as it was
            cause = getattr(exc, "cause", None)
            if isinstance(cause, BoundedError):
                raise cause from None
            raise


__all__ = ["ArchiveWriter", "StreamSink"]
