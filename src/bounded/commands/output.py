"""How the research commands print: one console, plain lines, numbers in table cells."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from bounded.core import RunRecord

console = Console()


def plain(line: str) -> None:
    """Print one line as it is: no markup, never wrapped (so a problem stays one line)."""
    console.print(line, markup=False, soft_wrap=True)


def number(value: float | None, digits: int = 1) -> str:
    """A number for a table cell: "—" for none or NaN."""
    return "—" if value is None or value != value else f"{value:,.{digits}f}"


def run_summary(run: RunRecord, archive: Path) -> Table:
    table = Table(title=f"{run.env_id} / {run.contract} / {run.model} / seed {run.seed}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in run.outcome.items():
        if key == "decisions":  # the run's own count follows
            continue
        if isinstance(value, float):
            value = f"{value:.3f}"
        table.add_row(key, str(value))
    table.add_row("decisions", str(run.decisions))
    table.add_row("model calls", str(run.model_calls))
    table.add_row("total prompt tokens", str(run.prompt_tokens))
    table.add_row("last-step prompt tokens", str(run.last_prompt_tokens))
    table.add_row("cached prompt tokens", str(run.cached_tokens))
    table.add_row("wall time (s)", f"{run.wall_s:.1f}")
    if len(run.usage) > 1:
        for model_id, usage in run.usage.items():
            table.add_row(
                f"  {model_id}", f"{usage['calls']} calls, {usage['prompt_tokens']} prompt tokens"
            )
    verdicts = run.postrun.get("verdicts", [])
    if verdicts:
        admitted = sum(bool(v.get("accepted")) for v in verdicts)
        table.add_row(
            "postrun writes admitted / refused", f"{admitted} / {len(verdicts) - admitted}"
        )
    table.add_row("archive", f"{archive} (run {run.run_id[:12]})")
    return table


__all__ = ["console", "number", "plain", "run_summary"]
