"""Recognising and opening an archive file: what a path holds, read without writing, and
the settings a connection takes from the environment (lock wait, sync mode)."""

from __future__ import annotations

import os
import re
import sqlite3
from contextlib import suppress
from pathlib import Path
from typing import Any, Literal

from bounded.core import BoundedError

APPLICATION_ID = 0x424E4444
"""SQLite `PRAGMA application_id` of a bounded archive ("BNDD"), set on every archive
bounded writes to."""

LOCK_TIMEOUT_ENV = "BOUNDED_LOCK_TIMEOUT"
"""Seconds to wait for another process's lock on the archive before giving up."""

DEFAULT_LOCK_TIMEOUT_S = 30.0

SYNC_ENV = "BOUNDED_SYNC"
"""SQLite's `synchronous` setting for writes: `normal` (the default) or `full`."""

SYNC_MODES = ("normal", "full")

UNTOUCHED = "; refused, left untouched"

Kind = Literal["new", "blank", "ours", "older"]
"""What an archive path holds: nothing yet (missing or empty file), an SQLite database
with no tables, a bounded archive (by application id), an older bounded archive."""


class ArchiveError(BoundedError):
    """The archive file cannot be opened or is not a bounded archive."""


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(value: Any) -> tuple[Any, int]:
    """A JSON-like value with every lone surrogate (which UTF-8 and SQLite refuse)
    replaced by U+FFFD in strings and keys, and how many were replaced."""
    if isinstance(value, str):
        return _LONE_SURROGATE.subn("\ufffd", value)
    if isinstance(value, list | tuple):
        items = [storable(item) for item in value]
        return [item for item, _ in items], sum(n for _, n in items)
    if isinstance(value, dict):
        clean: dict[Any, Any] = {}
        total = 0
        for key, item in value.items():
            new_key, n_key = storable(key)
            clean[new_key], n_item = storable(item)
            total += n_key + n_item
        return clean, total
    return value, 0


def lock_timeout() -> float:
    """Seconds to wait for a lock: `$BOUNDED_LOCK_TIMEOUT`, else 30."""
    raw = os.environ.get(LOCK_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_LOCK_TIMEOUT_S
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise ArchiveError(f"{LOCK_TIMEOUT_ENV} must be a number of seconds >= 0, got {raw!r}")
    return seconds


def sync_mode() -> str:
    """`$BOUNDED_SYNC` (`normal` or `full`), else `normal`."""
    mode = os.environ.get(SYNC_ENV, "").strip().lower() or SYNC_MODES[0]
    if mode not in SYNC_MODES:
        raise ArchiveError(f"{SYNC_ENV} must be one of {', '.join(SYNC_MODES)}, got {mode!r}")
    return mode


def _read_only_uri(path: Path, *, immutable: bool) -> str:
    flag = "immutable=1" if immutable else "mode=ro"
    return f"{path.resolve().as_uri()}?{flag}"


def connect_read_only(path: Path, timeout: float) -> tuple[sqlite3.Connection, bool]:
    """A connection that cannot write, and whether it reads an immutable snapshot.

    `mode=ro` first (it sees concurrent writers); when SQLite cannot open or create the
    write-ahead log's files (a read-only directory: SQLITE_READONLY_DIRECTORY, or
    SQLITE_CANTOPEN), `immutable=1`."""
    db = sqlite3.connect(_read_only_uri(path, immutable=False), uri=True, timeout=timeout)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return db, False
    except sqlite3.DatabaseError as exc:
        db.close()
        code = getattr(exc, "sqlite_errorcode", 0) & 0xFF  # the primary result code
        if code not in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY):
            raise
    db = sqlite3.connect(_read_only_uri(path, immutable=True), uri=True, timeout=timeout)
    db.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return db, True


def identify(path: Path, timeout: float) -> Kind:
    """What `path` holds, read without writing; raises ArchiveError for anything that is
    not (or may not become) a bounded archive.

    The file is read through SQLite only, never opened and closed directly: closing any
    descriptor of a file drops every POSIX lock this process holds on it, the locks of
    its open SQLite connections included, which would let another process's writer
    corrupt the archive."""
    if not path.exists():
        return "new"
    if path.is_dir():
        raise ArchiveError(f"cannot open archive {path}: it is a directory")
    if path.stat().st_size == 0:
        return "new"
    try:
        db, _ = connect_read_only(path, timeout)
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc):
            message = f"cannot open archive {path}: not an SQLite file{UNTOUCHED}"
            raise ArchiveError(message) from exc
        raise
    try:
        application_id = int(db.execute("PRAGMA application_id").fetchone()[0])
    finally:
        db.close()
    if application_id == APPLICATION_ID:
        return "ours"
    if application_id:
        raise ArchiveError(
            f"cannot open archive {path}: another application's SQLite database "
            f"(application_id {application_id:#x}){UNTOUCHED}"
        )
    return _identify_tables(path, timeout)


def _identify_tables(path: Path, timeout: float) -> Kind:
    """An SQLite file without an application id: an older archive, a blank database, or
    another application's database (refused)."""
    db, _ = connect_read_only(path, timeout)
    try:
        objects = db.execute("SELECT type, name FROM sqlite_master").fetchall()
        if not objects:
            return "blank"
        tables = {name for kind, name in objects if kind == "table"} or {
            name for _, name in objects
        }
        if "meta" in tables:
            query = "SELECT 1 FROM meta WHERE key = 'format_version'"
            with suppress(sqlite3.DatabaseError):
                if db.execute(query).fetchone() is not None:
                    return "older"
    finally:
        db.close()
    shown = ", ".join(sorted(tables)[:6]) + (", ..." if len(tables) > 6 else "")
    raise ArchiveError(
        f"cannot open archive {path}: an SQLite database that is not a bounded archive "
        f"(tables: {shown}){UNTOUCHED}"
    )
