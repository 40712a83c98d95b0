"""Throughput of `bounded/Spire-v0` on one core: full three-act runs with the expert
(decisions/s, runs/s), and a fuzz pass of random games.

Usage: python bench/spire_throughput.py [--runs 200] [--random-games 10000] [--ascension 0]
Writes bench/results/spire_throughput.json and prints a table. A decision is one `step()`
call (a combat plan counts once, as one model call would); the time includes building
every observation (state, text, legal actions) and the player's choice. Decisions per
CPU-second are reported beside wall-clock rates, for machines shared with other work.
The goal from the issue is at least twice the ~2,100 decisions/s that
`decapitate-the-spire` reaches with greedy play (Act 1 only) on this machine kind.
When that package is importable (`pip install decapitate-the-spire`; GPLv3, so not a
dependency of this project) the same process also plays `--decapitate-games` Act 1 games
with it, greedy, for a side-by-side number; `random.shuffle` gets back the second argument
Python 3.11 removed, for that part only.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import platform
import random
import time
from collections.abc import Callable, Iterator, MutableSequence
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
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


@contextlib.contextmanager
def shuffle_with_random_argument() -> Iterator[None]:
    """`random.shuffle(x, random)` as before Python 3.11, which `decapitate-the-spire` calls."""
    original = random.shuffle

    def shuffle(x: MutableSequence[Any], random_: Callable[[], float] | None = None) -> None:
        if random_ is None:
            original(x)
            return
        for i in reversed(range(1, len(x))):
            j = int(random_() * (i + 1))
            x[i], x[j] = x[j], x[i]

    random.shuffle = shuffle
    try:
        yield
    finally:
        random.shuffle = original


def run_decapitate(games: int) -> dict[str, Any] | None:
    """Greedy Act 1 games of `decapitate-the-spire`: the first legal card or potion play
    (its action mask's rows after row 0, "end turn"), else the first legal action; None when
    the package is not installed. It draws from the global `random`, seeded per game."""
    try:
        dg = importlib.import_module("decapitate_the_spire.game")
    except ImportError:
        return None
    logging.getLogger("dts").setLevel(logging.CRITICAL)
    decisions = wins = 0
    state = random.getstate()
    started = time.perf_counter()
    cpu_started = time.process_time()
    with shuffle_with_random_argument():
        for seed in range(games):
            random.seed(seed)
            game = dg.Game(lambda ctx: dg.TheSilent(ctx, 70, 3), create_dungeon=dg.Exordium)
            terminal = False
            while not terminal:
                mask = game.generate_action_mask()
                valid = [(i, j) for i, row in enumerate(mask) for j, ok in enumerate(row) if ok]
                action = next((a for a in valid if a[0] > 0), valid[0])
                _, terminal, _ = game.step(action)
                decisions += 1
            wins += bool(game.game_over_and_won)
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    random.setstate(state)
    return {
        "runs": games,
        "wins": wins,
        "decisions": decisions,
        "actions": decisions,
        "wall_s": wall,
        "decisions_per_s": decisions / wall,
        "actions_per_s": decisions / wall,
        "runs_per_s": games / wall,
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
    parser.add_argument(
        "--decapitate-games",
        type=int,
        default=200,
        help="greedy Act 1 games of decapitate-the-spire, when it is installed (0: none)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance()
    pinning = pin_one_core()
    expert = run_games(lambda seed: SpireExpert(), range(args.runs), args.ascension)
    random_ = run_games(RandomPlayer, range(args.random_games), args.ascension)
    decapitate = run_decapitate(args.decapitate_games) if args.decapitate_games else None
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
        "decapitate_the_spire": decapitate,
        "reference_decisions_per_s": REFERENCE_DECISIONS_PER_S,
        "goal_decisions_per_s": 2 * REFERENCE_DECISIONS_PER_S,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, report, started_at)
    header = ("player", "runs", "wins", "decisions", "dec/s", "dec/cpu-s", "actions/s", "runs/s")
    print("{:8} {:>6} {:>5} {:>10} {:>8} {:>9} {:>10} {:>7}".format(*header))
    rows = [("expert", expert), ("random", random_)]
    if decapitate is not None:
        rows.append(("dts", decapitate))
    for name, r in rows:
        print(
            f"{name:8} {r['runs']:>6} {r['wins']:>5} {r['decisions']:>10} "
            f"{r['decisions_per_s']:>8.0f} {r['decisions_per_cpu_s']:>9.0f} "
            f"{r['actions_per_s']:>10.0f} {r['runs_per_s']:>7.2f}"
        )
    goal = report["goal_decisions_per_s"]
    if decapitate is None and args.decapitate_games:
        print("decapitate-the-spire is not installed: no side-by-side run (dts)")
    print(f"goal: {goal} decisions/s with the expert; {pinning}; wrote {args.out}")


if __name__ == "__main__":
    main()
