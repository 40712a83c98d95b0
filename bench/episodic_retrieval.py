"""Benchmark: EpicStar retrieval (Eq. 1-3) latency against bank size.

Synthetic banks shaped like a craft bank (games of ~918 decisions, one decision every
`--interval` game seconds, `--keys` numeric features per entry) from 4,592 entries
(the paper's bank) to 1,000,000. For each bank, random queries at times of the
decision grid are timed for several retrieval windows: t_delta = 0 (the paper's
default, an exact game-time match), a wider window, and a full scan (every entry is a
candidate: the worst case). Writes bench/results/episodic_retrieval.json and prints a
table.

    .venv/bin/python bench/episodic_retrieval.py            # the full sweep
    .venv/bin/python bench/episodic_retrieval.py --quick    # small sizes only
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from pathlib import Path

import numpy as np

from bounded.analysis.provenance import provenance, write_result
from bounded.contracts.episodic.bank import EpisodicBank, encode_actions
from bounded.core import Action

SIZES = (4_592, 10_000, 100_000, 1_000_000)
ENTRIES_PER_GAME = 918  # 4,592 entries over 5 games in the paper
ACTIONS = ("TRAIN PROBE", "BUILD PYLON", "TRAIN ZEALOT", "EMPTY ACTION", "RESEARCH CHARGE")


def synthetic_bank(size: int, keys: int, interval: float, seed: int) -> EpisodicBank:
    """A bank of `size` entries, built straight into columns (no per-entry objects)."""
    rng = np.random.default_rng(seed)
    steps = np.arange(size, dtype=np.int32) % ENTRIES_PER_GAME
    games = (np.arange(size) // ENTRIES_PER_GAME).astype(np.int32)
    times = steps.astype(np.float64) * interval
    order = np.lexsort((steps, games, times))
    values = rng.integers(0, 24, size=(size, keys), dtype=np.int32).astype(np.float32)
    labels = np.array([encode_actions([Action(id=a)]) for a in ACTIONS], dtype=np.str_)
    actions = labels[rng.integers(0, len(ACTIONS), size=size)]
    return EpisodicBank(
        keys=tuple(f"k{i:03d}" for i in range(keys)),
        times=times[order],
        values=values[order],
        actions=actions[order],
        games=games[order],
        steps=steps[order],
    )


def time_queries(
    bank: EpisodicBank, queries: int, t_delta: float, interval: float, seed: int
) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    keys = bank.keys
    latencies = []
    candidates = []
    for _ in range(queries):
        t = float(rng.integers(0, ENTRIES_PER_GAME)) * interval
        features = dict(zip(keys, rng.integers(0, 24, size=len(keys)).tolist(), strict=True))
        window = bank.window(t, t_delta)
        started = time.perf_counter()
        hits = bank.retrieve(features, t, t_delta=t_delta, n=3, alpha=0.5, beta=0.5)
        latencies.append(time.perf_counter() - started)
        candidates.append(window.stop - window.start)
        assert len(hits) == min(3, candidates[-1])
    ms = np.array(latencies) * 1000
    return {
        "queries": queries,
        "candidates_mean": float(np.mean(candidates)),
        "p50_ms": float(np.percentile(ms, 50)),
        "p95_ms": float(np.percentile(ms, 95)),
        "mean_ms": float(ms.mean()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes up to 100,000 only")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="bank sizes")
    parser.add_argument("--keys", type=int, default=156, help="features per entry")
    parser.add_argument("--interval", type=float, default=5.0, help="game seconds per decision")
    parser.add_argument("--queries", type=int, default=500, help="queries per window")
    parser.add_argument("--wide", type=float, default=30.0, help="t_delta of the wide window")
    parser.add_argument("--out", default="bench/results/episodic_retrieval.json")
    args = parser.parse_args()
    started_at = provenance()

    sizes = [s for s in args.sizes if not args.quick or s <= 100_000]
    windows = {"t_delta=0": 0.0, f"t_delta={args.wide:g}": args.wide, "full scan": math.inf}
    rows = []
    for size in sizes:
        built = time.perf_counter()
        bank = synthetic_bank(size, args.keys, args.interval, seed=size)
        build_s = time.perf_counter() - built
        for name, t_delta in windows.items():
            queries = args.queries if t_delta != math.inf else max(10, args.queries // 25)
            stats = time_queries(bank, queries, t_delta, args.interval, seed=size + 1)
            rows.append({"entries": size, "window": name, "build_s": build_s, **stats})
            print(
                f"{size:>9,} {name:>12} candidates {stats['candidates_mean']:>11,.0f}"
                f"  p50 {stats['p50_ms']:8.3f} ms  p95 {stats['p95_ms']:8.3f} ms"
            )
        del bank

    result = {
        "benchmark": "episodic_retrieval",
        "keys": args.keys,
        "interval_s": args.interval,
        "entries_per_game": ENTRIES_PER_GAME,
        "n": 3,
        "machine": {"python": platform.python_version(), "cpu": platform.processor()},
        "numpy": np.__version__,
        "rows": rows,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_result(out, result, started_at)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
