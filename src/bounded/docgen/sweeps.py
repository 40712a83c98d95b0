"""Sweeps: the cost estimate against what sweeps spent (`bench/sweep_estimates.py`), games
in flight against wall time (`bench/sweep_throughput.py`), a sequential sweep against a
fixed design (`bench/sequential_example.py`) and the kill trials (`bench/kill_trials.py`)."""

from __future__ import annotations

import statistics

from bounded.docgen.format import (
    Data,
    measured_under,
    percent,
    sig3,
    signed_percent,
    small_percent,
    table,
)


def sweep_estimate_errors(data: Data) -> str:
    """Per sweep: the estimate's error on its total calls and prompt tokens, and the worst
    cell's."""
    rows = [
        [
            f"`{s['file']}`", s["cells"], s["cells"] - s["cells_not_estimated"],
            signed_percent(s["total_calls_error"]), signed_percent(s["total_prompt_tokens_error"]),
            small_percent(s["largest_cell_error"]),
        ]
        for s in data["sweeps"]
    ]  # fmt: skip
    header = [
        "sweep",
        "cells",
        "estimated",
        "model calls, total",
        "prompt tokens, total",
        "worst cell",
    ]
    return table(header, rows) + f"\n{measured_under(data)}\n"


def _workers_flags(row: Data) -> str:
    if row["concurrency"] == 1 and row["workers"] > 1:
        return f"`--workers {row['workers']}` (processes only)"
    if row["concurrency"] == 1:
        return f"`--workers {row['workers']}`"
    return f"`--workers {row['workers']} --concurrency {row['concurrency']}`"


def sweep_wall_time_by_games_in_flight(data: Data) -> str:
    """Wall and CPU time of a sweep per number of games in flight, and worker start-up."""
    rows = [
        [
            row["games"], _workers_flags(row), f"{row['wall_s']:.1f}", f"{row['ratio']:.2f}",
            f"{row['cpu_s']:.1f}", sig3(row["cpu_ms_per_decision"]),
            "-".join(f"{x:g}" for x in row["load_average"][:1]),
        ]
        for row in data["rows"]
    ]  # fmt: skip
    header = [
        "games in flight",
        "how",
        "wall s",
        "x ideal",
        "CPU s",
        "CPU ms / decision",
        "load (1 min)",
    ]
    start = data["startup"]["this"]
    load = ", ".join(f"{x:g}" for x in data["load_average_before"])
    return (
        table(header, rows, "rlrrrrr")
        + f"\nLoad average before the first row: {load}. Worker start-up, median of "
        f"{start['workers_started']}: {start['median_wall_s']} s wall, "
        f"{start['median_cpu_s']} s CPU. {measured_under(data)}\n"
    )


def _peak(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def sweep_at_scale(data: Data) -> str:
    """Sweeps of many games in flight against their ideal wall time, with peak memory."""
    rows = [
        [
            row["games"], f"`--workers {row['workers']}"
            + (f" --concurrency {row['concurrency']}`" if row["concurrency"] > 1 else "`"),
            f"{row['wall_s']:.1f}", f"{row['ideal_s']:.1f}", f"**{row['ratio']:.2f}**",
            sig3(row["cpu_ms_per_decision"]), _peak(row.get("driver_peak_rss_mb")),
            _peak(row.get("worker_peak_rss_mb_max")), f"{row['load_average'][0]:g}",
        ]
        for row in data["rows"]
    ]  # fmt: skip
    header = [
        "games in flight",
        "how",
        "wall s",
        "ideal s",
        "x ideal",
        "CPU ms / decision",
        "driver peak RSS MB",
        "worker peak RSS MB (largest)",
        "load (1 min)",
    ]
    return (
        table(header, rows, "rlrrrrrrr")
        + f"\n{data['decisions_per_game']} decisions a game, {data['latency_s']:g} s a reply. "
        f"{measured_under(data)}\n"
    )


def sequential_against_fixed_design(data: Data) -> str:
    """Pairs per cell a sequential sweep played until decided, against the fixed design's."""
    s, fixed_design = data["summary"], data["fixed_design"]
    stops = [r["stopped_at"] for r in data["replicates"]]
    standard_error = statistics.stdev(stops) / len(stops) ** 0.5
    n = data["replicates_done"]
    mean = f"{s['sequential_mean_stop']} (standard error {standard_error:.0f})"
    median = (
        f"{s['sequential_median_stop']:g} ({s['sequential_min_stop']}, {s['sequential_max_stop']})"
    )
    rows = [
        ["fixed design (planned)", s["fixed_games_per_cell"],
         f"{percent(fixed_design['predicted_power'])} (predicted)", ""],
        ["until decided, mean", mean, f"{round(s['sequential_decided'] * n)} of {n}",
         f"{round(s['intervals_covering_truth'] * n)} of {n}"],
        ["until decided, median (min, max)", median, "", ""],
        ["fixed design with the sequential sweeps' power",
         s["fixed_games_per_cell_at_sequential_power"], "", ""],
    ]  # fmt: skip
    header = ["", "pairs per cell", "decided", "final interval covers the truth"]
    return table(header, rows)


def kill_trials(*files: Data) -> str:
    """One row per kill-trial file: driver kills (`kill_trials.py`) or Ray workers killed
    mid-game (`--ray`), with the sums the prose quotes."""
    rows = []
    for f in files:
        kills = f.get("killed", f.get("workers_killed"))
        at = [k for row in f.get("rows", []) for k in row.get("killed_at", [])]
        rows.append([
            f"`{f['command'].removeprefix('python ')}`", f["trials"], kills,
            f"{min(at)}-{max(at)}" if at else "", f["interrupted_games"], f["re_asked_decisions"],
            f["trials_re_asking_more_than_their_interrupted_games"], f["orphans"],
            f["duplicates"], f["stuck_archives"], f["different_games"],
        ])  # fmt: skip
    header = [
        "command", "trials", "kills", "killed at decision", "interrupted games",
        "decisions asked again", "trials asking more than interrupted", "orphans",
        "duplicates", "stuck archives", "games differing",
    ]  # fmt: skip
    return table(header, rows)
