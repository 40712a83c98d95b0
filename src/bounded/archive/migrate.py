"""Converting an archive of an older format to this one: the one path older archives take.

Format 1 stored one `segments` row per prompt segment per decision, keyed by the run's
and the text's 64-hex ids (a transcript game of n decisions wrote n(n+1)/2 rows). Format 2
stored each prompt as integer ids and a change to the prompt before it
(`bounded.archive.prompts`), but keyed runs and decisions by the 64-hex run id and stored
each decision's legal actions (with their argument schemas) and completion whole. Format 3
keys runs and decisions by integers and stores what decisions repeat once
(`bounded.archive.shared`).

An older archive is converted the first time a command opens it, whether to write or to
read (`bounded.archive.sqlite`), in one transaction: the columns and names older versions
lacked are added first, a format-1 archive's segment rows become prompts, then the runs,
decisions and counterfactuals tables are copied into their format-3 shapes. A process
killed midway leaves the archive as it was (readable by the version that wrote it), and the
next command converts it again from the start. A newer archive is refused in one line.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from array import array
from collections.abc import Callable, Iterator
from itertools import groupby
from typing import Any

from bounded.archive.prompts import (
    PROMPT_SCHEMA,
    Chain,
    Ids,
    after_link,
    encode,
    next_link,
)
from bounded.archive.schema import COUNTERFACTUAL_SCHEMA, SCHEMA
from bounded.archive.shared import SHARED_SCHEMA, Shared, compact
from bounded.core import FORMAT_VERSION, Action, Completion
from bounded.env_records import BUILTIN_RECORDS

SEGMENT_ROWS_FORMAT = 1
"""The last format that stored prompts as `segments` rows."""

HEX_KEYS_FORMAT = 2
"""The last format that keyed runs and decisions by the 64-hex run id."""

UPDATES_PER_BATCH = 2000

SHORT_NAMES: dict[str, str] = {record.name: record.env_id for record in BUILTIN_RECORDS}
"""The short names older versions archived runs under -> their Gymnasium ids."""

ADDED_COLUMNS = {
    "runs": {
        "postrun": "TEXT NOT NULL DEFAULT '{}'",
        "spec": "TEXT NOT NULL DEFAULT '{}'",
        "identity": "TEXT NOT NULL DEFAULT ''",
        "inputs": "TEXT NOT NULL DEFAULT '{}'",
        "usage": "TEXT NOT NULL DEFAULT '{}'",
        "code_revision": "TEXT NOT NULL DEFAULT ''",
    },
    "decisions": {"model": "TEXT NOT NULL DEFAULT ''"},
    "checkpoints": {"logs": "TEXT NOT NULL DEFAULT '{}'"},
}
"""Columns added after format 1 first shipped, per table: an older archive may lack them."""

REBUILT = ("runs", "decisions", "counterfactuals")
"""The tables format 3 changed the shape of, copied into it."""


def stored_format(db: sqlite3.Connection) -> int | None:
    row = db.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchone()
    return None if row is None else int(row[0])


def migrate(db: sqlite3.Connection, on_run: Callable[[str], None] | None = None) -> bool:
    """Convert the archive on `db` to `FORMAT_VERSION` in one transaction; False when it
    needed nothing. `on_run` is told each run converted (a progress hook)."""
    if (stored_format(db) or FORMAT_VERSION) >= FORMAT_VERSION:
        return False
    report = on_run or (lambda run_id: None)
    db.execute("PRAGMA foreign_keys = OFF")  # a no-op inside a transaction: set before it
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            version = stored_format(db)
            if version is None or version >= FORMAT_VERSION:
                db.rollback()
                return False
            _add_missing_columns(db)
            if version <= SEGMENT_ROWS_FORMAT:
                _segments_to_prompts(db, report)
            if version <= HEX_KEYS_FORMAT:
                _to_integer_keys(db, reencode=version > SEGMENT_ROWS_FORMAT, on_run=report)
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


def _add_missing_columns(db: sqlite3.Connection) -> None:
    for table, columns in ADDED_COLUMNS.items():
        present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        for column, declaration in columns.items():
            if column not in present:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")


def _statement(schema: str, table: str, name: str) -> str:
    """The CREATE statement of `table` in `schema`, creating it as `name`."""
    head = f"CREATE TABLE IF NOT EXISTS {table} ("
    [found] = [s.strip() for s in schema.split(";") if s.strip().startswith(head)]
    return found.replace(head, f"CREATE TABLE {name} (", 1)


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]


def _to_integer_keys(
    db: sqlite3.Connection, *, reencode: bool, on_run: Callable[[str], None]
) -> None:
    """Format 2 -> 3: each of `REBUILT` copied into a new table of its format-3 shape,
    which then takes its name. `reencode`: the prompts are in format 2's encoding."""
    db.execute(SHARED_SCHEMA)
    db.executemany(
        "UPDATE runs SET env_id = ? WHERE env_id = ?",
        [(env_id, short) for short, env_id in SHORT_NAMES.items()],
    )
    schema = SCHEMA + COUNTERFACTUAL_SCHEMA
    for table in REBUILT:
        db.execute(_statement(schema, table, f"{table}_v3"))
    _copy_rows(db, "runs", "ORDER BY started_at, run_id")
    _copy_rows(db, "counterfactuals", "")
    shared = Shared()
    for run, run_id in db.execute("SELECT id, run_id FROM runs_v3 ORDER BY id").fetchall():
        _copy_run(db, shared, run, run_id, reencode)
        on_run(run_id)
    for table in REBUILT:
        db.execute(f"DROP TABLE {table}")
    for table in REBUILT:
        db.execute(f"ALTER TABLE {table}_v3 RENAME TO {table}")
    for statement in SCHEMA.split(";"):  # the indexes dropped with the old tables
        if statement.strip().startswith("CREATE INDEX"):
            db.execute(statement)


def _copy_rows(db: sqlite3.Connection, table: str, order: str) -> None:
    new = set(_columns(db, f"{table}_v3"))
    names = ", ".join(c for c in _columns(db, table) if c in new)
    db.execute(f"INSERT INTO {table}_v3 ({names}) SELECT {names} FROM {table} {order}")


def _copy_run(
    db: sqlite3.Connection, shared: Shared, run: int, run_id: str, reencode: bool
) -> None:
    rows = db.execute("SELECT * FROM decisions WHERE run_id = ? ORDER BY idx", (run_id,))
    names = [d[0] for d in rows.description]
    columns = ["run", *(name for name in names if name != "run_id")]
    insert = (
        f"INSERT INTO decisions_v3 ({', '.join(columns)}) "
        f"VALUES ({', '.join('?' for _ in columns)})"
    )
    while batch := rows.fetchmany(UPDATES_PER_BATCH):
        converted = [
            _decision_v3(db, shared, dict(zip(names, row, strict=True)), reencode=reencode)
            for row in batch
        ]
        db.executemany(insert, [[run, *(row[c] for c in columns[1:])] for row in converted])


def _decision_v3(
    db: sqlite3.Connection, shared: Shared, row: dict[str, Any], *, reencode: bool
) -> dict[str, Any]:
    """A format-2 decision row in format 3's shape."""
    actions = [Action.model_validate(a) for a in json.loads(row["actions"])]
    completion = row["completion"]
    extra = [Completion.model_validate(c) for c in json.loads(row["extra_completions"])]
    state_patch = row["state_patch"]
    return {
        **row,
        "actions": shared.pack_actions(db, actions),
        "completion": shared.completion_column(
            db, Completion.model_validate_json(completion) if completion else None
        ),
        "extra_completions": shared.extra_column(db, extra),
        "tokens_by_layer": shared.layers_column(db, json.loads(row["tokens_by_layer"])),
        "info": compact(json.loads(row["info"])),
        "state_patch": None if state_patch is None else compact(json.loads(state_patch)),
        "prompt": _reencoded(row["prompt"]) if reencode else row["prompt"],
    }


def _reencoded(blob: bytes | None) -> bytes | None:
    """A format-2 prompt (64-bit integers) in format 3's encoding."""
    if blob is None:
        return None
    values = array("q")
    values.frombytes(blob)
    if sys.byteorder != "little":  # pragma: no cover - big-endian hosts
        values.byteswap()
    pairs = iter(values[1:])
    return encode(values[0], list(zip(pairs, pairs, strict=True)))


__all__ = ["HEX_KEYS_FORMAT", "SEGMENT_ROWS_FORMAT", "migrate", "stored_format"]
