"""`bounded analyze` (the cell table, Fisher tests, differences, BALROG's table),
`bounded craft-table` (EpicStar's Table 1) and `bounded recovery-table`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from bounded.archive import DEFAULT_ARCHIVE, Archive
from bounded.cli._filters import filtered_runs
from bounded.cli._options import (
    ArchiveArgument,
    ByOption,
    CellOption,
    ChangeOption,
    DiffOption,
    ExcludeFallbackWinsOption,
    ExperimentOption,
    FirstOption,
    FisherOption,
    PoolAllOption,
    PoolOption,
    PoolTagsOption,
    PriceOption,
    PricesOption,
    SeedOption,
)
from bounded.cli._output import console, keyed_table, print_folded
from bounded.cli._output import number as _fmt
from bounded.cli._parity import print_parity
from bounded.core import ConfigError

if TYPE_CHECKING:
    from bounded.analysis.options import TableOptions
    from bounded.analysis.rows import CellRow
    from bounded.analysis.tables import CellTable


def parse_pairs(pairs: list[str], option: str = "--fisher") -> list[tuple[str, str]]:
    """`A,B` strings into (A, B) pairs: exactly two non-empty names."""
    parsed = []
    for pair in pairs:
        parts = [part.strip() for part in pair.split(",")]
        if len(parts) != 2 or not all(parts):
            raise ConfigError(f"{option} takes two cell labels separated by a comma, got {pair!r}")
        parsed.append((parts[0], parts[1]))
    return parsed


def parse_names(values: list[str], option: str, what: str = "cell labels") -> list[str]:
    """Comma-separated names (the option may be repeated) into one list, in order."""
    names = [name.strip() for value in values for name in value.split(",")]
    if not names or not all(names):
        raise ConfigError(f"{option} takes {what} separated by commas, got {values!r}")
    return list(dict.fromkeys(names))


def parse_cells(specs: list[str]) -> list[tuple[str, list[str]]]:
    """`LABEL=TAG[,TAG...]` strings into (label, tags) cells."""
    cells = []
    for spec in specs:
        label, sep, tags = spec.partition("=")
        if not sep or not label.strip():
            raise ConfigError(f"--cell takes LABEL=TAG[,TAG...], got {spec!r}")
        tag_list = parse_names([tags], f"--cell {label.strip()}=", "condition tags")
        cells.append((label.strip(), tag_list))
    return cells


def by_environment(table: CellTable) -> list[tuple[str, list[CellRow]]]:
    """The table's rows by environment, in order (one group when a pooled row spans them)."""
    if table.pooled:
        return [("", [*table.rows, table.pooled])]
    groups: dict[str, list[CellRow]] = {}
    for row in table.rows:
        groups.setdefault(", ".join(row.env_ids), []).append(row)
    return list(groups.items())


def leads_with_progress(rows: list[CellRow]) -> bool:
    """Whether the rows' measure is BALROG's progression: every row's environments are
    BALROG's and every row recorded a progress."""
    from bounded.analysis.balrog import balrog_tasks

    return bool(rows) and all(
        row.mean_progress is not None
        and bool(row.env_ids)
        and all(balrog_tasks(env_id) is not None for env_id in row.env_ids)
        for row in rows
    )


def cell_table_view(
    table: CellTable, rows: list[CellRow] | None = None, title: str | None = None
) -> Table:
    """The cell table (or `rows` of it) as a rich table, the pooled row last, marked
    `(CP)`; rows of BALROG's environments lead with their progression and its interval."""
    rows = rows if rows is not None else table.rows + ([table.pooled] if table.pooled else [])
    progress = leads_with_progress(rows)
    headers = (
        "cell", *(("progression %", "progression 95% CI") if progress else ()), "wins/n",
        "win %", "95% CI", "mean score", "score 95% CI", "tokens/game",
        "tokens/point", "fresh tokens/point", "min/floor", "decisions",
        "effective actions/decision", "fallback %", "parse error %",
        "invalid actions/decision", "won on fallbacks", "model calls", "wall s",
        "fresh tokens/game", "cost/game", "cost/point", "model s/game (modelled)",
    )  # fmt: skip
    view = keyed_table(title or table.title or None, headers)
    for row in rows:
        lead = (
            (_fmt(row.mean_progress), f"[{_fmt(row.progress_low)}, {_fmt(row.progress_high)}]")
            if progress
            else ()
        )
        score_ci = (
            f"[{_fmt(row.score_low)}, {_fmt(row.score_high)}]"
            if row.mean_score is not None
            else "—"
        )
        view.add_row(
            escape(row.label) + (" (CP)" if row.interval == "clopper-pearson" else ""), *lead,
            f"{row.wins}/{row.games}", _fmt(100 * row.win_rate),
            f"[{_fmt(100 * row.win_low)}, {_fmt(100 * row.win_high)}]",
            _fmt(row.mean_score), score_ci, _fmt(row.tokens_per_game, 0),
            _fmt(row.tokens_per_point, 0), _fmt(row.fresh_tokens_per_point, 0),
            _fmt(row.minutes_per_floor, 2), _fmt(row.decisions_per_game),
            _fmt(row.effective_action_rate, 2), percent(row.fallback_rate),
            percent(row.parse_error_rate), _fmt(row.invalid_action_rate, 2),
            str(row.fallback_wins), _fmt(row.model_calls_per_game),
            _fmt(row.wall_s_per_game),
            _fmt(row.fresh_tokens_per_game, 0), cost_entry(row, row.cost_per_game, 4),
            cost_entry(row, row.cost_per_point, 5), _fmt(row.latency_s_per_game),
        )  # fmt: skip
    return view


def percent(share: float | None) -> str:
    """A share of decisions in percent; `—` where no decisions were recorded."""
    return _fmt(None if share is None else 100 * share)


def fallback_wins_line(table: CellTable) -> str:
    """How many counted games were won on fallbacks, or how many were left out."""
    rows = table.rows
    left = sum(row.fallback_wins_left_out for row in rows)
    if left:
        per_row = ", ".join(f"{r.label} {r.fallback_wins_left_out}" for r in rows)
        return f"left out {left} games won on fallbacks (--exclude-fallback-wins): {per_row}"
    won = sum(row.fallback_wins for row in rows)
    return (
        f"games won on fallbacks (a decision executed a fallback): {won} of "
        f"{sum(row.wins for row in rows)} wins; --exclude-fallback-wins leaves them out"
    )


def cost_entry(row: CellRow, cost: float | None, digits: int) -> str:
    """A cost column's entry: `unpriced` where a model of the row has no price."""
    return "unpriced" if row.unpriced else _fmt(cost, digits)


def diff_view(table: CellTable) -> Table:
    """Score differences: mean(A) - mean(B) with the bootstrap interval."""
    view = keyed_table(
        "score difference, A minus B (percentile bootstrap, cells resampled apart)",
        ("A", "B", "n A/B", "mean A", "mean B", "A - B", "95% CI"),
        keys=2,
    )
    for d in table.diffs:
        view.add_row(
            escape(d.a), escape(d.b), f"{d.games_a}/{d.games_b}", _fmt(d.mean_a), _fmt(d.mean_b),
            f"{d.difference:+.1f}", f"[{d.low:+.1f}, {d.high:+.1f}]",
        )  # fmt: skip
    return view


def change_view(table: CellTable) -> Table:
    """Percent change of the mean score from A to B per group."""
    view = keyed_table(
        "change of mean score, A -> B, per group",
        ("group", "A -> B", "wins A", "wins B", "mean A", "mean B", "change"),
        keys=2,
    )
    for c in table.changes:
        change = "—" if c.change_pct is None else f"{c.change_pct:+.1f}%"
        view.add_row(
            escape(c.label), escape(f"{c.a} -> {c.b}"), f"{c.wins_a}/{c.games_a}",
            f"{c.wins_b}/{c.games_b}", _fmt(c.mean_a), _fmt(c.mean_b), change,
        )  # fmt: skip
    return view


def print_table(table: CellTable) -> None:
    """The cell table (one per environment, each led by its measure), its Fisher tests,
    score differences and changes."""
    groups = by_environment(table)
    for env, rows in groups:
        title = table.title or None
        if len(groups) > 1:
            title = f"{table.title + ': ' if table.title else ''}{env}"
        print_folded(cell_table_view(table, rows, title))
    console.print(
        "tokens and cost: as the server reported them (bounded audit and bounded table "
        "--metric tokens read the tokens bounded counted)"
    )
    console.print(escape(table.prices))
    console.print(escape(fallback_wins_line(table)))
    print_parity(table.parity)
    if table.pooled and table.pooled_cells:
        console.print(
            f"pooled (Clopper-Pearson, descriptive) over: {', '.join(table.pooled_cells)}"
        )
    for test in table.fisher:
        console.print(f"Fisher exact {escape(test.a)} vs {escape(test.b)}: p = {test.p_value:.3f}")
    if table.diffs:
        print_folded(diff_view(table), keys=2)
    if table.changes:
        print_folded(change_view(table), keys=2)
    if table.paired:
        from bounded.cli._paired import print_paired

        print_paired(table.paired, table.holm_tests)


def table_options(
    *,
    table: str | None = None,
    cell: list[str] | None = None,
    by: list[str] | None = None,
    first: int | None = None,
    pool: list[str] | None = None,
    pool_all: bool = False,
    pool_tags: bool = False,
    fisher: list[str] | None = None,
    diff: list[str] | None = None,
    change: list[str] | None = None,
    compare: list[str] | None = None,
    seed: int = 0,
    price: list[str] | None = None,
    prices: list[Path] | None = None,
    exclude_fallback_wins: bool = False,
) -> TableOptions:
    """The parsed command-line options of a cell table."""
    from bounded.analysis.cost import cost_model
    from bounded.analysis.options import TableOptions

    return TableOptions(
        costs=cost_model(price or [], prices or []), price_specs=price or [],
        price_files=[str(path) for path in prices or []],
        table=table, cells=parse_cells(cell) if cell else None, by=by or None, first_n=first,
        pool=parse_names(pool, "--pool") if pool else [], pool_all=pool_all,
        pool_tags=pool_tags, fisher=parse_pairs(fisher or [], "--fisher"),
        diffs=parse_pairs(diff or [], "--diff"), changes=parse_pairs(change or [], "--change"),
        compares=parse_pairs(compare or [], "--compare"), seed=seed,
        exclude_fallback_wins=exclude_fallback_wins,
    )  # fmt: skip


def analyze(
    archive: ArchiveArgument = DEFAULT_ARCHIVE,
    by: ByOption = None,
    cell: CellOption = None,
    table: Annotated[
        str | None,
        typer.Option(
            help="A published table preset: agenticsts-a0, agenticsts-backbones, or balrog "
            "(BALROG's progression table per agent)."
        ),
    ] = None,
    first: FirstOption = None,
    pool: PoolOption = None,
    pool_all: PoolAllOption = False,
    pool_tags: PoolTagsOption = False,
    fisher: FisherOption = None,
    diff: DiffOption = None,
    change: ChangeOption = None,
    compare: Annotated[
        list[str] | None,
        typer.Option(
            help="Compare two rows, cells or treatments paired on (block, seed), per block and "
            "over all blocks: A,B (repeat; the tests of one call are Holm-adjusted together)."
        ),
    ] = None,
    experiment: ExperimentOption = None,
    seed: SeedOption = 0,
    price: PriceOption = None,
    prices: PricesOption = None,
    exclude_fallback_wins: ExcludeFallbackWinsOption = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the table as JSON.")] = False,
) -> None:
    """The cell table: wins, Wilson intervals, bootstrap scores, tokens, fresh tokens and
    cost, time per floor; a pooled row over named cells, Fisher tests, score differences,
    changes per group."""
    if table == "balrog":
        print_balrog_table(archive, experiment, as_json=as_json)
        return
    options = table_options(
        table=table, cell=cell, by=by, first=first, pool=pool, pool_all=pool_all,
        pool_tags=pool_tags, fisher=fisher, diff=diff, change=change, compare=compare,
        seed=seed, price=price, prices=prices, exclude_fallback_wins=exclude_fallback_wins,
    )  # fmt: skip
    from bounded.analysis.anytime import sequential_records
    from bounded.analysis.fallbacks import decision_tallies
    from bounded.runner.spec import check_no_duplicates
    from bounded.sweeps.board import archive_costs

    with Archive(archive, read_only=True) as store:
        runs = filtered_runs(store, archive, experiment=experiment)
        records = [r for r in sequential_records(store) if experiment in (None, r.experiment)]
        options.costs = archive_costs(store, runs, options.price_specs, options.price_files)
        tallies = decision_tallies(store)
    check_no_duplicates(runs)
    result = options.compute(runs, records=records, tallies=tallies)
    if as_json:
        print(result.model_dump_json(indent=2))
        return
    print_table(result)


def print_balrog_table(archive: Path, experiment: str | None, *, as_json: bool) -> None:
    """BALROG's table: progression per environment (mean ± standard error as BALROG
    computes them) and the average over environments, one row per agent (run tag, model
    and experiment); the parity report of the agents per environment under it (`--json`:
    `{"summary": ..., "parity": ...}`, the summaries keyed `tag · model · experiment`).
    An archive holding a game twice is refused, as by every table."""
    import json

    from bounded.analysis.balrog import (
        balrog_parity,
        balrog_summary,
        balrog_table_rows,
        summaries_json,
    )
    from bounded.runner.spec import check_no_duplicates

    with Archive(archive, read_only=True) as store:
        runs = filtered_runs(store, archive, experiment=experiment)
    check_no_duplicates(runs)
    summaries = balrog_summary(runs)
    if not summaries:
        raise ConfigError(f"{archive} holds no completed runs of BALROG's environments")
    parity = balrog_parity(runs)
    if as_json:
        print(json.dumps({"summary": summaries_json(summaries), "parity": parity.model_dump()},
                         indent=2))  # fmt: skip
        return
    header, *rows = balrog_table_rows(summaries)
    view = Table(title="BALROG progression (%), mean ± standard error")
    for name in header:
        view.add_column(name)
    for row in rows:
        view.add_row(*(escape(cell) for cell in row))
    console.print(view)
    print_parity(parity)


def craft_table(
    archive: ArchiveArgument = DEFAULT_ARCHIVE,
    experiment: Annotated[str | None, typer.Option(help="Only this experiment.")] = None,
    by_style: Annotated[
        bool, typer.Option("--by-style", help="A row per opponent style (the paper's Figure 2).")
    ] = False,
) -> None:
    """EpicStar's Table 1 for the craft runs of an archive (win rate, PBR, RUR, APU, TR,
    effective actions per step, tokens), with the parity report of its tags under it."""
    from bounded.analysis.craft_table import craft_table_command

    typer.echo(craft_table_command(archive, experiment=experiment, by_style=by_style))


def recovery_table(
    archive: ArchiveArgument = DEFAULT_ARCHIVE,
    experiment: Annotated[str | None, typer.Option(help="Only this experiment.")] = None,
) -> None:
    """The state-recovery table: decisions to be correct again after a wipe or corruption."""
    from bounded.analysis.recovery import recovery_rows, render_recovery
    from bounded.cli._options import existing_archive

    typer.echo(render_recovery(recovery_rows(existing_archive(archive), experiment)))


COMMANDS: dict[str, Callable[..., None]] = {
    "analyze": analyze,
    "craft-table": craft_table,
    "recovery-table": recovery_table,
}
"""Command name -> its function, registered by `bounded.cli`."""
