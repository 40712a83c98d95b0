"""Published tables this project reproduces from real run archives.

A preset is shorthand for generic `bounded analyze` options and nothing else: the cells
(the paper's labels and the condition tags they stand for), how they are split, the
first-N protocol, the cells of the pooled descriptive row, and the comparisons the paper
reports (Fisher tests, score differences, percent changes). Every number comes from
`cell_table` over the archive; `PublishedTable.arguments` prints the equivalent options.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from bounded.analysis.cost import CostModel
from bounded.analysis.fallbacks import Tallies
from bounded.analysis.tables import CellTable, cell_table
from bounded.core import ConfigError, RunRecord
from bounded.registry import did_you_mean

Pair = tuple[str, str]


class PublishedTable(BaseModel):
    """A table's cells and protocol."""

    name: str
    """Short name for `bounded analyze --table`."""
    title: str
    """What the table shows, with its source."""
    cells: list[tuple[str, list[str]]]
    """(label, condition tags) in the order the paper prints them."""
    by: list[str] = Field(default_factory=list)
    """Fields that split each cell into rows (e.g. `model` for a per-backbone table)."""
    first_n: int | None = 10
    """Games per row: the first N completed by start time."""
    pool: list[str] = Field(default_factory=list)
    """Cells of the pooled descriptive row (Clopper-Pearson); none: no pooled row."""
    fisher: list[Pair] = Field(default_factory=list)
    """Pairs of labels compared with Fisher's exact test."""
    diffs: list[Pair] = Field(default_factory=list)
    """Pairs (a, b): mean score of a minus b with a bootstrap interval."""
    changes: list[Pair] = Field(default_factory=list)
    """Pairs (a, b): percent change of the mean score from a to b per group of `by`."""

    def compute(
        self,
        runs: Iterable[RunRecord],
        *,
        seed: int = 0,
        fisher: Sequence[Pair] = (),
        diffs: Sequence[Pair] = (),
        changes: Sequence[Pair] = (),
        costs: CostModel | None = None,
        tallies: Tallies | None = None,
        exclude_fallback_wins: bool = False,
    ) -> CellTable:
        """The table under the paper's protocol; the extra pairs join the paper's own."""
        return cell_table(
            runs,
            by=self.by,
            cells=self.cells,
            first_n=self.first_n,
            pool=self.pool,
            fisher=_joined(self.fisher, fisher),
            diffs=_joined(self.diffs, diffs),
            changes=_joined(self.changes, changes),
            seed=seed,
            title=self.title,
            costs=costs,
            tallies=tallies,
            exclude_fallback_wins=exclude_fallback_wins,
        )

    def arguments(self) -> list[str]:
        """The generic `bounded analyze` options this preset stands for."""
        args = [f"--cell={label}={','.join(tags)}" for label, tags in self.cells]
        args += [f"--by={field}" for field in self.by]
        args += [f"--first={self.first_n}"] if self.first_n else []
        args += [f"--pool={','.join(self.pool)}"] if self.pool else []
        for option, pairs in (
            ("--fisher", self.fisher),
            ("--diff", self.diffs),
            ("--change", self.changes),
        ):
            args += [f"{option}={a},{b}" for a, b in pairs]
        return args


def _joined(own: Sequence[Pair], extra: Sequence[Pair]) -> list[Pair]:
    return [*own, *(pair for pair in extra if pair not in own)]


GEMINI_BASELINE = "gemini-pilot-2026-05-08-A0-baseline"
GEMINI_FULL_FROZEN = "gemini-pilot-2026-05-08-A0-full-frozen"

AGENTICSTS_A0 = PublishedTable(
    name="agenticsts-a0",
    title="AgenticSTS fixed-A0 table (Gemini 3.1 Pro, first 10 completed games per condition)",
    cells=[
        ("baseline-strict", [GEMINI_BASELINE]),
        ("prompt-only", ["gemini-pilot-2026-05-09-A0-prompt-only"]),
        ("mode-a", ["gemini-pilot-2026-05-09-A0-mode-a-makeup"]),
        ("mode-b-frozen", ["gemini-pilot-2026-05-12-A0-mode-b-frozen"]),
        ("full-frozen", [GEMINI_FULL_FROZEN]),
    ],
    # The descriptive pooled row is over the scaffolded cells (L5 skills on).
    pool=["mode-a", "mode-b-frozen", "full-frozen"],
    fisher=[("baseline-strict", "mode-a"), ("baseline-strict", "full-frozen")],
    # The paper's orientation: its "mode-b-frozen vs mode-a" interval is mode-a minus
    # mode-b-frozen, its "full-frozen vs mode-a" interval full-frozen minus mode-a.
    diffs=[("mode-a", "mode-b-frozen"), ("full-frozen", "mode-a")],
)

AGENTICSTS_BACKBONES = PublishedTable(
    name="agenticsts-backbones",
    title="AgenticSTS cross-backbone probe (A0, baseline vs full-frozen per backbone)",
    cells=[
        (
            "baseline-strict",
            [
                GEMINI_BASELINE,
                "qwen-pilot-2026-05-07-A0-baseline",
                "deepseek-pilot-2026-05-07-A0-baseline",
            ],
        ),
        (
            "full-frozen",
            [
                GEMINI_FULL_FROZEN,
                "qwen-pilot-2026-05-07-A0-full-frozen",
                "deepseek-pilot-2026-05-07-A0-full-frozen",
            ],
        ),
    ],
    by=["model"],
    changes=[("baseline-strict", "full-frozen")],
)

PUBLISHED_TABLES = {table.name: table for table in (AGENTICSTS_A0, AGENTICSTS_BACKBONES)}


def published_table(name: str) -> PublishedTable:
    try:
        return PUBLISHED_TABLES[name]
    except KeyError:
        known = ", ".join(sorted(PUBLISHED_TABLES))
        hint = did_you_mean(name, PUBLISHED_TABLES)
        raise ConfigError(f"unknown table {name!r}{hint} (known: {known})") from None


__all__ = [
    "AGENTICSTS_A0",
    "AGENTICSTS_BACKBONES",
    "PUBLISHED_TABLES",
    "PublishedTable",
    "published_table",
]
