"""`bounded stores`: show, freeze and diff the typed contract's store directories."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bounded.core import ConfigError

stores_app = typer.Typer(help="Typed-contract stores: show, freeze, diff.", no_args_is_help=True)


def _existing_dir(path: Path) -> Path:
    if not path.is_dir():
        raise ConfigError(f"no store directory at {path}")
    return path


@stores_app.command("show")
def stores_show(path: Annotated[Path, typer.Argument(help="A store directory.")]) -> None:
    """The stores in a directory, their entries and the directory's content hash."""
    from bounded.stores.snapshot import describe

    typer.echo(describe(_existing_dir(path)))


@stores_app.command("freeze")
def stores_freeze(
    path: Annotated[Path, typer.Argument(help="A store directory.")],
    into: Annotated[Path, typer.Option(help="Where read-only snapshots are kept.")] = Path(
        "runs/snapshots"
    ),
) -> None:
    """Copy a store directory to a read-only snapshot named by its content hash."""
    from bounded.stores.snapshot import freeze

    typer.echo(str(freeze(_existing_dir(path), into)))


@stores_app.command("diff")
def stores_diff(
    before: Annotated[Path, typer.Argument(help="Store directory or snapshot before.")],
    after: Annotated[Path, typer.Argument(help="Store directory or snapshot after.")],
) -> None:
    """What changed between two store directories, entry by entry."""
    from bounded.stores.snapshot import diff

    typer.echo(diff(_existing_dir(before), _existing_dir(after)).render())


GROUPS: dict[str, typer.Typer] = {"stores": stores_app}
"""Group name -> its typer app of subcommands, registered by `bounded.cli`."""
