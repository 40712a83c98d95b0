"""An archive of format 1 (`tests/data/archive_format1.sqlite`, written by the code of that
format: see `tests/data/make_archive_format1.py`) read as it is, converted once, and a
conversion killed midway."""

import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from bounded.archive import Archive
from bounded.cli import app
from bounded.core import FORMAT_VERSION

FORMAT1 = Path(__file__).parents[1] / "data" / "archive_format1.sqlite"


def copy_of_format1(tmp_path: Path) -> Path:
    path = tmp_path / "old.sqlite"
    shutil.copyfile(FORMAT1, path)
    return path


def everything(path: Path) -> tuple[list, dict]:
    with Archive(path, read_only=True) as archive:
        runs = archive.runs()
        return runs, {run.run_id: archive.decisions(run.run_id) for run in runs}


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


def command_output(*argv: str) -> str:
    result = CliRunner().invoke(app, list(argv), terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def test_the_fixture_is_format_1_with_prompts_in_segment_rows():
    assert stored_format(FORMAT1) == 1 < FORMAT_VERSION
    assert "segments" in tables(FORMAT1)


def test_a_format1_archive_is_read_as_it_is_by_a_read_only_command(tmp_path):
    path = copy_of_format1(tmp_path)
    before = path.read_bytes()
    runs, decisions = everything(path)
    assert [run.decisions for run in runs] == [12, 12, 12]
    transcript = next(run for run in runs if run.contract == "transcript")
    prompts = [len(d.segments) for d in decisions[transcript.run_id]]
    assert prompts == sorted(prompts) and prompts[-1] > prompts[0]  # the history grows
    assert path.read_bytes() == before


def test_a_format1_archive_converts_once_to_the_same_records_and_tables(tmp_path):
    path = copy_of_format1(tmp_path)
    runs, decisions = everything(path)
    analyzed = command_output("analyze", str(path))
    exported = tmp_path / "before"
    command_output("export", str(path), "--format", "jsonl", "-o", str(exported))
    with Archive(path):
        pass
    assert stored_format(path) == FORMAT_VERSION
    assert "segments" not in tables(path)
    assert everything(path) == (runs, decisions)
    assert command_output("analyze", str(path)) == analyzed
    after = tmp_path / "after"
    command_output("export", str(path), "--format", "jsonl", "-o", str(after))
    for name in sorted(p.name for p in exported.iterdir()):
        assert (after / name).read_text() == (exported / name).read_text()


KILLED_MIDWAY = """
import os, signal, sys
import bounded.archive.migrate as migrate
from bounded.archive import Archive

convert, converted = migrate._convert_run, []

def convert_then_die(db, run_id):
    convert(db, run_id)
    converted.append(run_id)
    if len(converted) == 2:  # two of the three games converted, in the open transaction
        os.kill(os.getpid(), signal.SIGKILL)

migrate._convert_run = convert_then_die
Archive(sys.argv[1])
"""


def test_a_conversion_killed_midway_leaves_the_archive_readable_and_the_next_open_ends_it(
    tmp_path,
):
    path = copy_of_format1(tmp_path)
    expected = everything(path)
    killed = subprocess.run([sys.executable, "-c", KILLED_MIDWAY, str(path)], check=False)
    assert killed.returncode == -signal.SIGKILL
    assert stored_format(path) == 1 and "segments" in tables(path)
    assert everything(path) == expected  # read as it was
    with Archive(path) as archive:
        assert archive.format == FORMAT_VERSION
    assert stored_format(path) == FORMAT_VERSION
    assert everything(path) == expected


def test_a_converted_archive_reads_ranges_and_layers_as_the_old_one(tmp_path):
    path = copy_of_format1(tmp_path)
    runs, decisions = everything(path)
    old = next(run for run in runs if run.contract == "transcript")
    with Archive(path, read_only=True) as archive:
        layers = archive.layers()
    with Archive(path) as archive:
        assert archive.decisions(old.run_id, start=5, end=7) == decisions[old.run_id][5:7]
        assert archive.layers() == layers
