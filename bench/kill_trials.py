"""Kill -9 trials: SIGKILL a sweep with 2 local workers at a random time, then rerun it.

Each trial starts `bounded sweep --workers 2` on a fresh archive (warehouse, two cells of
`--games` games each, the scripted schema-filling model), kills the driver alone with
SIGKILL after a random delay drawn from 0 to the time a whole sweep takes (so startup is
hit as often as play), and counts:

- orphans: processes started for the killed driver still alive 2 s later;
- duplicates: (experiment, cell, seed) keys completed more than once after the rerun;
- stuck archives: a rerun that fails, an archive failing `PRAGMA integrity_check`, or
  `bounded analyze` counting other than `--games` games in a cell.

Writes bench/results/kill_trials.json.

    python bench/kill_trials.py --trials 50
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bounded.runner.boot import DRIVER_VARIABLE

RESULTS = Path(__file__).parent / "results" / "kill_trials.json"

EXPERIMENT = """\
[experiment]
name = "kills"
archive = "{archive}"

[defaults]
env = "warehouse"
model = "scripted:minimal"
games = {games}
env_options = {{ horizon = {horizon} }}

[[cells]]
tag = "state"
contract = "state"

[[cells]]
tag = "transcript"
contract = "transcript"
"""


def bounded(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bounded.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def processes_of(driver: int) -> list[int]:
    """Live (not zombie) processes started for a driver: they carry its pid in their
    environment (`bounded.runner.boot`)."""
    mark = f"{DRIVER_VARIABLE}={driver}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if mark in environ and state != "Z":
            found.append(int(entry.name))
    return found


def duplicates(archive: Path) -> int:
    db = sqlite3.connect(archive)
    try:
        rows = db.execute(
            "SELECT count(*) FROM runs WHERE status = 'completed' "
            "GROUP BY experiment, cell, seed HAVING count(*) > 1"
        ).fetchall()
        return sum(n - 1 for (n,) in rows)
    finally:
        db.close()


def integrity(archive: Path) -> str:
    db = sqlite3.connect(archive)
    try:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        db.close()


def cell_counts(archive: Path) -> dict[str, int]:
    done = bounded("analyze", str(archive), "--json")
    if done.returncode != 0:
        return {"error": -1}
    return {row["cell"] or row["label"]: row["games"] for row in json.loads(done.stdout)["rows"]}


def trial(directory: Path, delay: float, games: int, horizon: int) -> dict[str, object]:
    archive = directory / "a.sqlite"
    experiment = directory / "exp.toml"
    experiment.write_text(EXPERIMENT.format(archive=archive, games=games, horizon=horizon))
    driver = subprocess.Popen(
        [sys.executable, "-m", "bounded.cli", "sweep", str(experiment), "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    time.sleep(delay)
    killed = driver.poll() is None
    if killed:
        os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    time.sleep(2.0)
    orphans = processes_of(driver.pid)
    for pid in orphans:  # leave nothing behind for the next trial
        os.kill(pid, signal.SIGKILL)
    completed_before = 0
    if archive.exists():
        db = sqlite3.connect(archive)
        completed_before = db.execute(
            "SELECT count(*) FROM runs WHERE status = 'completed'"
        ).fetchone()[0]
        db.close()
    rerun = bounded("sweep", str(experiment), "--workers", "2")
    counts = cell_counts(archive) if rerun.returncode == 0 else {}
    check = integrity(archive) if archive.exists() else "missing"
    stuck = (
        rerun.returncode != 0 or check != "ok" or counts != {"state": games, "transcript": games}
    )
    return {
        "delay_s": round(delay, 3),
        "killed": killed,
        "completed_before_rerun": completed_before,
        "orphans": len(orphans),
        "duplicates": duplicates(archive) if archive.exists() else 0,
        "rerun_status": rerun.returncode,
        "rerun_error": rerun.stderr.strip().splitlines()[-1:] if rerun.returncode else [],
        "integrity": check,
        "cell_games": counts,
        "stuck": stuck,
    }


def whole_sweep_seconds(games: int, horizon: int) -> float:
    with tempfile.TemporaryDirectory(prefix="bounded-kills-") as tmp:
        experiment = Path(tmp) / "exp.toml"
        experiment.write_text(
            EXPERIMENT.format(archive=Path(tmp) / "a.sqlite", games=games, horizon=horizon)
        )
        started = time.perf_counter()
        done = bounded("sweep", str(experiment), "--workers", "2")
        if done.returncode != 0:
            raise SystemExit(f"the reference sweep failed: {done.stderr.strip()[-500:]}")
        return time.perf_counter() - started


def run_trials(trials: int, *, games: int = 4, horizon: int = 12, seed: int = 0) -> dict:
    span = whole_sweep_seconds(games, horizon)
    rng = random.Random(seed)
    rows = []
    for _ in range(trials):
        with tempfile.TemporaryDirectory(prefix="bounded-kills-") as tmp:
            rows.append(trial(Path(tmp), rng.uniform(0, span), games, horizon))
    return {
        "command": f"python bench/kill_trials.py --trials {trials} --games {games}",
        "trials": trials,
        "games_per_cell": games,
        "whole_sweep_s": round(span, 2),
        "killed": sum(bool(r["killed"]) for r in rows),
        "killed_before_any_game": sum(
            bool(r["killed"]) and r["completed_before_rerun"] == 0 for r in rows
        ),
        "orphans": sum(int(r["orphans"]) for r in rows),  # type: ignore[call-overload]
        "duplicates": sum(int(r["duplicates"]) for r in rows),  # type: ignore[call-overload]
        "stuck_archives": sum(bool(r["stuck"]) for r in rows),
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--games", type=int, default=4, help="games per cell")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    result = run_trials(args.trials, games=args.games, seed=args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    summary = {k: v for k, v in result.items() if k != "rows"}
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
