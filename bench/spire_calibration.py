"""Calibration of `bounded/Spire-v0`: expert and random win rates at Ascension 0, 5 and 10.

Usage: python bench/spire_calibration.py [--seeds 200] [--ascensions 0,5,10] [--workers 1]
Writes bench/results/spire_calibration.json and prints a table (one row per player and
ascension: win rate with a Wilson 95% interval, mean floor, mean score, bosses beaten).
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.envs.spire import RandomPlayer, SpireEnv, SpireExpert
from bounded.runner.build import play_expert

RESULTS = Path(__file__).parent / "results" / "spire_calibration.json"


def play(job: tuple[str, int, int]) -> dict[str, Any]:
    player_name, ascension, seed = job
    player = SpireExpert() if player_name == "expert" else RandomPlayer(seed)
    env = SpireEnv(ascension=ascension)
    play_expert(env, player, seed=seed)
    return env.metrics()


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def summarize(player: str, ascension: int, games: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(games)
    wins = sum(g["victory"] for g in games)
    low, high = wilson(wins, n)
    return {
        "player": player,
        "ascension": ascension,
        "games": n,
        "wins": wins,
        "win_rate": wins / n,
        "win_rate_ci95": [low, high],
        "mean_floor": sum(g["floor"] for g in games) / n,
        "mean_score": sum(g["score"] for g in games) / n,
        "mean_bosses_beaten": sum(g["bosses_beaten"] for g in games) / n,
        "mean_decisions": sum(g["decisions"] for g in games) / n,
        "deaths_by_act": {
            str(a): sum(1 for g in games if g["dead"] and g["act"] == a) for a in (1, 2, 3, 4)
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200, help="seeds per player and ascension")
    parser.add_argument("--ascensions", default="0,5,10", help="comma-separated ascension levels")
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance()
    ascensions = [int(a) for a in args.ascensions.split(",")]
    started = time.perf_counter()
    cells = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for player in ("expert", "random"):
            for ascension in ascensions:
                jobs = [(player, ascension, seed) for seed in range(args.seeds)]
                games = list(pool.map(play, jobs, chunksize=8))
                cells.append(summarize(player, ascension, games))
    report = {"seeds": args.seeds, "wall_s": time.perf_counter() - started, "cells": cells}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, report, started_at)
    header = ("player", "asc", "games", "win rate", "95% CI", "floor", "score", "bosses")
    print("{:8} {:>3} {:>5} {:>9} {:>15} {:>6} {:>6} {:>6}".format(*header))
    for c in cells:
        low, high = c["win_rate_ci95"]
        print(
            f"{c['player']:8} {c['ascension']:>3} {c['games']:>5} {c['win_rate']:>9.1%} "
            f"{f'[{low:.1%}, {high:.1%}]':>15} {c['mean_floor']:>6.1f} {c['mean_score']:>6.1f} "
            f"{c['mean_bosses_beaten']:>6.2f}"
        )
    print(f"wrote {args.out} in {report['wall_s']:.0f}s")


if __name__ == "__main__":
    main()
