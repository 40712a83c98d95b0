"""Kill -9 trials: SIGKILL a sweep mid-game, then rerun it, against an endpoint that counts.

Each trial starts `bounded sweep --workers 2` on a fresh archive (warehouse, two cells of
`--games` games of `--horizon` events each; the model an OpenAI-compatible endpoint on
127.0.0.1 that this script serves and that counts every call), kills the driver alone
with SIGKILL after a random delay drawn from `--from` to `--span` times the time a whole
sweep took before the trials, and counts:

- orphans: processes started for the killed driver still alive 2 s later;
- duplicates: (experiment, cell, seed) keys completed more than once after the rerun;
- stuck archives: a rerun that fails, an archive failing `PRAGMA integrity_check`, or
  `bounded analyze` counting other than `--games` games in a cell;
- interrupted games: games started (a run row) but not completed when the driver died;
- re-asked decisions: calls the endpoint answered beyond one per decision of the sweep
  (a kill should cost at most the decision in flight of each interrupted game);
- different games: games whose decisions (prompt segments, reply, actions, in order)
  differ from those of the same game in a sweep never killed.

Writes bench/results/kill_trials.json.

    python bench/kill_trials.py --trials 50

With `--ray`, each trial is instead a sweep on the Ray executor (`--executor ray
--workers 2`, a local Ray instance) whose driver lives on: once a game has recorded a
number of decisions drawn from `--from` to `--span` times `--horizon`, the Ray worker
playing it (the process its checkpoint names) is SIGKILLed, once per game. The sweep must
finish by itself, each killed game continued from its checkpoint on another worker; the
counts are the same (an interrupted game is one whose worker was killed), plus the
sweep's exit status and the rows left `running`. Writes bench/results/kill_trials_ray.json.

    python bench/kill_trials.py --ray --trials 10 --games 1 --horizon 40

With `--cluster node` or `--cluster driver`, the sweeps join a Ray cluster started apart
from them, as `ray start` would (`bounded.testing.ray_nodes`: a head node of `ray start`
processes on a loopback address, token authentication on), by `--address`. `node`: each
trial adds a worker node (one CPU, beside the head's one) and, once a game played on it
has a number of decisions drawn as above, SIGKILLs the whole node (its raylet, its
workers, its agents); the sweep must finish on the head by itself, and a re-ask is
allowed per game in flight on the lost node. `driver`: each trial SIGKILLs the sweep's
driver once a game has that many decisions, waits for Ray to end the workers (those
still alive after 30 s are orphans), then runs the same sweep on the cluster again; a
re-ask is allowed per game the kill interrupted. Writes
bench/results/kill_trials_lost_node.json or kill_trials_cluster_driver.json.

    python bench/kill_trials.py --cluster node --trials 10 --games 2 --horizon 40
"""

from __future__ import annotations

import argparse
import hashlib
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

from bounded.analysis.provenance import provenance, write_result
from bounded.archive import Archive, ArchiveError
from bounded.archive.prompts import text_hash
from bounded.testing.endpoint import Endpoint
from bounded.testing.ray_nodes import LocalCluster, RayNode, new_token, process_parents

RESULTS = Path(__file__).parent / "results" / "kill_trials.json"
RAY_RESULTS = Path(__file__).parent / "results" / "kill_trials_ray.json"
CLUSTER_RESULTS = {
    "node": Path(__file__).parent / "results" / "kill_trials_lost_node.json",
    "driver": Path(__file__).parent / "results" / "kill_trials_cluster_driver.json",
}

TRIAL_VARIABLE = "BOUNDED_KILL_TRIAL"
"""Set in each trial's driver environment (and so in every process it starts)."""

EXPERIMENT = """\
[experiment]
name = "kills"
archive = "{archive}"

[defaults]
env = "warehouse"
model = "openai:counted"
base_url = "{url}"
model_options = {{ retry = {{ attempts = 2, backoff_s = 0.01 }} }}
games = {games}
env_options = {{ horizon = {horizon} }}

[[cells]]
tag = "state"
contract = "state"

[[cells]]
tag = "transcript"
contract = "transcript"
"""

ARGS = {"occupied": 0, "shipped": 0}
REPLY = json.dumps({"reasoning": "", "state_patch": {}, "action": {"id": "report", "args": ARGS}})


def counting_endpoint() -> Endpoint:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 (in a thread) that answers every
    call with the same reply and counts the calls."""
    return Endpoint(content=REPLY, record=False)


def bounded(
    *args: str, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bounded.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
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


def games_played(archive: Path) -> dict[tuple[str, int], str]:
    """(cell, seed) -> a hash of the completed game's decisions in order: each one's prompt
    segments, reply and actions (none when the archive has no tables)."""
    try:
        store = Archive(archive, read_only=True)
    except ArchiveError:
        return {}
    with store:
        found = {}
        for run in store.runs(status="completed"):
            digest = hashlib.sha256()
            for record in store.decisions(run.run_id):
                text = record.completion.text if record.completion else ""
                actions = [action.model_dump(by_alias=True) for action in record.actions]
                texts = [text_hash(segment.text) for segment in record.segments]
                digest.update(json.dumps([record.index, text, actions, texts]).encode())
            found[(run.cell, run.seed)] = digest.hexdigest()
        return found


def interrupted_games(archive: Path) -> int:
    """Games started and not completed. One killed in its first decision has none stored,
    yet its call may have been answered: asked again, as any game's decision in flight."""
    if not archive.exists():
        return 0
    db = sqlite3.connect(archive)
    try:
        query = "SELECT count(*) FROM runs WHERE status != 'completed'"
        return int(db.execute(query).fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()


def write_experiment(directory: Path, games: int, horizon: int, url: str) -> Path:
    experiment = directory / "exp.toml"
    experiment.write_text(
        EXPERIMENT.format(archive=directory / "a.sqlite", games=games, horizon=horizon, url=url)
    )
    return experiment


def trial(
    directory: Path,
    delay: float,
    games: int,
    horizon: int,
    endpoint: Endpoint,
    reference: dict[tuple[str, int], str],
) -> dict[str, object]:
    archive = directory / "a.sqlite"
    experiment = write_experiment(directory, games, horizon, endpoint.url)
    mark = uuid.uuid4().hex
    calls_before = endpoint.calls
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
    interrupted = interrupted_games(archive)
    rerun = bounded("sweep", str(experiment), "--workers", "2")
    counts = cell_counts(archive) if rerun.returncode == 0 else {}
    check = integrity(archive) if archive.exists() else "missing"
    stuck = (
        rerun.returncode != 0 or check != "ok" or counts != {"state": games, "transcript": games}
    )
    played = games_played(archive) if archive.exists() else {}
    calls = endpoint.calls - calls_before
    return {
        "delay_s": round(delay, 3),
        "killed": killed,
        "completed_before_rerun": completed_before,
        "interrupted_games": interrupted,
        "orphans": len(orphans),
        "duplicates": duplicates(archive) if archive.exists() else 0,
        "rerun_status": rerun.returncode,
        "rerun_error": rerun.stderr.strip().splitlines()[-1:] if rerun.returncode else [],
        "integrity": check,
        "cell_games": counts,
        "stuck": stuck,
        "endpoint_calls": calls,
        "re_asked": calls - 2 * games * horizon,
        "different_games": sum(played.get(key) != value for key, value in reference.items()),
    }


def reference_sweep(
    games: int, horizon: int, endpoint: Endpoint
) -> tuple[float, dict[tuple[str, int], str]]:
    """A sweep never killed: how long it takes, and its games."""
    with tempfile.TemporaryDirectory(prefix="bounded-kills-") as tmp:
        experiment = write_experiment(Path(tmp), games, horizon, endpoint.url)
        started = time.perf_counter()
        done = bounded("sweep", str(experiment), "--workers", "2")
        if done.returncode != 0:
            raise SystemExit(f"the reference sweep failed: {done.stderr.strip()[-500:]}")
        return time.perf_counter() - started, games_played(Path(tmp) / "a.sqlite")


def total(rows: list[dict[str, object]], key: str) -> int:
    return sum(int(row[key]) for row in rows)  # type: ignore[call-overload]


def run_trials(
    trials: int,
    *,
    games: int = 2,
    horizon: int = 150,
    seed: int = 0,
    span: float = 1.0,
    start: float = 0.0,
) -> dict[str, object]:
    endpoint = counting_endpoint()
    try:
        whole, reference = reference_sweep(games, horizon, endpoint)
        rng = random.Random(seed)
        rows = []
        for _ in range(trials):
            delay = rng.uniform(start * whole, span * whole)
            with tempfile.TemporaryDirectory(prefix="bounded-kills-") as tmp:
                rows.append(trial(Path(tmp), delay, games, horizon, endpoint, reference))
    finally:
        endpoint.close()
    killed = [r for r in rows if r["killed"]]
    before = [int(r["completed_before_rerun"]) for r in killed]  # type: ignore[call-overload]
    return {
        "command": (
            f"python bench/kill_trials.py --trials {trials} --games {games} "
            f"--horizon {horizon} --from {start} --span {span} --seed {seed}"
        ),
        "trials": trials,
        "games_per_cell": games,
        "decisions_per_game": horizon,
        "whole_sweep_s": round(whole, 2),
        "killed": len(killed),
        "killed_before_any_game": sum(n == 0 for n in before),
        "killed_mid_sweep": sum(0 < n < 2 * games for n in before),
        "killed_after_every_game": sum(n == 2 * games for n in before),
        "interrupted_games": total(rows, "interrupted_games"),
        "re_asked_decisions": total(rows, "re_asked"),
        "trials_re_asking_more_than_their_interrupted_games": sum(
            int(r["re_asked"]) > int(r["interrupted_games"])  # type: ignore[call-overload]
            for r in rows
        ),
        "orphans": total(rows, "orphans"),
        "duplicates": total(rows, "duplicates"),
        "stuck_archives": sum(bool(r["stuck"]) for r in rows),
        "different_games": total(rows, "different_games"),
        "rows": rows,
    }


def running_players(archive: Path) -> list[tuple[str, int, int]]:
    """(run id, decisions, pid of the process its checkpoint names) of each running game."""
    if not archive.exists():
        return []
    db = sqlite3.connect(archive, timeout=5)
    try:
        rows = db.execute(
            "SELECT r.run_id, r.decisions, c.owner FROM runs r "
            "JOIN checkpoints c ON c.run_id = r.run_id WHERE r.status = 'running'"
        ).fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        db.close()
    return [(run_id, n, int(owner.split(":")[1])) for run_id, n, owner in rows if owner]


def kill_players(
    archive: Path, driver: subprocess.Popen[bytes], at: int, timeout: float
) -> list[int]:
    """While the sweep runs, SIGKILL the worker playing each game once the game has `at`
    decisions (each game once); returns the decision counts the kills landed at."""
    killed: dict[str, int] = {}
    deadline = time.monotonic() + timeout
    while driver.poll() is None and time.monotonic() < deadline:
        for run_id, decisions, pid in running_players(archive):
            if run_id in killed or decisions < at:
                continue
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
            killed[run_id] = decisions
        time.sleep(0.02)
    return list(killed.values())


def rows_running(archive: Path) -> int:
    db = sqlite3.connect(archive)
    try:
        return int(db.execute("SELECT count(*) FROM runs WHERE status = 'running'").fetchone()[0])
    finally:
        db.close()


def ray_trial(
    directory: Path,
    at: int,
    games: int,
    horizon: int,
    endpoint: Endpoint,
    reference: dict[tuple[str, int], str],
) -> dict[str, object]:
    """A Ray sweep whose workers are killed mid-game, then a rerun that must find nothing
    left to play."""
    archive = directory / "a.sqlite"
    experiment = write_experiment(directory, games, horizon, endpoint.url)
    mark = uuid.uuid4().hex
    calls_before = endpoint.calls
    command = ["sweep", str(experiment), "--executor", "ray", "--workers", "2"]
    driver = subprocess.Popen(
        [sys.executable, "-m", "bounded.cli", *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, TRIAL_VARIABLE: mark},
    )
    kills = kill_players(archive, driver, at, timeout=600)
    _, stderr = driver.communicate(timeout=120)
    calls = endpoint.calls - calls_before
    time.sleep(2.0)
    orphans = processes_of(driver.pid, mark)
    for pid in orphans:
        os.kill(pid, signal.SIGKILL)
    row: dict[str, object] = {
        "kill_at_decision": at,
        "killed_at": kills,
        "interrupted_games": len(kills),
        "sweep_status": driver.returncode,
        "sweep_error": stderr.decode().strip().splitlines()[-1:] if driver.returncode else [],
        "orphans": len(orphans),
        "endpoint_calls": calls,
        "re_asked": calls - 2 * games * horizon,
        **checked(archive, games, reference),
    }
    row["stuck"] = bool(row["stuck"]) or driver.returncode != 0
    return row


def run_ray_trials(
    trials: int,
    *,
    games: int = 1,
    horizon: int = 40,
    seed: int = 0,
    span: float = 0.9,
    start: float = 0.1,
) -> dict[str, object]:
    endpoint = counting_endpoint()
    try:
        _, reference = reference_sweep(games, horizon, endpoint)
        rng = random.Random(seed)
        rows = []
        for _ in range(trials):
            at = rng.randint(max(1, int(start * horizon)), max(1, int(span * horizon)))
            with tempfile.TemporaryDirectory(prefix="bounded-ray-kills-") as tmp:
                rows.append(ray_trial(Path(tmp), at, games, horizon, endpoint, reference))
    finally:
        endpoint.close()
    return {
        "command": (
            f"python bench/kill_trials.py --ray --trials {trials} --games {games} "
            f"--horizon {horizon} --from {start} --span {span} --seed {seed}"
        ),
        "trials": trials,
        "games_per_cell": games,
        "decisions_per_game": horizon,
        "workers_killed": total(rows, "interrupted_games"),
        "interrupted_games": total(rows, "interrupted_games"),
        "re_asked_decisions": total(rows, "re_asked"),
        "trials_re_asking_more_than_their_interrupted_games": sum(
            int(r["re_asked"]) > int(r["interrupted_games"])  # type: ignore[call-overload]
            for r in rows
        ),
        "sweeps_failed": sum(r["sweep_status"] != 0 for r in rows),
        "running_rows_left": total(rows, "running_rows"),
        "orphans": total(rows, "orphans"),
        "duplicates": total(rows, "duplicates"),
        "stuck_archives": sum(bool(r["stuck"]) for r in rows),
        "different_games": total(rows, "different_games"),
        "rows": rows,
    }


def alive(pids: list[int]) -> list[int]:
    parents = process_parents()
    return [pid for pid in pids if pid in parents]


def until_decisions(archive: Path, driver: subprocess.Popen[bytes], at: int) -> bool:
    """Wait until a game of the sweep has `at` decisions (False: the sweep ended first)."""
    deadline = time.monotonic() + 600
    while driver.poll() is None and time.monotonic() < deadline:
        if any(n >= at for _, n, _ in running_players(archive)):
            return True
        time.sleep(0.02)
    return False


def lose_node(
    archive: Path, driver: subprocess.Popen[bytes], cluster: LocalCluster, node: RayNode, at: int
) -> list[int]:
    """Once a game played on `node` has `at` decisions, SIGKILL the whole node; returns
    the decision counts of the games it was playing then (none: it never came to that)."""
    deadline = time.monotonic() + 600
    while driver.poll() is None and time.monotonic() < deadline:
        on_node = set(node.processes())
        playing = [n for _, n, pid in running_players(archive) if pid in on_node]
        if any(n >= at for n in playing):
            cluster.kill(node)
            return playing
        time.sleep(0.05)
    return []


def cluster_sweep(experiment: Path, cluster: LocalCluster) -> subprocess.Popen[bytes]:
    command = ["sweep", str(experiment), "--executor", "ray", "--workers", "2"]
    return subprocess.Popen(
        [sys.executable, "-m", "bounded.cli", *command, "--address", cluster.address],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=cluster.environment(),
    )


def checked(archive: Path, games: int, reference: dict[tuple[str, int], str]) -> dict[str, object]:
    """What every trial checks once its sweep (and the rerun) ended; `stuck` says whether
    a plain rerun would find anything left to play or any cell short."""
    rerun = bounded("sweep", str(archive.parent / "exp.toml"))
    counts = cell_counts(archive) if rerun.returncode == 0 else {}
    check = integrity(archive) if archive.exists() else "missing"
    nothing_left = " 0 played now" in rerun.stderr + rerun.stdout
    played = games_played(archive) if archive.exists() else {}
    return {
        "rerun_found_nothing_to_play": nothing_left,
        "running_rows": rows_running(archive) if archive.exists() else 0,
        "duplicates": duplicates(archive) if archive.exists() else 0,
        "integrity": check,
        "cell_games": counts,
        "stuck": not nothing_left
        or check != "ok"
        or counts != {"state": games, "transcript": games},
        "different_games": sum(played.get(key) != value for key, value in reference.items()),
    }


def node_trial(
    directory: Path,
    cluster: LocalCluster,
    at: int,
    games: int,
    horizon: int,
    endpoint: Endpoint,
    reference: dict[tuple[str, int], str],
) -> dict[str, object]:
    """A sweep on the cluster whose worker node (a fresh one) is lost mid-game; the
    sweep must finish on the head by itself."""
    node = cluster.add_node()
    archive = directory / "a.sqlite"
    experiment = write_experiment(directory, games, horizon, endpoint.url)
    calls_before = endpoint.calls
    driver = cluster_sweep(experiment, cluster)
    playing = lose_node(archive, driver, cluster, node, at)
    _, stderr = driver.communicate(timeout=600)
    calls = endpoint.calls - calls_before
    if playing:
        left_alive = node.processes()  # a lost node's processes the kernel did not end
    else:  # never lost: its game ended first, or it played none
        cluster.kill(node)
        left_alive = []
    row: dict[str, object] = {
        "kill_at_decision": at,
        "node_lost": bool(playing),
        "lost_at": playing,
        "interrupted_games": len(playing),
        "sweep_status": driver.returncode,
        "sweep_error": stderr.decode().strip().splitlines()[-1:] if driver.returncode else [],
        "orphans": len(left_alive),
        "endpoint_calls": calls,
        "re_asked": calls - 2 * games * horizon,
        **checked(archive, games, reference),
    }
    row["stuck"] = bool(row["stuck"]) or driver.returncode != 0
    return row


def driver_trial(
    directory: Path,
    cluster: LocalCluster,
    at: int,
    games: int,
    horizon: int,
    endpoint: Endpoint,
    reference: dict[tuple[str, int], str],
) -> dict[str, object]:
    """A sweep on the cluster whose driver is SIGKILLed once a game has `at` decisions,
    then the same sweep again on the same cluster."""
    archive = directory / "a.sqlite"
    experiment = write_experiment(directory, games, horizon, endpoint.url)
    calls_before = endpoint.calls
    driver = cluster_sweep(experiment, cluster)
    killed = until_decisions(archive, driver, at)
    players = [pid for _, _, pid in running_players(archive)]
    if killed:
        os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    deadline = time.monotonic() + 30  # Ray ends a dead driver's workers on its own
    while alive(players) and time.monotonic() < deadline:
        time.sleep(0.2)
    orphans = alive(players)
    for pid in orphans:
        os.kill(pid, signal.SIGKILL)
    interrupted = interrupted_games(archive)
    command = ["sweep", str(experiment), "--executor", "ray", "--workers", "2"]
    again = bounded(*command, "--address", cluster.address, env=cluster.environment())
    calls = endpoint.calls - calls_before
    row: dict[str, object] = {
        "kill_at_decision": at,
        "killed": killed,
        "interrupted_games": interrupted,
        "orphans": len(orphans),
        "rerun_status": again.returncode,
        "rerun_error": again.stderr.strip().splitlines()[-1:] if again.returncode else [],
        "endpoint_calls": calls,
        "re_asked": calls - 2 * games * horizon,
        **checked(archive, games, reference),
    }
    row["stuck"] = bool(row["stuck"]) or again.returncode != 0
    return row


CLUSTER_TRIALS = {"node": node_trial, "driver": driver_trial}


def run_cluster_trials(
    kind: str,
    trials: int,
    *,
    games: int = 1,
    horizon: int = 40,
    seed: int = 0,
    span: float = 0.9,
    start: float = 0.1,
    latency_s: float = 0.0,
) -> dict[str, object]:
    """`kind` node: each trial loses a worker node of a two-node cluster; driver: each
    kills the driver of a sweep on a cluster. One cluster (token authentication on) for
    all the trials, started apart from the sweeps as `ray start` would. `latency_s` slows
    every call of the trials (not the reference sweep's): a dead driver's workers, which
    Ray ends within a second or so, may otherwise finish their games first, and on a
    loaded machine a game may end before the node playing it is lost."""
    endpoint = counting_endpoint()
    rows = []
    started = time.perf_counter()
    try:
        _, reference = reference_sweep(games, horizon, endpoint)
        endpoint.latency_s = latency_s
        rng = random.Random(seed)
        with LocalCluster(token=new_token()) as cluster:
            cluster.start_head(num_cpus=1 if kind == "node" else 2)
            for _ in range(trials):
                at = rng.randint(max(1, int(start * horizon)), max(1, int(span * horizon)))
                with tempfile.TemporaryDirectory(prefix=f"bounded-{kind}-kills-") as tmp:
                    play = CLUSTER_TRIALS[kind]
                    rows.append(play(Path(tmp), cluster, at, games, horizon, endpoint, reference))
    finally:
        endpoint.close()
    return {
        "command": (
            f"python bench/kill_trials.py --cluster {kind} --trials {trials} --games {games} "
            f"--horizon {horizon} --from {start} --span {span} --seed {seed}"
        ),
        "trials": trials,
        "games_per_cell": games,
        "decisions_per_game": horizon,
        "load_average": Path("/proc/loadavg").read_text().split()[:3],
        "seconds": round(time.perf_counter() - started, 1),
        "kills": sum(bool(r.get("node_lost", r.get("killed"))) for r in rows),
        "interrupted_games": total(rows, "interrupted_games"),
        "re_asked_decisions": total(rows, "re_asked"),
        "most_re_asked_in_a_trial": max((int(str(r["re_asked"])) for r in rows), default=0),
        "trials_re_asking_more_than_their_interrupted_games": sum(
            int(str(r["re_asked"])) > int(str(r["interrupted_games"])) for r in rows
        ),
        "running_rows_left": total(rows, "running_rows"),
        "orphans": total(rows, "orphans"),
        "duplicates": total(rows, "duplicates"),
        "stuck_archives": sum(bool(r["stuck"]) for r in rows),
        "different_games": total(rows, "different_games"),
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--games", type=int, default=2, help="games per cell")
    parser.add_argument("--horizon", type=int, default=150, help="warehouse events per game")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--from", dest="start", type=float, default=0.0,
        help="kill delays from FROM times a whole sweep",
    )  # fmt: skip
    parser.add_argument(
        "--span", type=float, default=1.0, help="kill delays up to SPAN times a whole sweep"
    )
    parser.add_argument(
        "--ray", action="store_true", help="kill Ray workers mid-game instead of the driver"
    )
    parser.add_argument(
        "--cluster", choices=sorted(CLUSTER_TRIALS),
        help="on a Ray cluster started apart: lose its worker node, or kill the driver",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    started_at = provenance()
    sizes = {"games": args.games, "horizon": args.horizon, "seed": args.seed}
    sizes |= {"span": args.span, "start": args.start}
    if args.cluster:
        result = run_cluster_trials(args.cluster, args.trials, **sizes)
        args.out = args.out or CLUSTER_RESULTS[args.cluster]
    else:
        result = (run_ray_trials if args.ray else run_trials)(args.trials, **sizes)
    args.out = args.out or (RAY_RESULTS if args.ray else RESULTS)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, result, started_at)
    summary = {k: v for k, v in result.items() if k != "rows"}
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
