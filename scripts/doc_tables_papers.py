"""Renderers of the tables that set the paper files and the papers' protocols against their
data: the EpicStar bank, the EpicStar/CoS token ratio, the reply limits of the paper files,
and the parity report of a committed archive summary."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from doc_format import count, measured_under, table

Data = dict[str, Any]


def epicstar_bank(data: Data) -> str:
    """The bank `bench/epicstar_calibration.py` built (and every EpicStar measurement replays)."""
    bank, step = data["bank"], data["chosen_step"]
    row = [
        bank["map"], ", ".join(str(level) for level in bank["levels"]),
        f"{step['decision_interval']:g} s, {step['max_actions']} action(s)",
        bank["played"], bank["kept"], count(bank["entries"]), f"`{bank['sha256'][:12]}`",
    ]  # fmt: skip
    header = ["map", "levels", "step", "games played", "wins kept", "entries", "SHA-256"]
    return table(header, [row], "lllrrrl")


def epicstar_token_ratio(data: Data) -> str:
    """Tokens per game of `episodic` and `summary` per level, and their ratio."""
    tokens = {
        (row["tag"], row["level"]): row["tokens_per_game"]
        for row in data["rows"]
        if row["style"] is None
    }
    levels = sorted({level for _, level in tokens})
    rows = [
        [
            level, count(tokens[("episodic", level)]), count(tokens[("summary", level)]),
            f"{tokens[('episodic', level)] / tokens[('summary', level)]:.2f}",
        ]
        for level in levels
    ]  # fmt: skip
    header = ["level", "episodic tokens/game", "summary tokens/game", "episodic / summary"]
    return table(header, rows, "rrrr")


def paper_reply_tokens(data: Data) -> str:
    """Each paper's reference replies in tokens, and the limit set from the longest."""
    cos, state = data["cos_epicstar"], data["skill_state"]
    examples = ", ".join(count(e["with_feasibility_tokens"]) for e in cos["examples"])
    rows = [["CoS / EpicStar (Appendix B)", "any", examples, count(cos["limit"])]]
    rows += [
        [
            "SKILL.state (reasoning, JSON block)", name,
            ", ".join(count(tokens) for tokens in row["reply_tokens"]), count(row["limit"]),
        ]
        for name, row in state["environments"].items()
    ]  # fmt: skip
    header = ["reply", "environment", "reference replies (tokens)", "limit"]
    skipped = "".join(
        f"\nNot measured: {name} ({why.split(':')[0]})." for name, why in state["skipped"].items()
    )
    return table(header, rows, "llrr") + skipped + f"\n{measured_under(data)}\n"


def summary_parity(data: Data) -> str:
    """The parity report of a committed archive summary's cells (its learning phases apart),
    compared within each environment, as `bounded` computes it from the runs."""
    from bounded.analysis.parity import parity_of_runs, render_parity_markdown
    from bounded.analysis.summary_export import runs_of_summary

    cells: dict[tuple[str, str], list[Any]] = {}
    for run in runs_of_summary(data):
        if run.cell.startswith("learn-"):
            continue
        cells.setdefault((run.cell, run.env_id), []).append(run)
    entries = [(cell, {"environment": env}, runs) for (cell, env), runs in cells.items()]
    return render_parity_markdown(parity_of_runs(entries)) + "\n"


PAPERS: dict[str, Callable[..., str]] = {
    "epicstar-bank": epicstar_bank,
    "epicstar-token-ratio": epicstar_token_ratio,
    "paper-reply-tokens": paper_reply_tokens,
    "summary-parity": summary_parity,
}

__all__ = ["PAPERS"]
