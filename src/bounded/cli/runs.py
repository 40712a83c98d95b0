"""`bounded runs` and `bounded resume`: list an archive's runs, close stale ones, continue a
killed run from its last recorded decision."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from bounded.archive import DEFAULT_ARCHIVE, Archive
from bounded.cli._filters import filtered_runs
from bounded.cli._options import (
    ArchiveOption,
    OptionalArchiveArgument,
    archive_path,
    existing_archive,
)
from bounded.cli._output import console, print_folded, run_summary
from bounded.core import ConfigError


def runs(
    archive: OptionalArchiveArgument = None,
    archive_option: ArchiveOption = None,
    tag: Annotated[str | None, typer.Option(help="Only runs with this tag.")] = None,
    limit: Annotated[int, typer.Option(help="Show the newest N runs.", min=1)] = 50,
    close_stale: Annotated[
        bool,
        typer.Option(
            "--close-stale",
            help="Mark runs left `running` by a dead process `failed` with the reason "
            "(those that `bounded resume` can continue are left alone).",
        ),
    ] = False,
    resumable: Annotated[
        bool, typer.Option("--resumable", help="With --close-stale: close resumable ones too.")
    ] = False,
) -> None:
    """List the runs in an archive (opened read-only unless --close-stale). A run whose
    process died shows as `stale`, `stale (resumable)` when `bounded resume` can continue it."""
    from bounded.runner.resume import close_stale as close
    from bounded.runner.resume import health

    archive = archive_path(archive, archive_option, DEFAULT_ARCHIVE)
    if resumable and not close_stale:
        raise ConfigError("--resumable goes with --close-stale")
    if close_stale:
        with Archive(archive) as store:
            for found in close(store, resumable_too=resumable):
                console.print(f"closed {found.run.run_id[:12]}: {found.run.status} -> failed")
    with Archive(archive, read_only=True) as store:
        kept = filtered_runs(store, archive, tag=tag)
        records = health(store, kept[-limit:])
    print_runs(archive, records, total=len(kept))


def short_error(error: str | None, limit: int = 80) -> str:
    """A run's error on one line, cut to `limit` characters."""
    flat = " ".join((error or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def runs_title(archive: Path, shown: int, total: int) -> str:
    """The table's title: how many runs it shows, and of how many when --limit cut it."""
    if shown < total:
        return f"{archive}: the newest {shown} of {total} runs"
    return f"{archive}: {total} runs"


def print_runs(archive: Path, records: list[Any], *, total: int) -> None:
    """The runs table (a sweep game's cell, a failed run's error), and how to continue the
    stale ones: a sweep's games by rerunning the sweep, the others by `bounded resume`."""
    table = Table(title=escape(runs_title(archive, len(records), total)))
    table.add_column("run", no_wrap=True, min_width=12)
    for column in ("env", "contract", "tag", "cell", "model", "seed", "status", "decisions"):
        table.add_column(column)
    table.add_column("prompt tokens", justify="right")
    table.add_column("wall s", justify="right")
    table.add_column("code")
    table.add_column("error")
    for found in records:
        r = found.run
        named = (r.env_id, r.contract, r.tag, r.cell or "-", r.model)
        table.add_row(
            r.run_id[:12], *(escape(text) for text in named), str(r.seed), found.label,
            str(r.decisions), str(r.prompt_tokens), f"{r.wall_s:.1f}",
            escape(r.code_revision or "-"), escape(short_error(r.error)),
        )  # fmt: skip
    print_folded(table)
    stale = [found for found in records if found.stale]
    swept = sorted({found.run.experiment for found in stale if found.run.experiment})
    alone = [found for found in stale if not found.run.experiment]
    where = shlex.quote(str(archive))
    if swept:
        console.print(
            f"{len(stale) - len(alone)} stale games of experiment(s) {', '.join(swept)}: rerun "
            f"the sweep (bounded sweep FILE.toml {where}) to continue them", soft_wrap=True,
            markup=False,
        )  # fmt: skip
    if alone:
        can = sum(found.resumable for found in alone)
        console.print(
            f"{len(alone)} stale runs ({can} resumable): bounded resume RUN_ID {where} "
            f"continues one; bounded runs {where} --close-stale marks the others failed",
            soft_wrap=True,
            markup=False,
        )


def resume(
    run_id: Annotated[str, typer.Argument(help="The run's id (or a unique prefix of it).")],
    archive: OptionalArchiveArgument = None,
    archive_option: ArchiveOption = None,
) -> None:
    """Continue a killed run: the environment replayed from the seed, the contract's memory
    restored from the snapshot saved with its last decision; the run keeps its id."""
    from bounded.runner.resume import resume_run

    archive = existing_archive(archive_path(archive, archive_option, DEFAULT_ARCHIVE))
    record = resume_run(archive, run_id)
    with Archive(archive, read_only=True) as store:
        decisions = store.decisions(record.run_id)
    console.print(run_summary(record, archive, decisions))


COMMANDS: dict[str, Callable[..., None]] = {
    "runs": runs,
    "resume": resume,
}
"""Command name -> its function, registered by `bounded.cli`."""
