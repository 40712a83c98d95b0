"""The run archive's `Archive`: opening, transactions and the runs, decisions and
snapshots it writes and reads (each record's row: `bounded.archive.rows`).

An archive is recognised before anything is written to it: new archives carry SQLite's
`application_id` (`APPLICATION_ID`), and an existing file is used only when it is empty,
carries that id, or is an older bounded archive (a `meta` table with `format_version`).
Any other file, SQLite or not, is refused with a one-line `ArchiveError` and left
byte-identical. An archive of an older format is converted to this one the first time any
command opens it, to write or to read (`bounded.archive.migrate`; a read-only open of one
needs write access to convert it, once); one of a newer format is refused. Read-only
opens (`Archive(path, read_only=True)`) go through SQLite's
`mode=ro` URI and write nothing; when the directory does not let SQLite create the
write-ahead log's files, the archive is read as an immutable snapshot of its main file
(`immutable=1`: decisions still in an un-checkpointed `-wal` file are then not seen).
Lock waits last `BOUNDED_LOCK_TIMEOUT` seconds (default 30) and end in an `ArchiveError`.

Commits are written to the write-ahead log without waiting for the disk
(`PRAGMA synchronous=NORMAL`, `BOUNDED_SYNC`): a killed process loses nothing it
committed, and the archive stays consistent through a power cut, which may lose the
latest commits (a run then resumes from the checkpoint before them). Waiting for the disk
at every commit (`BOUNDED_SYNC=full`) cost about 5 ms per decision on a busy machine, five
times the rest of the harness.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from pydantic_core import PydanticSerializationError

from bounded.archive.migrate import migrate, stored_format
from bounded.archive.opening import (
    APPLICATION_ID,
    LOCK_TIMEOUT_ENV,
    ArchiveError,
    Kind,
    connect_read_only,
    identify,
    lock_timeout,
    storable,
    sync_mode,
)
from bounded.archive.prompts import PROMPT_SCHEMA, PromptWriter, read_prompts, stored_layers
from bounded.archive.rows import decision_from_row, decision_row, run_from_row, upsert_run
from bounded.archive.schema import COUNTERFACTUAL_SCHEMA, SCHEMA
from bounded.archive.shared import SHARED_SCHEMA, Shared
from bounded.archive.totals import (
    clear_checked,
    corrected_runs,
    list_unchecked,
    settle_unchecked,
    track_totals,
    tracks_totals,
    unchecked_count,
)
from bounded.core import (
    FORMAT_VERSION,
    JSON,
    DecisionRecord,
    RunRecord,
    Segment,
)

LOG = logging.getLogger("bounded.archive")
"""What an archive repairs as it opens is told here, never printed (with no logging set up,
as under the CLI, Python writes a warning to stderr)."""

DEFAULT_ARCHIVE = Path("runs/bounded.sqlite")
MIN_PREFIX = 8
"""The shortest run-id prefix `Archive.run` and `Archive.decisions` resolve (the command line
prints 12 characters)."""

DECISIONS_PER_READ = 256
"""Decisions a streaming reader (`Archive.iter_decisions`) holds at a time."""

INDEX_END = 2**63 - 1
"""Past every decision index (SQLite's largest integer): a range with no end."""

_WRITERS = threading.RLock()
"""Held by a write transaction of this process: the games a sweep worker plays in threads
(`bounded.sweeps.concurrency`) take turns here rather than in SQLite's busy wait."""


class Archive:
    """A run archive in one SQLite file. Safe to open from several processes (WAL).

    `read_only=True` opens it without writing anything (the read commands do); `timeout`
    is how long to wait for another process's lock, in seconds (default:
    `$BOUNDED_LOCK_TIMEOUT`, else 30). Any SQLite or file-system failure becomes an
    `ArchiveError` with a one-line message."""

    def __init__(
        self,
        path: str | Path = DEFAULT_ARCHIVE,
        *,
        read_only: bool = False,
        timeout: float | None = None,
    ) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self.timeout = lock_timeout() if timeout is None else timeout
        self.immutable = False
        """True when a read-only archive is read as a snapshot of its main file."""
        self.recounted: dict[str, RunRecord] = {}
        """Run rows that counted decisions the archive does not store, recounted when it
        was opened read-only (`bounded.archive.totals`): read so, never written."""
        self.repaired: list[str] = []
        """The run ids whose rows were repaired so when it was opened for writing."""
        self._prompts = PromptWriter()
        self._shared = Shared()
        try:
            kind = identify(self.path, self.timeout)
            if read_only:
                self._open_read_only(kind)
            else:
                self._open_writable(kind)
        except (sqlite3.DatabaseError, OSError, ArchiveError) as exc:
            opened = getattr(self, "_db", None)
            if opened is not None:
                opened.close()
            if isinstance(exc, ArchiveError):
                raise
            if isinstance(exc, OSError):
                reason = exc.strerror or str(exc)
                raise ArchiveError(f"cannot open archive {self.path}: {reason}") from exc
            raise ArchiveError(self._problem("cannot open archive", exc)) from exc
        self._db.row_factory = sqlite3.Row
        self._recount_mismatched()

    def _recount_mismatched(self) -> None:
        """Repair run rows whose totals disagree with their stored decisions (an older
        bounded could count a decision whose transaction a signal rolled back), saying so;
        a read-only archive reads them recounted and is left as it is."""
        with self._guard("cannot read archive"):
            if not self.read_only:
                track_totals(self._db)
            everywhere = not tracks_totals(self._db)
            if not everywhere and not unchecked_count(self._db):
                return
        if self.read_only:
            with self._guard("cannot read archive"):
                corrected = corrected_runs(self._db, run_from_row, everywhere=everywhere)
            if not corrected:
                return
            self.recounted = {run.run_id: run for run in corrected}
            done = "read them recounted (the next command that writes to it repairs them)"
        else:
            with self._transaction(immediate=True) as db:  # under the write lock: a run goes on
                corrected = corrected_runs(db, run_from_row, everywhere=False)
                for run in corrected:
                    self.write_run(db, run)
                clear_checked(db)  # every one checked, those repaired
            self.repaired = [run.run_id for run in corrected]
            done = "repaired them from the stored decisions"
        if not corrected:
            return
        rows = f"{len(corrected)} run row{'s' if len(corrected) > 1 else ''}"
        LOG.warning(
            "bounded: archive %s: %s counted decisions it does not store; %s", self.path, rows, done
        )

    def _open_writable(self, kind: Kind) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=self.timeout)
        if kind != "ours":  # claim it first: a half-created archive is still recognised
            self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={sync_mode()}")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA + PROMPT_SCHEMA + SHARED_SCHEMA + COUNTERFACTUAL_SCHEMA)
        self._check_version()
        if migrate(self._db):
            LOG.warning("bounded: archive %s converted to format %d", self.path, FORMAT_VERSION)

    def _open_read_only(self, kind: Kind) -> None:
        if kind == "new":
            what = "no archive at" if not self.path.exists() else "empty file, no archive at"
            raise ArchiveError(f"{what} {self.path}")
        if kind == "blank":
            raise ArchiveError(f"{self.path} is an empty SQLite database, not a bounded archive")
        self._db, self.immutable = connect_read_only(self.path, self.timeout)
        self._check_version()
        older = stored_format(self._db)
        if older is not None and older < FORMAT_VERSION:
            self._db.close()
            self._convert(older)
            self._db, self.immutable = connect_read_only(self.path, self.timeout)

    def _convert(self, older: int) -> None:
        """Convert an older archive opened to read (once: it is then of this format)."""
        try:
            Archive(self.path, timeout=self.timeout).close()
        except ArchiveError as exc:
            raise ArchiveError(
                f"archive {self.path} has format {older}, older than this version reads "
                f"({FORMAT_VERSION}), and converting it failed: {exc}"
            ) from exc

    def _problem(self, doing: str, exc: sqlite3.DatabaseError) -> str:
        """One line for an SQLite failure; a lock names how long was waited and how to
        wait longer."""
        message = str(exc)
        if "locked" in message or "busy" in message:
            return (
                f"archive {self.path} is locked by another process (waited "
                f"{self.timeout:g} s; set {LOCK_TIMEOUT_ENV} to wait longer)"
            )
        return f"{doing} {self.path}: {message}"

    @contextmanager
    def _guard(self, doing: str) -> Iterator[None]:
        """SQLite errors (a lock that outlasted the timeout, a read-only file, a full
        disk) as one-line `ArchiveError`s."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise ArchiveError(self._problem(doing, exc)) from exc

    def _check_version(self) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key='format_version'").fetchone()
        if row is None and self.read_only:
            raise ArchiveError(f"{self.path} is not a bounded archive (no format version)")
        if row is None:
            with self._db:
                self._db.execute(
                    "INSERT INTO meta VALUES ('format_version', ?)", (str(FORMAT_VERSION),)
                )
        elif int(row[0]) > FORMAT_VERSION:
            raise ArchiveError(
                f"archive {self.path} has format {row[0]}, newer than this version reads "
                f"({FORMAT_VERSION}): upgrade bounded"
            )

    def close(self) -> None:
        """Close the archive; one opened to write first checks the runs it wrote
        (`bounded.archive.totals`), so that the next open need not (a lock held past a
        second, or any failure, leaves them for the next open to check)."""
        if not self.read_only:
            try:
                self._db.execute("PRAGMA busy_timeout = 1000")
                with _WRITERS:
                    settle_unchecked(self._db)
            except sqlite3.Error:
                pass
        self._db.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self, *, immediate: bool = False) -> Iterator[sqlite3.Connection]:
        """One write transaction; `immediate` takes the write lock at its start, so that
        what it reads first (a lease, a completed game) cannot change before it commits."""
        if self.read_only:
            raise ArchiveError(f"archive {self.path} is open read-only")
        with _WRITERS:
            try:
                with self._guard("cannot write archive"), self._db:
                    if immediate:
                        self._db.execute("BEGIN IMMEDIATE")
                    yield self._db
            except BaseException:
                self._shared.forget_unsaved()
                raise
            self._shared.saved()

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """A write transaction that holds the write lock from its start (for the runner's
        checkpoints and the sweep's leases, `bounded.archive.progress`)."""
        return self._transaction(immediate=True)

    # -- runs ---------------------------------------------------------------

    def save_run(self, run: RunRecord) -> None:
        """Insert or update a run row (called at the start, after each decision, at the end).

        Text SQLite cannot encode (lone surrogates) is replaced by U+FFFD."""
        with self._transaction() as db:
            self.write_run(db, run)

    @classmethod
    def write_run(cls, db: sqlite3.Connection, run: RunRecord) -> None:
        """Upsert a run row inside the caller's transaction."""
        try:
            upsert_run(db, run)
        except UnicodeEncodeError:
            clean, _ = storable(run.model_dump())
            upsert_run(db, RunRecord.model_validate(clean))

    def run(self, run_id: str) -> RunRecord | None:
        """The run with this id, or with this unique prefix of at least `MIN_PREFIX`
        characters (the short id the command line prints); None when there is none."""
        row = self._query("SELECT * FROM runs WHERE run_id = ?", (self.full_id(run_id),))
        return self._stored_run(row[0]) if row else None

    def full_id(self, run_id: str) -> str:
        """The id of the run `run_id` names: itself when a run has it, else the one run
        whose id starts with it (at least `MIN_PREFIX` characters); an ArchiveError when
        several do. An id no run has is returned as it is."""
        if len(run_id) < MIN_PREFIX or self._query(
            "SELECT 1 FROM runs WHERE run_id = ?", (run_id,)
        ):
            return run_id
        rows = self._query(
            "SELECT run_id FROM runs WHERE substr(run_id, 1, ?) = ? LIMIT 2",
            (len(run_id), run_id),
        )
        if len(rows) > 1:
            raise ArchiveError(f"several runs in {self.path} have ids starting {run_id!r}")
        return str(rows[0]["run_id"]) if rows else run_id

    def _query(self, sql: str, params: Any = ()) -> list[sqlite3.Row]:
        """Rows of a read query; SQLite failures as `ArchiveError`."""
        with self._guard("cannot read archive"):
            return self._db.execute(sql, params).fetchall()

    def runs(
        self,
        *,
        experiment: str | None = None,
        tag: str | None = None,
        status: str | None = None,
    ) -> list[RunRecord]:
        clauses, params = [], []
        for column, value in (("experiment", experiment), ("tag", tag), ("status", status)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self._query(f"SELECT * FROM runs {where} ORDER BY started_at, run_id", params)
        return [self._stored_run(row) for row in rows]

    def _stored_run(self, row: sqlite3.Row) -> RunRecord:
        return self.recounted.get(row["run_id"]) or run_from_row(row)

    def _run_key(self, run_id: str) -> int | None:
        """The integer key of the run with this (full) id; None when there is none."""
        row = self._db.execute("SELECT id FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return None if row is None else int(row[0])

    def delete_run(self, run_id: str) -> None:
        with self._transaction() as db:
            run = self._run_key(run_id)
            db.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))
        if run is not None:
            self._prompts.forget(run)

    # -- decisions ----------------------------------------------------------

    def add_decision(self, record: DecisionRecord) -> None:
        """Write one decision with its prompt segments.

        Text that UTF-8 cannot encode (lone surrogates, from a reply or an `\\ud800`
        escape in it) is replaced by U+FFFD, and the count stored in the decision's
        `info["archive_surrogates_replaced"]`."""
        with self._transaction() as db:
            self.write_decision(db, record)
            list_unchecked(db, record.run_id)

    def write_decision(self, db: sqlite3.Connection, record: DecisionRecord) -> None:
        """Insert one decision inside the caller's transaction (see `add_decision`)."""
        try:
            self._insert_decision(db, record)
        except (UnicodeEncodeError, PydanticSerializationError):
            run = self._run_key(record.run_id)
            if run is not None:
                self._prompts.forget(run)
            self._insert_decision(db, self._storable_record(record))

    @staticmethod
    def _storable_record(record: DecisionRecord) -> DecisionRecord:
        clean, replaced = storable(record.model_dump(by_alias=True))
        clean["info"]["archive_surrogates_replaced"] = replaced
        return DecisionRecord.model_validate(clean)

    def _insert_decision(self, db: sqlite3.Connection, record: DecisionRecord) -> None:
        run = self._run_key(record.run_id)
        if run is None:
            raise ArchiveError(
                f"decision {record.index} of run {record.run_id[:12]}: no such run in {self.path}"
            )
        prompt = self._prompts.write(db, run, record.index, record.segments)
        row = decision_row(db, self._shared, run, record, prompt)
        db.execute(
            f"INSERT OR REPLACE INTO decisions ({', '.join(row)}) "
            f"VALUES ({', '.join(':' + c for c in row)})",
            row,
        )

    def decisions(
        self, run_id: str, *, with_segments: bool = True, start: int = 0, end: int | None = None
    ) -> list[DecisionRecord]:
        """A run's decisions in order (`run_id`: its id or a unique prefix, as `run`);
        `start`, `end`: only those whose index is in [start, end) (a reader streams a long
        game a range at a time)."""
        full_id = self.full_id(run_id)
        with self._guard("cannot read archive"):
            run = self._run_key(full_id)
        if run is None:
            return []
        span = (run, start, end if end is not None else INDEX_END)
        rows = self._query(
            "SELECT * FROM decisions WHERE run = ? AND idx >= ? AND idx < ? ORDER BY idx", span
        )
        segments = self._segments(*span) if with_segments else {}
        return self._decisions_from_rows(full_id, rows, segments)

    def iter_decisions(
        self, run_id: str, *, with_segments: bool = True, chunk: int | None = None
    ) -> Iterator[DecisionRecord]:
        """A run's decisions in order, read `chunk` (default `DECISIONS_PER_READ`) at a time:
        memory bounded by the chunk, not the game."""
        full_id, start = self.full_id(run_id), 0
        with self._guard("cannot read archive"):
            run = self._run_key(full_id)
        if run is None:
            return
        chunk = chunk or DECISIONS_PER_READ
        while True:
            rows = self._query(
                "SELECT * FROM decisions WHERE run = ? AND idx >= ? ORDER BY idx LIMIT ?",
                (run, start, chunk),
            )
            if not rows:
                return
            end = rows[-1]["idx"] + 1
            segments = self._segments(run, start, end) if with_segments else {}
            yield from self._decisions_from_rows(full_id, rows, segments)
            start = end

    def _segments(self, run: int, start: int, end: int) -> dict[int, list[Segment]]:
        with self._guard("cannot read archive"):
            return read_prompts(self._db, run, start, end)

    def runs_with_decisions(self) -> set[str]:
        """The ids of the runs that have stored decisions."""
        rows = self._query(
            "SELECT run_id FROM runs WHERE EXISTS (SELECT 1 FROM decisions WHERE run = runs.id)"
        )
        return {row[0] for row in rows}

    def layers(self) -> set[str]:
        """Every layer a stored prompt segment has."""
        with self._guard("cannot read archive"):
            return stored_layers(self._db)

    def _decisions_from_rows(
        self, run_id: str, rows: list[sqlite3.Row], segments: dict[int, list[Segment]]
    ) -> list[DecisionRecord]:
        with self._guard("cannot read archive"):
            return [
                decision_from_row(self._db, self._shared, run_id, row, segments.get(row["idx"], []))
                for row in rows
            ]

    # -- store snapshots ----------------------------------------------------

    def put_snapshot(self, kind: str, content: JSON | list[Any]) -> str:
        """Store a store's content once by its SHA-256; returns the hash."""
        blob = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
        digest = hashlib.sha256(blob.encode()).hexdigest()
        with self._transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO snapshots VALUES (?, ?, ?, ?)",
                (digest, kind, blob, time.time()),
            )
        return digest

    def snapshot(self, digest: str) -> Any:
        rows = self._query("SELECT content FROM snapshots WHERE hash = ?", (digest,))
        if not rows:
            raise ArchiveError(f"no snapshot {digest[:12]} in {self.path}")
        return json.loads(rows[0]["content"])

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        """Read-only queries for analysis code."""
        return self._query(sql, params)


__all__ = [
    "APPLICATION_ID",
    "DEFAULT_ARCHIVE",
    "LOCK_TIMEOUT_ENV",
    "Archive",
    "ArchiveError",
    "lock_timeout",
    "storable",
]
