"""Calibration of `bounded/NetHack-v0` and `bounded/BabyAI-v0` with their scripted players.

Usage: python bench/balrog_calibration.py [--nethack-seeds 10] [--steps 1000] [--babyai-seeds 20]
       [--out PATH]
Writes bench/results/balrog_calibration.json (or `--out`) and prints two tables: the explore-and-
descend NetHack player per seed (BALROG progression, deepest level, experience level,
score, game turns, how it ended, decisions per second), and minigrid's BabyAI bot's
success rate per BALROG task.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.envs import make
from bounded.envs.babyai import TASKS, BabyAIEnv, BabyAIExpert
from bounded.envs.nethack import NetHackExpert

RESULTS = Path(__file__).parent / "results" / "balrog_calibration.json"


def play(env: Any, expert: Any, seed: int) -> dict[str, Any]:
    obs, _ = env.reset(seed=seed)
    started = time.perf_counter()
    done = False
    while not done:
        obs, _, terminated, truncated, _ = env.step(expert.act(obs))
        done = terminated or truncated
    metrics = env.metrics() | {"seconds": time.perf_counter() - started}
    env.close()
    return metrics


def nethack_rows(seeds: int, steps: int) -> list[dict[str, Any]]:
    rows = []
    for seed in range(seeds):
        metrics = play(make("nethack", max_steps=steps), NetHackExpert(seed), seed)
        rows.append({"seed": seed} | metrics)
        print(
            f"{seed:>4}  {metrics['progression']:.4f}  {metrics['max_depth']:>5}  "
            f"{metrics['max_experience_level']:>3}  {metrics['score']:>6}  {metrics['turns']:>6}  "
            f"{metrics['steps'] / metrics['seconds']:>7.0f}  "
            f"{metrics['ended_by']} {metrics['cause']}",
            flush=True,
        )
    return rows


def babyai_rows(seeds: int) -> dict[str, float]:
    rates = {}
    for task in TASKS:
        wins = 0
        for seed in range(seeds):
            env = make("babyai", level=task)
            assert isinstance(env, BabyAIEnv)
            wins += bool(play(env, BabyAIExpert(env), seed)["victory"])
        rates[task] = wins / seeds
        print(f"{task:<18} {wins}/{seeds}", flush=True)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nethack-seeds", type=int, default=10)
    parser.add_argument("--steps", type=int, default=1_000)
    parser.add_argument("--babyai-seeds", type=int, default=20)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance()
    print("seed  progression  depth  xl   score   turns  dec/s  ended by")
    nethack = nethack_rows(args.nethack_seeds, args.steps)
    mean = sum(r["progression"] for r in nethack) / len(nethack)
    print(f"mean progression {mean:.4f} ({100 * mean:.2f}%)")
    babyai = babyai_rows(args.babyai_seeds)
    result = {"args": {**vars(args), "out": str(args.out)}, "nethack": nethack, "babyai": babyai}
    write_result(args.out, result, started_at)


if __name__ == "__main__":
    main()
