"""The renderers of the docs' generated tables: NAME -> a function of the region's data
files (parsed JSON, in the order the region names them) returning the Markdown it holds.
Each reads named fields and computes nothing a reader could not recompute from the file."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from doc_format import count, measured_under, percent, sig3, signed_percent, small_percent, table
from doc_tables_archive import ARCHIVE
from doc_tables_balrog import BALROG
from doc_tables_design import DESIGN
from doc_tables_more import MORE
from doc_tables_papers import PAPERS
from doc_tables_speed import SPEED

Data = dict[str, Any]


def sweep_estimates(data: Data) -> str:
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


def _points(game: Data, points: list[int]) -> str:
    return " / ".join(sig3(game["at"][str(p)]["cpu_ms"]) for p in points)


def _cpu_ratio(game: Data, points: list[int]) -> str:
    at = game["at"]
    return f"{at[str(points[-1])]['cpu_ms'] / at[str(points[0])]['cpu_ms']:.2f}"


def harness_before_after(before: Data, with_nethack: Data, rerun: Data, transcript: Data) -> str:
    """The first harness table: before the fixes (2,000 decisions) against after (10,000;
    typed from the rerun after its digest fix; the transcript at 2,000 both times)."""
    after = {**with_nethack["games"], **rerun["games"], **transcript["games"]}
    rows = []
    for contract in ("state", "typed", "summary", "episodic", "transcript"):
        key = f"warehouse/{contract}"
        old, new = before["games"][key], after[key]
        old_points = [int(p) for p in sorted(old["at"], key=int)]
        new_points = [int(p) for p in sorted(new["at"], key=int)]
        name = f"`{contract}`" + (" (2,000, both)" if contract == "transcript" else "")
        rows.append([
            name, _points(old, old_points), _cpu_ratio(old, old_points),
            _points(new, new_points), _cpu_ratio(new, new_points),
        ])  # fmt: skip
    header = [
        "contract",
        "before (fec874f), 100 / 1,000 / 2,000",
        "ratio",
        "after, 100 / 1,000 / 10,000",
        "ratio",
    ]
    notes = "".join(
        f"- `{name}` ({d['when']}): {measured_under(d)}\n"
        for name, d in (("before", before), ("after", with_nethack), ("rerun", rerun),
                        ("transcript", transcript))
    )  # fmt: skip
    return table(header, rows) + "\n" + notes


def harness_episodic(data: Data) -> str:
    game = data["games"]["warehouse/episodic"]
    at = {int(p): v["cpu_ms"] for p, v in game["at"].items()}
    header = ["contract", "100", "200", "1,000", "10,000", "10,000 / 100", "10,000 / 200"]
    row = [
        "`episodic`", *(sig3(at[p]) for p in (100, 200, 1000, 10000)),
        f"{at[10000] / at[100]:.2f}", f"{at[10000] / at[200]:.2f}",
    ]  # fmt: skip
    return table(header, [row]) + f"\n{data['when']}. {measured_under(data)}\n"


def harness_after(episodic_before: Data, with_nethack: Data, rerun: Data, after: Data) -> str:
    before = {**with_nethack["games"], **rerun["games"], **episodic_before["games"]}
    points = [100, 1000, 10000]
    rows = []
    for contract in ("episodic", "state", "typed", "summary"):
        key = f"warehouse/{contract}"
        old, new = before[key], after["games"][key]
        rows.append([
            f"`{contract}`", _points(old, points), _cpu_ratio(old, points),
            _points(new, points), _cpu_ratio(new, points),
        ])  # fmt: skip
    header = [
        "contract",
        "before, 100 / 1,000 / 10,000",
        "ratio",
        "after, 100 / 1,000 / 10,000",
        "ratio",
    ]
    return table(header, rows) + f"\nAfter: {after['when']}. {measured_under(after)}\n"


def _sweep_how(row: Data) -> str:
    if row["concurrency"] == 1 and row["workers"] > 1:
        return f"`--workers {row['workers']}` (processes only)"
    if row["concurrency"] == 1:
        return f"`--workers {row['workers']}`"
    return f"`--workers {row['workers']} --concurrency {row['concurrency']}`"


def sweep_throughput(data: Data) -> str:
    rows = [
        [
            row["games"], _sweep_how(row), f"{row['wall_s']:.1f}", f"{row['ratio']:.2f}",
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


def epicstar_scripted(data: Data) -> str:
    rows = [
        [
            r["tag"], r["level"], r["games"],
            f"{percent(r['win_rate'])} ({r['wins']}/{r['games']})",
            f"{r['pbr']:.3f}", f"{r['rur']:.1f}", f"{r['apu']:.3f}", f"{r['tr']:.3f}",
            f"{r['effective_actions_per_step']:.2f}", count(r["tokens_per_game"]),
            f"{r['model_calls_per_game']:.1f}",
        ]
        for r in data["rows"]
        if r["style"] is None
    ]  # fmt: skip
    header = [
        "tag", "level", "games", "win rate", "PBR", "RUR", "APU", "TR",
        "effective actions/step", "tokens/game", "calls/game",
    ]  # fmt: skip
    return table(header, rows) + f"\n{measured_under(data)}\n"


def epicstar_parity(data: Data) -> str:
    """The parity report the bench's runs gave, as `bounded craft-table` prints it."""
    from bounded.analysis.parity import ParityReport, render_parity_markdown

    return render_parity_markdown(ParityReport.model_validate(data["parity"])) + "\n"


BALROG_ENVS = ("babyai", "crafter", "minihack", "nle", "textworld")


def balrog_experts(data: Data) -> str:
    summary = data["summary"]["scripted-expert"]
    cells = [
        f"{e['progression_percentage']:.1f} ± {e['standard_error']:.1f} (n={e['episodes_played']})"
        for e in (summary["environments"][name] for name in BALROG_ENVS)
    ]
    average = f"{summary['average_progress']:.1f} ± {summary['standard_error']:.1f}"
    return table(["agent", *BALROG_ENVS, "average"], [["scripted players", *cells, average]])


def memory_designs_audit(data: Data) -> str:
    totals = {}
    for contract, runs in data["runs"].items():
        prompt = sum(r["total"] for r in runs)
        decisions = sum(r["decisions"] for r in runs)
        totals[contract] = {
            "decisions": decisions, "prompt": prompt, "mean": prompt / decisions,
            "max": max(r["max"] for r in runs),
            "cached": sum(r["cached"] for r in runs) / prompt,
            "cost": sum(r["cost"] for r in runs),
        }  # fmt: skip
    names = {"transcript": "`transcript` (8k window)"}
    rows = [
        [
            names.get(c, f"`{c}`"), count(t["decisions"]), count(t["prompt"]), count(t["mean"]),
            count(t["max"]), percent(t["cached"]), f"{t['cost']:.2f}",
            f"{t['cost'] / totals['typed']['cost']:.2f}x",
        ]
        for c, t in totals.items()
    ]  # fmt: skip
    header = [
        "contract", "decisions", "prompt tokens", "per decision (mean)", "max",
        "served from the cache", "cost (USD)", "cost / typed",
    ]  # fmt: skip
    return table(header, rows)


def rag_retrieval(data: Data) -> str:
    def size(n: int) -> str:
        return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{round(n / 1000)} KB"

    rows = [
        [
            count(r["chunks"]), f"{r['bm25']['mean_ms']:.2f} / {r['bm25']['p95_ms']:.2f}",
            f"{r['embedding']['mean_ms']:.1f}", f"{r['hybrid']['mean_ms']:.1f}",
            f"{r['commit_ms']:.3f}", size(r["snapshot_bytes"]), f"{r['checkpoint_bytes']} B",
        ]
        for r in data["results"]
    ]  # fmt: skip
    header = [
        "chunks", "BM25 mean / p95 (ms)", "cosine mean (ms)", "hybrid mean (ms)", "commit (ms)",
        "memory snapshot", "checkpoint written per decision",
    ]  # fmt: skip
    call = data["embed_call"]
    return (
        table(header, rows)
        + f"\nOne embedding call: {call['mean_ms']:,.0f} ms mean, {call['median_ms']:,.0f} ms "
        f"median ({call['calls']} calls). {measured_under(data)}\n"
    )


def reasoning_budget(data: Data) -> str:
    rows = [
        [r["contract"], "none" if r["cap"] is None else r["cap"], r["reasoning_chars"],
         r["completion_tokens"]]
        for r in data["rows"]
    ]  # fmt: skip
    return table(["contract", "cap", "reasoning written (chars)", "completion tokens"], rows)


def sequential_example(data: Data) -> str:
    s, fixed_design = data["summary"], data["fixed_design"]
    stops = [r["stopped_at"] for r in data["replicates"]]
    standard_error = _standard_error(stops)
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


def _standard_error(values: list[float]) -> float:
    mean = sum(values) / len(values)
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return float((variance / len(values)) ** 0.5)


def warehouse_tokens(data: Data) -> str:
    rows = [
        [r["horizon"], r["contract"], f"{r['accuracy']:.2f}", count(r["prompt_tokens"]),
         count(r["last_prompt_tokens"]), f"{r['seconds']:.1f}"]
        for r in data["rows"]
    ]  # fmt: skip
    header = [
        "T",
        "contract",
        "accuracy",
        "total prompt tokens",
        "last-step prompt tokens",
        "seconds",
    ]
    return table(header, rows) + f"\n{measured_under(data)}\n"


RENDERERS: dict[str, Callable[..., str]] = {
    "sweep-estimates": sweep_estimates,
    "harness-before-after": harness_before_after,
    "harness-episodic": harness_episodic,
    "harness-after": harness_after,
    "sweep-throughput": sweep_throughput,
    "epicstar-scripted": epicstar_scripted,
    "epicstar-parity": epicstar_parity,
    "balrog-experts": balrog_experts,
    "memory-designs-audit": memory_designs_audit,
    "rag-retrieval": rag_retrieval,
    "reasoning-budget": reasoning_budget,
    "sequential-example": sequential_example,
    "warehouse-tokens": warehouse_tokens,
    **MORE,
    **BALROG,
    **SPEED,
    **ARCHIVE,
    **PAPERS,
    **DESIGN,
}
"""Region name -> its renderer."""

__all__ = ["RENDERERS"]
