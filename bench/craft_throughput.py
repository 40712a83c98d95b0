"""Throughput of `bounded/Craft-v0`: full games per second with the expert.

Usage: python bench/craft_throughput.py [--games 10] [--level 5] [--style timing]
Writes bench/results/craft_throughput.json and prints a table. The goal (issue 5): a
20-minute game simulates in under a second of CPU.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.envs.craft import STYLES, CraftEnv, CraftExpert

RESULTS = Path(__file__).parent / "results" / "craft_throughput.json"


def timed_game(level: int, style: str, seed: int, time_limit: float) -> dict[str, Any]:
    env = CraftEnv(level=level, style=style, time_limit=time_limit)
    expert = CraftExpert()
    cpu = time.process_time()
    obs, _ = env.reset(seed=seed)
    done = False
    decisions = 0
    while not done:
        obs, _, terminated, truncated, _ = env.step(expert.act(obs))
        done = terminated or truncated
        decisions += 1
    cpu = time.process_time() - cpu
    metrics = env.metrics()
    return {
        "cpu_s": cpu,
        "game_s": metrics["game_time"],
        "decisions": decisions,
        "outcome": metrics["outcome"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per style")
    parser.add_argument("--level", type=int, default=5)
    parser.add_argument(
        "--time-limit", type=float, default=1200.0, help="game seconds (20 minutes)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance()
    rows = []
    for style in STYLES:
        games = [timed_game(args.level, style, seed, args.time_limit) for seed in range(args.games)]
        cpu = sum(g["cpu_s"] for g in games)
        game = sum(g["game_s"] for g in games)
        rows.append(
            {
                "style": style,
                "games": len(games),
                "cpu_s_per_game": cpu / len(games),
                "games_per_cpu_s": len(games) / cpu,
                "game_s_per_game": game / len(games),
                "cpu_s_per_20_game_min": cpu / game * 1200.0,
                "decisions_per_cpu_s": sum(g["decisions"] for g in games) / cpu,
            }
        )
    total_cpu = sum(r["cpu_s_per_game"] * r["games"] for r in rows)
    total_game = sum(r["game_s_per_game"] * r["games"] for r in rows)
    result = {
        "benchmark": "craft_throughput",
        "level": args.level,
        "time_limit": args.time_limit,
        "rows": rows,
        "cpu_s_per_20_game_min": total_cpu / total_game * 1200.0,
        "goal_cpu_s_per_20_game_min": 1.0,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, result, started_at)
    header = ("style", "games", "cpu s/game", "games/cpu s", "game min", "cpu s/20 min")
    print("{:8} {:>5} {:>10} {:>11} {:>8} {:>12}".format(*header))
    for r in rows:
        cells = (r["style"], r["games"], r["cpu_s_per_game"], r["games_per_cpu_s"])
        tail = (r["game_s_per_game"] / 60, r["cpu_s_per_20_game_min"])
        print("{:8} {:5d} {:10.3f} {:11.2f} {:8.1f} {:12.3f}".format(*cells, *tail))
    print(f"all: {result['cpu_s_per_20_game_min']:.3f} CPU s per 20 game minutes (goal < 1.0)")


if __name__ == "__main__":
    main()
