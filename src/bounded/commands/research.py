"""Research commands: sweep, analyze, import, audit, report, view, export.

Each is a plain typer command function; `bounded.cli` registers them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from bounded.archive import DEFAULT_ARCHIVE, Archive
from bounded.core import ConfigError

if TYPE_CHECKING:
    from bounded.analysis.tables import CellTable

console = Console()

ArchiveArgument = Annotated[Path, typer.Argument(help="SQLite run archive.")]


def existing_archive(path: Path) -> Path:
    if not path.is_file():
        raise ConfigError(f"no archive at {path}")
    return path


def parse_pairs(pairs: list[str]) -> list[tuple[str, str]]:
    """`A,B` strings into (A, B) pairs."""
    parsed = []
    for pair in pairs:
        a, sep, b = pair.partition(",")
        if not sep or not a or not b:
            raise ConfigError(f"--fisher takes two cell labels separated by a comma, got {pair!r}")
        parsed.append((a.strip(), b.strip()))
    return parsed


def sweep(
    file: Annotated[Path, typer.Argument(help="Experiment file (TOML).")],
    workers: Annotated[int, typer.Option(help="Games played at once.")] = 1,
    executor: Annotated[str, typer.Option(help="local (processes) or ray.")] = "local",
    address: Annotated[
        str | None, typer.Option(help="Ray cluster address (default: start a local instance).")
    ] = None,
    archive: Annotated[
        Path | None, typer.Option(help="Archive (default: experiment.archive in the file).")
    ] = None,
    dry_run: Annotated[bool, typer.Option(help="List the games still to play, play none.")] = False,
) -> None:
    """Play an experiment's games; rerunning resumes (completed games are skipped)."""
    from bounded.runner.experiment import load_experiment
    from bounded.runner.sweep import pending_games, run_sweep

    experiment = load_experiment(file)
    if dry_run:
        plan = experiment.plan()
        with Archive(archive or experiment.archive) as store:
            pending, _ = pending_games(store, plan)
        console.print(f"{experiment.name}: {len(plan)} planned, {len(pending)} to play")
        for spec in pending:
            console.print(f"  {spec.label}  ({spec.env}, {spec.contract}, {spec.model})")
        return
    summary = run_sweep(
        experiment, archive_path=archive, executor=executor, workers=workers, address=address
    )
    console.print(
        f"{summary.experiment}: {summary.completed}/{summary.planned} games completed "
        f"({summary.skipped} already done, {summary.played} played now, "
        f"{summary.removed} incomplete rows replaced); archive {summary.archive}"
    )
    for failure in summary.failed:
        console.print(f"[red]failed[/red] {failure}")
    if summary.failed:
        raise typer.Exit(1)


def cell_table_view(table: CellTable) -> Table:
    def fmt(value: float | None, digits: int = 1) -> str:
        return "—" if value is None or value != value else f"{value:,.{digits}f}"

    view = Table(title=table.title or None)
    headers = (
        "cell", "wins/n", "win %", "95% CI", "mean score", "score 95% CI",
        "tokens/game", "tokens/point", "decisions", "model calls", "wall s",
    )  # fmt: skip
    for header in headers:
        view.add_column(header, justify="left" if header == "cell" else "right")
    rows = table.rows + ([table.pooled] if table.pooled else [])
    for row in rows:
        score_ci = (
            f"[{fmt(row.score_low)}, {fmt(row.score_high)}]" if row.mean_score is not None else "—"
        )
        view.add_row(
            row.label + (" (CP)" if row.interval == "clopper-pearson" else ""),
            f"{row.wins}/{row.games}", fmt(100 * row.win_rate),
            f"[{fmt(100 * row.win_low)}, {fmt(100 * row.win_high)}]",
            fmt(row.mean_score), score_ci, fmt(row.tokens_per_game, 0),
            fmt(row.tokens_per_point, 0), fmt(row.decisions_per_game),
            fmt(row.model_calls_per_game), fmt(row.wall_s_per_game),
        )  # fmt: skip
    return view


def analyze(
    archive: ArchiveArgument,
    by: Annotated[
        list[str] | None,
        typer.Option(help="Group by: tag, cell, experiment, env_id, contract, model (repeat)."),
    ] = None,
    table: Annotated[
        str | None, typer.Option(help="A published table: agenticsts-a0, agenticsts-backbones.")
    ] = None,
    first: Annotated[
        int | None, typer.Option(help="Count the first N completed games per cell by start time.")
    ] = None,
    pool: Annotated[bool, typer.Option(help="Add a pooled row (Clopper-Pearson).")] = False,
    pool_tags: Annotated[
        bool, typer.Option(help="Allow one cell to pool games of different tags.")
    ] = False,
    fisher: Annotated[
        list[str] | None, typer.Option(help="Fisher exact test between two cells: A,B (repeat).")
    ] = None,
    experiment: Annotated[str | None, typer.Option(help="Only runs of this experiment.")] = None,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the table as JSON.")] = False,
) -> None:
    """The cell table: wins, Wilson intervals, bootstrap scores, tokens and costs."""
    from bounded.analysis.published import published_table
    from bounded.analysis.tables import cell_table

    with Archive(existing_archive(archive)) as store:
        runs = store.runs(experiment=experiment)
    if table:
        result = published_table(table).compute(runs, seed=seed, fisher=parse_pairs(fisher or []))
    else:
        result = cell_table(
            runs, by=by or ["tag"], first_n=first, pool=pool, pool_tags=pool_tags,
            fisher=parse_pairs(fisher or []), seed=seed,
        )  # fmt: skip
    if as_json:
        print(result.model_dump_json(indent=2))
        return
    console.print(cell_table_view(result))
    for test in result.fisher:
        console.print(f"Fisher exact {test.a} vs {test.b}: p = {test.p_value:.3f}")


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
    as_json: Annotated[bool, typer.Option("--json", help="Print the audit as JSON.")] = False,
) -> None:
    """Context audit: prompt tokens per decision and layer, slope, transcript counterfactual."""
    from bounded.analysis.audit import context_audit

    with Archive(existing_archive(archive)) as store:
        runs = [r for r in store.runs(tag=tag) if contract is None or r.contract == contract]
        result = context_audit(store, runs)
    if plot is not None:
        from bounded.report.plots import context_plot

        plot.write_text(context_plot(result))
    if as_json:
        print(result.model_dump_json(indent=2))
        return
    view = Table(title="context audit (prompt tokens)")
    for header in ("contract", "tag", "runs", "slope/decision", "last", "transcript last", "saved"):
        view.add_column(header, justify="left" if header in ("contract", "tag") else "right")
    for c in result.contracts:
        view.add_row(
            c.contract, c.tag, str(c.runs), f"{c.slope:.2f}", f"{c.mean_last_prompt:.0f}",
            f"{c.mean_counterfactual_last:.0f}", f"{100 * c.savings:.1f}%",
        )  # fmt: skip
    console.print(view)
    if plot is not None:
        console.print(f"plot: {plot}")


def report(
    archive: ArchiveArgument,
    out: Annotated[Path, typer.Option("-o", "--out", help="HTML file to write.")] = Path(
        "report.html"
    ),
    by: Annotated[list[str] | None, typer.Option(help="Group the cell table by (repeat).")] = None,
    table: Annotated[list[str] | None, typer.Option(help="Add a published table (repeat).")] = None,
    first: Annotated[int | None, typer.Option(help="First N completed games per cell.")] = None,
    pool: Annotated[bool, typer.Option(help="Add the pooled row.")] = False,
    max_runs: Annotated[int, typer.Option(help="Runs embedded in the run browser.")] = 100,
) -> None:
    """Write one self-contained HTML report (tables, plots, a per-decision prompt viewer)."""
    from bounded.report import ReportOptions, build_report

    options = ReportOptions(
        by=by or ["tag"], tables=table or [], first_n=first, pool=pool, max_runs=max_runs
    )
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
    format: Annotated[str, typer.Option("--format", help="jsonl or parquet.")] = "jsonl",
    out: Annotated[Path, typer.Option("-o", "--out", help="Directory to write into.")] = Path(
        "export"
    ),
) -> None:
    """Write runs and decisions (with their prompts) as JSONL or Parquet."""
    from bounded.analysis.export import export_archive

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
