"""What a cell table is asked for: the options `bounded analyze` and `bounded report`
share, and the one place that turns them into a table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, Field

from bounded.analysis.anytime import SequentialRecord, look, record_for
from bounded.analysis.cost import CostModel
from bounded.analysis.fallbacks import Tallies
from bounded.analysis.games import CompletedGame, completed_games
from bounded.analysis.paired import (
    AnytimeInterval,
    PairedComparison,
    adjust_holm,
    compare_paired,
    keyed,
    run_designs,
)
from bounded.analysis.published import published_table
from bounded.analysis.tables import CellTable, cell_table
from bounded.core import ConfigError, RunRecord
from bounded.registry import did_you_mean

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
    compares: list[Pair] = Field(default_factory=list)
    """Paired comparisons of rows on their common (block, seed) (`bounded.analysis.paired`)."""
    seed: int = 0
    """Bootstrap seed."""
    exclude_fallback_wins: bool = False
    """Leave the games won on fallbacks out of every row (`bounded.analysis.fallbacks`)."""
    costs: CostModel = Field(default_factory=CostModel)
    """Prices per model (and latency models) for the cost columns (default: none, every
    model unpriced); a command lays its archive's stored prices here (`price_specs`,
    `price_files`: `bounded.sweeps.board.archive_costs`)."""
    price_specs: list[str] = Field(default_factory=list)
    """`--price MODEL=INPUT,CACHED,OUTPUT` specs."""
    price_files: list[str] = Field(default_factory=list)
    """`--prices` files (paths or shipped price files' names)."""

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

    def compute(
        self,
        runs: Iterable[RunRecord],
        title: str = "",
        records: Sequence[SequentialRecord] = (),
        tallies: Tallies | None = None,
    ) -> CellTable:
        """The table over the runs, with its paired comparisons (`records`: the archive's
        sweeps stopped when decided, whose comparisons get the anytime-valid interval;
        `tallies`: the runs' decisions' fallbacks, parse errors and invalid actions)."""
        runs = list(runs)
        table = self._table(runs, title, tallies)
        if self.compares:
            add_paired(table, runs, self.compares, self.seed, records)
        return table

    def _table(self, runs: list[RunRecord], title: str, tallies: Tallies | None) -> CellTable:
        if self.table:
            conflicts = self.preset_conflicts()
            if conflicts:
                raise ConfigError(f"--table sets the cells itself; drop {', '.join(conflicts)}")
            return published_table(self.table).compute(
                runs, seed=self.seed, fisher=self.fisher, diffs=self.diffs,
                changes=self.changes, costs=self.costs, tallies=tallies,
                exclude_fallback_wins=self.exclude_fallback_wins,
            )  # fmt: skip
        if self.first_n is not None and self.first_n < 1:
            raise ConfigError(f"--first must be at least 1, got {self.first_n}")
        return cell_table(
            runs, by=self.by, cells=self.cells, first_n=self.first_n, pool=self.pool,
            pool_all=self.pool_all, pool_tags=self.pool_tags, fisher=self.fisher,
            diffs=self.diffs, changes=self.changes, seed=self.seed, title=title,
            costs=self.costs, tallies=tallies, exclude_fallback_wins=self.exclude_fallback_wins,
        )  # fmt: skip


def add_paired(
    table: CellTable,
    runs: Sequence[RunRecord],
    compares: Sequence[Pair],
    seed: int,
    records: Sequence[SequentialRecord] = (),
) -> None:
    """Each pair of rows compared on their common (block, seed), per block and pooled,
    Holm-adjusted together."""
    by_id = {game.run_id: game for game in completed_games(runs)}
    designs = run_designs(runs)
    blocks = {run_id: block for run_id, (_, block) in designs.items()}
    treatments = {run_id: treatment for run_id, (treatment, _) in designs.items()}
    names = compared_names(table, runs, treatments)
    for a, b in compares:
        games_a = [by_id[run_id] for run_id in compared_runs(names, a)]
        games_b = [by_id[run_id] for run_id in compared_runs(names, b)]
        comparison = compare_paired(a, games_a, b, games_b, blocks=blocks, seed=seed)
        record = record_for(records, a, b)
        if record is not None:
            comparison.anytime = anytime_interval(record, comparison, games_a, games_b, blocks)
        table.paired.append(comparison)
    table.holm_tests = adjust_holm(table.paired)


def compared_names(
    table: CellTable, runs: Sequence[RunRecord], treatments: Mapping[str, str]
) -> list[dict[str, list[str]]]:
    """What a comparison's side may name, most specific first, each name -> the counted run
    ids it stands for: a row's label; a row's cell; a sweep's cell as `--by cell` prints it
    (`state[horizon=10]`); the experiment file's cell (`state`, every matrix point of it);
    a treatment (a matrix file's cells, one per block)."""
    counted = [run_id for row in table.rows for run_id in row.run_ids]
    sweep_cells = {run.run_id: run.cell for run in runs if run.cell}

    def by(name_of: Mapping[str, str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for run_id in counted:
            if run_id in name_of:
                found.setdefault(name_of[run_id], []).append(run_id)
        return found

    labels = {row.label: list(row.run_ids) for row in table.rows}
    cells: dict[str, list[str]] = {}
    for row in table.rows:
        cells.setdefault(row.cell, []).extend(row.run_ids)
    file_cells = {run_id: cell.split("[", 1)[0] for run_id, cell in sweep_cells.items()}
    return [labels, cells, by(sweep_cells), by(file_cells), by(treatments)]


def compared_runs(names: Sequence[Mapping[str, list[str]]], name: str) -> list[str]:
    """The run ids `name` stands for (`compared_names`); a name that stands for none is an
    error listing those that do."""
    for named in names:
        if named.get(name):
            return list(named[name])
    known = list(dict.fromkeys(key for named in names for key in named))
    raise ConfigError(
        f"no row, cell or treatment {name!r}{did_you_mean(name, known)} (names: {', '.join(known)})"
    )


def anytime_interval(
    record: SequentialRecord,
    comparison: PairedComparison,
    games_a: Sequence[CompletedGame],
    games_b: Sequence[CompletedGame],
    blocks: Mapping[str, str] | None = None,
) -> AnytimeInterval:
    """The confidence sequence of a sweep stopped when decided, over the pairs the table
    holds now in the order the sweep played their (block, seed) (further pairs after, in
    order), oriented as the comparison is (A - B)."""
    flip = record.a != comparison.a
    first, second = (games_b, games_a) if flip else (games_a, games_b)
    mine, theirs = keyed(record.a, first, blocks), keyed(record.b, second, blocks)
    played = record.played(sorted(mine))
    order = played + sorted(set(mine) - set(played))
    diffs = [
        _value(mine[k], record.metric) - _value(theirs[k], record.metric)
        for k in order
        if k in mine and k in theirs
    ]
    seen = look(diffs, record.lo, record.hi, record.level)
    low, high = (-seen.high, -seen.low) if flip else (seen.low, seen.high)
    estimate = sum(diffs) / len(diffs) if diffs else 0.0
    return AnytimeInterval(
        metric=record.metric, level=record.level, rule=record.rule, pairs=seen.pairs,
        low=low, high=high, estimate=-estimate if flip else estimate, decided=seen.decided,
        reason=f"{record.reason} after {record.stopped_at} pairs (block {record.block})",
    )  # fmt: skip


def _value(game: CompletedGame, metric: str) -> float:
    return float(game.victory) if metric == "wins" else float(game.score or 0.0)


__all__ = ["TableOptions", "add_paired"]
