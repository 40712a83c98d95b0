"""CLI commands for stores that contracts read: the episodic bank, the craft table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

bank_app = typer.Typer(help="Build and inspect episodic banks (EpicStar).", no_args_is_help=True)


@bank_app.command("craft")
def bank_craft(
    levels: Annotated[list[int] | None, typer.Option(help="Built-in AI levels to play.")] = None,
    rounds: Annotated[int, typer.Option(help="Games per level.")] = 20,
    map_name: Annotated[
        str, typer.Option("--map", help="Map the bank is collected on.")
    ] = "highlands",
    seed: Annotated[int, typer.Option(help="First game seed.")] = 0,
    keep: Annotated[int | None, typer.Option(help="Keep at most N winning games.")] = None,
    out: Annotated[Path, typer.Option(help="Bank file to write.")] = Path("runs/banks/craft.npz"),
) -> None:
    """Bootstrap the craft bank from the expert's winning games."""
    from bounded.stores.episodic import build_craft_bank_command

    typer.echo(
        build_craft_bank_command(
            out,
            levels=tuple(levels or (6, 7)),
            rounds=rounds,
            map_name=map_name,
            seed=seed,
            keep=keep,
        )
    )


@bank_app.command("show")
def bank_show(path: Annotated[Path, typer.Argument(help="A bank file.")]) -> None:
    """A bank's size, provenance and content hash (verified on load)."""
    from bounded.stores.episodic import describe_bank

    typer.echo(describe_bank(path))


def craft_table(
    archive: Annotated[Path, typer.Argument(help="Run archive.")],
    experiment: Annotated[str | None, typer.Option(help="Only this experiment.")] = None,
) -> None:
    """EpicStar's Table 1 for the craft runs of an archive (win rate, PBR, RUR, APU, TR, tokens)."""
    from bounded.analysis.craft_table import craft_table_command

    typer.echo(craft_table_command(archive, experiment=experiment))


COMMANDS: dict[str, Callable[..., None]] = {"craft-table": craft_table}
SUBCOMMANDS: dict[str, typer.Typer] = {"bank": bank_app}
