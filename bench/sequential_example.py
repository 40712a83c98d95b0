"""The scripted example of docs/planning.md, measured: does `bounded sweep --until-decided`
stop earlier than the fixed-size design that `bounded plan` gives?

Usage: python bench/sequential_example.py [--replicates 20] [--seeds 400]
       [--calibration 500] [--block 10]

1. **The truth.** Both players of `experiments/skill_example.toml` (the spire expert, and
   the expert slipping at 10% of its decisions) play `--calibration` seeds from 1,000,001
   on, in a sweep of their own: their win rates, the difference, the pairs' correlation.
2. **The fixed design.** `bounded plan`'s games per cell (Connor's formula) for the true
   difference at 80% power, level 0.05, from the calibration's rates and correlation: the
   fixed design planned with the truth known, the most favourable case for it.
3. **Stopping when decided.** `--replicates` copies of the file on disjoint seed ranges
   (`--seeds` each, from 1 on), each swept with `--until-decided expert slip` (aGRAPA
   confidence sequence, level 0.05, a look every `--block` seeds): where each stopped,
   whether it decided, and whether its final interval covers the true difference.

Writes bench/results/sequential_example.json (every replicate, the summary, the
command) and prints the summary.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bounded.analysis.games import completed_games
from bounded.analysis.paired import compare_paired
from bounded.analysis.plan import PlanAsked, plan_comparison
from bounded.analysis.provenance import provenance, write_result
from bounded.archive import Archive
from bounded.sweeps.experiment import load_experiment
from bounded.sweeps.sequential import Stopping, run_until_decided
from bounded.sweeps.sweep import run_sweep

ROOT = Path(__file__).parents[1]
EXAMPLE = ROOT / "experiments" / "skill_example.toml"
RESULTS = ROOT / "bench" / "results" / "sequential_example.json"
CALIBRATION_SEED = 1_000_001


def copy_of(directory: Path, name: str, first_seed: int, games: int) -> Path:
    """The example file on seeds first_seed .. first_seed + games - 1, archived apart."""
    text = EXAMPLE.read_text()
    text = text.replace(
        'archive = "runs/skill_example.sqlite"', f'archive = "{directory}/{name}.sqlite"'
    )
    text = text.replace("games = 400", f"games = {games}\nfirst_seed = {first_seed}")
    path = directory / f"{name}.toml"
    path.write_text(text)
    return path


def calibrate(directory: Path, games: int) -> dict[str, Any]:
    """Both players on the calibration seeds: the truth."""
    experiment = load_experiment(copy_of(directory, "calibration", CALIBRATION_SEED, games))
    run_sweep(experiment)
    with Archive(experiment.archive, read_only=True) as archive:
        played = completed_games(archive.runs())
    expert = [g for g in played if g.cell == "expert"]
    slip = [g for g in played if g.cell == "slip"]
    compared = compare_paired("expert", expert, "slip", slip)
    assert compared.wins is not None
    return {"games": games, "first_seed": CALIBRATION_SEED, "wins": compared.wins.model_dump()}


def replicate(directory: Path, index: int, seeds: int, block: int) -> dict[str, Any]:
    """One sweep stopped when decided, on its own seed range."""
    path = copy_of(directory, f"replicate-{index}", 1 + index * seeds, seeds)
    experiment = load_experiment(path)
    started = time.perf_counter()
    summary = run_until_decided(
        experiment,
        Stopping(a="expert", b="slip", block=block),
    )
    record = summary.record
    low, high = record.interval
    return {
        "replicate": index,
        "first_seed": 1 + index * seeds,
        "stopped_at": record.stopped_at,
        "reason": record.reason,
        "decided": record.reason == "decided",
        "low": low,
        "high": high,
        "games_played": summary.played,
        "wall_s": round(time.perf_counter() - started, 1),
    }


def summarise(
    truth: dict[str, Any], plan: dict[str, Any], runs: list[dict[str, Any]]
) -> dict[str, Any]:
    stops = [run["stopped_at"] for run in runs]
    difference = truth["wins"]["difference"]
    fixed = plan["games_per_cell"]
    decided = sum(run["decided"] for run in runs) / len(runs)
    return {
        "true_difference": difference,
        "fixed_games_per_cell": fixed,
        "fixed_exact_power": plan["predicted_power"],
        "sequential_mean_stop": statistics.mean(stops),
        "sequential_median_stop": statistics.median(stops),
        "sequential_min_stop": min(stops),
        "sequential_max_stop": max(stops),
        "sequential_decided": decided,
        "stopped_before_fixed": sum(stop < fixed for stop in stops) / len(stops),
        "intervals_covering_truth": sum(r["low"] <= difference <= r["high"] for r in runs)
        / len(runs),
        "mean_stop_over_fixed": statistics.mean(stops) / fixed,
    }


def fixed_plan(truth: dict[str, Any], power: float) -> dict[str, Any]:
    """`bounded plan` for the true difference, from the calibration's rates and phi."""
    wins = truth["wins"]
    n = wins["pairs"]
    x = [1.0] * wins["both"] + [1.0] * wins["only_a"] + [0.0] * (wins["only_b"] + wins["neither"])
    y = (
        [1.0] * wins["both"]
        + [0.0] * wins["only_a"]
        + [1.0] * wins["only_b"]
        + [0.0] * wins["neither"]
    )
    try:
        rho = statistics.correlation(x, y)
    except statistics.StatisticsError:  # a player won all or none: no correlation to use
        rho = 0.0
    asked = PlanAsked(
        a="expert", b="slip", effect=wins["difference"], power=power, rate=wins["rate_b"],
        correlation=rho,
    )  # fmt: skip
    found = plan_comparison(asked, [], [])
    return {
        "power": power,
        "correlation": rho,
        "calibration_pairs": n,
        "games_per_cell": found.games_per_cell,
        "predicted_power": found.predicted_power,
        "assumptions": found.assumptions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=400)
    parser.add_argument("--calibration", type=int, default=500)
    parser.add_argument("--block", type=int, default=10)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bounded-sequential-") as scratch:
        directory = Path(scratch)
        truth = calibrate(directory, args.calibration)
        print(f"truth: {json.dumps(truth['wins'])}", flush=True)
        if truth["wins"]["difference"] <= 0:
            raise SystemExit(f"the calibration shows no advantage for the expert: {truth}")
        plan = fixed_plan(truth, 0.8)
        print(f"fixed design: {plan['games_per_cell']} games per cell", flush=True)
        runs: list[dict[str, Any]] = []
        for index in range(args.replicates):
            runs.append(replicate(directory, index, args.seeds, args.block))
            print(json.dumps(runs[-1]), flush=True)
            write(args, truth, plan, runs, started, started_at)  # what is done so far, kept
    write(args, truth, plan, runs, started, started_at)


def write(
    args: argparse.Namespace,
    truth: dict[str, Any],
    plan: dict[str, Any],
    runs: list[dict[str, Any]],
    started: float,
    started_at: dict[str, Any],
) -> None:
    """The results file: every replicate so far and their summary."""
    summary = summarise(truth, plan, runs)
    achieved = min(summary["sequential_decided"], 0.99)
    if achieved > 0.5:  # the fixed design of the power the sequential sweeps reached
        equal_power = fixed_plan(truth, achieved)
        summary["fixed_games_per_cell_at_sequential_power"] = equal_power["games_per_cell"]
    result = {
        "command": "python " + " ".join(["bench/sequential_example.py", *sys.argv[1:]]),
        "example": str(EXAMPLE.relative_to(ROOT)),
        "block": args.block,
        "seeds_per_replicate": args.seeds,
        "level": 0.05,
        "truth": truth,
        "fixed_design": plan,
        "replicates": runs,
        "summary": summary,
        "replicates_done": len(runs),
        "replicates_asked": args.replicates,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    write_result(args.out, result, started_at)
    if len(runs) == args.replicates:
        print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
