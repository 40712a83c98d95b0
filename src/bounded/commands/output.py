"""How the research commands print: one console, plain lines, numbers in table cells."""

from __future__ import annotations

from rich.console import Console

console = Console()


def plain(line: str) -> None:
    """Print one line as it is: no markup, never wrapped (so a problem stays one line)."""
    console.print(line, markup=False, soft_wrap=True)


def number(value: float | None, digits: int = 1) -> str:
    """A number for a table cell: "—" for none or NaN."""
    return "—" if value is None or value != value else f"{value:,.{digits}f}"


__all__ = ["console", "number", "plain"]
