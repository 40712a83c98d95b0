"""How close `bounded sweep --dry-run`'s estimate comes to what the sweep then uses.

For each of the README's example sweeps (`experiments/*.toml`, `--files`), made small:
every model replaced by the schema-filling scripted model (`scripted:minimal`, which
plays without a model server), `--games` games per cell (phases: one), the archive in a
temporary directory. The dry run's estimate per cell (model calls, prompt tokens) is set
against the calls and prompt tokens the sweep's games then recorded. A cell that could
not be estimated before its phase was frozen (it reads the phase's store) is counted
apart. Writes bench/results/sweep_estimates.json.

    python bench/sweep_estimates.py
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.archive import Archive
from bounded.sweeps.experiment import parse_experiment
from bounded.sweeps.sweep import dry_run, run_sweep

RESULTS = Path(__file__).parent / "results" / "sweep_estimates.json"
ROOT = Path(__file__).parents[1]
FILES = ("warehouse_contracts.toml", "warehouse_replication.toml", "spire_a0_act1.toml")


def small(data: dict[str, Any], archive: Path, games: int) -> dict[str, Any]:
    """The experiment with scripted models, `games` games per cell and its archive moved."""
    data["experiment"]["archive"] = str(archive)
    data["experiment"].pop("stores", None)
    entries: list[dict[str, Any]] = [
        data.get("defaults", {}),
        *data.get("cells", []),
        *data.get("phases", []),
    ]
    for entry in entries:
        if "model" in entry or entry is data.get("defaults"):
            entry["model"] = "scripted:minimal"
        entry.pop("models", None)
        entry.pop("model_options", None)
        entry.pop("base_url", None)
    for entry in [data.get("defaults", {}), *data.get("cells", [])]:
        if "seeds" in entry or "games" in entry or entry is data.get("defaults"):
            entry.pop("seeds", None)
            entry["games"] = games
    for phase in data.get("phases", []):
        phase.pop("seeds", None)
        phase["games"] = 1
    return data


def measure(name: str, games: int) -> dict[str, Any]:
    data = tomllib.loads((ROOT / "experiments" / name).read_text())
    with tempfile.TemporaryDirectory(prefix="bounded-estimates-") as tmp:
        archive = Path(tmp) / "a.sqlite"
        experiment = parse_experiment(small(data, archive, games))
        started = time.perf_counter()
        state = dry_run(experiment, archive)
        dry_s = time.perf_counter() - started
        if state.problems:
            return {"file": name, "problems": state.problems}
        run_sweep(experiment, archive_path=archive)
        with Archive(archive, read_only=True) as store:
            runs = store.runs(experiment=experiment.name, status="completed")
    rows = []
    for cell in state.estimates:
        played = [run for run in runs if run.cell == cell.cell]
        row: dict[str, Any] = {"cell": cell.name, "games": len(played)}
        if cell.error is not None:
            row["not_estimated"] = cell.error[:160]
        else:
            for key, measured in (
                ("calls", sum(r.model_calls for r in played)),
                ("prompt_tokens", sum(r.prompt_tokens for r in played)),
            ):
                estimated = cell.total(key)
                row[key] = {
                    "estimated": round(estimated),
                    "measured": measured,
                    "error": round(estimated / measured - 1, 4) if measured else None,
                }
        rows.append(row)
    estimated_rows = [row for row in rows if "calls" in row]

    def total(key: str, which: str) -> float:
        return sum(row[key][which] for row in estimated_rows)

    return {
        "file": name,
        "dry_run_s": round(dry_s, 2),
        "cells": len(rows),
        "cells_not_estimated": len(rows) - len(estimated_rows),
        "total_calls_error": round(total("calls", "estimated") / total("calls", "measured") - 1, 4),
        "total_prompt_tokens_error": round(
            total("prompt_tokens", "estimated") / total("prompt_tokens", "measured") - 1, 4
        ),
        "largest_cell_error": max(
            (
                abs(row[key]["error"])
                for row in estimated_rows
                for key in ("calls", "prompt_tokens")
            ),
            default=None,
        ),
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", nargs="*", default=list(FILES))
    parser.add_argument("--games", type=int, default=2, help="games per cell")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance(
        "estimate", "the dry run's estimates against the games' measured calls and tokens"
    )
    result: dict[str, Any] = {
        "command": f"python bench/sweep_estimates.py --games {args.games}",
        "sweeps": [measure(name, args.games) for name in args.files],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, result, started_at)
    for sweep in result["sweeps"]:
        print(json.dumps({k: v for k, v in sweep.items() if k != "rows"}))


if __name__ == "__main__":
    main()
