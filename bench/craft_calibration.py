"""Calibration of `bounded/Craft-v0`: the expert's win rate per AI level and style.

Usage: python bench/craft_calibration.py [--games 20] [--levels 3-8] [--build gateway]
                                        [--map crossroads] [--jobs 1]
Writes bench/results/craft_calibration.json and prints a table (win rate per level x style).
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.envs.craft import STYLES, CraftEnv, CraftExpert

RESULTS = Path(__file__).parent / "results" / "craft_calibration.json"


def play(level: int, style: str, seed: int, build: str, map_name: str) -> dict[str, Any]:
    env = CraftEnv(level=level, style=style, map=map_name)
    expert = CraftExpert(build)
    obs, _ = env.reset(seed=seed)
    done = False
    while not done:
        obs, _, terminated, truncated, _ = env.step(expert.act(obs))
        done = terminated or truncated
    return env.metrics()


def play_cell(level: int, style: str, games: int, build: str, map_name: str) -> dict[str, Any]:
    results = [play(level, style, seed, build, map_name) for seed in range(games)]
    wins = sum(g["victory"] for g in results)
    return {
        "level": level,
        "style": style,
        "games": len(results),
        "wins": wins,
        "win_rate": wins / len(results),
        "timeouts": sum(g["outcome"] == "timeout" for g in results),
        "mean_game_time": sum(g["game_time"] for g in results) / len(results),
        "mean_pbr": sum(g["pbr"] for g in results) / len(results),
        "mean_rur": sum(g["rur"] for g in results) / len(results),
        "mean_apu": sum(g["apu"] for g in results) / len(results),
        "mean_tr": sum(g["tr"] for g in results) / len(results),
    }


def parse_levels(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per level and style")
    parser.add_argument("--levels", default="3-8", help="level range, e.g. 3-8")
    parser.add_argument("--build", default="gateway", help="expert build: gateway or robo")
    parser.add_argument("--map", default="crossroads", help="map name")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (one per cell)")
    args = parser.parse_args()
    started_at = provenance()
    levels = parse_levels(args.levels)
    grid = [(level, style) for level in levels for style in STYLES]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [
            pool.submit(play_cell, level, style, args.games, args.build, args.map)
            for level, style in grid
        ]
        cells = [f.result() for f in futures]
    result = {
        "benchmark": "craft_calibration",
        "build": args.build,
        "map": args.map,
        "games_per_cell": args.games,
        "seeds": f"0..{args.games - 1}",
        "wall_s": time.perf_counter() - started,
        "cells": cells,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, result, started_at)
    print(f"expert ({args.build}) win rate, {args.games} games per cell, map {args.map}")
    print("level " + " ".join(f"{s:>7}" for s in STYLES) + "     all")
    for level in levels:
        row = [c for c in cells if c["level"] == level]
        rates = " ".join(f"{c['win_rate']:7.2f}" for c in row)
        total = sum(c["wins"] for c in row) / sum(c["games"] for c in row)
        print(f"{level:5d} {rates} {total:7.2f}")


if __name__ == "__main__":
    main()
