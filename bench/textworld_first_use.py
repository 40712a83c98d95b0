"""The first-use cost of BALROG's TextWorld games: seconds from an empty game cache to the
first observation of an episode (what its first decision waits for: TextWorld generating
and compiling the game), and again once the game is cached, per task and seed.

    python bench/textworld_first_use.py --out bench/results/textworld_first_use.json

Each (task, seed) starts from its own empty cache folder; a generation that fails or runs
past `--timeout` is recorded, not fatal. The load average is recorded before and after:
on a shared machine the seconds are an upper bound.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import bounded.envs.textworld.games as textworld_games
from bounded.analysis.provenance import provenance, write_result
from bounded.envs import make
from bounded.envs.textworld import CHALLENGES

RESULTS = Path(__file__).parent / "results" / "textworld_first_use.json"


def first_observation_s(task: str, seed: int, games_dir: Path, settings: Any) -> float:
    """Seconds to build the environment and reset it to `seed` (the first observation)."""
    started = time.perf_counter()
    env = make("textworld", task=task, games_dir=str(games_dir), settings=settings)
    try:
        env.reset(seed=seed)
    finally:
        env.close()
    return time.perf_counter() - started


def measure(task: str, seed: int, settings: Any) -> dict[str, Any]:
    """The cold (empty cache) and warm (cached game) seconds of one episode's start."""
    row: dict[str, Any] = {"task": task, "seed": seed}
    with tempfile.TemporaryDirectory() as folder:
        games_dir = Path(folder)
        try:
            row["cold_s"] = round(first_observation_s(task, seed, games_dir, settings), 2)
            row["warm_s"] = round(first_observation_s(task, seed, games_dir, settings), 2)
        except Exception as exc:  # a game that does not generate is a finding, not a crash
            row["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        sizes = [p.stat().st_size for p in games_dir.rglob("*") if p.is_file()]
        row["cached_bytes"] = sum(sizes)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=list(CHALLENGES), choices=CHALLENGES)
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--settings", type=json.loads, default=None,
                        help="TextWorld settings replacing BALROG's (JSON)")  # fmt: skip
    parser.add_argument("--timeout", type=int, default=textworld_games.GENERATION_TIMEOUT_S,
                        help="Seconds one generation may take.")  # fmt: skip
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    textworld_games.GENERATION_TIMEOUT_S = args.timeout
    started_at = provenance(note="generation times under the load recorded: upper bounds")
    rows = []
    for task in args.tasks:
        for seed in args.seeds:
            rows.append(measure(task, seed, args.settings))
            print(json.dumps(rows[-1]), flush=True)
    report = {
        "rows": rows,
        "settings": args.settings,
        "timeout_s": args.timeout,
    }
    write_result(args.out, report, started_at)


if __name__ == "__main__":
    main()
