"""The workbench suite under a model: every task, both contracts, both turn modes.

Usage: python bench/workbench_suite.py [--model local] [--tasks all] [--contracts state,transcript]
       [--modes multi,single] [--max-turns 25] [--max-tokens 512] [--out PATH]
`--model expert` plays the reference solutions (a check of the loop and the oracles).
Writes bench/results/workbench_<model>.json (one row per episode, with the settings) and
prints one table per contract and turn mode, like the replication's.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.jobs.scripted_players import expert_model
from bounded.jobs.workbench import SuiteRow, format_table, run_suite
from bounded.models import make_model
from bounded.protocols import Model

RESULTS = Path(__file__).parent / "results"


def model_source(spec: str) -> Any:
    if spec == "expert":
        return lambda task: expert_model(task, "good")
    return make_model(spec)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local", help="model spec, or `expert`")
    parser.add_argument("--base-url", default=None, help="for openai:MODEL")
    parser.add_argument("--tasks", default="all")
    parser.add_argument("--contracts", default="state,transcript")
    parser.add_argument("--modes", default="multi,single")
    parser.add_argument("--max-turns", type=int, default=25)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument(
        "--out", type=Path, default=None, help="default: results/workbench_<model>.json"
    )
    args = parser.parse_args()
    started_at = provenance()
    if args.out is None:
        args.out = RESULTS / f"workbench_{args.model.replace(':', '_').replace('/', '_')}.json"
    source: Model | Any = (
        make_model(args.model, base_url=args.base_url)
        if args.model.startswith("openai:")
        else model_source(args.model)
    )
    cells: list[dict[str, Any]] = []
    started = time.perf_counter()
    for contract in args.contracts.split(","):
        for mode in args.modes.split(","):
            rows: list[SuiteRow] = run_suite(
                source,
                tasks=args.tasks,
                contract=contract,
                multi_action=mode == "multi",
                max_turns=args.max_turns,
                max_tokens=args.max_tokens,
                on_row=lambda row: print(row.model_dump_json(), flush=True),
            )
            print(f"\n{contract}, {mode}-action turns:\n{format_table(rows)}\n", flush=True)
            cells.append(
                {
                    "contract": contract,
                    "mode": mode,
                    "passed": sum(r.outcome == "pass" for r in rows),
                    "tasks": len(rows),
                    "rows": [r.model_dump() for r in rows],
                }
            )
            write(args, cells, time.perf_counter() - started, started_at)


def write(
    args: argparse.Namespace,
    cells: list[dict[str, Any]],
    seconds: float,
    started_at: dict[str, Any],
) -> None:
    args.out.parent.mkdir(parents=True, exist_ok=True)
    settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    payload = {"settings": settings, "wall_s": round(seconds, 1), "cells": cells}
    write_result(args.out, payload, started_at)


if __name__ == "__main__":
    main()
