"""How soon the first TextWorld game at bounded's own presentation starts on a fresh
machine: seconds from starting a fresh Python process with an empty home (no games
cache) to the first observation of a generated game (bounded's presentation, the
default), per task and seed, then again with the cache the first process left.

    python bench/textworld_first_game.py --out bench/results/textworld_first_game.json

A game shipped with bounded (`bounded.envs.textworld.shipped`) is unpacked into the cache;
any other is generated (`--seeds` may name one that is not shipped, to measure that too;
`--timeout` bounds it). Each row says which. Each (task, seed) gets its own empty `HOME`
(and no `XDG_CACHE_HOME` or `BOUNDED_TEXTWORLD_GAMES`); the child reports its import,
build and reset seconds, and the parent the child's CPU seconds. The load average is
recorded before and after: on a shared machine the seconds are an upper bound.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.envs.textworld.games import game_path, game_settings
from bounded.envs.textworld.shipped import SHIPPED_ARCHIVE, member_name, shipped_names

RESULTS = Path(__file__).parent / "results" / "textworld_first_game.json"
TASKS = ("treasure_hunter", "the_cooking_game", "coin_collector")
TARGET_S = 10

CHILD = """
import json, sys, time
started = time.perf_counter()
from bounded.envs import make
imported = time.perf_counter()
env = make("textworld", task=sys.argv[1])
built = time.perf_counter()
obs, _ = env.reset(seed=int(sys.argv[2]))
ready = time.perf_counter()
print(json.dumps({"import_s": imported - started, "make_s": built - imported,
                  "reset_s": ready - built, "presentation": env.presentation,
                  "legal_actions": len(obs.legal), "text_chars": len(obs.text)}))
"""


def child_environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("XDG_CACHE_HOME", "BOUNDED_TEXTWORLD_GAMES")}  # fmt: skip
    env["HOME"] = str(home)
    return env


def fresh_run(task: str, seed: int, home: Path, timeout: float) -> dict[str, Any]:
    """One child process with `home` as its home: wall seconds to its first observation,
    and the CPU seconds it spent (user + system): on a shared machine the CPU seconds say
    what an idle one would take better than the wall."""
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, task, str(seed)], env=child_environment(home),
            capture_output=True, text=True, check=True, timeout=timeout,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"error": f"no first observation within {timeout:.0f} s"}
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    child = json.loads(done.stdout.strip().splitlines()[-1])
    rounded = {k: round(v, 3) if isinstance(v, float) else v for k, v in child.items()}
    return {"first_observation_s": round(wall, 2), "cpu_s": round(cpu, 2), **rounded}


def shipped(task: str, seed: int) -> bool:
    path = game_path(task, seed, game_settings(task, None), Path("cache"))
    return member_name(path) in shipped_names()


def measure(task: str, seed: int, timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        cold = fresh_run(task, seed, home, timeout)
        warm = fresh_run(task, seed, home, timeout) if "error" not in cold else {}
    return {"task": task, "seed": seed, "shipped": shipped(task, seed), "cold": cold,
            "warm": warm}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    parser.add_argument("--seeds", nargs="+", type=int, default=[1])
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance(note="seconds under the load recorded: upper bounds")
    rows = []
    for task in args.tasks:
        for seed in args.seeds:
            rows.append(measure(task, seed, args.timeout))
            print(json.dumps(rows[-1]), flush=True)
    report = {
        "rows": rows, "target_s": TARGET_S, "shipped_games": len(shipped_names()),
        "archive_bytes": SHIPPED_ARCHIVE.stat().st_size if SHIPPED_ARCHIVE.exists() else 0,
    }  # fmt: skip
    write_result(args.out, report, started_at)


if __name__ == "__main__":
    main()
