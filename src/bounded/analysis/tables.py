"""The cell table: wins, win rate with its interval, mean score with a bootstrap interval,
and what the games cost (tokens, fresh tokens, cost at each model's prices, modelled latency
of local models), per condition; plus a pooled descriptive row over named cells,
Fisher tests, score differences and the percent change of the mean score per group."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from bounded.analysis.compare import ScoreChange, ScoreDifference, score_changes, score_difference
from bounded.analysis.cost import CostModel
from bounded.analysis.fallbacks import Tallies, rate
from bounded.analysis.games import CompletedGame, completed_games, first_by_start, group_games
from bounded.analysis.paired import PairedComparison
from bounded.analysis.parity import ParityReport, parity_of_runs
from bounded.analysis.rows import CellRow
from bounded.analysis.stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    bootstrap_mean_interval,
    clopper_pearson_interval,
    fisher_exact_p,
    wilson_interval,
)
from bounded.core import ConfigError, RunRecord
from bounded.registry import did_you_mean

POOLED_LABEL = "pooled (descriptive)"

CellSpec = tuple[str, Sequence[str]]
"""An explicit cell: its label and the condition tags whose games it holds."""


class FisherTest(BaseModel):
    """Fisher's exact test between two rows."""

    a: str
    b: str
    p_value: float


class CellTable(BaseModel):
    """A whole table."""

    title: str = ""
    group_by: list[str] = Field(default_factory=lambda: ["tag"])
    """The fields that split rows (for explicit cells: the fields that split each cell)."""
    first_n: int | None = None
    """Games counted per row: the first N completed by start time (None: all)."""
    rows: list[CellRow] = Field(default_factory=list)
    pooled: CellRow | None = None
    pooled_cells: list[str] = Field(default_factory=list)
    """The labels of the rows the pooled row pools."""
    fisher: list[FisherTest] = Field(default_factory=list)
    diffs: list[ScoreDifference] = Field(default_factory=list)
    changes: list[ScoreChange] = Field(default_factory=list)
    parity: ParityReport | None = None
    """What else than the memory contract differs between the rows (of one group)."""
    paired: list[PairedComparison] = Field(default_factory=list)
    """Paired comparisons on common seeds (`bounded.analysis.paired`), Holm-adjusted
    together."""
    holm_tests: int = 0
    """The number of tests the paired comparisons' Holm adjustment covers."""
    prices: str = ""
    """What the cost columns are: their currency and prices' source, or unpriced
    (`CostModel.describe`)."""

    def rows_of(self, name: str) -> list[CellRow]:
        """The row labelled `name`, else every row of the cell `name`."""
        exact = [row for row in self.rows if row.label == name]
        found = exact or [row for row in self.rows if row.cell == name]
        if not found:
            cells = list(dict.fromkeys(r.cell for r in self.rows))
            hint = did_you_mean(name, [*cells, *(r.label for r in self.rows)])
            raise ConfigError(f"no cell {name!r}{hint} (cells: {', '.join(cells)})")
        return found

    def row(self, name: str) -> CellRow:
        """The one row `name` names (a row label, or a cell with a single row)."""
        found = self.rows_of(name)
        if len(found) > 1:
            labels = ", ".join(row.label for row in found)
            raise ConfigError(f"cell {name!r} has {len(found)} rows ({labels}): name one")
        return found[0]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _mean_of_known(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return _mean(known) if known else None


def _score_stats(row: CellRow, games: Sequence[CompletedGame], resamples: int, seed: int) -> None:
    """Mean score, its bootstrap interval and the per-game scores, when every game has one."""
    scores = [g.score for g in games if g.score is not None]
    if not scores or len(scores) != len(games):
        return
    row.scores = scores
    row.mean_score = _mean(scores)
    row.score_low, row.score_high = bootstrap_mean_interval(scores, resamples=resamples, seed=seed)


def _progress_stats(
    row: CellRow, games: Sequence[CompletedGame], resamples: int, seed: int
) -> None:
    """Mean progress (percent) and its bootstrap interval, when every game has one."""
    progress = [g.progress for g in games if g.progress is not None]
    if not progress or len(progress) != len(games):
        return
    row.mean_progress = _mean(progress)
    row.progress_low, row.progress_high = bootstrap_mean_interval(
        progress, resamples=resamples, seed=seed
    )


def _floor_stats(row: CellRow, games: Sequence[CompletedGame]) -> None:
    """Mean floor and wall minutes per floor reached, when every game has a floor."""
    floors = [g.floor for g in games if g.floor is not None]
    if not floors or len(floors) != len(games):
        return
    row.mean_floor = _mean(floors)
    wall_s = sum(g.wall_s for g in games)
    if sum(floors) > 0 and wall_s > 0:
        row.minutes_per_floor = wall_s / 60 / sum(floors)


def _token_stats(row: CellRow, games: Sequence[CompletedGame], costs: CostModel) -> None:
    """Tokens per game and per score point, raw and fresh (not served from a cache), and
    what they cost."""
    tokens = [g.tokens for g in games]
    if not any(tokens):
        return
    row.tokens_per_game = _mean(tokens)
    row.fresh_tokens_per_game = _mean([g.fresh_tokens for g in games])
    row.unpriced = sorted({model for g in games for model in costs.unpriced(g.usage)})
    priced = [cost for cost in (g.cost(costs) for g in games) if cost is not None]
    spent = priced if len(priced) == len(games) else []
    row.cost_per_game = _mean(spent) if spent else None
    latencies = [g.latency_s(costs) for g in games]
    if all(latency is not None for latency in latencies):
        row.latency_s_per_game = _mean([latency or 0.0 for latency in latencies])
    points = sum(row.scores)
    if row.scores and points > 0:
        row.tokens_per_point = sum(tokens) / points
        row.fresh_tokens_per_point = sum(g.fresh_tokens for g in games) / points
        row.cost_per_point = sum(spent) / points if spent else None


def _decision_rates(row: CellRow, games: Sequence[CompletedGame]) -> None:
    """Fallbacks, parse errors and invalid actions per recorded decision, and the wins
    that rest on fallbacks."""
    tallies = [g.tally for g in games if g.tally is not None]
    decisions = sum(t.decisions for t in tallies)
    row.fallback_rate = rate(sum(t.fallbacks for t in tallies), decisions)
    row.parse_error_rate = rate(sum(t.parse_errors for t in tallies), decisions)
    row.invalid_action_rate = rate(sum(t.invalid_actions for t in tallies), decisions)
    row.fallback_wins = sum(g.won_on_fallbacks for g in games)


def cell_row(
    label: str,
    games: Sequence[CompletedGame],
    *,
    interval: str = "wilson",
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    costs: CostModel | None = None,
) -> CellRow:
    """The statistics of one row's games (costs at `costs`; None: no prices, every model
    but the scripted players unpriced)."""
    n, wins = len(games), sum(g.victory for g in games)
    low, high = (clopper_pearson_interval if interval == "clopper-pearson" else wilson_interval)(
        wins, n
    )
    row = CellRow(
        label=label,
        cell=label,
        games=n,
        wins=wins,
        win_rate=wins / n if n else float("nan"),
        win_low=low,
        win_high=high,
        interval=interval,
        decisions_per_game=_mean([g.decisions for g in games]),
        model_calls_per_game=_mean([g.model_calls for g in games]),
        effective_action_rate=_mean_of_known([g.effective_action_rate for g in games]),
        wall_s_per_game=_mean([g.wall_s for g in games]),
        run_ids=[g.run_id for g in games],
    )
    _score_stats(row, games, resamples, seed)
    _progress_stats(row, games, resamples, seed)
    row.env_ids = sorted({g.env_id for g in games})
    _floor_stats(row, games)
    _token_stats(row, games, costs or CostModel())
    _decision_rates(row, games)
    return row


Selection = list[tuple[str, dict[str, str], list[CompletedGame]]]
"""(cell, grouping values, games) per row, in table order."""


def _label(cell: str, group: dict[str, str]) -> str:
    """The cell, then each grouping value that says more than the cell's name."""
    values = [cell, *(value for value in group.values() if value != cell)]
    return " / ".join(value or "(none)" for value in values)


def _split(cell: str, games: Iterable[CompletedGame], fields: Sequence[str]) -> Selection:
    """A cell's games by the values of `fields` (one group when there are none)."""
    groups = group_games(games, tuple(fields))
    return [(cell, dict(zip(fields, key, strict=True)), group) for key, group in groups.items()]


def _explicit_cells(
    games: Sequence[CompletedGame], cells: Sequence[CellSpec], by: Sequence[str]
) -> Selection:
    """Rows of explicit cells, each holding the games of its tags, split by `by`."""
    labels = [label for label, _ in cells]
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        raise ConfigError(f"cell labels must be unique: {', '.join(duplicates)}")
    selected: Selection = []
    for label, tags in cells:
        if not tags:
            raise ConfigError(f"cell {label!r} names no tag")
        held = [g for g in games if g.tag in set(tags)]
        selected.extend(_split(label, held, by) if by else [(label, {}, first_by_start(held))])
    return selected


def _grouped_cells(games: Sequence[CompletedGame], by: Sequence[str]) -> Selection:
    """Rows of the groups of `by`: the first field names the cell, the rest split it."""
    selected: Selection = []
    for key, group in group_games(games, tuple(by)).items():
        values = dict(zip(by[1:], key[1:], strict=True))
        selected.append((key[0] or "(none)", values, group))
    return selected


def mixed(games: Sequence[CompletedGame], first: str, splits: Sequence[str]) -> list[str]:
    """The fields of `splits` whose values differ within a group of `first`: a row that
    would pool them silently is split by them instead."""
    found = []
    for split in splits:
        values: dict[str, set[str]] = {}
        for game in games:
            values.setdefault(game.group_value(first), set()).add(game.group_value(split))
        if any(len(seen) > 1 for seen in values.values()):
            found.append(split)
    return found


def default_fields(games: Sequence[CompletedGame], pool_tags: bool) -> list[str]:
    """The rows of a table asked for none: a sweep's cells by the names it prints (one
    environment and matrix point each; split by tag only where a cell holds several), else
    the condition tags, split by environment where a tag spans several."""
    if games and all(game.cell for game in games):
        return ["cell", *([] if pool_tags else mixed(games, "cell", ("tag",)))]
    return ["tag"]


def _pooled_row(
    table: CellTable,
    names: Sequence[str],
    games: Sequence[CompletedGame],
    resamples: int,
    seed: int,
    costs: CostModel | None = None,
) -> CellRow:
    """The descriptive row over the named rows' counted games, with Clopper-Pearson."""
    rows = list(dict.fromkeys(r.label for name in names for r in table.rows_of(name)))
    table.pooled_cells = rows
    counted = {run_id for row in table.rows if row.label in rows for run_id in row.run_ids}
    pooled = [g for g in games if g.run_id in counted]
    row = cell_row(
        POOLED_LABEL,
        first_by_start(pooled),
        interval="clopper-pearson",
        resamples=resamples,
        seed=seed,
        costs=costs,
    )
    row.cell = POOLED_LABEL
    return row


def cell_table(
    runs: Iterable[RunRecord],
    *,
    by: Sequence[str] | None = None,
    cells: Sequence[CellSpec] | None = None,
    first_n: int | None = None,
    pool: Sequence[str] = (),
    pool_all: bool = False,
    pool_tags: bool = False,
    fisher: Sequence[tuple[str, str]] = (),
    diffs: Sequence[tuple[str, str]] = (),
    changes: Sequence[tuple[str, str]] = (),
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    title: str = "",
    costs: CostModel | None = None,
    tallies: Tallies | None = None,
    exclude_fallback_wins: bool = False,
) -> CellTable:
    """The table over completed runs.

    Rows are the groups of `by` (the first field names the cell, the others split it;
    unless told otherwise a sweep's cells, else the condition tags, `default_fields`), or,
    with `cells`, the given (label, tags) cells in that order, each split by `by` (default:
    not split). A row is split by environment wherever it would pool several. Each row
    counts its first `first_n` completed games by start time. Streams with different tags are never
    pooled into one row unless `pool_tags` (or an explicit cell names several tags).

    `pool` names the rows (labels or cells) of a descriptive pooled row with an exact
    Clopper-Pearson interval, `pool_all` pools every row; `fisher` names pairs of rows
    for Fisher's exact test; `diffs` pairs (a, b) for mean(a) - mean(b) with a seeded
    percentile bootstrap interval; `changes` pairs of cells (a, b) for the percent change
    of the mean score from a to b in each group of the split fields.

    `tallies` (`bounded.analysis.fallbacks.decision_tallies`) give each row its rates of
    fallbacks, parse errors and invalid actions and its count of games won on fallbacks;
    `exclude_fallback_wins` leaves those games out of each row (after its first N are
    chosen), counted in `fallback_wins_left_out`.
    """
    if pool and pool_all:
        raise ConfigError("--pool names the cells to pool, --pool-all pools every cell: give one")
    runs = list(runs)
    games = completed_games(runs, tallies)
    if cells is not None:
        fields = list(by or ())
        selected = _explicit_cells(games, cells, fields)
    else:
        if by:
            fields = list(by)
            if "tag" not in fields and not pool_tags:
                fields = ["tag", *fields]
        else:
            fields = default_fields(games, pool_tags)
        fields += [f for f in mixed(games, fields[0], ("env_id",)) if f not in fields]
        selected = _grouped_cells(games, fields)
    table = CellTable(
        title=title, group_by=fields, first_n=first_n, prices=(costs or CostModel()).describe()
    )
    for cell, group, held in selected:
        counted = first_by_start(held, first_n)
        kept = [g for g in counted if not g.won_on_fallbacks] if exclude_fallback_wins else counted
        row = cell_row(_label(cell, group), kept, resamples=resamples, seed=seed, costs=costs)
        row.cell, row.group = cell, group
        row.fallback_wins_left_out = len(counted) - len(kept)
        table.rows.append(row)
    table.parity = row_parity(table.rows, runs)
    add_comparisons(
        table, games, pool=[r.label for r in table.rows] if pool_all else pool, fisher=fisher,
        diffs=diffs, changes=changes, resamples=resamples, seed=seed, costs=costs,
    )  # fmt: skip
    return table


def row_parity(rows: Sequence[CellRow], runs: Iterable[RunRecord]) -> ParityReport:
    """The parity report over the rows' counted games, rows compared within a group and an
    environment (rows of different environments are not a comparison)."""
    by_id = {run.run_id: run for run in runs}
    several = len({env for row in rows for env in row.env_ids}) > 1
    return parity_of_runs(
        (row.cell, within(row) if several else row.group, [by_id[i] for i in row.run_ids])
        for row in rows
    )


def within(row: CellRow) -> dict[str, str]:
    """What a row is compared within when the rows span environments: its group, and its
    environment when the group does not say it."""
    if "env_id" in row.group or not row.env_ids:
        return row.group
    return {**row.group, "env_id": ", ".join(row.env_ids)}


def add_comparisons(
    table: CellTable,
    games: Sequence[CompletedGame],
    *,
    pool: Sequence[str] = (),
    fisher: Sequence[tuple[str, str]] = (),
    diffs: Sequence[tuple[str, str]] = (),
    changes: Sequence[tuple[str, str]] = (),
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    costs: CostModel | None = None,
) -> None:
    """The pooled row, Fisher tests, score differences and changes of a table's rows."""
    if pool and table.rows:
        table.pooled = _pooled_row(table, pool, games, resamples, seed, costs)
    for a, b in fisher:
        row_a, row_b = table.row(a), table.row(b)
        p = fisher_exact_p(row_a.wins, row_a.games, row_b.wins, row_b.games)
        table.fisher.append(FisherTest(a=a, b=b, p_value=p))
    for a, b in diffs:
        difference = score_difference(table.row(a), table.row(b), resamples=resamples, seed=seed)
        table.diffs.append(difference)
    for a, b in changes:
        table.changes.extend(score_changes(table.rows_of(a), table.rows_of(b)))


__all__ = [
    "POOLED_LABEL",
    "CellRow",
    "CellSpec",
    "CellTable",
    "FisherTest",
    "add_comparisons",
    "cell_row",
    "cell_table",
]
