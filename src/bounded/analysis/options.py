"""What a cell table is asked for: the options `bounded analyze` and `bounded report`
share, and the one place that turns them into a table."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from bounded.analysis.cost import CostModel
from bounded.analysis.published import published_table
from bounded.analysis.tables import CellTable, cell_table
from bounded.core import ConfigError, RunRecord

Pair = tuple[str, str]


class TableOptions(BaseModel):
    """A cell table's cells, protocol and comparisons (see `cell_table`)."""

    table: str | None = None
    """A published table preset: shorthand for cells, split, first N, pool, comparisons."""
    cells: list[tuple[str, list[str]]] | None = None
    """Explicit cells (label, condition tags), in order; None: the groups of `by`."""
    by: list[str] | None = None
    """Grouping fields (default: the tag; with explicit cells: fields that split them)."""
    first_n: int | None = None
    """Count the first N completed games per row by start time."""
    pool: list[str] = Field(default_factory=list)
    """Rows (labels or cells) of the pooled descriptive row (Clopper-Pearson)."""
    pool_all: bool = False
    """Pool every row instead."""
    pool_tags: bool = False
    """Allow one row to hold games of different tags."""
    fisher: list[Pair] = Field(default_factory=list)
    """Fisher exact tests between rows."""
    diffs: list[Pair] = Field(default_factory=list)
    """Score differences mean(a) - mean(b) with bootstrap intervals."""
    changes: list[Pair] = Field(default_factory=list)
    """Percent changes of the mean score from cell a to cell b per group."""
    seed: int = 0
    """Bootstrap seed."""
    costs: CostModel = Field(default_factory=CostModel)
    """Prices per model (and latency models) for the cost columns."""

    def preset_conflicts(self) -> list[str]:
        """Options a preset sets itself, given alongside one."""
        given = {
            "--cell": self.cells is not None,
            "--by": bool(self.by),
            "--first": self.first_n is not None,
            "--pool": bool(self.pool),
            "--pool-all": self.pool_all,
            "--pool-tags": self.pool_tags,
        }
        return [option for option, present in given.items() if present]

    def compute(self, runs: Iterable[RunRecord], title: str = "") -> CellTable:
        """The table over the runs."""
        if self.table:
            conflicts = self.preset_conflicts()
            if conflicts:
                raise ConfigError(f"--table sets the cells itself; drop {', '.join(conflicts)}")
            return published_table(self.table).compute(
                runs, seed=self.seed, fisher=self.fisher, diffs=self.diffs,
                changes=self.changes, costs=self.costs,
            )  # fmt: skip
        if self.first_n is not None and self.first_n < 1:
            raise ConfigError(f"--first must be at least 1, got {self.first_n}")
        return cell_table(
            runs, by=self.by, cells=self.cells, first_n=self.first_n, pool=self.pool,
            pool_all=self.pool_all, pool_tags=self.pool_tags, fisher=self.fisher,
            diffs=self.diffs, changes=self.changes, seed=self.seed, title=title,
            costs=self.costs,
        )  # fmt: skip


__all__ = ["TableOptions"]
