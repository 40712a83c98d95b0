"""What the archive knows about work in progress: run checkpoints, owners and sweep leases.

**Checkpoints.** A run played into an archive writes, after each decision and in one
transaction with the decision and its run row, a checkpoint: who plays it (`owner`, a
process on a host), how many decisions are recorded, a snapshot of the contract's memory
(`Contract.memory_snapshot`), the runner's own counters, and the store hashes the
contract had. The logs a contract names in `memory_logs()` are stored item by item in
`checkpoint_logs`, keyed by each item's position in its log, each checkpoint adding only
the items new since the last one, so a checkpoint costs the same at the 10,000th decision
as at the first. A log is either

- a list that only grows (the state contract's patch journal): the checkpoint records its
  length, and reading it back gives its first `length` items; or
- a window on a log that slides (EpicStar's working-memory history, the latest
  `memory_interval` x `memory_depth` decisions): `{"start": s, "items": [...]}`, the items
  at positions s, s + 1, ... of a log whose older items are gone. The checkpoint records
  the window `[start, end)`, adds the items past the stored end and deletes those before
  `start`, so a bounded history costs one row written (and one deleted) per decision
  instead of the whole window; reading it back gives the same dict.

A log that does not continue what is stored (shorter, or a window that starts past the
stored end) was started over: it is stored again whole. The checkpoint of a completed
run is deleted with its final state (and its logs); a killed run keeps it, and `bounded
resume` continues from it. A checkpoint written before a list became a log holds it in
its memory itself, and is read as it was written. The transactions that write them are
`bounded.archive.sink.ArchiveSink`'s.

**Leases.** A sweep leases the games of its experiment in an archive: a row in `leases`
(visible to anyone reading the archive) names the holder and carries a token, and a
file lock beside the archive proves the holder alive (the kernel releases it when the
holder dies, however it dies). A game is written only in a transaction that finds its
lease's token still current (`check_lease`), so once a later sweep has taken a dead
holder's lease over (a new token), nothing the old one started can write a game again.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bounded.archive.sqlite import Archive, ArchiveError
from bounded.core import JSON, BoundedError, RunRecord


class LeaseLost(BoundedError):
    """A game's lease was taken over by another sweep: its rows are not written."""


class DuplicateGame(BoundedError):
    """A completed game of the same (experiment, cell, seed) is already archived."""


# -- owners ---------------------------------------------------------------------------


def process_start(pid: int) -> str:
    """The kernel's start time of a process (clock ticks since boot), "" when unknown: with
    the pid it names one process, never a later one that reuses the pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[19]  # field 22, counted after the command name


def this_owner() -> str:
    """`host:pid:start` of this process."""
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{process_start(pid)}"


def owner_alive(owner: str) -> bool | None:
    """Whether the process an owner string names still runs: None when it cannot be told
    (another host, an owner written without a start time)."""
    host, _, rest = owner.partition(":")
    pid_text, _, start = rest.partition(":")
    if host != socket.gethostname() or not pid_text.isdigit() or not start:
        return None
    return process_start(int(pid_text)) == start


def owner_pid(owner: str) -> str:
    return owner.split(":")[1] if owner.count(":") >= 2 else "?"


# -- checkpoints ----------------------------------------------------------------------


@dataclass
class Checkpoint:
    """A run's resume point: everything recorded after its `decisions`-th decision."""

    run_id: str
    owner: str
    decisions: int
    memory: JSON | None
    """The contract's `memory_snapshot()`; None when it has none (not resumable)."""
    runner: JSON = field(default_factory=dict)
    """The runner's counters (consecutive model errors, each model's answered and failed
    calls)."""
    store_hashes: dict[str, str] = field(default_factory=dict)
    """The contract's `store_hashes()` at the checkpoint (a resume checks them)."""
    logs: tuple[str, ...] = ()
    """The keys of `memory` that are logs (`Contract.memory_logs`: growing lists, or
    windows on sliding ones), stored item by item."""


def write_checkpoint(db: sqlite3.Connection, point: Checkpoint) -> None:
    memory, extents = point.memory, {}
    if memory is not None and point.logs:
        for key in point.logs:
            extents[key] = store_log(db, point.run_id, key, memory[key])
        memory = {key: value for key, value in memory.items() if key not in point.logs}
    db.execute(
        "INSERT OR REPLACE INTO checkpoints "
        "(run_id, owner, decisions, memory, runner, store_hashes, logs) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            point.run_id,
            point.owner,
            point.decisions,
            None if memory is None else json.dumps(memory, sort_keys=True),
            json.dumps(point.runner, sort_keys=True),
            json.dumps(point.store_hashes, sort_keys=True),
            json.dumps(extents, sort_keys=True),
        ),
    )


LOG_ROWS = "FROM checkpoint_logs WHERE run_id = ? AND log = ?"


def store_log(db: sqlite3.Connection, run_id: str, log: str, value: JSON) -> int | list[int]:
    """Store one memory log (a list, or a window `{"start", "items"}` on one); returns
    what the checkpoint records of it: a list's length, a window's `[start, end]`."""
    if isinstance(value, dict):
        return store_window(db, run_id, log, int(value["start"]), value["items"])
    return append_log(db, run_id, log, value)


def stored_end(db: sqlite3.Connection, run_id: str, log: str) -> int:
    """One past the last stored position of a log (0 when none is stored)."""
    last = db.execute(f"SELECT MAX(pos) {LOG_ROWS}", (run_id, log)).fetchone()[0]
    return 0 if last is None else last + 1


def insert_items(
    db: sqlite3.Connection, run_id: str, log: str, first: int, items: Sequence[JSON]
) -> None:
    """Store `items` at positions first, first + 1, ..."""
    db.executemany(
        "INSERT INTO checkpoint_logs VALUES (?, ?, ?, ?)",
        [
            (run_id, log, first + i, json.dumps(item, sort_keys=True))
            for i, item in enumerate(items)
        ],
    )


def append_log(db: sqlite3.Connection, run_id: str, log: str, items: Sequence[JSON]) -> int:
    """Store the items of a growing log that are not stored yet; returns its length. A
    log shorter than what is stored was started over: it is stored again whole."""
    stored = stored_end(db, run_id, log)
    if len(items) < stored:
        db.execute(f"DELETE {LOG_ROWS}", (run_id, log))
        stored = 0
    insert_items(db, run_id, log, stored, items[stored:])
    return len(items)


def store_window(
    db: sqlite3.Connection, run_id: str, log: str, start: int, items: Sequence[JSON]
) -> list[int]:
    """Store a window on a sliding log: the items past the stored end are added, those
    before `start` deleted; returns `[start, end]`. A window that does not continue what
    is stored (it ends before the stored end, or starts past it) is stored again whole."""
    end = start + len(items)
    stored = stored_end(db, run_id, log)
    if not start <= stored <= end:
        db.execute(f"DELETE {LOG_ROWS}", (run_id, log))
        stored = start
    else:
        db.execute(f"DELETE {LOG_ROWS} AND pos < ?", (run_id, log, start))
    insert_items(db, run_id, log, stored, items[stored - start :])
    return [start, end]


def delete_checkpoint(db: sqlite3.Connection, run_id: str) -> None:
    db.execute("DELETE FROM checkpoints WHERE run_id = ?", (run_id,))
    db.execute("DELETE FROM checkpoint_logs WHERE run_id = ?", (run_id,))


def checkpoints(archive: Archive, run_ids: Sequence[str] | None = None) -> dict[str, Checkpoint]:
    """The checkpoints of these runs (of every run when None); an archive written before
    checkpoints existed has none."""
    try:
        rows = archive.execute("SELECT * FROM checkpoints")
    except ArchiveError as exc:
        if "no such table" in str(exc):
            return {}
        raise
    wanted = None if run_ids is None else set(run_ids)
    found = {}
    for row in rows:
        if wanted is not None and row["run_id"] not in wanted:
            continue
        older = "logs" not in row.keys()  # noqa: SIM118 (a row iterates its values)
        extents = {} if older else json.loads(row["logs"])
        memory = None if row["memory"] is None else json.loads(row["memory"])
        if memory is not None:
            memory.update(read_logs(archive, row["run_id"], extents))
        found[row["run_id"]] = Checkpoint(
            run_id=row["run_id"],
            owner=row["owner"],
            decisions=row["decisions"],
            memory=memory,
            runner=json.loads(row["runner"]),
            store_hashes=json.loads(row["store_hashes"]),
            logs=tuple(extents),
        )
    return found


def read_logs(archive: Archive, run_id: str, extents: dict[str, int | list[int]]) -> JSON:
    """Each memory log of a checkpoint as the contract gave it: a list's first `length`
    items, a window's `{"start", "items"}`."""
    logs: JSON = {}
    for log, extent in extents.items():
        start, end = (0, extent) if isinstance(extent, int) else extent
        rows = archive.execute(
            "SELECT item FROM checkpoint_logs WHERE run_id = ? AND log = ? "
            "AND pos >= ? AND pos < ? ORDER BY pos",
            (run_id, log, start, end),
        )
        if len(rows) != end - start:
            raise ArchiveError(
                f"checkpoint of run {run_id[:12]}: log {log!r} holds {len(rows)} items, "
                f"the checkpoint counts {end - start}"
            )
        items = [json.loads(row["item"]) for row in rows]
        logs[log] = items if isinstance(extent, int) else {"start": start, "items": items}
    return logs


# -- leases ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Lease:
    """A sweep's claim on the games of one experiment in one archive."""

    scope: str
    token: str
    holder: str
    """The holder's owner string (`host:pid:start`)."""
    taken_at: float


def lease_scope(experiment: str) -> str:
    return f"experiment:{experiment}"


def current_lease(archive: Archive, scope: str) -> Lease | None:
    rows = archive.execute("SELECT * FROM leases WHERE scope = ?", (scope,))
    return Lease(**dict(rows[0])) if rows else None


def take_lease(archive: Archive, scope: str) -> tuple[Lease, Lease | None]:
    """A new lease on `scope`, and the stale one it replaced (if any). The caller must hold
    the scope's file lock: that is what proves an earlier holder dead."""
    lease = Lease(scope=scope, token=uuid.uuid4().hex, holder=this_owner(), taken_at=time.time())
    with archive.transaction() as db:
        row = db.execute("SELECT * FROM leases WHERE scope = ?", (scope,)).fetchone()
        stale = Lease(**dict(row)) if row else None
        db.execute(
            "INSERT OR REPLACE INTO leases VALUES (?, ?, ?, ?)",
            (lease.scope, lease.token, lease.holder, lease.taken_at),
        )
    return lease, stale


def release_lease(archive: Archive, lease: Lease) -> None:
    """Give the lease up (only if it is still ours)."""
    with archive.transaction() as db:
        db.execute("DELETE FROM leases WHERE scope = ? AND token = ?", (lease.scope, lease.token))


def check_lease(db: sqlite3.Connection, lease: Lease) -> None:
    row = db.execute("SELECT token, holder FROM leases WHERE scope = ?", (lease.scope,)).fetchone()
    if row is None or row[0] != lease.token:
        holder = f"held by {row[1]}" if row else "released"
        raise LeaseLost(f"the sweep's lease on {lease.scope} was taken over ({holder})")


def check_no_twin(db: sqlite3.Connection, run: RunRecord) -> None:
    """Refuse to complete a game (experiment, cell, seed) that is already completed."""
    if run.status != "completed" or not run.experiment:
        return
    twin = db.execute(
        "SELECT run_id FROM runs WHERE experiment = ? AND cell = ? AND seed = ? "
        "AND status = 'completed' AND run_id != ?",
        (run.experiment, run.cell, run.seed, run.run_id),
    ).fetchone()
    if twin is not None:
        raise DuplicateGame(
            f"{run.experiment} {run.cell} seed {run.seed} is already completed (run {twin[0][:12]})"
        )


def lease_holder_line(lease: Lease) -> str:
    alive = owner_alive(lease.holder)
    state = {True: "alive", False: "dead", None: "unknown"}[alive]
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(lease.taken_at))
    return f"pid {owner_pid(lease.holder)} ({state}) since {when}"


__all__ = [
    "Checkpoint",
    "DuplicateGame",
    "Lease",
    "LeaseLost",
    "check_lease",
    "check_no_twin",
    "checkpoints",
    "current_lease",
    "delete_checkpoint",
    "lease_scope",
    "owner_alive",
    "release_lease",
    "take_lease",
    "this_owner",
    "write_checkpoint",
]
