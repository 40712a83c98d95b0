"""`bounded table`: a paper's table of one metric, rows by one field and columns by
another, each entry with its interval, in LaTeX, Markdown or CSV."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from bounded.archive import DEFAULT_ARCHIVE, Archive
from bounded.cli._filters import filtered_runs
from bounded.cli._options import ArchiveArgument, SeedOption
from bounded.cli._output import console


def table(
    archive: ArchiveArgument = DEFAULT_ARCHIVE,
    rows: Annotated[
        str,
        typer.Option(help="Rows by: env, env_id, cell, tag, contract, model or experiment."),
    ] = "env",
    cols: Annotated[str, typer.Option(help="Columns by the same fields as --rows.")] = "tag",
    metric: Annotated[
        str, typer.Option(help="progression (percent), wins, score or tokens (counted).")
    ] = "progression",
    format: Annotated[str, typer.Option("--format", help="latex, markdown or csv.")] = "latex",
    paired: Annotated[
        list[str] | None,
        typer.Option(
            help="Add the paired difference A - B of two columns per row, games paired by "
            "seed: A,B (repeat)."
        ),
    ] = None,
    experiment: Annotated[str | None, typer.Option(help="Only runs of this experiment.")] = None,
    out: Annotated[
        Path | None, typer.Option("-o", "--out", help="File to write (default: print it).")
    ] = None,
    seed: SeedOption = 0,
) -> None:
    """A paper's table: one metric by two fields, each entry its mean and 95% interval
    (bootstrap; Wilson's for wins), paired differences where asked."""
    from bounded.analysis.paper import paper_table, render
    from bounded.cli.analyze import parse_pairs

    pairs = parse_pairs(paired or [], "--paired")
    with Archive(archive, read_only=True) as store:
        runs = filtered_runs(store, archive, experiment=experiment)
    text = render(
        paper_table(runs, rows=rows, cols=cols, metric=metric, paired=pairs, seed=seed), format
    )
    if out is None:
        print(text, end="")
        return
    out.write_text(text, encoding="utf-8")
    console.print(f"wrote {out}")


COMMANDS: dict[str, Callable[..., None]] = {"table": table}
"""Command name -> its function, registered by `bounded.cli`."""
