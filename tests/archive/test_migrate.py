"""Archives of the older formats, written by the code of those formats, converted once
(whether a command opens them to write or to read) to records and tables that read the
same, and a conversion killed midway (`tests/data/make_archive_format1.py`,
`tests/data/make_archive_format2.py`)."""

import hashlib
import json
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bounded.archive import Archive, ArchiveError
from bounded.cli import app
from bounded.core import FORMAT_VERSION

DATA = Path(__file__).parents[1] / "data"
FIXTURES = {1: DATA / "archive_format1.sqlite", 2: DATA / "archive_format2.sqlite"}
EXPECTED2 = json.loads((DATA / "archive_format2.expected.json").read_text())
"""What the code of format 2 read from its fixture: `bounded analyze`'s output, the records."""


def copy_of(tmp_path: Path, version: int) -> Path:
    path = tmp_path / "old.sqlite"
    shutil.copyfile(FIXTURES[version], path)
    return path


def everything(path: Path) -> tuple[list, dict]:
    with Archive(path, read_only=True) as archive:
        runs = archive.runs()
        return runs, {run.run_id: archive.decisions(run.run_id) for run in runs}


def as_stored_by_format2(path: Path) -> dict:
    """The records of the archive at `path` as JSON, the fields format 2's records had."""
    runs, decisions = everything(path)
    run_keys = EXPECTED2["runs"][0].keys()
    decision_keys = next(iter(EXPECTED2["decisions"].values()))[0].keys()
    return {
        "runs": [{k: v for k, v in r.model_dump(mode="json").items() if k in run_keys}
                 for r in runs],
        "decisions": {
            run_id: [{k: v for k, v in d.model_dump(mode="json").items() if k in decision_keys}
                     for d in records]
            for run_id, records in decisions.items()
        },
    }  # fmt: skip


def stored_format(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchone()[0])
    finally:
        db.close()


def tables(path: Path) -> set[str]:
    db = sqlite3.connect(path)
    try:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        db.close()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def command_output(*argv: str) -> str:
    result = CliRunner().invoke(app, list(argv), terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def test_the_fixtures_are_of_the_older_formats():
    assert stored_format(FIXTURES[1]) == 1 and "segments" in tables(FIXTURES[1])
    assert stored_format(FIXTURES[2]) == 2 < FORMAT_VERSION
    db = sqlite3.connect(FIXTURES[2])
    try:
        columns = {row[1] for row in db.execute("PRAGMA table_info(decisions)")}
    finally:
        db.close()
    assert "run_id" in columns and "run" not in columns


def test_a_format2_archive_opens_converts_and_analyses_to_the_same_tables(tmp_path):
    path = copy_of(tmp_path, 2)
    assert command_output("analyze", str(path)) == EXPECTED2["analyze"]
    assert stored_format(path) == FORMAT_VERSION
    assert as_stored_by_format2(path) == {
        "runs": EXPECTED2["runs"],
        "decisions": EXPECTED2["decisions"],
    }
    assert command_output("analyze", str(path)) == EXPECTED2["analyze"]


def test_a_converted_archive_keys_runs_and_decisions_by_integers(tmp_path):
    path = copy_of(tmp_path, 2)
    Archive(path).close()
    db = sqlite3.connect(path)
    try:
        columns = {row[1] for row in db.execute("PRAGMA table_info(decisions)")}
        runs = db.execute("SELECT COUNT(*), COUNT(DISTINCT id) FROM runs").fetchone()
        shared = db.execute("SELECT COUNT(*) FROM shared").fetchone()[0]
        decisions = db.execute("SELECT COUNT(*) FROM decisions").fetchone()[0]
        made = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        unchecked = db.execute("SELECT COUNT(*) FROM runs_unchecked").fetchone()[0]
    finally:
        db.close()
    assert {"id", "run"} <= columns and "run_id" not in columns
    assert runs == (3, 3)
    assert {"runs_in_order", "unchecked_run", "unchecked_row"} <= made
    assert unchecked == 0  # the converted runs' totals checked once, when it was opened
    assert 0 < shared < decisions  # the actions' schemas and the completions' keys, once


def test_a_format1_archive_converts_once_to_the_same_tables(tmp_path):
    path = copy_of(tmp_path, 1)
    runs, decisions = everything(path)  # a read-only open converts it
    assert stored_format(path) == FORMAT_VERSION and "segments" not in tables(path)
    assert [run.decisions for run in runs] == [12, 12, 12]
    transcript = next(run for run in runs if run.contract == "transcript")
    prompts = [len(d.segments) for d in decisions[transcript.run_id]]
    assert prompts == sorted(prompts) and prompts[-1] > prompts[0]  # the history grows
    analyzed = command_output("analyze", str(path))
    with Archive(path):
        pass
    assert everything(path) == (runs, decisions)
    assert command_output("analyze", str(path)) == analyzed
    with Archive(path, read_only=True) as archive:
        assert (
            archive.decisions(transcript.run_id, start=5, end=7)
            == decisions[transcript.run_id][5:7]
        )


KILLED_MIDWAY = """
import os, signal, sys
import bounded.archive.migrate as migrate
from bounded.archive import Archive

name = sys.argv[2]
convert, converted = getattr(migrate, name), []

def convert_then_die(*args, **kwargs):
    convert(*args, **kwargs)
    converted.append(args)
    if len(converted) == 2:  # two of the three games converted, in the open transaction
        os.kill(os.getpid(), signal.SIGKILL)

setattr(migrate, name, convert_then_die)
Archive(sys.argv[1], read_only=True)
"""


@pytest.mark.parametrize(
    ("version", "step"), [(1, "_convert_run"), (2, "_copy_run")], ids=["format1", "format2"]
)
def test_a_conversion_killed_midway_leaves_the_archive_as_it_was_and_the_next_open_ends_it(
    tmp_path, version, step
):
    path = copy_of(tmp_path, version)
    before = sha256(path)
    killed = subprocess.run([sys.executable, "-c", KILLED_MIDWAY, str(path), step], check=False)
    assert killed.returncode == -signal.SIGKILL
    assert sha256(path) == before  # nothing of the open transaction reached the archive
    recovered = sqlite3.connect(path)  # SQLite discards the uncommitted log
    try:
        assert recovered.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        recovered.close()
    assert stored_format(path) == version
    runs, _ = everything(path)
    assert stored_format(path) == FORMAT_VERSION
    assert [run.decisions for run in runs] == [12, 12, 12]
    if version == 2:
        assert as_stored_by_format2(path)["decisions"] == EXPECTED2["decisions"]


def test_an_older_archive_that_cannot_be_written_is_refused_in_one_line(tmp_path):
    path = copy_of(tmp_path, 2)
    (tmp_path / "old.sqlite-wal").mkdir()  # SQLite cannot write beside it
    before = sha256(path)
    with pytest.raises(ArchiveError) as refused:
        Archive(path, read_only=True)
    assert "has format 2, older than this version reads" in str(refused.value)
    assert "\n" not in str(refused.value)
    assert sha256(path) == before


def test_a_newer_archive_is_refused_in_one_line_by_a_read_only_open(tmp_path):
    path = copy_of(tmp_path, 2)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'format_version'", (FORMAT_VERSION + 1,))
    before = sha256(path)
    with pytest.raises(ArchiveError, match="newer than this version reads") as refused:
        Archive(path, read_only=True)
    assert "\n" not in str(refused.value)
    assert sha256(path) == before
