"""A run's and a decision's rows (`bounded.archive.rows`): each record comes back whole
from its row, and what decisions repeat is stored once."""

import sqlite3
from pathlib import Path
from typing import Any

from bounded.archive import Archive
from bounded.archive.rows import decision_from_row, decision_row, run_from_row, upsert_run
from bounded.archive.shared import Shared
from bounded.core import Action, Completion, DecisionRecord, RunRecord, Segment


def empty_archive(tmp_path: Path) -> sqlite3.Connection:
    path = tmp_path / "a.sqlite"
    Archive(path).close()
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    return db


def run_record(**fields: Any) -> RunRecord:
    return RunRecord(
        run_id="r1", contract="state", model="m", seed=1, env_id="bounded/Warehouse-v0",
        **fields,
    )  # fmt: skip


SEGMENTS = [Segment(layer="observation", role="user", text="event")]


def decision(index: int) -> DecisionRecord:
    return DecisionRecord(
        run_id="r1",
        index=index,
        t=index,
        kind="stream",
        segments=SEGMENTS,
        tokens_by_layer={"observation": 2},
        prompt_tokens=2,
        completion=Completion(text="{}", prompt_tokens=2, completion_tokens=1),
        actions=[Action(id="report", args={"n": index}, schema={"type": "object"})],
        state_patch={"n": index},
        info={"correct": True},
        extra_completions=[Completion(text="summary", prompt_tokens=9)],
    )


def test_a_run_row_gives_back_the_run_and_an_update_keeps_its_key(tmp_path: Path) -> None:
    db = empty_archive(tmp_path)
    upsert_run(db, run_record(outcome={"accuracy": 0.5}))
    [(key,)] = db.execute("SELECT id FROM runs").fetchall()
    upsert_run(db, run_record(outcome={"accuracy": 1.0}, status="completed"))
    [row] = db.execute("SELECT * FROM runs").fetchall()
    assert row["id"] == key
    assert run_from_row(row) == run_record(outcome={"accuracy": 1.0}, status="completed")


def test_a_decision_row_gives_back_the_decision_its_action_schema_stored_once(
    tmp_path: Path,
) -> None:
    db = empty_archive(tmp_path)
    upsert_run(db, run_record())
    [(run,)] = db.execute("SELECT id FROM runs").fetchall()
    writer = Shared()
    for index in (0, 1):
        row = decision_row(db, writer, run, decision(index), (0, b""))
        db.execute(
            f"INSERT INTO decisions ({', '.join(row)}) VALUES ({', '.join(':' + c for c in row)})",
            row,
        )
    rows = db.execute("SELECT * FROM decisions ORDER BY idx").fetchall()
    reader = Shared()  # a fresh reader: every shared value read back from its table
    assert [decision_from_row(db, reader, "r1", r, SEGMENTS) for r in rows] == [
        decision(0),
        decision(1),
    ]
    shared = [json for (json,) in db.execute("SELECT json FROM shared").fetchall()]
    assert sum('"id":"report"' in value for value in shared) == 1


def test_a_reader_keeps_a_bounded_number_of_shared_values_and_reads_the_rest_again(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr("bounded.archive.shared.VALUES_REMEMBERED", 2)
    db = empty_archive(tmp_path)
    writer = Shared()
    ids = [writer.id(db, {"action": n}) for n in range(5)]
    reader = Shared()
    for _ in range(2):
        assert [reader.value(db, i) for i in ids] == [{"action": n} for n in range(5)]
        assert len(reader._values) == 2
