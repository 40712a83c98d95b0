"""SQLite schema and queries for the run archive."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bounded.core import (
    FORMAT_VERSION,
    JSON,
    Action,
    BoundedError,
    Completion,
    DecisionRecord,
    RunRecord,
    Segment,
)

DEFAULT_ARCHIVE = Path("runs/bounded.sqlite")

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    format_version INTEGER NOT NULL,
    experiment TEXT NOT NULL DEFAULT '',
    cell TEXT NOT NULL DEFAULT '',
    tag TEXT NOT NULL DEFAULT '',
    env_id TEXT NOT NULL,
    env_version TEXT NOT NULL,
    contract TEXT NOT NULL,
    contract_config TEXT NOT NULL,
    contract_config_hash TEXT NOT NULL,
    store_hashes TEXT NOT NULL,
    model TEXT NOT NULL,
    model_params TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    outcome TEXT NOT NULL,
    postrun TEXT NOT NULL DEFAULT '{}',
    spec TEXT NOT NULL DEFAULT '{}',
    usage TEXT NOT NULL DEFAULT '{}',
    decisions INTEGER NOT NULL,
    model_calls INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    last_prompt_tokens INTEGER NOT NULL,
    wall_s REAL NOT NULL,
    started_at REAL NOT NULL,
    package_version TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_experiment ON runs (experiment, cell, seed);
CREATE INDEX IF NOT EXISTS runs_by_tag ON runs (tag, started_at);
CREATE TABLE IF NOT EXISTS decisions (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    format_version INTEGER NOT NULL,
    t REAL NOT NULL,
    kind TEXT NOT NULL,
    tokens_by_layer TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion TEXT,
    actions TEXT NOT NULL,
    model TEXT NOT NULL DEFAULT '',
    reasoning TEXT NOT NULL,
    state_patch TEXT,
    parse_error TEXT,
    fallback INTEGER NOT NULL,
    reward REAL NOT NULL,
    latency_s REAL NOT NULL,
    info TEXT NOT NULL,
    extra_completions TEXT NOT NULL,
    PRIMARY KEY (run_id, idx)
);
CREATE TABLE IF NOT EXISTS texts (hash TEXT PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS segments (
    run_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    pos INTEGER NOT NULL,
    layer TEXT NOT NULL,
    role TEXT NOT NULL,
    text_hash TEXT NOT NULL REFERENCES texts (hash),
    PRIMARY KEY (run_id, idx, pos),
    FOREIGN KEY (run_id, idx) REFERENCES decisions (run_id, idx) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS snapshots (
    hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    content TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""

_RUN_JSON_FIELDS = (
    "contract_config",
    "store_hashes",
    "model_params",
    "outcome",
    "postrun",
    "spec",
    "usage",
)

ADDED_COLUMNS = {
    "runs": {
        "postrun": "TEXT NOT NULL DEFAULT '{}'",
        "spec": "TEXT NOT NULL DEFAULT '{}'",
        "usage": "TEXT NOT NULL DEFAULT '{}'",
    },
    "decisions": {"model": "TEXT NOT NULL DEFAULT ''"},
}
"""Columns added after format 1 first shipped, per table: an older archive gains them on
open."""


class ArchiveError(BoundedError):
    """The archive file cannot be opened or is not a bounded archive."""


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


class Archive:
    """A run archive in one SQLite file. Safe to open from several processes (WAL)."""

    def __init__(self, path: str | Path = DEFAULT_ARCHIVE) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
            self._check_version()
            self._add_missing_columns()
            self._canonical_env_ids()
        except sqlite3.DatabaseError as exc:
            raise ArchiveError(f"cannot open archive {self.path}: {exc}") from exc
        self._db.row_factory = sqlite3.Row

    def _check_version(self) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key='format_version'").fetchone()
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

    def _add_missing_columns(self) -> None:
        for table, columns in ADDED_COLUMNS.items():
            present = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
            with self._db:
                for column, declaration in columns.items():
                    if column not in present:
                        self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")

    def _canonical_env_ids(self) -> None:
        """Older `bounded run` wrote short names (`craft`) where sweeps wrote Gymnasium ids
        (`bounded/Craft-v0`): one environment is one id, so short names are rewritten."""
        from bounded.envs import ENV_IDS

        marks = ", ".join("?" for _ in ENV_IDS)
        query = f"SELECT 1 FROM runs WHERE env_id IN ({marks}) LIMIT 1"
        if self._db.execute(query, tuple(ENV_IDS)).fetchone() is None:
            return
        with self._db:
            self._db.executemany(
                "UPDATE runs SET env_id = ? WHERE env_id = ?",
                [(env_id, short) for short, env_id in ENV_IDS.items()],
            )

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._db:
            yield self._db

    # -- runs ---------------------------------------------------------------

    def save_run(self, run: RunRecord) -> None:
        """Insert or update a run row (called at the start, after each decision, at the end)."""
        row = run.model_dump()
        for field in _RUN_JSON_FIELDS:
            row[field] = _dumps(row[field])
        columns = ", ".join(row)
        placeholders = ", ".join(f":{c}" for c in row)
        updates = ", ".join(f"{c} = excluded.{c}" for c in row if c != "run_id")
        # An upsert, not INSERT OR REPLACE: a replace deletes the row and cascades to decisions.
        with self._transaction() as db:
            db.execute(
                f"INSERT INTO runs ({columns}) VALUES ({placeholders}) "
                f"ON CONFLICT (run_id) DO UPDATE SET {updates}",
                row,
            )

    def run(self, run_id: str) -> RunRecord | None:
        row = self._db.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return self._run_from_row(row) if row else None

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
        rows = self._db.execute(f"SELECT * FROM runs {where} ORDER BY started_at, run_id", params)
        return [self._run_from_row(row) for row in rows]

    @staticmethod
    def _run_from_row(row: sqlite3.Row) -> RunRecord:
        data = dict(row)
        for field in _RUN_JSON_FIELDS:
            data[field] = json.loads(data[field])
        return RunRecord.model_validate(data)

    def delete_run(self, run_id: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))

    # -- decisions ----------------------------------------------------------

    def add_decision(self, record: DecisionRecord) -> None:
        texts = [(self._text_hash(s.text), s.text) for s in record.segments]
        row = {
            "run_id": record.run_id,
            "idx": record.index,
            "format_version": record.format_version,
            "t": record.t,
            "kind": record.kind,
            "tokens_by_layer": json.dumps(record.tokens_by_layer),  # keeps layer order
            "prompt_tokens": record.prompt_tokens,
            "completion": record.completion.model_dump_json() if record.completion else None,
            "actions": _dumps([a.model_dump(by_alias=True) for a in record.actions]),
            "model": record.model,
            "reasoning": record.reasoning,
            "state_patch": None if record.state_patch is None else _dumps(record.state_patch),
            "parse_error": record.parse_error,
            "fallback": int(record.fallback),
            "reward": record.reward,
            "latency_s": record.latency_s,
            "info": _dumps(record.info),
            "extra_completions": _dumps([c.model_dump() for c in record.extra_completions]),
        }
        with self._transaction() as db:
            db.executemany("INSERT OR IGNORE INTO texts VALUES (?, ?)", texts)
            db.execute(
                f"INSERT OR REPLACE INTO decisions ({', '.join(row)}) "
                f"VALUES ({', '.join(':' + c for c in row)})",
                row,
            )
            db.executemany(
                "INSERT OR REPLACE INTO segments VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (record.run_id, record.index, pos, s.layer, s.role, text_hash)
                    for pos, (s, (text_hash, _)) in enumerate(
                        zip(record.segments, texts, strict=True)
                    )
                ],
            )

    @staticmethod
    def _text_hash(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    def decisions(self, run_id: str, *, with_segments: bool = True) -> list[DecisionRecord]:
        rows = self._db.execute(
            "SELECT * FROM decisions WHERE run_id = ? ORDER BY idx", (run_id,)
        ).fetchall()
        segments = self._segments(run_id) if with_segments else {}
        return [self._decision_from_row(row, segments.get(row["idx"], [])) for row in rows]

    def _segments(self, run_id: str) -> dict[int, list[Segment]]:
        rows = self._db.execute(
            "SELECT s.idx, s.layer, s.role, t.text FROM segments s JOIN texts t "
            "ON t.hash = s.text_hash WHERE s.run_id = ? ORDER BY s.idx, s.pos",
            (run_id,),
        )
        by_index: dict[int, list[Segment]] = {}
        for row in rows:
            by_index.setdefault(row["idx"], []).append(
                Segment(layer=row["layer"], role=row["role"], text=row["text"])
            )
        return by_index

    @staticmethod
    def _decision_from_row(row: sqlite3.Row, segments: list[Segment]) -> DecisionRecord:
        completion = row["completion"]
        return DecisionRecord(
            format_version=row["format_version"],
            run_id=row["run_id"],
            index=row["idx"],
            t=row["t"],
            kind=row["kind"],
            segments=segments,
            tokens_by_layer=json.loads(row["tokens_by_layer"]),
            prompt_tokens=row["prompt_tokens"],
            completion=Completion.model_validate_json(completion) if completion else None,
            actions=[Action.model_validate(a) for a in json.loads(row["actions"])],
            model=row["model"],
            reasoning=row["reasoning"],
            state_patch=json.loads(row["state_patch"]) if row["state_patch"] else None,
            parse_error=row["parse_error"],
            fallback=bool(row["fallback"]),
            reward=row["reward"],
            latency_s=row["latency_s"],
            info=json.loads(row["info"]),
            extra_completions=[
                Completion.model_validate(c) for c in json.loads(row["extra_completions"])
            ],
        )

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
        row = self._db.execute("SELECT content FROM snapshots WHERE hash = ?", (digest,)).fetchone()
        if row is None:
            raise ArchiveError(f"no snapshot {digest[:12]} in {self.path}")
        return json.loads(row["content"])

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        """Read-only queries for analysis code."""
        return self._db.execute(sql, params).fetchall()
