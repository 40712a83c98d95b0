"""Renderers of the docs' generated tables on BALROG's environments: how soon BALROG's
TextWorld games are ready on a fresh machine, and the embedded model's reduced BALROG
protocol at BALROG's presentation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from doc_format import measured_under, table

Data = dict[str, Any]


def textworld_first_use(data: Data) -> str:
    """bench/results/textworld_balrog_pool.json: seconds from a fresh process with an empty
    home to the first observation, with the cache present, and to a first decision."""
    rows = [
        [
            r["task"],
            f"{r['cold']['first_observation_s']:.2f}",
            f"{r['cold']['reset_s']:.2f}",
            f"{r['warm']['first_observation_s']:.2f}",
            f"{r['cold_decision']['process_to_first_decision_s']:.2f}",
        ]
        for r in data["rows"]
    ]
    header = [
        "task", "first observation, empty home (s)", "of which reset (unpack + load)",
        "cache present (s)", "first `balrog-naive` decision, empty home (s)",
    ]  # fmt: skip
    return table(header, rows, "lrrrr") + f"\n{measured_under(data)}\n"


def balrog_small_summary(data: Data) -> str:
    """A committed summary of `experiments/balrog_small.toml`'s archive (`bounded export
    --format summary`): one row per game, in the archive's order."""
    rows = []
    for run in data["runs"]:
        decisions = run["decisions"] or 0
        per_decision = run["prompt_tokens"] / decisions if decisions else 0
        progression = run["outcome"].get("progression")
        rows.append([
            f"`{run['cell']}`", run["status"], decisions, run["model_calls"],
            f"{per_decision:,.0f}", run["fallbacks"], run["parse_errors"],
            f"{run['wall_s'] / 60:.1f} min",
            "-" if progression is None else f"{100 * progression:.1f}%",
        ])  # fmt: skip
    header = [
        "cell", "status", "decisions", "model calls", "prompt tokens / decision", "fallbacks",
        "unparsed replies", "wall", "progression",
    ]  # fmt: skip
    return table(header, rows, "llrrrrrrr") + f"\n{measured_under(data)}\n"


BALROG: dict[str, Callable[..., str]] = {
    "textworld-first-use": textworld_first_use,
    "balrog-small-summary": balrog_small_summary,
}

__all__ = ["BALROG"]
