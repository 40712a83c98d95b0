"""Formatting shared by the renderers: numbers as the docs write them, a Markdown table
from rows, and the line saying under what load a file was measured."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

NOT_RECORDED = "not recorded"

Data = dict[str, Any]
"""A data file as JSON or TOML parses it."""


def count(value: float) -> str:
    """An integer with thousands separators: 1,013."""
    return f"{round(value):,}"


def fixed(value: float, digits: int = 2) -> str:
    """A decimal with thousands separators: 1,234.57."""
    return f"{value:,.{digits}f}"


def percent(share: float, digits: int = 1) -> str:
    """A share (0-1) as a percentage: 0.591 -> 59.1%."""
    return f"{100 * share:.{digits}f}%"


def signed_percent(share: float) -> str:
    """A signed share as a percentage, two decimals below 1%: +0.00%, -0.07%, +11.8%."""
    return f"{100 * share:+.{2 if abs(share) < 0.01 else 1}f}%"


def small_percent(share: float) -> str:
    """A share as a percentage, two decimals below 1%: 0.16%, 16.9%."""
    return f"{100 * share:.{2 if abs(share) < 0.01 else 1}f}%"


def sig3(value: float) -> str:
    """Three significant digits, trailing zeros kept: 0.400, 1.47, 30.4."""
    return f"{value:#.3g}".rstrip(".")


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], align: str = "") -> str:
    """A Markdown table; `align` is one letter per column (`l` or `r`), default left."""
    marks = ["---:" if a == "r" else "---" for a in align.ljust(len(header), "l")]
    lines = ["| " + " | ".join(str(cell) for cell in line) + " |" for line in [header, *rows]]
    lines.insert(1, "|" + "|".join(marks) + "|")
    return "".join(line.replace("|  |", "| |").replace("|  |", "| |") + "\n" for line in lines)


def _loads(values: Any) -> str:
    return "-".join(f"{v:g}" for v in values[:1]) if values else NOT_RECORDED


def measured_under(data: dict[str, Any], what: str = "Provenance") -> str:
    """One line: the commit, date, CPUs and load a file was measured under, and whether its
    figures are floors or estimates; "not recorded" for what a file predating provenance
    lacks (it is never guessed)."""
    given = data.get("provenance")
    if not isinstance(given, dict):
        return f"{what}: {NOT_RECORDED} (the file predates it)."
    commit = (given.get("commit") or "")[:10] or NOT_RECORDED
    if given.get("dirty"):
        commit += " (uncommitted changes)"
    start, end = given.get("load_start"), given.get("load_end")
    load = f"1-minute load average {_loads(start)} at the start, {_loads(end)} at the end"
    kind = given.get("kind", "measured")
    return (
        f"{what}: commit {commit}, {given.get('date') or NOT_RECORDED}, "
        f"{given.get('cpus') or NOT_RECORDED} CPUs, {load}; figures {kind}."
    )


__all__ = [
    "NOT_RECORDED", "Data", "count", "fixed", "measured_under", "percent", "sig3", "signed_percent",
    "small_percent", "table",
]  # fmt: skip
