"""`bounded resume`: continue a killed run from its last recorded decision."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from bounded.archive import DEFAULT_ARCHIVE, Archive

console = Console()


def resume(
    run_id: Annotated[str, typer.Argument(help="The run's id (or a unique prefix of it).")],
    path: Annotated[
        Path | None, typer.Argument(help="The archive (default runs/bounded.sqlite).")
    ] = None,
    archive: Annotated[Path, typer.Option(help="The archive, as an option.")] = DEFAULT_ARCHIVE,
) -> None:
    """Continue a killed run: the environment replayed from the seed, the contract's memory
    restored from the snapshot saved with its last decision; the run keeps its id."""
    from bounded.commands.options import archive_path
    from bounded.commands.output import run_summary
    from bounded.core import ConfigError
    from bounded.runner.resume import resume_run

    archive = archive_path(path, archive, DEFAULT_ARCHIVE)
    if not archive.is_file():
        raise ConfigError(f"no archive at {archive}")
    record = resume_run(archive, run_id)
    with Archive(archive, read_only=True) as store:
        decisions = store.decisions(record.run_id)
    console.print(run_summary(record, archive, decisions))


COMMANDS: dict[str, Callable[..., None]] = {"resume": resume}

__all__ = ["COMMANDS", "resume"]
