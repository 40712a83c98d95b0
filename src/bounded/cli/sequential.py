"""`bounded sweep FILE --until-decided A B`: the sweep's blocks, each look of the
confidence sequence, and where it stopped (`bounded.sweeps.sequential`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from bounded.cli._output import plain
from bounded.core import Interrupted

if TYPE_CHECKING:
    from bounded.analysis.anytime import SequentialRecord
    from bounded.sweeps.experiment import Experiment
    from bounded.sweeps.sequential import Stopping
    from bounded.sweeps.stages import Plan

BUDGET_REACHED = 3
"""The exit status when `--budget` stopped it (as `bounded sweep`'s)."""


def look_line(record: SequentialRecord) -> str:
    """The latest look, in words."""
    last = record.looks[-1]
    scale, unit = (100.0, " points") if record.metric == "wins" else (1.0, "")
    verdict = "excludes 0: decided" if last.decided else "includes 0"
    return (
        f"look {len(record.looks)}: {last.pairs} pairs{_in_blocks(record)}, anytime-valid "
        f"{100 * (1 - record.level):g}% interval of {record.a} - {record.b} on {record.metric}: "
        f"[{scale * last.low:+.1f}, {scale * last.high:+.1f}]{unit} ({verdict})"
    )


def _in_blocks(record: SequentialRecord) -> str:
    blocks = len({block for block, _ in record.keys})
    return f" in {blocks} blocks" if blocks > 1 else ""


def _of_blocks(record: SequentialRecord) -> str:
    blocks = len({block for block, _ in record.keys})
    return f" of each of {blocks} blocks" if blocks > 1 else ""


def sweep_until_decided(
    experiment: Experiment,
    stopping: Stopping,
    *,
    archive: Path | None,
    plan: Plan,
    **options: Any,
) -> None:
    """Play until decided; print each look and the stop; exit 3 on the budget, 1 when
    games failed, 2 when the sweep was refused."""
    from rich.console import Console

    from bounded.cli._progress import SweepProgress
    from bounded.sweeps.sequential import run_until_decided
    from bounded.sweeps.sweep import SweepInterrupted, SweepRefused

    try:
        summary = run_until_decided(
            experiment, stopping, archive_path=archive, plan=plan,
            events=SweepProgress(Console(stderr=True), archive=Path(archive or experiment.archive)),
            on_look=lambda record: plain(look_line(record)), **options,
        )  # fmt: skip
    except SweepRefused as exc:
        for line in exc.problems:
            print(f"bounded: error: {line}", file=sys.stderr)
        raise typer.Exit(2) from None
    except SweepInterrupted as exc:
        raise Interrupted(f"{exc}; continue with the same command") from None
    record = summary.record
    plain(
        f"{experiment.name}: {record.a} vs {record.b} stopped after {record.stopped_at} pairs "
        f"({record.reason}; {summary.played} games played now, rule: {record.rule}, level "
        f"{record.level:g}, looked at every {record.block} seeds{_of_blocks(record)}); recorded "
        "in "
        f"{archive or experiment.archive}"
    )
    if record.reason == "cost budget":
        raise typer.Exit(BUDGET_REACHED)
    if record.reason == "games failed":
        raise typer.Exit(1)


__all__ = ["look_line", "sweep_until_decided"]
