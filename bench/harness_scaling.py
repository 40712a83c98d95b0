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
`--nethack-decisions`. Each decision's write (the archive sink's one transaction: the
decision, its run row and checkpoint) is timed too (`write_ms`, wall; `write_cpu_ms`).

`--before-src DIR` (the `src` of an older bounded) compares two trees side by side in one
run: each warehouse game of `--contracts`, a short one (`--short` decisions) and a long one
(`--decisions`; the transcript's `--transcript-decisions`), is played by the bounded under
DIR and by the one under `--after-src` (default: this tree's), each game in a fresh process
of that tree (its own code, its own archive format), `--runs` rounds, the two trees' order
alternating from game to game and round to round so that both see the same machine. Per
game and tree: the harness's and the write's ms per decision (median decision of each
point's window and of the whole game, median of the rounds, each round's value kept) and
the process's peak RSS at each point; `after_over_before` the ratios. NetHack and spire
are not played in this mode.

    .venv/bin/python bench/harness_scaling.py --before-src /tmp/before/src --decisions 5000 \
        --points 100 1000 5000 --runs 5 --contracts state,balrog-naive,transcript
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.archive import Archive
from bounded.archive.sink import ArchiveSink
from bounded.core import Completion, DecisionRecord, Observation
from bounded.models.scripted import schema_filler
from bounded.runner.build import build_game, runner_for
from bounded.runner.spec import GameSpec

try:
    from bounded.protocols import ModelBase
except ImportError:  # an older bounded (--before-src) kept it in bounded.core
    from bounded.core import ModelBase  # type: ignore[attr-defined,no-redef]

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


class TimedSink(ArchiveSink):
    """The archive's sink with the wall-clock and CPU seconds of each decision's write kept
    (the decision's one transaction, committed before the next decision)."""

    def __init__(self, archive: Archive) -> None:
        super().__init__(archive)
        self.write_s: list[tuple[float, float]] = []

    def decision(self, record: DecisionRecord, run: Any, point: Any) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        super().decision(record, run, point)
        self.write_s.append((time.perf_counter() - wall, time.process_time() - cpu))


@dataclass
class Played:
    """One timed game: harness (wall, CPU) seconds at the end of each decision since the game
    started, each decision's write (wall, CPU) seconds, and the process's peak RSS (KB) at
    `points`."""

    marks: list[tuple[float, float]]
    write_s: list[tuple[float, float]]
    peak_rss_kb: dict[int, int]


def play_timed(spec: GameSpec, points: Collection[int] = ()) -> Played:
    """One game into a fresh archive, timed; the peak RSS read at the decisions of `points`."""
    model = TimedModel()
    game = build_game(spec, model=model)
    marks: list[tuple[float, float]] = []
    peaks: dict[int, int] = {}
    wall0, cpu0 = time.perf_counter(), time.process_time()

    def mark(record: DecisionRecord, obs: Observation) -> None:
        wall = time.perf_counter() - wall0 - model.wall_s
        marks.append((wall, time.process_time() - cpu0 - model.cpu_s))
        if len(marks) in points:
            peaks[len(marks)] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    with tempfile.TemporaryDirectory() as folder, Archive(Path(folder) / "a.sqlite") as archive:
        sink = TimedSink(archive)
        try:
            runner_for(game, archive=sink, observer=mark).execute()
        finally:
            game.env.close()
    if len(sink.write_s) != len(marks):
        raise RuntimeError(f"{len(marks)} decisions but {len(sink.write_s)} writes")
    return Played(marks, sink.write_s, peaks)


def per_decision_ms(played: Played, at: int, window: int) -> dict[str, float]:
    """Harness ms per decision over the `window` decisions ending at decision `at` (the
    first decision, which compiles what later ones reuse, left out): the median decision
    (robust to the other work of a shared machine) and the mean (which counts SQLite's
    occasional WAL checkpoints); the same of the decisions' writes (part of the harness's)."""
    marks, start = played.marks, max(1, at - window)
    wall = [1000 * (marks[i][0] - marks[i - 1][0]) for i in range(start, at)]
    cpu = [1000 * (marks[i][1] - marks[i - 1][1]) for i in range(start, at)]
    write = [1000 * played.write_s[i][0] for i in range(start, at)]
    write_cpu = [1000 * played.write_s[i][1] for i in range(start, at)]
    return {
        "cpu_ms": statistics.median(cpu),
        "wall_ms": statistics.median(wall),
        "cpu_mean_ms": statistics.fmean(cpu),
        "wall_mean_ms": statistics.fmean(wall),
        "write_ms": statistics.median(write),
        "write_mean_ms": statistics.fmean(write),
        "write_cpu_ms": statistics.median(write_cpu),
    }


def measure(spec: GameSpec, points: list[int], window: int, runs: int) -> dict[str, Any]:
    played = [play_timed(spec) for _ in range(runs)]
    decisions = min(len(game.marks) for game in played)
    reached = [p for p in points if p <= decisions]
    at = {}
    for point in reached:
        samples = [per_decision_ms(game, point, window) for game in played]
        at[str(point)] = {
            key: statistics.median(sample[key] for sample in samples) for key in samples[0]
        }
    result: dict[str, Any] = {
        "decisions": decisions,
        "runs": runs,
        "at": at,
        "game_cpu_s": statistics.median(game.marks[-1][1] for game in played),
        "game_wall_s": statistics.median(game.marks[-1][0] for game in played),
    }
    if len(reached) >= 2:
        first, last = at[str(reached[0])], at[str(reached[-1])]
        result["ratio_cpu"] = last["cpu_ms"] / first["cpu_ms"]
        result["ratio_wall"] = last["wall_ms"] / first["wall_ms"]
    return result


def whole_game(spec: GameSpec, runs: int) -> dict[str, Any]:
    """Harness ms per decision over a whole game (its first decision left out), median run."""
    played = [play_timed(spec).marks for _ in range(runs)]

    def mean_ms(marks: list[tuple[float, float]], part: int) -> float:
        return 1000 * (marks[-1][part] - marks[0][part]) / max(1, len(marks) - 1)

    return {
        "decisions": statistics.median(len(marks) for marks in played),
        "runs": runs,
        "cpu_ms": statistics.median(mean_ms(marks, 1) for marks in played),
        "wall_ms": statistics.median(mean_ms(marks, 0) for marks in played),
    }


def warehouse_spec(contract: str, decisions: int) -> GameSpec:
    return GameSpec(
        env="warehouse",
        env_options={"horizon": decisions},
        contract=contract,
        model="scripted:minimal",
        max_decisions=decisions,
    )


def probe(contract: str, decisions: int, window: int, points: list[int]) -> dict[str, Any]:
    """(In a process of its own, so that its peak RSS is one game's.) One warehouse game:
    per point, the harness's and the write's ms per decision over the window ending there
    and the peak RSS so far; `game`: the same over every decision but the first."""
    played = play_timed(warehouse_spec(contract, decisions), points)
    played_decisions = len(played.marks)
    at = {
        str(point): {
            **per_decision_ms(played, point, window),
            "peak_rss_kb": played.peak_rss_kb[point],
        }
        for point in points
        if point <= played_decisions
    }
    game = per_decision_ms(played, played_decisions, played_decisions)
    game["peak_rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"decisions": played_decisions, "at": at, "game": game}


TREES = ("before", "after")
RATIOS = ("cpu_ms", "cpu_mean_ms", "write_ms", "write_mean_ms", "write_cpu_ms", "peak_rss_kb")
"""What `after_over_before` compares, per point and over the whole game."""


def run_probe(src: Path, contract: str, decisions: int, window: int, points: list[int]) -> Any:
    """`probe` run by the bounded under `src` (its own archive format and code), in a fresh
    interpreter."""
    order = json.dumps(
        {"contract": contract, "decisions": decisions, "window": window, "points": points}
    )
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--probe", order],
        env={**os.environ, "PYTHONPATH": str(src)}, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"the probe under {src} failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _spread(values: list[float]) -> float:
    """The range of a measurement's rounds over their median: the noise of one tree."""
    return (max(values) - min(values)) / statistics.median(values)


def summarise(rounds: dict[str, list[Any]]) -> dict[str, Any]:
    """Each tree's rounds as medians (with each round's CPU and write ms kept and their
    spread), and after over before per point and over the whole game."""
    result: dict[str, Any] = {}
    for tree, runs in rounds.items():
        parts = {"game": [run["game"] for run in runs]}
        parts |= {point: [run["at"][point] for run in runs] for point in runs[0]["at"]}
        summary: dict[str, Any] = {}
        for part, samples in parts.items():
            summary[part] = {key: statistics.median(s[key] for s in samples) for key in samples[0]}
            for key in ("cpu_ms", "write_ms", "write_cpu_ms"):
                values = [s[key] for s in samples]
                summary[part][f"{key}_rounds"] = values
                summary[part][f"{key}_spread"] = _spread(values)
        result[tree] = {"decisions": runs[0]["decisions"], "at": {}, "game": summary.pop("game")}
        result[tree]["at"] = summary
    ratios = {}
    for part in ["game", *result["after"]["at"]]:
        before, after = (
            result[tree]["game"] if part == "game" else result[tree]["at"][part] for tree in TREES
        )
        ratios[part] = {key: after[key] / before[key] for key in RATIOS}
    result["after_over_before"] = ratios
    return result


def side_by_side(
    sources: dict[str, Path], plan: list[tuple[str, int]], rounds: int, window: int,
    points: list[int],
) -> dict[str, Any]:  # fmt: skip
    """Every game of `plan` (contract, decisions) played by the bounded under each of
    `sources` (before, after), each in a fresh process, `rounds` times; within a round the
    games follow each other with the two trees' order alternating, so both see the same
    machine."""
    samples: dict[str, dict[str, list[Any]]] = {
        f"warehouse/{contract}/{length}": {tree: [] for tree in TREES} for contract, length in plan
    }
    for round_ in range(rounds):
        for index, (contract, length) in enumerate(plan):
            game_points = [p for p in points if p < length] + [length]
            order = TREES if (round_ + index) % 2 == 0 else TREES[::-1]
            for tree in order:
                run = run_probe(sources[tree], contract, length, window, game_points)
                samples[f"warehouse/{contract}/{length}"][tree].append(run)
                print(
                    f"round {round_ + 1} {tree:<6} {contract:<13} {length:>6}: "
                    f"{run['game']['cpu_ms']:.3f} cpu ms, {run['game']['write_ms']:.3f} write ms, "
                    f"{run['game']['peak_rss_kb'] / 1024:.0f} MB peak",
                    flush=True,
                )
    return {name: summarise(rounds_) for name, rounds_ in samples.items()}


def commit_of(src: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip()


def row(name: str, result: dict[str, Any]) -> str:
    cells = "  ".join(
        f"@{point}: {value['cpu_ms']:.3f} cpu / {value['wall_ms']:.3f} wall"
        for point, value in result["at"].items()
    )
    ratio = f"  ratio {result['ratio_cpu']:.2f} cpu" if "ratio_cpu" in result else ""
    return f"{name:<22} {result['decisions']:>6} decisions  {cells}{ratio}"


def long_game(contract: str, args: argparse.Namespace) -> int:
    """The long game's decisions: the transcript's prompt, and so its cost, grows with every
    decision, so its long game may be shorter (`--transcript-decisions`)."""
    if contract == "transcript" and args.transcript_decisions:
        return min(args.transcript_decisions, args.decisions)
    return args.decisions


def before_and_after(args: argparse.Namespace, points: list[int], started_at: Any) -> None:
    plan = [
        (contract, length)
        for contract in filter(None, args.contracts.split(","))
        for length in sorted({args.short, long_game(contract, args)})
    ]
    sources = {"before": args.before_src.resolve(), "after": args.after_src.resolve()}
    games = side_by_side(sources, plan, args.runs, args.window, points)
    result = {
        "benchmark": "harness_scaling",
        "model": "scripted:minimal",
        "window": args.window,
        "points": points,
        "plan": plan,
        "rounds": args.runs,
        "trees": {
            tree: {"src": str(src), "commit": commit_of(src)} for tree, src in sources.items()
        },
        "games": games,
        "machine": {"python": platform.python_version(), "cpu": platform.processor()},
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    write_result(args.out, result, started_at)
    print(f"wrote {args.out}")


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
    parser.add_argument(
        "--before-src", type=Path,
        help="an older bounded's src: play every warehouse game by it and by this tree side "
        "by side, each in a process of its own (no NetHack or spire)",
    )  # fmt: skip
    parser.add_argument(
        "--after-src", type=Path, default=Path(__file__).resolve().parents[1] / "src",
        help="with --before-src: the bounded to compare with it (default: this tree's)",
    )  # fmt: skip
    parser.add_argument(
        "--short", type=int, default=100, help="with --before-src: the short game's decisions"
    )
    parser.add_argument(
        "--transcript-decisions", type=int, default=1_000,
        help="with --before-src: the long transcript game's decisions (0: --decisions)",
    )  # fmt: skip
    parser.add_argument("--probe", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        print(json.dumps(probe(**json.loads(args.probe))))
        return
    started_at = provenance()
    points = [p for p in sorted(args.points) if p <= args.decisions]
    if args.decisions not in points:
        points.append(args.decisions)
    if args.before_src:
        before_and_after(args, points, started_at)
        return
    games: dict[str, Any] = {}
    for contract in filter(None, args.contracts.split(",")):
        spec = warehouse_spec(contract, args.decisions)
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
