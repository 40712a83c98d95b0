"""Sweep throughput against an endpoint that answers in a fixed time: wall time against
the ideal, CPU per decision and peak memory, at 1 to 256 games in flight.

An OpenAI-compatible chat endpoint on 127.0.0.1 (a process of its own, threads, one
reply every `--latency` seconds per request, whatever the load) serves sweeps of the
warehouse (`state` contract, `--decisions` decisions a game). Each row is one `bounded
sweep` command of N games, all in flight at once: `--workers W --concurrency N/W` (the
default; one game: neither), and, for comparison, the driver's process alone (`--workers 1
--concurrency N`, `--one-process`) and worker processes alone (`--workers N`, the only way
before `--concurrency`, `--baseline`). The ideal wall time is a game's decisions times
the latency (every game in flight from the start); CPU is the sweep's processes' user
and system time (the endpoint's excluded) over the decisions it played. Peak resident
sets are each process's high-water mark (VmHWM), read from /proc while the sweep runs:
the driver's, and the largest and median of its worker processes'.

Also measured: a worker's start-up when the driver is the `bounded` command (spawn
re-runs the command's entry script in every worker unless told not to), as wall and CPU
seconds per worker started (`--startup-src` names another source tree to compare).

Writes bench/results/sweep_throughput.json.

    python bench/sweep_throughput.py
    python bench/sweep_throughput.py --games 32 --decisions 50 --no-baseline   # quick
    python bench/sweep_throughput.py --games 1 128 256 --one-process 128 256 --no-baseline \
        --decisions 50 --out bench/results/sweep_throughput_scale.json   # many in flight
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

from bounded.analysis.provenance import provenance, write_result

RESULTS = Path(__file__).parent / "results" / "sweep_throughput.json"
SOURCE = Path(__file__).parents[1] / "src"

ARGS = {"occupied": 0, "shipped": 0}
REPLY = json.dumps({"reasoning": "", "state_patch": {}, "action": {"id": "report", "args": ARGS}})

EXPERIMENT = """\
[experiment]
name = "throughput"
archive = "{archive}"

[defaults]
env = "warehouse"
model = "openai:bench"
base_url = "{url}"
games = {games}
env_options = {{ horizon = {decisions} }}

[[cells]]
tag = "state"
contract = "state"
"""

STARTUP_PROBE = """\
import sys
from bounded.cli import main
if __name__ == "__main__":
    import json, multiprocessing, os, resource, time
    from bounded.sweeps.worker_start import worker_boot
    from bounded.sweeps.executors import start_worker

    context = multiprocessing.get_context("spawn")
    rows = []
    for _ in range(int(sys.argv[1])):
        with worker_boot(context):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            process = context.Process(target=start_worker, args=({{}}, os.getpid()))
            process.start()
            process.join()
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        rows.append({{"wall_s": wall, "cpu_s": cpu, "exit": process.exitcode}})
    print(json.dumps(rows))
"""


class Endpoint:
    """The fixed-latency endpoint, in a process of its own."""

    def __init__(self, latency_s: float) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bounded.testing.endpoint",
                "--latency",
                str(latency_s),
                "--content",
                REPLY,
            ],
            stdout=subprocess.PIPE,
            text=True,
            env=environment(SOURCE),
        )
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()

    def close(self) -> None:
        self.process.terminate()
        self.process.wait()


def bounded_command() -> list[str]:
    """The `bounded` console script beside this Python (what a user runs), else `-c`."""
    script = Path(sys.executable).with_name("bounded")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from bounded.cli import main; main()"]


def environment(source: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(source)}


def sweep_row(
    url: str, games: int, decisions: int, workers: int, concurrency: int, latency_s: float
) -> dict[str, object]:
    """One sweep of `games` games on a fresh archive: wall, CPU, and the ideal."""
    folder = Path(tempfile.mkdtemp(prefix="bounded-throughput-"))
    try:
        archive = folder / "a.sqlite"
        path = folder / "exp.toml"
        path.write_text(EXPERIMENT.format(archive=archive, url=url, games=games,
                                          decisions=decisions))  # fmt: skip
        options = ["--workers", str(workers)]
        if concurrency > 1:
            options += ["--concurrency", str(concurrency)]
        started = time.perf_counter()
        log = folder / "stderr.log"
        with log.open("wb") as errors:  # a file, not a pipe: 256 games' lines fill a pipe
            process = subprocess.Popen(
                [*bounded_command(), "sweep", str(path), *options],
                stdout=subprocess.DEVNULL,
                stderr=errors,
                env=environment(SOURCE),
            )
            memory = PeakMemory(process.pid)
            _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        peaks = memory.stop()
        process.returncode = os.waitstatus_to_exitcode(status)
        stderr = log.read_text(errors="replace")
        if process.returncode != 0:
            raise SystemExit(f"sweep failed ({process.returncode}): {stderr[-2000:]}")
        played = decisions_played(archive)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    ideal = decisions * latency_s
    cpu = usage.ru_utime + usage.ru_stime
    return {
        "games": games,
        "workers": workers,
        "concurrency": concurrency,
        "decisions": played,
        "wall_s": round(wall, 2),
        "ideal_s": round(ideal, 2),
        "ratio": round(wall / ideal, 3),
        "cpu_s": round(cpu, 2),
        "cpu_ms_per_decision": round(1000 * cpu / max(played, 1), 2),
        **peaks,
    }


class PeakMemory:
    """The peak resident set (VmHWM) of a process and each of its descendants, read from
    /proc every `interval` seconds while it runs (a process's high-water mark, so a read
    between two samples misses nothing but a process that ends between them)."""

    def __init__(self, pid: int, interval: float = 0.25) -> None:
        self.pid, self.interval = pid, interval
        self.peaks: dict[int, tuple[str, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.is_set():
            for pid in [self.pid, *descendants(self.pid)]:
                peak = high_water_mb(pid)
                if peak is not None:
                    role = "driver" if pid == self.pid else process_role(pid)
                    self.peaks[pid] = (role, max(peak, self.peaks.get(pid, ("", 0.0))[1]))
            self._stop.wait(self.interval)

    def stop(self) -> dict[str, object]:
        """The driver's peak and the workers' (each a process of the sweep's pool), MB."""
        self._stop.set()
        self._thread.join()
        workers = sorted(mb for role, mb in self.peaks.values() if role == "worker")
        driver = [mb for role, mb in self.peaks.values() if role == "driver"]
        return {
            "driver_peak_rss_mb": round(max(driver, default=0.0), 1),
            "workers_seen": len(workers),
            "worker_peak_rss_mb_max": round(workers[-1], 1) if workers else None,
            "worker_peak_rss_mb_median": round(workers[len(workers) // 2], 1) if workers else None,
        }


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid` (from /proc/*/stat's parent field)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def high_water_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def process_role(pid: int) -> str:
    """`worker` for a pool process (multiprocessing's spawn entry), else `other` (its
    resource tracker)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return "other"
    return "worker" if b"spawn_main" in command else "other"


def decisions_played(archive: Path) -> int:
    import sqlite3

    with sqlite3.connect(archive) as db:
        (count,) = db.execute("SELECT COUNT(*) FROM decisions").fetchone()
    return int(count)


def startup(source: Path, workers: int) -> dict[str, float]:
    """Median wall and CPU seconds to start one sweep worker, the driver being the
    `bounded` command's entry script (a copy of it, so that its workers re-run it)."""
    folder = Path(tempfile.mkdtemp(prefix="bounded-startup-"))
    try:
        probe = folder / "bounded"
        probe.write_text(STARTUP_PROBE.format())
        done = subprocess.run(
            [sys.executable, str(probe), str(workers)],
            capture_output=True,
            text=True,
            env=environment(source),
            check=True,
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    assert all(row["exit"] == 0 for row in rows), rows
    walls = sorted(row["wall_s"] for row in rows)
    cpus = sorted(row["cpu_s"] for row in rows)
    return {
        "workers_started": len(rows),
        "median_wall_s": round(walls[len(walls) // 2], 3),
        "median_cpu_s": round(cpus[len(cpus) // 2], 3),
    }


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[1, 8, 16, 32, 64])
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--workers", type=int, default=2, help="processes of the rows")
    parser.add_argument(
        "--baseline", type=int, nargs="*", default=[8, 32],
        help="game counts also swept with worker processes alone (--workers N)",
    )  # fmt: skip
    parser.add_argument("--no-baseline", dest="baseline", action="store_const", const=[])
    parser.add_argument(
        "--one-process", type=int, nargs="*", default=[32],
        help="game counts also swept from the driver's process alone (--workers 1)",
    )  # fmt: skip
    parser.add_argument("--startup-workers", type=int, default=5)
    parser.add_argument(
        "--startup-src", type=Path, default=None,
        help="another source tree whose worker start-up to measure beside this one",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance()

    result: dict[str, object] = {
        "command": " ".join(["python", "bench/sweep_throughput.py", *sys.argv[1:]]),
        "machine": f"{platform.machine()} {os.cpu_count()} cores",
        "python": platform.python_version(),
        "latency_s": args.latency,
        "decisions_per_game": args.decisions,
        "load_average_before": load_average(),
    }
    result["startup"] = {"this": startup(SOURCE, args.startup_workers)}
    if args.startup_src is not None:
        result["startup"]["other"] = {  # type: ignore[index]
            "source": str(args.startup_src),
            **startup(args.startup_src, args.startup_workers),
        }
    print(json.dumps(result["startup"]), flush=True)
    endpoint = Endpoint(args.latency)
    rows = []
    try:
        plans = []
        for games in args.games:
            workers = 1 if games == 1 else min(args.workers, games)
            plans.append((games, workers, -(-games // workers)))
        plans += [(games, 1, games) for games in args.one_process]
        plans += [(games, games, 1) for games in args.baseline]
        for games, workers, concurrency in plans:
            row = sweep_row(endpoint.url, games, args.decisions, workers, concurrency,
                            args.latency)  # fmt: skip
            row["load_average"] = load_average()
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        endpoint.close()
    result["rows"] = rows
    write_result(args.out, result, started_at)
    print(textwrap.indent(f"wrote {args.out}", ""))


if __name__ == "__main__":
    main()
