"""What an archive path may hold: bounded archives are recognised before anything is
written, any other file is refused and left byte-identical; read-only opens write nothing
and work where nothing can be written; lock waits end in one-line errors; text SQLite
cannot encode is stored repaired."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from bounded.archive import Archive, ArchiveError
from bounded.archive.sqlite import APPLICATION_ID, LOCK_TIMEOUT_ENV, lock_timeout
from bounded.core import Completion, DecisionRecord, RunRecord, Segment

ROOT = os.geteuid() == 0
FORMAT2 = Path(__file__).parents[1] / "data" / "archive_format2.sqlite"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def application_id(path: Path) -> int:
    return int.from_bytes(path.read_bytes()[68:72], "big", signed=True)


def run_record(run_id: str = "r1", **fields) -> RunRecord:
    return RunRecord(
        run_id=run_id, env_id="bounded/Warehouse-v0", contract="state", model="m", seed=1,
        **fields,
    )  # fmt: skip


def decision_record(text: str = "{}", index: int = 0) -> DecisionRecord:
    return DecisionRecord(
        run_id="r1", index=index, t=0, kind="stream",
        segments=[Segment(layer="observation", role="user", text=text)],
        tokens_by_layer={"observation": 1}, prompt_tokens=1,
        completion=Completion(text=text), actions=[], reasoning=text,
    )  # fmt: skip


def foreign_database(path: Path, *, app_id: int = 0, wal: bool = False) -> Path:
    """Another application's SQLite file: its own tables and rows."""
    db = sqlite3.connect(path)
    if wal:
        db.execute("PRAGMA journal_mode=WAL")
    if app_id:
        db.execute(f"PRAGMA application_id = {app_id}")
    db.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
    db.execute("INSERT INTO contacts VALUES ('Ada', '555')")
    db.commit()
    db.close()
    return path


def archive_with_a_run(path: Path) -> Path:
    with Archive(path) as archive:
        archive.save_run(run_record(status="completed", decisions=1, model_calls=1))
        archive.add_decision(decision_record())
    return path


# -- recognising an archive ------------------------------------------------------------


def test_a_new_archive_carries_bounded_application_id(tmp_path):
    path = tmp_path / "new.sqlite"
    Archive(path).close()
    assert application_id(path) == APPLICATION_ID == 0x424E4444
    with Archive(path, read_only=True) as archive:
        assert archive.execute("PRAGMA application_id")[0][0] == APPLICATION_ID


@pytest.mark.parametrize("wal", [False, True])
@pytest.mark.parametrize("read_only", [False, True])
def test_another_applications_database_is_refused_and_left_byte_identical(tmp_path, wal, read_only):
    path = foreign_database(tmp_path / "contacts.sqlite", wal=wal)
    before, files = sha256(path), sorted(os.listdir(tmp_path))
    with pytest.raises(ArchiveError) as refused:
        Archive(path, read_only=read_only)
    message = str(refused.value)
    assert "not a bounded archive (tables: contacts)" in message and "\n" not in message
    assert sha256(path) == before
    if not wal:  # a WAL database's readers may leave its -shm file behind
        assert sorted(os.listdir(tmp_path)) == files
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == [("contacts",)]


def test_a_database_with_another_application_id_is_refused_untouched(tmp_path):
    path = foreign_database(tmp_path / "map.gpkg", app_id=0x47504B47)  # GeoPackage
    before = sha256(path)
    with pytest.raises(ArchiveError, match="application_id 0x47504b47"):
        Archive(path)
    assert sha256(path) == before


@pytest.mark.parametrize(
    "content",
    [b"these are my notes\n" * 50, b"SQLite format 3\x00" + b"\xff" * 10, os.urandom(4096)],
    ids=["text", "truncated-header", "random-bytes"],
)
def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path, content):
    path = tmp_path / "x.sqlite"
    path.write_bytes(content)
    with pytest.raises(ArchiveError, match="not an SQLite file; refused, left untouched"):
        Archive(path)
    assert path.read_bytes() == content


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(ArchiveError, match="is a directory"):
        Archive(tmp_path)


def test_an_older_bounded_archive_is_recognised_and_stamped_when_written(tmp_path):
    path = archive_with_a_run(tmp_path / "old.sqlite")
    db = sqlite3.connect(path)
    db.execute("PRAGMA application_id = 0")  # as archives before application ids
    db.close()  # checkpoints the write-ahead log into the file
    assert application_id(path) == 0
    before = sha256(path)
    with Archive(path, read_only=True) as archive:
        assert [r.run_id for r in archive.runs()] == ["r1"]
    assert sha256(path) == before  # reading does not stamp it
    with Archive(path) as archive:
        assert [r.run_id for r in archive.runs()] == ["r1"]
    assert application_id(path) == APPLICATION_ID


def test_an_empty_file_or_blank_database_becomes_an_archive(tmp_path):
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    blank = tmp_path / "blank.sqlite"
    sqlite3.connect(blank).execute("PRAGMA user_version = 7").connection.close()
    assert blank.stat().st_size > 0
    for path in (empty, blank):
        with pytest.raises(ArchiveError, match=r"no archive|not a bounded archive"):
            Archive(path, read_only=True)
        with Archive(path) as archive:
            archive.save_run(run_record())
        assert application_id(path) == APPLICATION_ID


# -- read-only opens -------------------------------------------------------------------


def test_a_read_only_open_writes_nothing_and_refuses_writes(tmp_path):
    path = archive_with_a_run(tmp_path / "a.sqlite")
    before = sha256(path)
    with Archive(path, read_only=True) as archive:
        assert [r.run_id for r in archive.runs()] == ["r1"]
        assert len(archive.decisions("r1")) == 1
        with pytest.raises(ArchiveError, match="open read-only"):
            archive.save_run(run_record("r2"))
        with pytest.raises(ArchiveError, match="readonly"):
            archive.execute("DELETE FROM runs")
    assert sha256(path) == before


def test_a_missing_archive_is_not_created_by_a_read_only_open(tmp_path):
    with pytest.raises(ArchiveError, match="no archive at"):
        Archive(tmp_path / "missing.sqlite", read_only=True)
    assert not (tmp_path / "missing.sqlite").exists()


def test_a_wal_archive_is_read_where_its_log_cannot_be_created(tmp_path):
    """SQLite cannot create `-wal` (a read-only directory; here, as root can write
    anywhere, a directory in its place): the archive is read as an immutable snapshot."""
    path = archive_with_a_run(tmp_path / "a.sqlite")
    assert not (tmp_path / "a.sqlite-wal").exists()  # checkpointed on close
    (tmp_path / "a.sqlite-wal").mkdir()
    before = sha256(path)
    with Archive(path, read_only=True) as archive:
        assert archive.immutable
        assert [r.run_id for r in archive.runs()] == ["r1"]
    assert sha256(path) == before


@pytest.mark.skipif(ROOT, reason="root writes through file permissions")
def test_a_read_only_file_in_a_read_only_directory_is_listed(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = archive_with_a_run(folder / "a.sqlite")
    path.chmod(0o444)
    folder.chmod(0o555)
    try:
        with Archive(path, read_only=True) as archive:
            assert [r.run_id for r in archive.runs()] == ["r1"]
        with pytest.raises(ArchiveError, match="cannot open archive"):
            Archive(path)
    finally:
        folder.chmod(0o755)


def test_an_older_archive_lacking_later_columns_gains_them_as_a_read_only_open_converts_it(
    tmp_path,
):
    path = tmp_path / "old.sqlite"
    shutil.copyfile(FORMAT2, path)
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE runs DROP COLUMN usage")
        db.execute("ALTER TABLE decisions DROP COLUMN model")
        db.execute("UPDATE runs SET env_id = 'warehouse'")
    with Archive(path, read_only=True) as archive:
        runs = archive.runs()
        assert {run.env_id for run in runs} == {"bounded/Warehouse-v0"}
        assert all(run.usage == {} for run in runs)
        assert archive.decisions(runs[0].run_id)[0].model == ""


# -- locks -----------------------------------------------------------------------------


def test_a_lock_held_past_the_timeout_is_a_one_line_error(tmp_path, monkeypatch):
    path = archive_with_a_run(tmp_path / "a.sqlite")
    monkeypatch.setenv(LOCK_TIMEOUT_ENV, "0.2")
    holder = sqlite3.connect(path)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with Archive(path) as archive, pytest.raises(ArchiveError) as locked:
            archive.save_run(run_record("r2"))
    finally:
        holder.rollback()
        holder.close()
    assert str(locked.value) == (
        f"archive {path} is locked by another process (waited 0.2 s; "
        f"set {LOCK_TIMEOUT_ENV} to wait longer)"
    )


def test_the_lock_timeout_comes_from_the_environment_or_the_argument(tmp_path, monkeypatch):
    monkeypatch.delenv(LOCK_TIMEOUT_ENV, raising=False)
    assert lock_timeout() == 30.0
    monkeypatch.setenv(LOCK_TIMEOUT_ENV, "2.5")
    assert lock_timeout() == 2.5
    assert Archive(tmp_path / "a.sqlite", timeout=1).timeout == 1
    for bad in ("soon", "-1", "inf", "nan"):
        monkeypatch.setenv(LOCK_TIMEOUT_ENV, bad)
        with pytest.raises(ArchiveError, match=f"{LOCK_TIMEOUT_ENV} must be a number"):
            Archive(tmp_path / "a.sqlite")


# -- text SQLite cannot encode ---------------------------------------------------------


def test_lone_surrogates_are_stored_replaced_and_counted(tmp_path):
    lone = "\ud800"
    with Archive(tmp_path / "a.sqlite") as archive:
        archive.save_run(run_record(error=f"model said {lone}", tag=lone))
        archive.add_decision(decision_record(f"a{lone}b{lone}"))
        [run] = archive.runs()
        [stored] = archive.decisions("r1")
    assert run.error == "model said \ufffd" and run.tag == "\ufffd"
    assert stored.completion.text == stored.reasoning == "a\ufffdb\ufffd"
    assert stored.segments[0].text == "a\ufffdb\ufffd"
    assert stored.info["archive_surrogates_replaced"] == 6  # completion, reasoning, segment
