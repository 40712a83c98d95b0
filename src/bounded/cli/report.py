"""`bounded report` (one self-contained HTML file), `bounded view` (served locally) and
`bounded export` (JSONL or Parquet)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

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
    existing_archive,
)
from bounded.cli._output import plain
from bounded.cli.analyze import table_options
from bounded.core import ConfigError

if TYPE_CHECKING:
    from bounded.report import ReportOptions


def report(
    archive: ArchiveArgument = DEFAULT_ARCHIVE,
    out: Annotated[Path, typer.Option("-o", "--out", help="HTML file to write.")] = Path(
        "report.html"
    ),
    by: ByOption = None,
    cell: CellOption = None,
    table: Annotated[list[str] | None, typer.Option(help="Add a published table (repeat).")] = None,
    first: FirstOption = None,
    pool: PoolOption = None,
    pool_all: PoolAllOption = False,
    pool_tags: PoolTagsOption = False,
    fisher: FisherOption = None,
    diff: DiffOption = None,
    change: ChangeOption = None,
    compare: Annotated[
        list[str] | None,
        typer.Option(help="Compare two cells on their common seeds: A,B (repeat; Holm)."),
    ] = None,
    experiment: ExperimentOption = None,
    seed: SeedOption = 0,
    price: PriceOption = None,
    prices: PricesOption = None,
    exclude_fallback_wins: ExcludeFallbackWinsOption = False,
    baseline: Annotated[
        str | None,
        typer.Option(help="The summary's baseline treatment (as bounded table --baseline)."),
    ] = None,
    max_runs: Annotated[int, typer.Option(help="Runs embedded in the run browser.")] = 100,
    max_decisions: Annotated[
        int,
        typer.Option(
            min=1, help="Decisions embedded in all (the first of each run; view serves all)."
        ),
    ] = 1000,
    as_json: Annotated[
        bool, typer.Option("--json", help="Also print the report's tables as JSON.")
    ] = False,
    figures: Annotated[
        Path | None,
        typer.Option(help="Also write each figure as its own SVG and PDF file in this folder."),
    ] = None,
) -> None:
    """Write one self-contained HTML report (tables, plots, a per-decision prompt viewer);
    with --figures, each figure also as SVG and PDF files for a paper."""
    from bounded.report import ReportOptions, build_report

    main = table_options(
        cell=cell, by=by, first=first, pool=pool, pool_all=pool_all, pool_tags=pool_tags,
        fisher=fisher, diff=diff, change=change, compare=compare, seed=seed, price=price,
        prices=prices, exclude_fallback_wins=exclude_fallback_wins,
    )  # fmt: skip
    options = ReportOptions(
        **dict(main),
        tables=table or [],
        max_runs=max_runs,
        max_decisions=max_decisions,
        experiment=experiment,
        baseline=baseline,
    )
    source = existing_archive(archive)
    if experiment is not None:
        with Archive(source, read_only=True) as store:
            filtered_runs(store, source, experiment=experiment)  # none: an error naming them
    if figures is not None and figures.exists() and not figures.is_dir():
        raise ConfigError(f"--figures {figures}: it is a file; give a folder")
    path = build_report(source, out, options, figures_dir=figures)
    if as_json:
        print(json.dumps({"report": str(path), "bytes": path.stat().st_size,
                          "tables": report_tables(source, options)}, indent=2))  # fmt: skip
        return
    plain(f"report: {path} ({path.stat().st_size / 1e6:.1f} MB)")
    if figures is not None:
        plain(f"figures: {figures} (each figure as SVG and PDF)")


def report_tables(archive: Path, options: ReportOptions) -> list[Any]:
    """The report's tables (its cell table, then the published ones) as JSON values."""
    from bounded.report.build import priced, report_runs, tables_of

    with Archive(archive, read_only=True) as store:
        runs = report_runs(store, options)
        options = priced(store, runs, options)
        return [table.model_dump(mode="json") for table in tables_of(runs, options, store)]


def view(
    archive: ArchiveArgument = DEFAULT_ARCHIVE,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0: any free port).")] = 8765,
    table: Annotated[list[str] | None, typer.Option(help="Add a published table (repeat).")] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(help="Another name requests may give this server by, in Host (repeat)."),
    ] = None,
) -> None:
    """Serve the report of a (large) archive locally; decisions load run by run. Only
    requests to this server's own address, with the token of the URL it prints, are
    answered."""
    from bounded.report import ReportOptions, make_server

    server = make_server(
        existing_archive(archive), ReportOptions(tables=table or []), host=host, port=port,
        allowed_hosts=tuple(allow_host or ()),
    )  # fmt: skip
    plain(f"serving {archive} on {server.url} (Ctrl-C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def export(
    archive: ArchiveArgument = DEFAULT_ARCHIVE,
    format: Annotated[
        str,
        typer.Option(
            "--format",
            help="jsonl, parquet, balrog (BALROG's results folder), or summary (a small JSON "
            "of the runs, -o FILE.json).",
        ),
    ] = "jsonl",
    out: Annotated[Path, typer.Option("-o", "--out", help="Directory to write into.")] = Path(
        "export"
    ),
    experiment: Annotated[
        str | None, typer.Option(help="balrog: only the runs of this experiment.")
    ] = None,
    model: Annotated[str | None, typer.Option(help="balrog: only the runs of this model.")] = None,
) -> None:
    """Write runs and decisions (with their prompts) as JSONL or Parquet, the runs of
    BALROG's environments as BALROG's results folder (one per tag, model and experiment),
    or a summary of the runs."""
    from bounded.analysis.export import EXPORT_FORMATS, export_archive, unknown_format

    if format not in EXPORT_FORMATS:
        raise unknown_format(format)
    check_export_target(out, format)
    if format == "summary":
        from bounded.analysis.summary_export import write_summary

        plain(f"wrote {write_summary(existing_archive(archive), out)}")
        return
    if format == "balrog":
        export_balrog(existing_archive(archive), out, experiment=experiment, model=model)
        return
    if experiment is not None or model is not None:
        raise ConfigError("--experiment and --model filter the balrog format only")
    for path in export_archive(existing_archive(archive), out, format):
        plain(f"wrote {path}")


def check_export_target(out: Path, format: str) -> None:
    """Refuse, in one line, an `-o` that cannot take what the format writes: a file where a
    directory of files goes (jsonl, parquet, balrog; summary without a `.json` name), a
    directory where the summary's `.json` file goes."""
    if format == "summary" and out.suffix == ".json":
        if out.is_dir():
            raise ConfigError(f"-o {out}: it is a directory; the summary is written as one file")
        return
    if out.exists() and not out.is_dir():
        raise ConfigError(
            f"-o {out}: it is a file; the {format} export writes files into a directory "
            "(give a new or existing directory)"
        )


def export_balrog(archive: Path, out: Path, *, experiment: str | None, model: str | None) -> None:
    """BALROG's results folders of the archive's runs (refused, one line, where a cell holds
    a game twice or the filters leave no run). What the summaries read of each chosen run is
    held (`summarised`); each episode's file reads its run and decisions again, a run at a
    time."""
    from bounded.analysis.balrog import select, summarised, write_results
    from bounded.archive.queries import stream_runs
    from bounded.runner.spec import check_no_duplicates

    with Archive(archive, read_only=True) as store:
        chosen = (summarised(run) for run in stream_runs(store))
        runs = select(chosen, experiment=experiment, model=model)
        check_no_duplicates(runs)
        if not runs:
            raise ConfigError(f"{archive} holds no completed runs of BALROG's environments"
                              " under these filters")  # fmt: skip
        written = write_results(
            runs,
            out,
            lambda run_id: store.iter_decisions(run_id, with_segments=False),
            reread=store.run,
        )
    plain(f"wrote {len(written)} files under {out}")


COMMANDS: dict[str, Callable[..., None]] = {
    "report": report,
    "view": view,
    "export": export,
}
"""Command name -> its function, registered by `bounded.cli`."""
