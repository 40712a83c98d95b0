"""Renderers of the docs' generated tables on BALROG's environments (how soon BALROG's
TextWorld games are ready on a fresh machine) and of the committed summaries of the
embedded model's reduced protocols: BALROG's, at BALROG's presentation, and the eight
memory designs'."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from doc_format import count, measured_under, table

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


def _game_result(outcome: Data) -> str:
    """A warehouse game's correct reports, or how far a spire game got."""
    if "reports" in outcome:
        return f"{outcome['correct']}/{outcome['reports']} right"
    return f"floor {outcome['floor']}, HP {outcome['hp']}/{outcome['max_hp']}"


def memory_designs_small_summary(data: Data) -> str:
    """A committed summary of `experiments/memory_designs_small.toml`'s archive: one row
    per game (phases included), in the archive's order."""
    rows = []
    for run in data["runs"]:
        decisions = run["decisions"] or 0
        phase = " (phase)" if run["cell"].startswith("learn-") else ""
        rows.append([
            f"`{run['cell']}`{phase}", f"`{run['contract']}`", run["status"], decisions,
            _game_result(run["outcome"]), run["model_calls"],
            count(run["prompt_tokens"] / decisions) if decisions else "-",
            count(run["last_prompt_tokens"]), run["fallbacks"], run["parse_errors"],
            f"{run['wall_s']:.0f}",
        ])  # fmt: skip
    header = [
        "cell", "contract", "status", "decisions", "result", "model calls",
        "prompt tokens / decision", "last prompt", "fallbacks", "unparsed replies", "wall (s)",
    ]  # fmt: skip
    return table(header, rows, "lllrlrrrrrr") + f"\n{measured_under(data)}\n"


BALROG: dict[str, Callable[..., str]] = {
    "memory-designs-small-summary": memory_designs_small_summary,
    "textworld-first-use": textworld_first_use,
    "balrog-small-summary": balrog_small_summary,
}

__all__ = ["BALROG"]
