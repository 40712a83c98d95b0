"""How soon BALROG's TextWorld games are ready on a fresh machine: seconds from starting a
fresh Python process with an empty home (no games cache) to the first observation of a
BALROG TextWorld episode (what its first decision waits for), again with the cache the
first run left, and from a fresh process with an empty home to the first decision of a
`balrog-naive` game with a scripted reply (all but the model's own time).

    python bench/textworld_balrog_pool.py --out bench/results/textworld_balrog_pool.json

Each task's first run gets its own empty `HOME` (and no `XDG_CACHE_HOME` or
`BOUNDED_TEXTWORLD_GAMES`), so it unpacks the shipped pool itself; the child reports its
import, build and reset seconds. The load average is recorded before and after: on a
shared machine the seconds are an upper bound.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.envs.textworld.pool import POOL_ARCHIVE

RESULTS = Path(__file__).parent / "results" / "textworld_balrog_pool.json"
TASKS = ("treasure_hunter", "the_cooking_game", "coin_collector")

CHILD = """
import json, sys, time
started = time.perf_counter()
from bounded.envs import make
imported = time.perf_counter()
env = make("textworld", task=sys.argv[1], presentation=sys.argv[2], pool="balrog")
built = time.perf_counter()
obs, _ = env.reset(seed=int(sys.argv[3]))
ready = time.perf_counter()
env.step(env.default_action())
stepped = time.perf_counter()
print(json.dumps({"import_s": imported - started, "make_s": built - imported,
                  "reset_s": ready - built, "first_step_s": stepped - ready,
                  "text_chars": len(obs.text)}))
"""


DECIDING_CHILD = """
import json, sys, time
started = time.perf_counter()
from bounded import GameSpec, play
from bounded.models.scripted import ScriptedModel
spec = GameSpec(env="textworld", env_options={"task": sys.argv[1]}, contract="balrog-naive",
                seed=int(sys.argv[2]), max_decisions=1)
run = play(spec, model=ScriptedModel(["look"], cycle=True))
decided = time.perf_counter()
print(json.dumps({"first_decision_s": decided - started, "decisions": run.decisions,
                  "presentation": run.spec["env_options"]["presentation"]}))
"""
"""A `balrog-naive` game (BALROG's presentation, by the preset) to its first decision, with
a scripted reply: what a model's first decision waits for besides the model itself."""


def child_environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("XDG_CACHE_HOME", "BOUNDED_TEXTWORLD_GAMES")}  # fmt: skip
    env["HOME"] = str(home)
    return env


def first_decision(task: str, seed: int, home: Path) -> dict[str, Any]:
    """A child process with `home` as its home: wall seconds to its game's first decision."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", DECIDING_CHILD, task, str(seed)],
        env=child_environment(home), capture_output=True, text=True, check=True,
    )  # fmt: skip
    wall = time.perf_counter() - started
    child = json.loads(done.stdout.strip().splitlines()[-1])
    return {"process_to_first_decision_s": round(wall, 2), **child}


def fresh_run(task: str, presentation: str, seed: int, home: Path) -> dict[str, Any]:
    """One child process with `home` as its home: wall seconds to its first observation."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, task, presentation, str(seed)],
        env=child_environment(home), capture_output=True, text=True, check=True,
    )  # fmt: skip
    wall = time.perf_counter() - started
    child = json.loads(done.stdout.strip().splitlines()[-1])
    first = wall - child["first_step_s"]  # the child's start to its first observation
    rounded = {k: round(v, 3) if isinstance(v, float) else v for k, v in child.items()}
    return {"first_observation_s": round(first, 2), **rounded}


def measure(task: str, presentation: str, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        cold = fresh_run(task, presentation, seed, home)
        cache = home / ".cache" / "bounded" / "textworld"
        unpacked = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file())
        warm = fresh_run(task, presentation, seed, home)
    with tempfile.TemporaryDirectory() as folder:
        decision = first_decision(task, seed, Path(folder))
    return {"task": task, "presentation": presentation, "seed": seed, "cold": cold,
            "warm": warm, "unpacked_bytes": unpacked, "cold_decision": decision}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    parser.add_argument("--presentation", default="balrog", choices=("balrog", "bounded"),
                        help="either plays BALROG's pool")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance(note="seconds under the load recorded: upper bounds")
    rows = []
    for task in args.tasks:
        rows.append(measure(task, args.presentation, args.seed))
        print(json.dumps(rows[-1]), flush=True)
    report = {"rows": rows, "archive_bytes": POOL_ARCHIVE.stat().st_size, "target_s": 10}
    write_result(args.out, report, started_at)


if __name__ == "__main__":
    main()
