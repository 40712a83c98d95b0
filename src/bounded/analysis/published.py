"""Published tables this project reproduces from real run archives.

Each names its cells by the paper's labels and the condition tags they stand for, and
the protocol: the first N completed games per tag by start time, a pooled descriptive
row, and the Fisher tests the paper reports.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from bounded.analysis.tables import CellTable, cell_table
from bounded.core import ConfigError, RunRecord


class PublishedTable(BaseModel):
    """A table's cells and protocol."""

    name: str
    """Short name for `bounded analyze --table`."""
    title: str
    """What the table shows, with its source."""
    cells: list[tuple[str, str]]
    """(label, condition tag) in the order the paper prints them."""
    first_n: int | None = 10
    """Games per cell: the first N completed by start time."""
    pooled: bool = True
    """Add the pooled descriptive row (Clopper-Pearson)."""
    fisher: list[tuple[str, str]] = Field(default_factory=list)
    """Pairs of labels compared with Fisher's exact test."""

    def compute(
        self, runs: Iterable[RunRecord], *, seed: int = 0, fisher: Sequence[tuple[str, str]] = ()
    ) -> CellTable:
        """The table under the paper's protocol; `fisher` adds tests to the paper's own."""
        return cell_table(
            runs,
            cells=self.cells,
            first_n=self.first_n,
            pool=self.pooled,
            fisher=[*self.fisher, *(pair for pair in fisher if pair not in self.fisher)],
            seed=seed,
            title=self.title,
        )


AGENTICSTS_A0 = PublishedTable(
    name="agenticsts-a0",
    title="AgenticSTS fixed-A0 table (Gemini 3.1 Pro, first 10 completed games per condition)",
    cells=[
        ("baseline-strict", "gemini-pilot-2026-05-08-A0-baseline"),
        ("prompt-only", "gemini-pilot-2026-05-09-A0-prompt-only"),
        ("mode-a", "gemini-pilot-2026-05-09-A0-mode-a-makeup"),
        ("mode-b-frozen", "gemini-pilot-2026-05-12-A0-mode-b-frozen"),
        ("full-frozen", "gemini-pilot-2026-05-08-A0-full-frozen"),
    ],
    fisher=[("baseline-strict", "mode-a"), ("baseline-strict", "full-frozen")],
)

AGENTICSTS_BACKBONES = PublishedTable(
    name="agenticsts-backbones",
    title="AgenticSTS cross-backbone probe (A0, baseline vs full-frozen per backbone)",
    cells=[
        ("gemini baseline", "gemini-pilot-2026-05-08-A0-baseline"),
        ("gemini full-frozen", "gemini-pilot-2026-05-08-A0-full-frozen"),
        ("qwen baseline", "qwen-pilot-2026-05-07-A0-baseline"),
        ("qwen full-frozen", "qwen-pilot-2026-05-07-A0-full-frozen"),
        ("deepseek baseline", "deepseek-pilot-2026-05-07-A0-baseline"),
        ("deepseek full-frozen", "deepseek-pilot-2026-05-07-A0-full-frozen"),
    ],
    pooled=False,
)

PUBLISHED_TABLES = {table.name: table for table in (AGENTICSTS_A0, AGENTICSTS_BACKBONES)}


def published_table(name: str) -> PublishedTable:
    try:
        return PUBLISHED_TABLES[name]
    except KeyError:
        known = ", ".join(sorted(PUBLISHED_TABLES))
        raise ConfigError(f"unknown table {name!r} (known: {known})") from None


__all__ = [
    "AGENTICSTS_A0",
    "AGENTICSTS_BACKBONES",
    "PUBLISHED_TABLES",
    "PublishedTable",
    "published_table",
]
