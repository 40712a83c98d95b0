"""Benchmark: a game's peak memory against its length, per contract.

Each game is played in a fresh Python process of its own (so one game's peak is not
another's), with the scripted model (`scripted:minimal`: every reply the minimal instance
of its reply schema), into a fresh SQLite archive as a sweep would play it (each decision
committed with its run row and checkpoint). The process reports its peak resident set
(`VmHWM`, the high-water mark of its own address space: `ru_maxrss` would report the
driver's resident set instead, which a child inherits through fork and keeps across exec),
its resident set once the game is built and before its first decision, and the decisions
it played. A bounded contract's peak must not grow with the game: the bar is
the peak at 100,000 decisions within 25 MB of the peak at 1,000 (`growth_mb`, against the
smallest size), and for NetHack within 50 MB. `transcript` resends every earlier turn by
design: its memory and its time per decision grow with the game, so it is played only up
to `--transcript-max` decisions.

    python bench/memory_scaling.py [--sizes 1000 10000 100000]
        [--contracts state,typed,summary,episodic,transcript] [--transcript-max 10000]
        [--nethack-sizes 1000 10000] [--nethack-contract state] [--jobs 1]

Warehouse games have `horizon` = size events; a NetHack game (`bounded/NetHack-v0`, the
first legal action each turn as `scripted:minimal` picks it, `max_steps` = size) runs until
it ends or reaches its size. Writes bench/results/memory_scaling.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results" / "memory_scaling.json"
CONTRACTS = ("state", "typed", "summary", "episodic", "transcript")
GROWS = ("transcript",)
"""Contracts whose memory grows with the game by design."""
WAREHOUSE_BAR_MB = 25.0
NETHACK_BAR_MB = 50.0


def resident_mb(field: str = "VmRSS") -> float:
    """This process's resident set now (VmRSS) or its peak (VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def play_one(env: str, contract: str, size: int) -> dict[str, Any]:
    """Play one game in this process and report its memory (the child's work)."""
    from bounded.archive import Archive
    from bounded.runner.build import build_game, runner_for
    from bounded.runner.spec import GameSpec

    options = {"horizon": size} if env == "warehouse" else {"max_steps": size}
    spec = GameSpec(
        env=env, env_options=options, contract=contract, model="scripted:minimal",
        max_decisions=size,
    )  # fmt: skip
    game = build_game(spec)
    built_mb = resident_mb()
    wall, cpu = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory() as folder, Archive(Path(folder) / "a.sqlite") as archive:
        try:
            run = runner_for(game, archive=archive).execute()
        finally:
            game.env.close()
    return {
        "decisions": run.decisions,
        "status": run.status,
        "built_rss_mb": round(built_mb, 1),
        "peak_rss_mb": round(resident_mb("VmHWM"), 1),
        "wall_s": round(time.perf_counter() - wall, 1),
        "cpu_s": round(time.process_time() - cpu, 1),
    }


def measure(env: str, contract: str, size: int) -> dict[str, Any]:
    """One game in a fresh process."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", env, contract, str(size)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"{env}/{contract} at {size} failed: {done.stderr[-2000:]}")
    row: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    row["size"] = size
    row["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return row


def series(rows: list[dict[str, Any]], smallest: int, bar_mb: float | None) -> dict[str, Any]:
    """One game's rows by size, and the growth of each peak over the smallest size's (once
    that game is played)."""
    rows = sorted(rows, key=lambda row: row["size"])
    result: dict[str, Any] = {"rows": rows}
    if rows[0]["size"] != smallest:
        return result
    first = rows[0]["peak_rss_mb"]
    for row in rows:
        row["growth_mb"] = round(row["peak_rss_mb"] - first, 1)
    if bar_mb is not None:
        result["bar_mb"] = bar_mb
        result["within_bar"] = all(row["growth_mb"] <= bar_mb for row in rows)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--contracts", default=",".join(CONTRACTS))
    parser.add_argument("--transcript-max", type=int, default=10_000)
    parser.add_argument(
        "--nethack-sizes", type=int, nargs="*", default=[1_000, 10_000],
        help="decision limits of the NetHack games (none: no NetHack)",
    )  # fmt: skip
    parser.add_argument("--nethack-contract", default="state")
    parser.add_argument(
        "--jobs", type=int, default=1,
        help="games played at once, each in its own process (a peak is one process's)",
    )  # fmt: skip
    parser.add_argument(
        "--child", nargs=3, metavar=("ENV", "CONTRACT", "SIZE"), help=argparse.SUPPRESS
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.child:
        env, contract, size = args.child
        print(json.dumps(play_one(env, contract, int(size))))
        return
    sizes = sorted(args.sizes)
    from bounded.analysis.provenance import provenance

    result: dict[str, Any] = {
        "provenance": provenance(),
        "command": " ".join(["python", "bench/memory_scaling.py", *sys.argv[1:]]),
        "machine": f"{platform.machine()} {os.cpu_count()} cores",
        "python": platform.python_version(),
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
        "games": {},
    }
    games: dict[tuple[str, str], tuple[list[int], float | None]] = {}
    for contract in filter(None, args.contracts.split(",")):
        grows = contract in GROWS
        played = [s for s in sizes if not grows or s <= args.transcript_max] or sizes[:1]
        games["warehouse", contract] = (played, None if grows else WAREHOUSE_BAR_MB)
    if args.nethack_sizes:
        games["nethack", args.nethack_contract] = (sorted(args.nethack_sizes), NETHACK_BAR_MB)
    plays = [(env, contract, size) for (env, contract), (sizes_, _) in games.items()
             for size in sizes_]  # fmt: skip
    plays.sort(key=lambda play: play[2])  # the shortest first: a run stopped early has them
    rows: dict[tuple[str, str], list[dict[str, Any]]] = {game: [] for game in games}

    lock = threading.Lock()

    def one(play: tuple[str, str, int]) -> None:
        env, contract, size = play
        row = measure(env, contract, size)
        with lock:
            rows[env, contract].append(row)
            print(f"{env}/{contract}: {json.dumps(row)}", flush=True)
            write(args.out, result, games, rows, finished=False)

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(one, plays))
    write(args.out, result, games, rows, finished=True)
    print(f"wrote {args.out}")


def write(
    out: Path,
    result: dict[str, Any],
    games: dict[tuple[str, str], tuple[list[int], float | None]],
    rows: dict[tuple[str, str], list[dict[str, Any]]],
    *,
    finished: bool,
) -> None:
    """The results so far (after every game, so that a run stopped early keeps them)."""
    result["games"] = {
        f"{env}/{contract}": series(rows[env, contract], min(sizes), bar)
        for (env, contract), (sizes, bar) in games.items()
        if rows[env, contract]
    }
    result["finished"] = finished
    from bounded.analysis.provenance import write_result

    measured = {key: value for key, value in result.items() if key != "provenance"}
    write_result(out, measured, result["provenance"])


if __name__ == "__main__":
    main()
