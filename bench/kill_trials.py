"""Kill -9 trials: SIGKILL a sweep with 2 local workers at a random time, then rerun it.

Each trial starts `bounded sweep --workers 2` on a fresh archive (warehouse, two cells of
`--games` games of `--horizon` events each, the scripted schema-filling model), kills the
driver alone with SIGKILL after a random delay drawn from 0 to `--span` times the time a
whole sweep took before the trials (startup, play and the end are all hit), and counts:

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
import uuid
from pathlib import Path

RESULTS = Path(__file__).parent / "results" / "kill_trials.json"

TRIAL_VARIABLE = "BOUNDED_KILL_TRIAL"
"""Set in each trial's driver environment (and so in every process it starts)."""

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


def processes_of(driver: int, mark: str) -> list[int]:
    """Live (not zombie) processes the driver started: they inherited the trial's mark
    (`TRIAL_VARIABLE`) from its environment."""
    wanted = f"{TRIAL_VARIABLE}={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == driver:
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if wanted in environ and state != "Z":
            found.append(int(entry.name))
    return found


def completed(archive: Path) -> int:
    """Completed runs in an archive (0 when the kill came before its tables existed)."""
    if not archive.exists():
        return 0
    db = sqlite3.connect(archive)
    try:
        return int(db.execute("SELECT count(*) FROM runs WHERE status = 'completed'").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()


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
    mark = uuid.uuid4().hex
    driver = subprocess.Popen(
        [sys.executable, "-m", "bounded.cli", "sweep", str(experiment), "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, TRIAL_VARIABLE: mark},
    )
    time.sleep(delay)
    killed = driver.poll() is None
    if killed:
        os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    time.sleep(2.0)
    orphans = processes_of(driver.pid, mark)
    for pid in orphans:  # leave nothing behind for the next trial
        os.kill(pid, signal.SIGKILL)
    completed_before = completed(archive)
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


def run_trials(
    trials: int, *, games: int = 4, horizon: int = 150, seed: int = 0, span: float = 1.0
) -> dict:
    whole = whole_sweep_seconds(games, horizon)
    rng = random.Random(seed)
    rows = []
    for _ in range(trials):
        with tempfile.TemporaryDirectory(prefix="bounded-kills-") as tmp:
            rows.append(trial(Path(tmp), rng.uniform(0, span * whole), games, horizon))
    killed = [r for r in rows if r["killed"]]
    return {
        "command": (
            f"python bench/kill_trials.py --trials {trials} --games {games} "
            f"--horizon {horizon} --span {span} --seed {seed}"
        ),
        "trials": trials,
        "games_per_cell": games,
        "whole_sweep_s": round(whole, 2),
        "killed": len(killed),
        "killed_before_any_game": sum(r["completed_before_rerun"] == 0 for r in killed),
        "killed_mid_sweep": sum(0 < r["completed_before_rerun"] < 2 * games for r in killed),  # type: ignore[operator]
        "killed_after_every_game": sum(r["completed_before_rerun"] == 2 * games for r in killed),
        "orphans": sum(int(r["orphans"]) for r in rows),  # type: ignore[call-overload]
        "duplicates": sum(int(r["duplicates"]) for r in rows),  # type: ignore[call-overload]
        "stuck_archives": sum(bool(r["stuck"]) for r in rows),
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--games", type=int, default=4, help="games per cell")
    parser.add_argument("--horizon", type=int, default=150, help="warehouse events per game")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--span", type=float, default=1.0, help="kill delays up to SPAN times a whole sweep"
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    result = run_trials(
        args.trials, games=args.games, horizon=args.horizon, seed=args.seed, span=args.span
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    summary = {k: v for k, v in result.items() if k != "rows"}
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
