"""Research commands: sweep, analyze, import, audit, report, view, export.

Each is a plain typer command function; `bounded.cli` registers them.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from bounded.archive import DEFAULT_ARCHIVE, Archive
from bounded.commands.output import console, plain, print_folded
from bounded.commands.output import number as _fmt
from bounded.core import ConfigError, Interrupted

if TYPE_CHECKING:
    from bounded.analysis.options import TableOptions
    from bounded.analysis.tables import CellTable
    from bounded.runner.estimate import CellEstimate, SweepPrices
    from bounded.runner.experiment import Experiment


ArchiveArgument = Annotated[Path, typer.Argument(help="SQLite run archive.")]


def existing_archive(path: Path) -> Path:
    """`path`, checked to be a bounded archive by opening it read-only (nothing is written:
    a missing file, another application's database or a non-SQLite file is refused)."""
    if not path.is_file():
        raise ConfigError(f"no archive at {path}")
    with Archive(path, read_only=True):
        return path


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


def sweep(
    file: Annotated[Path, typer.Argument(help="Experiment file (TOML).")],
    workers: Annotated[int, typer.Option(help="Games played at once.")] = 1,
    concurrency: Annotated[
        int | None,
        typer.Option(
            help="Games each worker plays at once in threads, for remote models (default: "
            "the file's [experiment] concurrency, else 1)."
        ),
    ] = None,
    executor: Annotated[str, typer.Option(help="local (processes) or ray.")] = "local",
    address: Annotated[
        str | None, typer.Option(help="Ray cluster address (default: start a local instance).")
    ] = None,
    archive: Annotated[
        Path | None, typer.Option(help="Archive (default: experiment.archive in the file).")
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            help="Check every setting and store, list the games still to play and estimate "
            "their cost, play none, write nothing."
        ),
    ] = False,
    budget: Annotated[
        float | None,
        typer.Option(
            help="Start games only while the spend (at the file's [prices]) plus the estimate "
            "of the games in flight and the next stays within this; exit 3 when it stops."
        ),
    ] = None,
    price: Annotated[
        list[str] | None,
        typer.Option(help="A model's prices MODEL=INPUT,CACHED,OUTPUT per million (repeat)."),
    ] = None,
) -> None:
    """Play an experiment's games, its learning phases first; rerunning resumes (completed
    games are skipped, frozen phases kept)."""
    from bounded.runner.experiment import load_experiment
    from bounded.runner.sweep import SweepInterrupted, SweepRefused, run_sweep

    experiment = load_experiment(file)
    if dry_run:
        print_dry_run(experiment, archive, price or [])
        return
    try:
        summary = run_sweep(
            experiment, archive_path=archive, executor=executor, workers=workers,
            address=address, budget=budget, prices=price or [], concurrency=concurrency,
        )  # fmt: skip
    except SweepRefused as exc:  # one line per problem, each its own
        for line in exc.problems:
            print(f"bounded: error: {line}", file=sys.stderr)
        raise typer.Exit(2) from None
    except SweepInterrupted as exc:
        again = sweep_command(
            file, archive=archive, workers=workers, executor=executor, concurrency=concurrency
        )
        raise Interrupted(f"{exc}; continue with: {again}") from None
    console.print(
        f"{summary.experiment}: {summary.completed}/{summary.planned} games completed "
        f"({summary.skipped} already done, {summary.played} played now"
        f"{f' ({summary.resumed} resumed)' if summary.resumed else ''}, "
        f"{summary.removed} incomplete rows replaced); archive {summary.archive}"
    )
    if summary.took_over:
        plain(f"took over the lease of a killed sweep: {summary.took_over}")
    for phase in summary.restarted:
        plain(f"phase {phase}: replayed from a clean store")
    for phase, digest in summary.frozen.items():
        plain(f"phase {phase}: frozen {digest}")
    if summary.waiting:
        plain(f"waiting for their phase: {', '.join(summary.waiting)}")
    plain(spend_line(summary.spent, summary.unpriced))
    for failure in summary.failed:
        console.print(f"[red]failed[/red] {failure}")
    if summary.failed:
        raise typer.Exit(1)
    if summary.not_started:
        again = sweep_command(
            file, archive=archive, workers=workers, executor=executor, concurrency=concurrency
        )
        plain(
            f"budget reached: spent {summary.spent:.4f} of {summary.budget:g}; "
            f"{summary.not_started} games not started, every game played is kept; continue "
            f"with: {again} --budget MORE"
        )
        raise typer.Exit(BUDGET_REACHED)


BUDGET_REACHED = 3
"""`bounded sweep`'s exit status when `--budget` stopped it starting games."""


def spend_line(spent: float, unpriced: list[str]) -> str:
    text = f"spent {spent:.4f} at the sweep's prices"
    return text + (f" (no price set for {', '.join(unpriced)})" if unpriced else "")


def sweep_command(
    file: Path, *, archive: Path | None, workers: int, executor: str, concurrency: int | None = None
) -> str:
    """The `bounded sweep` command line that continues this sweep."""
    parts = ["bounded", "sweep", shlex.quote(str(file))]
    if archive is not None:
        parts += ["--archive", shlex.quote(str(archive))]
    if workers != 1:
        parts += ["--workers", str(workers)]
    if concurrency is not None:
        parts += ["--concurrency", str(concurrency)]
    if executor != "local":
        parts += ["--executor", executor]
    return " ".join(parts)


def print_dry_run(experiment: Experiment, archive: Path | None, prices: list[str]) -> None:
    """Every phase's state, the games still to play, the estimate of their cost, then one
    line per problem (exit 1)."""
    from bounded.runner.estimate import SweepPrices
    from bounded.runner.sweep import dry_run

    costs = SweepPrices.of(experiment.spec.prices, prices)
    state = dry_run(experiment, archive)
    plan = state.plan
    plain(f"{experiment.name}: {len(plan.games)} planned, {len(state.pending)} to play")
    frozen = {resume.phase: resume.record for resume in state.phases}
    for resume in state.phases:
        plain(f"  {resume.describe(plan.phase(resume.phase))}")
    for spec in state.pending:
        line = f"  {spec.label}  ({spec.env}, {spec.contract}, {spec.model})"
        phase = plan.reads.get(spec.cell)
        if phase is not None:
            record = frozen.get(phase)
            source = f"frozen {record.hash[:16]}" if record else "written"
            line += f" reads {spec.contract_config['store_dir']} ({source} by phase {phase})"
        plain(line)
    for line in estimate_lines(state.estimates, costs):
        plain(line)
    for problem in state.problems:
        plain(f"problem: {problem}")
    if state.problems:
        raise typer.Exit(1)


def estimate_lines(estimates: list[CellEstimate], costs: SweepPrices) -> list[str]:
    """Per cell and in total: games, model calls, prompt tokens and cost, as estimates."""
    from bounded.runner.estimate import add_usage

    lines: list[str] = []
    total: dict[str, dict[str, float]] = {}
    games, unknown = 0, []
    for entry in estimates:
        if entry.error is not None:
            lines.append(
                f"  estimate {entry.name}: {entry.games} games, no estimate: {entry.error}"
            )
            unknown.append(entry.name)
            continue
        usage: dict[str, dict[str, float]] = {}
        add_usage(usage, entry.per_game, entry.games)
        add_usage(total, usage)
        games += entry.games
        lines.append(f"  estimate {entry.name}: {usage_text(entry.games, usage, costs)} "
                     f"(from the {entry.source})")  # fmt: skip
    if estimates:
        note = f"; {len(unknown)} cells not estimated" if unknown else ""
        lines.append(f"estimate, total: {usage_text(games, total, costs)}{note} (an estimate)")
    return lines


def usage_text(games: int, usage: dict[str, dict[str, float]], costs: SweepPrices) -> str:
    calls = sum(counts["calls"] for counts in usage.values())
    tokens = sum(counts["prompt_tokens"] for counts in usage.values())
    cost, unpriced = costs.cost(usage)
    money = f"cost {cost:.4f}"
    if unpriced:
        money = f"cost {cost:.4f} + the calls of {', '.join(unpriced)} (no price set)"
        if not cost:
            money = f"cost unknown: no price set for {', '.join(unpriced)}"
    return f"{games} games, {calls:,.0f} model calls, {tokens:,.0f} prompt tokens, {money}"


def cell_table_view(table: CellTable) -> Table:
    """The cell table as a rich table (the pooled row last, marked `(CP)`)."""
    view = Table(title=table.title or None)
    headers = (
        "cell", "wins/n", "win %", "95% CI", "mean score", "score 95% CI", "tokens/game",
        "tokens/point", "fresh tokens/point", "min/floor", "decisions", "model calls", "wall s",
        "fresh tokens/game", "cost/game", "cost/point", "model s/game (modelled)",
    )  # fmt: skip
    for header in headers:
        view.add_column(header, justify="left" if header == "cell" else "right")
    rows = table.rows + ([table.pooled] if table.pooled else [])
    for row in rows:
        score_ci = (
            f"[{_fmt(row.score_low)}, {_fmt(row.score_high)}]"
            if row.mean_score is not None
            else "—"
        )
        view.add_row(
            escape(row.label) + (" (CP)" if row.interval == "clopper-pearson" else ""),
            f"{row.wins}/{row.games}", _fmt(100 * row.win_rate),
            f"[{_fmt(100 * row.win_low)}, {_fmt(100 * row.win_high)}]",
            _fmt(row.mean_score), score_ci, _fmt(row.tokens_per_game, 0),
            _fmt(row.tokens_per_point, 0), _fmt(row.fresh_tokens_per_point, 0),
            _fmt(row.minutes_per_floor, 2), _fmt(row.decisions_per_game),
            _fmt(row.model_calls_per_game), _fmt(row.wall_s_per_game),
            _fmt(row.fresh_tokens_per_game, 0), _fmt(row.cost_per_game, 4),
            _fmt(row.cost_per_point, 5), _fmt(row.latency_s_per_game),
        )  # fmt: skip
    return view


def diff_view(table: CellTable) -> Table:
    """Score differences: mean(A) - mean(B) with the bootstrap interval."""
    view = Table(title="score difference, A minus B (percentile bootstrap, cells resampled apart)")
    for header in ("A", "B", "n A/B", "mean A", "mean B", "A - B", "95% CI"):
        view.add_column(header, justify="left" if header in ("A", "B") else "right")
    for d in table.diffs:
        view.add_row(
            escape(d.a), escape(d.b), f"{d.games_a}/{d.games_b}", _fmt(d.mean_a), _fmt(d.mean_b),
            f"{d.difference:+.1f}", f"[{d.low:+.1f}, {d.high:+.1f}]",
        )  # fmt: skip
    return view


def change_view(table: CellTable) -> Table:
    """Percent change of the mean score from A to B per group."""
    view = Table(title="change of mean score, A -> B, per group")
    for header in ("group", "A -> B", "wins A", "wins B", "mean A", "mean B", "change"):
        view.add_column(header, justify="left" if header in ("group", "A -> B") else "right")
    for c in table.changes:
        change = "—" if c.change_pct is None else f"{c.change_pct:+.1f}%"
        view.add_row(
            escape(c.label), escape(f"{c.a} -> {c.b}"), f"{c.wins_a}/{c.games_a}",
            f"{c.wins_b}/{c.games_b}", _fmt(c.mean_a), _fmt(c.mean_b), change,
        )  # fmt: skip
    return view


def print_table(table: CellTable) -> None:
    """The cell table, its Fisher tests, score differences and changes."""
    print_folded(cell_table_view(table))
    if table.pooled and table.pooled_cells:
        console.print(
            f"pooled (Clopper-Pearson, descriptive) over: {', '.join(table.pooled_cells)}"
        )
    for test in table.fisher:
        console.print(f"Fisher exact {test.a} vs {test.b}: p = {test.p_value:.3f}")
    if table.diffs:
        print_folded(diff_view(table), keys=2)
    if table.changes:
        print_folded(change_view(table), keys=2)


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
    seed: int = 0,
    price: list[str] | None = None,
    prices: list[Path] | None = None,
) -> TableOptions:
    """The parsed command-line options of a cell table."""
    from bounded.analysis.cost import cost_model
    from bounded.analysis.options import TableOptions

    return TableOptions(
        costs=cost_model(price or [], prices or []),
        table=table, cells=parse_cells(cell) if cell else None, by=by or None, first_n=first,
        pool=parse_names(pool, "--pool") if pool else [], pool_all=pool_all,
        pool_tags=pool_tags, fisher=parse_pairs(fisher or [], "--fisher"),
        diffs=parse_pairs(diff or [], "--diff"), changes=parse_pairs(change or [], "--change"),
        seed=seed,
    )  # fmt: skip


CellOption = Annotated[
    list[str] | None,
    typer.Option(
        "--cell", help="A cell: LABEL=TAG[,TAG...] (repeat; in order). Replaces tag grouping."
    ),
]
ByOption = Annotated[
    list[str] | None,
    typer.Option(
        help="Group by: tag, cell, experiment, env_id, contract, model, reasoning_chars (the "
        "reasoning cap in force) (repeat); with --cell, split each cell by these."
    ),
]
FirstOption = Annotated[
    int | None, typer.Option(help="Count the first N completed games per row by start time.")
]
PoolOption = Annotated[
    list[str] | None,
    typer.Option(help="Add a pooled row (Clopper-Pearson) over these cells: A,B,... (repeat)."),
]
PoolAllOption = Annotated[bool, typer.Option(help="Add a pooled row over every row.")]
FisherOption = Annotated[
    list[str] | None, typer.Option(help="Fisher exact test between two cells: A,B (repeat).")
]
DiffOption = Annotated[
    list[str] | None,
    typer.Option(help="Mean score of A minus B, 95% bootstrap interval: A,B (repeat)."),
]
ChangeOption = Annotated[
    list[str] | None,
    typer.Option(help="Percent change of mean score from cell A to B per --by group: A,B."),
]
SeedOption = Annotated[int, typer.Option(help="Bootstrap seed.")]
PriceOption = Annotated[
    list[str] | None,
    typer.Option(
        help="Prices of a model, USD per million tokens: MODEL=INPUT,CACHED,OUTPUT (repeat; "
        "MODEL 'default' prices every other model; default 3,0.3,15)."
    ),
]
PricesOption = Annotated[
    list[Path] | None,
    typer.Option(help="TOML file with a [prices] table (an experiment file's own; repeat)."),
]


def analyze(
    archive: ArchiveArgument,
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
    pool_tags: Annotated[
        bool, typer.Option(help="Allow one cell to pool games of different tags.")
    ] = False,
    fisher: FisherOption = None,
    diff: DiffOption = None,
    change: ChangeOption = None,
    experiment: Annotated[str | None, typer.Option(help="Only runs of this experiment.")] = None,
    seed: SeedOption = 0,
    price: PriceOption = None,
    prices: PricesOption = None,
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
        pool_tags=pool_tags, fisher=fisher, diff=diff, change=change, seed=seed,
        price=price, prices=prices,
    )  # fmt: skip
    from bounded.runner.spec import check_no_duplicates

    with Archive(archive, read_only=True) as store:
        runs = store.runs(experiment=experiment)
    check_no_duplicates(runs)
    result = options.compute(runs)
    if as_json:
        print(result.model_dump_json(indent=2))
        return
    print_table(result)


def print_balrog_table(archive: Path, experiment: str | None, *, as_json: bool) -> None:
    """BALROG's table: progression per environment (mean ± standard error as BALROG
    computes them) and the average over environments, one row per agent (run tag)."""
    import json

    from bounded.analysis.balrog import balrog_summary, balrog_table_rows

    with Archive(archive, read_only=True) as store:
        summaries = balrog_summary(store.runs(experiment=experiment))
    if not summaries:
        raise ConfigError(f"{archive} holds no completed runs of BALROG's environments")
    if as_json:
        print(json.dumps(summaries, indent=2))
        return
    header, *rows = balrog_table_rows(summaries)
    view = Table(title="BALROG progression (%), mean ± standard error")
    for name in header:
        view.add_column(name)
    for row in rows:
        view.add_row(*row)
    console.print(view)


def import_runs(
    source: Annotated[str, typer.Argument(help="Where the runs come from: agenticsts.")],
    path: Annotated[Path, typer.Argument(help="The source's run file (history.jsonl).")],
    archive: Annotated[Path, typer.Option(help="Archive to import into.")] = DEFAULT_ARCHIVE,
) -> None:
    """Load another harness's run archive as bounded runs."""
    from bounded.importers import IMPORTERS

    if source not in IMPORTERS:
        raise ConfigError(f"unknown import source {source!r} (known: {', '.join(IMPORTERS)})")
    with Archive(archive) as store:
        summary = IMPORTERS[source](path, store)
    console.print(
        f"imported {summary.imported} runs ({summary.completed} completed games, "
        f"{summary.tags} tags) from {summary.source} into {archive}"
    )


def audit(
    archive: ArchiveArgument,
    contract: Annotated[str | None, typer.Option(help="Only runs of this contract.")] = None,
    tag: Annotated[str | None, typer.Option(help="Only runs with this tag.")] = None,
    plot: Annotated[Path | None, typer.Option(help="Write the context-growth plot (SVG).")] = None,
    price: PriceOption = None,
    prices: PricesOption = None,
    rates: Annotated[
        bool, typer.Option(help="Fit each model's prompt and generation rates to its timed calls.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the audit as JSON.")] = False,
) -> None:
    """Context audit: prompt tokens per decision and layer, slope, transcript counterfactual,
    fresh tokens and cost under prefix caching (the run's cache measured, the transcript's
    computed)."""
    from bounded.analysis.audit import context_audit
    from bounded.analysis.cost import cost_model

    costs = cost_model(price or [], prices or [])
    with Archive(archive, read_only=True) as store:
        runs = [r for r in store.runs(tag=tag) if contract is None or r.contract == contract]
        result = context_audit(store, runs, costs)
    if plot is not None:
        from bounded.report.plots import context_plot

        plot.write_text(context_plot(result))
    if as_json:
        print(result.model_dump_json(indent=2))
        return
    from bounded.commands.audit_views import (
        audit_cost_view,
        audit_view,
        print_layer_costs,
        print_rates,
    )

    print_folded(audit_view(result), keys=2)
    print_folded(audit_cost_view(result), keys=2)
    print_layer_costs(result)
    plain("cached tokens: the runs' measured (their model's report); the transcript's computed")
    if rates:
        print_rates(result)
    if plot is not None:
        console.print(f"plot: {plot}")


def report(
    archive: ArchiveArgument,
    out: Annotated[Path, typer.Option("-o", "--out", help="HTML file to write.")] = Path(
        "report.html"
    ),
    by: ByOption = None,
    cell: CellOption = None,
    table: Annotated[list[str] | None, typer.Option(help="Add a published table (repeat).")] = None,
    first: FirstOption = None,
    pool: PoolOption = None,
    pool_all: PoolAllOption = False,
    fisher: FisherOption = None,
    diff: DiffOption = None,
    change: ChangeOption = None,
    seed: SeedOption = 0,
    price: PriceOption = None,
    prices: PricesOption = None,
    max_runs: Annotated[int, typer.Option(help="Runs embedded in the run browser.")] = 100,
) -> None:
    """Write one self-contained HTML report (tables, plots, a per-decision prompt viewer)."""
    from bounded.report import ReportOptions, build_report

    main = table_options(
        cell=cell, by=by, first=first, pool=pool, pool_all=pool_all, fisher=fisher, diff=diff,
        change=change, seed=seed, price=price, prices=prices,
    )  # fmt: skip
    options = ReportOptions(**dict(main), tables=table or [], max_runs=max_runs)
    path = build_report(existing_archive(archive), out, options)
    console.print(f"report: {path} ({path.stat().st_size / 1e6:.1f} MB)")


def view(
    archive: ArchiveArgument,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0: any free port).")] = 8765,
    table: Annotated[list[str] | None, typer.Option(help="Add a published table (repeat).")] = None,
) -> None:
    """Serve the report of a (large) archive locally; decisions load run by run."""
    from bounded.report import ReportOptions, make_server

    server = make_server(
        existing_archive(archive), ReportOptions(tables=table or []), host=host, port=port
    )
    console.print(f"serving {archive} on {server.url} (Ctrl-C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def export(
    archive: ArchiveArgument,
    format: Annotated[
        str, typer.Option("--format", help="jsonl, parquet, or balrog (BALROG's results folder).")
    ] = "jsonl",
    out: Annotated[Path, typer.Option("-o", "--out", help="Directory to write into.")] = Path(
        "export"
    ),
) -> None:
    """Write runs and decisions (with their prompts) as JSONL or Parquet, or the runs of
    BALROG's environments as BALROG's results folder."""
    from bounded.analysis.export import export_archive

    if format == "balrog":
        from bounded.analysis.balrog import write_results

        with Archive(existing_archive(archive), read_only=True) as store:
            written = write_results(store.runs(), out)
        console.print(f"wrote {len(written)} files under {out}")
        return

    for path in export_archive(existing_archive(archive), out, format):
        console.print(f"wrote {path}")


COMMANDS: dict[str, Callable[..., None]] = {
    "sweep": sweep,
    "analyze": analyze,
    "import": import_runs,
    "audit": audit,
    "report": report,
    "view": view,
    "export": export,
}
"""Command name -> function, for `bounded.cli` to register."""

__all__ = ["COMMANDS", "analyze", "audit", "export", "import_runs", "report", "sweep", "view"]
