"""Benchmark: the harness's cost per decision as a game grows, per contract.

Plays long games with the scripted model (`scripted:minimal`: every reply is the minimal
instance of its reply schema, so the model costs next to nothing) into a fresh SQLite
archive, as a sweep would (each decision committed with its run row and checkpoint), and
reports the harness's milliseconds per decision around decisions 100, 1,000 and 10,000:
the median (and the mean) of the `--window` decisions that end there, CPU and wall-clock,
with the scripted model's own time taken out. Each game is played `--runs` times; the median run
is reported (per point, the median of the runs). A bounded contract's cost must not grow
with the decision index: the bar is decision 10,000 within 10% of decision 100
(`ratio_cpu`, on the medians of CPU time, which the machine's other work disturbs least).

    .venv/bin/python bench/harness_scaling.py [--decisions 10000] [--runs 3]
        [--contracts state,typed,summary,episodic,transcript] [--nethack-decisions 2000]
        [--points 100 1000 10000]

Whole spire games (`--spire-contracts`) report the mean over the game instead: they end
long before 1,000 decisions. Writes bench/results/harness_scaling.json. Warehouse games
have `horizon` = `--decisions` events; the NetHack game (`bounded/NetHack-v0`, the first
legal action each turn as `scripted:minimal` picks it) runs until it ends or reaches
`--nethack-decisions`.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.archive import Archive
from bounded.core import Completion, DecisionRecord, Observation
from bounded.models.scripted import schema_filler
from bounded.protocols import ModelBase
from bounded.runner.build import build_game, runner_for
from bounded.runner.spec import GameSpec

RESULTS = Path(__file__).parent / "results" / "harness_scaling.json"
CONTRACTS = ("state", "typed", "summary", "episodic", "transcript")
BOUNDED = ("state", "typed", "summary", "episodic")
"""The contracts whose cost per decision must stay flat (the transcript's grows with its
prompt by design)."""


class TimedModel(ModelBase):
    """The scripted model, with the wall and CPU time of its calls kept (taken out of the
    harness's time)."""

    def __init__(self) -> None:
        self.inner = schema_filler()
        self.id = self.inner.id
        self.context_window = None
        self.wall_s = 0.0
        self.cpu_s = 0.0

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def complete(self, messages: list[dict[str, str]], **options: Any) -> Completion:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return self.inner.complete(messages, **options)
        finally:
            self.wall_s += time.perf_counter() - wall
            self.cpu_s += time.process_time() - cpu


def play_timed(spec: GameSpec) -> list[tuple[float, float]]:
    """Harness (wall, CPU) seconds at the end of each decision, since the game started."""
    model = TimedModel()
    game = build_game(spec, model=model)
    marks: list[tuple[float, float]] = []
    wall0, cpu0 = time.perf_counter(), time.process_time()

    def mark(record: DecisionRecord, obs: Observation) -> None:
        wall = time.perf_counter() - wall0 - model.wall_s
        marks.append((wall, time.process_time() - cpu0 - model.cpu_s))

    with tempfile.TemporaryDirectory() as folder, Archive(Path(folder) / "a.sqlite") as archive:
        try:
            runner_for(game, archive=archive, observer=mark).execute()
        finally:
            game.env.close()
    return marks


def per_decision_ms(marks: list[tuple[float, float]], at: int, window: int) -> dict[str, float]:
    """Harness ms per decision over the `window` decisions ending at decision `at` (the
    first decision, which compiles what later ones reuse, left out): the median decision
    (robust to the other work of a shared machine) and the mean (which counts SQLite's
    occasional WAL checkpoints)."""
    start = max(1, at - window)
    wall = [1000 * (marks[i][0] - marks[i - 1][0]) for i in range(start, at)]
    cpu = [1000 * (marks[i][1] - marks[i - 1][1]) for i in range(start, at)]
    return {
        "cpu_ms": statistics.median(cpu),
        "wall_ms": statistics.median(wall),
        "cpu_mean_ms": statistics.fmean(cpu),
        "wall_mean_ms": statistics.fmean(wall),
    }


def measure(spec: GameSpec, points: list[int], window: int, runs: int) -> dict[str, Any]:
    played = [play_timed(spec) for _ in range(runs)]
    decisions = min(len(marks) for marks in played)
    reached = [p for p in points if p <= decisions]
    at = {}
    for point in reached:
        samples = [per_decision_ms(marks, point, window) for marks in played]
        at[str(point)] = {
            key: statistics.median(sample[key] for sample in samples) for key in samples[0]
        }
    result: dict[str, Any] = {
        "decisions": decisions,
        "runs": runs,
        "at": at,
        "game_cpu_s": statistics.median(marks[-1][1] for marks in played),
        "game_wall_s": statistics.median(marks[-1][0] for marks in played),
    }
    if len(reached) >= 2:
        first, last = at[str(reached[0])], at[str(reached[-1])]
        result["ratio_cpu"] = last["cpu_ms"] / first["cpu_ms"]
        result["ratio_wall"] = last["wall_ms"] / first["wall_ms"]
    return result


def whole_game(spec: GameSpec, runs: int) -> dict[str, Any]:
    """Harness ms per decision over a whole game (its first decision left out), median run."""
    played = [play_timed(spec) for _ in range(runs)]

    def mean_ms(marks: list[tuple[float, float]], part: int) -> float:
        return 1000 * (marks[-1][part] - marks[0][part]) / max(1, len(marks) - 1)

    return {
        "decisions": statistics.median(len(marks) for marks in played),
        "runs": runs,
        "cpu_ms": statistics.median(mean_ms(marks, 1) for marks in played),
        "wall_ms": statistics.median(mean_ms(marks, 0) for marks in played),
    }


def row(name: str, result: dict[str, Any]) -> str:
    cells = "  ".join(
        f"@{point}: {value['cpu_ms']:.3f} cpu / {value['wall_ms']:.3f} wall"
        for point, value in result["at"].items()
    )
    ratio = f"  ratio {result['ratio_cpu']:.2f} cpu" if "ratio_cpu" in result else ""
    return f"{name:<22} {result['decisions']:>6} decisions  {cells}{ratio}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--window", type=int, default=100)
    parser.add_argument("--contracts", default=",".join(CONTRACTS))
    parser.add_argument("--nethack-decisions", type=int, default=2_000, help="0: no NetHack")
    parser.add_argument("--nethack-contract", default="state")
    parser.add_argument(
        "--spire-contracts", default=",".join(BOUNDED), help="whole spire games; '' for none"
    )
    parser.add_argument(
        "--points", type=int, nargs="+", default=[100, 1_000, 10_000, 100_000],
        help="decisions at which to report (those past --decisions are dropped); the ratio "
        "is the last over the first",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance()
    points = [p for p in sorted(args.points) if p <= args.decisions]
    if args.decisions not in points:
        points.append(args.decisions)
    games: dict[str, Any] = {}
    for contract in filter(None, args.contracts.split(",")):
        spec = GameSpec(
            env="warehouse",
            env_options={"horizon": args.decisions},
            contract=contract,
            model="scripted:minimal",
            max_decisions=args.decisions,
        )
        games[f"warehouse/{contract}"] = result = measure(spec, points, args.window, args.runs)
        print(row(f"warehouse/{contract}", result), flush=True)
    if args.nethack_decisions:
        spec = GameSpec(
            env="nethack",
            contract=args.nethack_contract,
            model="scripted:minimal",
            max_decisions=args.nethack_decisions,
        )
        nethack_points = [p for p in points if p < args.nethack_decisions]
        nethack_points.append(args.nethack_decisions)
        name = f"nethack/{args.nethack_contract}"
        games[name] = result = measure(spec, nethack_points, args.window, args.runs)
        print(row(name, result), flush=True)
    for contract in filter(None, args.spire_contracts.split(",")):
        spec = GameSpec(env="spire", contract=contract, model="scripted:minimal")
        games[f"spire/{contract}"] = result = whole_game(spec, args.runs)
        print(
            f"spire/{contract:<16} {result['decisions']:>6} decisions  whole game: "
            f"{result['cpu_ms']:.3f} cpu / {result['wall_ms']:.3f} wall ms per decision",
            flush=True,
        )
    flat = {
        name: result["ratio_cpu"] <= 1.10
        for name, result in games.items()
        if name.split("/")[1] in BOUNDED and "ratio_cpu" in result
    }
    result = {
        "benchmark": "harness_scaling",
        "model": "scripted:minimal",
        "window": args.window,
        "points": points,
        "games": games,
        "flat_within_10_percent": flat,
        "machine": {"python": platform.python_version(), "cpu": platform.processor()},
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    write_result(args.out, result, started_at)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
