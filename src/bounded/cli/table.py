"""`bounded table`: the paper's table, tasks (the design's blocks) as rows and treatments as
columns, each entry with its interval, per-environment and overall averages, paired
differences against a baseline with Holm-adjusted p-values, and per entry the rates of
fallbacks, parse errors and invalid actions; in LaTeX, Markdown or CSV."""

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
        typer.Option(
            help="Rows by: block (the task: environment and the options that define it), a "
            "block option (level, task, ...), or env, env_id, cell, tag, treatment, contract, "
            "model, experiment."
        ),
    ] = "block",
    cols: Annotated[
        str, typer.Option(help="Columns by: treatment (tag, else contract) or a run field.")
    ] = "treatment",
    baseline: Annotated[
        str | None,
        typer.Option(help="A column every other is compared with, paired on (block, seed)."),
    ] = None,
    metric: Annotated[
        str, typer.Option(help="progression (percent), wins, score or tokens (counted).")
    ] = "progression",
    format: Annotated[str, typer.Option("--format", help="latex, markdown or csv.")] = "latex",
    paired: Annotated[
        list[str] | None,
        typer.Option(
            help="Add the paired difference A - B of two columns per row, games paired on "
            "(block, seed): A,B (repeat)."
        ),
    ] = None,
    experiment: Annotated[str | None, typer.Option(help="Only runs of this experiment.")] = None,
    out: Annotated[
        Path | None, typer.Option("-o", "--out", help="File to write (default: print it).")
    ] = None,
    seed: SeedOption = 0,
) -> None:
    """The paper's table: tasks by treatments, each entry its mean and 95% interval
    (bootstrap; Wilson's for wins), BALROG's averages, paired differences against a baseline
    with Holm-adjusted p-values, fallback, parse-error and invalid-action rates."""
    from bounded.analysis.fallbacks import decision_tallies
    from bounded.analysis.paper import paper_table
    from bounded.analysis.paper_render import render
    from bounded.cli.analyze import parse_pairs
    from bounded.runner.spec import check_no_duplicates

    pairs = parse_pairs(paired or [], "--paired")
    with Archive(archive, read_only=True) as store:
        runs = filtered_runs(store, archive, experiment=experiment)
        tallies = decision_tallies(store)
    check_no_duplicates(runs)
    found = paper_table(
        runs, rows=rows, cols=cols, metric=metric, paired=pairs, baseline=baseline, seed=seed,
        tallies=tallies,
    )  # fmt: skip
    text = render(found, format)
    if out is None:
        print(text, end="")
        return
    out.write_text(text, encoding="utf-8")
    console.print(f"wrote {out}")


COMMANDS: dict[str, Callable[..., None]] = {"table": table}
"""Command name -> its function, registered by `bounded.cli`."""
