"""What a user meets around a sweep: Ctrl-C, reruns with nothing to play, bad directories."""

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bounded.sweeps.worker_start import driver_script

EXPERIMENT = """\
[experiment]
name = "edges"
archive = "{archive}"

[defaults]
env = "warehouse"
model = "scripted:minimal"
games = {games}
env_options = {{ horizon = {horizon} }}

[[cells]]
tag = "state"
contract = "state"
"""


def write(tmp_path, *, games=6, horizon=150, archive=None):
    path = tmp_path / "exp.toml"
    target = archive or tmp_path / "a.sqlite"
    path.write_text(EXPERIMENT.format(archive=target, games=games, horizon=horizon))
    return path


def bounded(*args, **popen):
    return subprocess.Popen(
        [sys.executable, "-m", "bounded.cli", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        **popen,
    )


def count(archive, status="completed"):
    try:
        with sqlite3.connect(archive, timeout=5) as db:
            query = "SELECT count(*) FROM runs WHERE status = ?"
            return db.execute(query, (status,)).fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def wait_for(predicate, process, seconds=90):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.02)


def test_ctrl_c_says_what_was_kept_and_how_to_continue(tmp_path):
    path = write(tmp_path)
    archive = tmp_path / "a.sqlite"
    process = bounded("sweep", path)
    wait_for(lambda: count(archive) >= 1, process)
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole group
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    kept = count(archive)
    assert 1 <= kept < 6
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"bounded: interrupted by SIGINT: {kept}/6 games completed and kept")
    assert last.endswith(f"continue with: bounded sweep {path}")
    bars = [line for line in err.splitlines() if "all games" in line]
    assert bars and f"{kept}/6" in bars[-1]  # the final display counts what the archive holds
    again = bounded("sweep", path)
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    said = " ".join(out.split())
    assert count(archive) == 6
    # the game in flight, if the signal came inside one, continues from its last decision
    assert re.search(rf"\({kept} already done, {6 - kept} played now( \(1 resumed\))?,", said)


def test_a_run_stopped_by_ctrl_c_records_the_signal_by_name(tmp_path):
    archive = tmp_path / "r.sqlite"
    process = bounded(
        "run", "warehouse", "--model", "scripted:minimal", "--horizon", "5000",
        archive,
    )  # fmt: skip

    def decided():
        try:
            with sqlite3.connect(archive, timeout=5) as db:
                return db.execute("SELECT count(*) FROM decisions").fetchone()[0] > 3
        except sqlite3.OperationalError:
            return False

    wait_for(decided, process)
    os.killpg(process.pid, signal.SIGINT)
    process.communicate(timeout=60)
    assert process.returncode == 130
    with sqlite3.connect(archive) as db:
        status, error = db.execute("SELECT status, error FROM runs").fetchone()
    assert status == "failed" and "interrupted by SIGINT" in error


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the boot script is Linux's")
def test_a_rerun_with_nothing_to_play_starts_no_worker_and_prints_nothing_odd(tmp_path):
    path = write(tmp_path, games=2, horizon=5)
    first = bounded("sweep", path, "--workers", "2")
    assert first.wait(timeout=120) == 0
    for _ in range(3):
        again = bounded("sweep", path, "--workers", "2")
        out, err = again.communicate(timeout=120)
        assert again.returncode == 0, err
        assert "can't open file" not in err and "Traceback" not in err
        assert "2/2 games completed (2 already done, 0 played now" in " ".join(out.split())


def test_the_boot_script_outlives_every_pool_of_its_driver():
    script = driver_script()
    assert script == driver_script() and script.is_file() and os.access(script, os.X_OK)


def one_line_error(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("bounded: error: ") and "traceback" not in lines[0], err
    return lines[0]


def test_an_archive_where_nothing_can_be_written_is_a_one_line_error(tmp_path):
    target = Path("/proc/bounded-no-such-dir/a.sqlite")
    path = write(tmp_path, games=1, horizon=3, archive=target)
    process = bounded("sweep", path)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 2
    assert str(target.parent) in one_line_error(err)


def test_a_read_only_directory_is_a_one_line_error(tmp_path):
    directory = tmp_path / "ro"
    directory.mkdir()
    directory.chmod(0o555)
    try:
        probe = directory / "probe"
        try:
            probe.write_text("")
        except PermissionError:
            pass
        else:
            pytest.skip("this user writes through directory permissions (root)")
        path = write(tmp_path, games=1, horizon=3, archive=directory / "a.sqlite")
        process = bounded("sweep", path)
        _, err = process.communicate(timeout=120)
        assert process.returncode == 2
        assert re.search(r"(?i)permission denied|read-only", one_line_error(err))
        assert list(directory.iterdir()) == []
    finally:
        directory.chmod(0o755)


def test_an_archive_a_killed_sweep_was_still_creating_is_surveyed_as_empty(tmp_path):
    archive = tmp_path / "a.sqlite"
    db = sqlite3.connect(archive)  # a driver killed right after claiming the file
    db.execute("PRAGMA application_id = 1112425540")
    db.execute("PRAGMA journal_mode=WAL")
    db.close()
    path = write(tmp_path, games=1, horizon=3)
    for args in (["--dry-run"], []):
        process = bounded("sweep", path, *args)
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
    assert count(archive) == 1
