"""Converting an archive of an older format to this one: the one path older archives take.

Format 1 stored one `segments` row per prompt segment per decision, keyed by the run's
and the text's 64-hex ids (a transcript game of n decisions wrote n(n+1)/2 rows). Format 2
stores each prompt as integer ids and a change to the prompt before it
(`bounded.archive.prompts`). The conversion runs in one transaction when a command opens
the archive for writing: a process killed midway leaves the archive as it was (format 1,
readable), and the next command that writes to it converts it again from the start. A
command that only reads opens a format-1 archive as it is, reading its segment rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from itertools import groupby

from bounded.archive.prompts import PROMPT_SCHEMA, Chain, Ids, after_link, next_link
from bounded.core import FORMAT_VERSION, Segment

SEGMENT_ROWS_FORMAT = 1
"""The last format that stored prompts as `segments` rows."""

UPDATES_PER_BATCH = 2000


def stored_format(db: sqlite3.Connection) -> int | None:
    row = db.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchone()
    return None if row is None else int(row[0])


def migrate(db: sqlite3.Connection, on_run: Callable[[str], None] | None = None) -> bool:
    """Convert the archive on `db` to `FORMAT_VERSION` in one transaction; False when it
    needed nothing. `on_run` is told each run converted (a progress hook)."""
    if (stored_format(db) or FORMAT_VERSION) >= FORMAT_VERSION:
        return False
    db.execute("PRAGMA foreign_keys = OFF")  # a no-op inside a transaction: set before it
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            version = stored_format(db)
            if version is None or version >= FORMAT_VERSION:
                db.rollback()
                return False
            _segments_to_prompts(db, on_run or (lambda run_id: None))
            db.execute(
                "UPDATE meta SET value = ? WHERE key = 'format_version'", (str(FORMAT_VERSION),)
            )
        except BaseException:
            db.rollback()
            raise
        db.commit()
        return True
    finally:
        db.execute("PRAGMA foreign_keys = ON")


def _segments_to_prompts(db: sqlite3.Connection, on_run: Callable[[str], None]) -> None:
    db.execute("ALTER TABLE texts RENAME TO texts_v1")
    for statement in PROMPT_SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute("INSERT INTO texts (hash, text) SELECT hash, text FROM texts_v1 ORDER BY rowid")
    db.execute(
        "INSERT OR IGNORE INTO labels (layer, role) "
        "SELECT DISTINCT layer, role FROM segments ORDER BY layer, role"
    )
    columns = {row[1] for row in db.execute("PRAGMA table_info(decisions)")}
    if "prompt" not in columns:
        db.execute("ALTER TABLE decisions ADD COLUMN prompt_base INTEGER NOT NULL DEFAULT 0")
        db.execute("ALTER TABLE decisions ADD COLUMN prompt BLOB")
    db.execute("UPDATE decisions SET prompt_base = idx")
    runs = [row[0] for row in db.execute("SELECT DISTINCT run_id FROM segments ORDER BY run_id")]
    for run_id in runs:
        _convert_run(db, run_id)
        on_run(run_id)
    db.execute("DROP TABLE segments")
    db.execute("DROP TABLE texts_v1")


def _convert_run(db: sqlite3.Connection, run_id: str) -> None:
    chain: Chain | None = None
    batch: list[tuple[int, bytes, str, int]] = []
    for index, ids in _run_ids(db, run_id):
        known = chain if chain is not None and chain.index == index - 1 else None
        base, blob, keep = next_link(known, index, ids)
        chain = after_link(known, index, base, keep, ids)
        batch.append((base, blob, run_id, index))
        if len(batch) >= UPDATES_PER_BATCH:
            _write_prompts(db, batch)
    _write_prompts(db, batch)


def _write_prompts(db: sqlite3.Connection, batch: list[tuple[int, bytes, str, int]]) -> None:
    db.executemany(
        "UPDATE decisions SET prompt_base = ?, prompt = ? WHERE run_id = ? AND idx = ?", batch
    )
    batch.clear()


def _run_ids(db: sqlite3.Connection, run_id: str) -> Iterator[tuple[int, Ids]]:
    rows = db.execute(
        "SELECT s.idx, l.id, t.id FROM segments s "
        "JOIN texts t ON t.hash = s.text_hash "
        "JOIN labels l ON l.layer = s.layer AND l.role = s.role "
        "WHERE s.run_id = ? ORDER BY s.idx, s.pos",
        (run_id,),
    )
    for index, group in groupby(rows, key=lambda row: row[0]):
        yield index, [(label, text) for _, label, text in group]


def segment_rows(
    db: sqlite3.Connection, run_id: str, start: int, end: int
) -> dict[int, list[Segment]]:
    """A format-1 archive's prompt segments of a run's decisions in [start, end) (read-only
    commands read an unconverted archive so)."""
    rows = db.execute(
        "SELECT s.idx, s.layer, s.role, t.text FROM segments s JOIN texts t "
        "ON t.hash = s.text_hash WHERE s.run_id = ? AND s.idx >= ? AND s.idx < ? "
        "ORDER BY s.idx, s.pos",
        (run_id, start, end),
    )
    by_index: dict[int, list[Segment]] = {}
    for index, layer, role, text in rows:
        by_index.setdefault(index, []).append(Segment(layer=layer, role=role, text=text))
    return by_index


def segment_layers(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT DISTINCT layer FROM segments")}


__all__ = ["SEGMENT_ROWS_FORMAT", "migrate", "segment_layers", "segment_rows", "stored_format"]
