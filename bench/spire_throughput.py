"""Throughput of `bounded/Spire-v0` on one core: full three-act runs with the expert
(decisions/s, runs/s), and a fuzz pass of random games.

Usage: python bench/spire_throughput.py [--runs 200] [--random-games 10000] [--ascension 0]
Writes bench/results/spire_throughput.json and prints a table. A decision is one `step()`
call (a combat plan counts once, as one model call would); the time includes building
every observation (state, text, legal actions) and the player's choice. Decisions per
CPU-second are reported beside wall-clock rates, for machines shared with other work.
The goal from the issue is at least twice the ~2,100 decisions/s that
`decapitate-the-spire` reaches with greedy play (Act 1 only) on this machine kind;
that package is not run here (it needs a patched `random.shuffle` on Python 3.11),
so its number is a reference, not a measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

from bounded.envs.spire import RandomPlayer, SpireEnv, SpireExpert

RESULTS = Path(__file__).parent / "results" / "spire_throughput.json"
REFERENCE_DECISIONS_PER_S = 2100
"""decapitate-the-spire, greedy play, Act 1 only (the issue's figure)."""


def run_games(make_player: Any, seeds: range, ascension: int) -> dict[str, Any]:
    env = SpireEnv(ascension=ascension)
    decisions = actions = wins = 0
    started = time.perf_counter()
    cpu_started = time.process_time()
    for seed in seeds:
        player = make_player(seed)
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(player.act(obs))
            actions += info["executed"]
            done = terminated or truncated
        decisions += env.decisions
        wins += env.metrics()["victory"]
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    return {
        "runs": len(seeds),
        "wins": wins,
        "decisions": decisions,
        "actions": actions,
        "wall_s": wall,
        "decisions_per_s": decisions / wall,
        "actions_per_s": actions / wall,
        "runs_per_s": len(seeds) / wall,
        "cpu_s": cpu,
        "decisions_per_cpu_s": decisions / cpu,
    }


def pin_one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"pinned to core {core}"
    return "not pinned"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="expert runs (full games)")
    parser.add_argument("--random-games", type=int, default=10_000, help="random games (fuzz pass)")
    parser.add_argument("--ascension", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    pinning = pin_one_core()
    expert = run_games(lambda seed: SpireExpert(), range(args.runs), args.ascension)
    random_ = run_games(RandomPlayer, range(args.random_games), args.ascension)
    report = {
        "machine": {
            "python": platform.python_version(),
            "cpu": platform.processor(),
            "cores": pinning,
            "load_avg": os.getloadavg() if hasattr(os, "getloadavg") else None,
        },
        "ascension": args.ascension,
        "expert": expert,
        "random": random_,
        "reference_decisions_per_s": REFERENCE_DECISIONS_PER_S,
        "goal_decisions_per_s": 2 * REFERENCE_DECISIONS_PER_S,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    header = ("player", "runs", "wins", "decisions", "dec/s", "dec/cpu-s", "actions/s", "runs/s")
    print("{:8} {:>6} {:>5} {:>10} {:>8} {:>9} {:>10} {:>7}".format(*header))
    for name, r in (("expert", expert), ("random", random_)):
        print(
            f"{name:8} {r['runs']:>6} {r['wins']:>5} {r['decisions']:>10} "
            f"{r['decisions_per_s']:>8.0f} {r['decisions_per_cpu_s']:>9.0f} "
            f"{r['actions_per_s']:>10.0f} {r['runs_per_s']:>7.2f}"
        )
    goal = report["goal_decisions_per_s"]
    print(f"goal: {goal} decisions/s with the expert; {pinning}; wrote {args.out}")


if __name__ == "__main__":
    main()
