"""Where a game's rows go as it is played: the one persistence path of runs, sweeps and Ray.

An `EpisodeRunner` tells a `GameSink` three things: the run starts (its row and the
checkpoint it starts from), each decision is made (the decision, the run row that counts
it and the checkpoint after it), the run ends (its final row). `ArchiveSink` writes each in
one SQLite transaction that first checks a sweep's lease when it has one, so a kill leaves
a decision with its row and checkpoint or none of them, and a worker whose sweep lost the
lease writes nothing more; its end never completes a game (experiment, cell, seed) twice.
A Ray worker's sink forwards the same three calls to the driver's `ArchiveSink`
(`bounded.sweeps.ray_stream`), so every game is written the same way wherever it plays.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from bounded.archive.progress import (
    Checkpoint,
    Lease,
    check_lease,
    check_no_twin,
    delete_checkpoint,
    write_checkpoint,
)
from bounded.archive.sqlite import Archive
from bounded.archive.totals import recounted, stored_decisions
from bounded.core import DecisionRecord, RunRecord


class GameSink(Protocol):
    """Receives a game's rows as they are made, in order."""

    def start(self, run: RunRecord, point: Checkpoint) -> None:
        """The run row as it starts, with the checkpoint it starts from (owner set)."""

    def decision(self, record: DecisionRecord, run: RunRecord, point: Checkpoint) -> None:
        """One decision, the run row that counts it and the checkpoint after it."""

    def end(self, run: RunRecord) -> RunRecord:
        """The run's final row; returns it as written."""
        ...


class ArchiveSink:
    """Writes a game into an archive, each call in one transaction checking `lease`."""

    def __init__(self, archive: Archive, lease: Lease | None = None) -> None:
        self.archive, self.lease = archive, lease

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """The archive's write transaction, refused (`LeaseLost`) once the lease is not
        current."""
        with self.archive.transaction() as db:
            if self.lease is not None:
                check_lease(db, self.lease)
            yield db

    def start(self, run: RunRecord, point: Checkpoint) -> None:
        with self.transaction() as db:
            Archive.write_run(db, run)
            write_checkpoint(db, point)

    def decision(self, record: DecisionRecord, run: RunRecord, point: Checkpoint) -> None:
        with self.transaction() as db:
            self.archive.write_decision(db, record)
            Archive.write_run(db, run)
            write_checkpoint(db, point)

    def end(self, run: RunRecord) -> RunRecord:
        """A completed run's checkpoint goes with it (`DuplicateGame` for a second
        completed copy of a sweep's game); a run closed any other way (a signal, an error,
        closed as stale) counts what is stored, since its last decision may have been rolled
        back after the runner counted it."""
        with self.transaction() as db:
            if run.status != "completed":
                run = recounted(run, stored_decisions(db, run.run_id))
            check_no_twin(db, run)
            Archive.write_run(db, run)
            if run.status == "completed":
                delete_checkpoint(db, run.run_id)
        return run


def sink_for(target: Archive | GameSink | None) -> GameSink | None:
    """An archive's `ArchiveSink` (no lease); a sink as it is."""
    return ArchiveSink(target) if isinstance(target, Archive) else target


__all__ = ["ArchiveSink", "GameSink", "sink_for"]
