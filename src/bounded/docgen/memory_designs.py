"""The memory designs compared: the prompt and cost each spent on an endpoint
(`bench/memory_designs_audit.py`), the embedded model's reduced protocol
(`experiments/memory_designs_small.toml`'s committed summary), warehouse tokens per horizon
(`bench/warehouse_tokens.py`) and recovery after a perturbation
(`bench/state_recovery.py`'s committed summary)."""

from __future__ import annotations

from bounded.analysis.recovery import accuracy_after, decisions_to_recover
from bounded.docgen.format import Data, count, measured_under, percent, table


def prompt_and_cost_by_design(data: Data) -> str:
    """Per contract over its runs: prompt tokens, their reuse, and the cost against
    `typed`'s."""
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


def _game_result(outcome: Data) -> str:
    """A warehouse game's correct reports, or how far a spire game got."""
    if "reports" in outcome:
        return f"{outcome['correct']}/{outcome['reports']} right"
    return f"floor {outcome['floor']}, HP {outcome['hp']}/{outcome['max_hp']}"


def memory_designs_small_games(data: Data) -> str:
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


def warehouse_tokens_by_horizon(data: Data) -> str:
    """Per horizon and contract: accuracy, total and last prompt tokens, seconds."""
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


def _recovery(summary: Data, embedded: bool) -> str:
    runs = [
        r for r in summary["runs"]
        if "perturb_at" in r["contract_config"] and r["status"] == "completed"
        and r["model"].startswith("local") == embedded
    ]  # fmt: skip
    runs.sort(key=lambda r: (r["env_id"] != "bounded/Warehouse-v0", r["contract"],
                             r["contract_config"].get("perturb", "wipe") != "wipe"))  # fmt: skip
    rows = []
    for r in runs:
        at, rewards = r["contract_config"]["perturb_at"], r["rewards"]
        recovered = decisions_to_recover(rewards, at)
        text = "never" if recovered is None else str(recovered)
        if r["env_id"] == "bounded/Workbench-v0":
            text += " (passed)" if r["outcome"].get("victory") else " (not passed)"
        before, after = rewards[:at], accuracy_after(rewards, at)
        rows.append([
            r["env_id"].split("/")[1].removesuffix("-v0").lower(), r["contract"],
            f"{r['contract_config'].get('perturb', 'wipe')} at {at}", text,
            f"{sum(x > 0 for x in before) / len(before):.2f}" if before else "-",
            "-" if after is None else f"{after:.2f}",
        ])  # fmt: skip
    header = ["env", "contract", "perturbation", "decisions to recover", "accuracy before",
              "accuracy after"]  # fmt: skip
    wall = sum(r["wall_s"] for r in runs)
    return table(header, rows) + (
        f"\n{len(runs)} game{'' if len(runs) == 1 else 's'}, {count(wall)} s of wall time in all. "
        f"{measured_under(summary, 'Summary written')}\n"
    )


def recovery_of_scripted_games(summary: Data) -> str:
    """Decisions to recover after a perturbation, and accuracy around it, of the games
    played by scripted players."""
    return _recovery(summary, embedded=False)


def recovery_of_embedded_games(summary: Data) -> str:
    """The same for the games played by the embedded model."""
    return _recovery(summary, embedded=True)
