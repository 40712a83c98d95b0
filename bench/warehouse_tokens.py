"""Benchmark: prompt tokens and accuracy on the warehouse stream, `transcript` vs `state`.

Runs T in {5, 10, 20, 30, 60} under both contracts on the same seeds with one model
(default: the embedded local model), side by side in one process, and writes
bench/results/warehouse_tokens.json. A benchmark, not a test: it asserts nothing, it
measures and reports, including the acceptance ratios of the core-runtime issue.

    .venv/bin/python bench/warehouse_tokens.py [--model local] [--seeds 1,2] [--horizons 5,60]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

from rich.console import Console

from bounded.analysis.provenance import provenance, write_result
from bounded.jobs.demo import DEMO_CONTRACTS, DemoRow, demo_table, run_warehouse
from bounded.models import make_model

RESULTS = Path(__file__).parent / "results" / "warehouse_tokens.json"


def summarise(rows: list[DemoRow], horizons: list[int]) -> dict[str, float]:
    def mean(contract: str, horizon: int, field: str) -> float:
        values = [
            getattr(r, field) for r in rows if r.contract == contract and r.horizon == horizon
        ]
        return statistics.fmean(values)

    first, last = horizons[0], horizons[-1]
    state_last = [mean("state", h, "last_prompt_tokens") for h in horizons]
    return {
        "state_last_prompt_spread": (max(state_last) - min(state_last)) / min(state_last),
        "transcript_last_prompt_growth": mean("transcript", last, "last_prompt_tokens")
        / mean("transcript", first, "last_prompt_tokens"),
        "cumulative_ratio_at_max_T": mean("transcript", last, "prompt_tokens")
        / mean("state", last, "prompt_tokens"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--seeds", default="1", help="comma-separated seeds")
    parser.add_argument("--horizons", default="5,10,20,30,60")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance()
    horizons = [int(h) for h in args.horizons.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    console = Console()
    llm = make_model(args.model, base_url=args.base_url)
    rows = []
    started = time.perf_counter()
    for seed in seeds:
        for horizon in horizons:
            for contract in DEMO_CONTRACTS:
                row = run_warehouse(llm, contract, horizon, seed=seed, tag="bench")
                console.print(
                    f"seed {seed} T={horizon:<3} {contract:<10} acc {row.accuracy:.2f} "
                    f"total {row.prompt_tokens:>6} last {row.last_prompt_tokens:>5} "
                    f"{row.seconds:.1f}s"
                )
                rows.append(row)
    console.print(demo_table(rows))
    summary = summarise(rows, horizons)
    for key, value in summary.items():
        console.print(f"{key}: {value:.2f}")
    result = {
        "benchmark": "warehouse_tokens",
        "model": llm.id,
        "seeds": seeds,
        "horizons": horizons,
        "machine": {"python": platform.python_version(), "cpu": platform.processor()},
        "seconds": time.perf_counter() - started,
        "summary": summary,
        "rows": [r.model_dump(exclude={"run_id"}) for r in rows],
    }
    write_result(args.out, result, started_at)
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
