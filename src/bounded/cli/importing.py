"""`bounded import`: load another harness's run archive as bounded runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from bounded.archive import DEFAULT_ARCHIVE, Archive
from bounded.cli._options import ArchiveOption, NewArchiveArgument, archive_path
from bounded.cli._output import console
from bounded.core import ConfigError


def import_runs(
    source: Annotated[str, typer.Argument(help="Where the runs come from: agenticsts.")],
    path: Annotated[
        Path, typer.Argument(metavar="FILE", help="The source's run file (history.jsonl).")
    ],
    archive: NewArchiveArgument = None,
    archive_option: ArchiveOption = None,
) -> None:
    """Load another harness's run archive as bounded runs."""
    from bounded.importers import IMPORTERS

    archive = archive_path(archive, archive_option, DEFAULT_ARCHIVE)
    if source not in IMPORTERS:
        raise ConfigError(f"unknown import source {source!r} (known: {', '.join(IMPORTERS)})")
    with Archive(archive) as store:
        summary = IMPORTERS[source](path, store)
    console.print(
        f"imported {summary.imported} runs ({summary.completed} completed games, "
        f"{summary.tags} tags) from {summary.source} into {archive}",
        markup=False,
    )


COMMANDS: dict[str, Callable[..., None]] = {
    "import": import_runs,
}
"""Command name -> its function, registered by `bounded.cli`."""
