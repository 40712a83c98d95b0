"""`bounded demo`: the spire game under the typed contract, or the warehouse horizons."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer

from bounded.archive import DEFAULT_ARCHIVE, Archive
from bounded.cli._options import (
    MAX_SEED,
    ArchiveOption,
    BaseUrlOption,
    ModelOption,
    NewArchiveArgument,
    archive_path,
)
from bounded.cli._output import add_counterfactual_rows, console
from bounded.core import ConfigError
from bounded.runner.spec import DEFAULT_SEED


def demo(
    which: Annotated[str, typer.Argument(help="spire (the default) or warehouse.")] = "spire",
    archive: NewArchiveArgument = None,
    model: ModelOption = "local",
    seed: Annotated[
        int,
        typer.Option(help="Episode seed (shared by all warehouse runs).", min=0, max=MAX_SEED),
    ] = DEFAULT_SEED,
    acts: Annotated[int, typer.Option(help="spire: acts to play (1-3).", min=1, max=3)] = 1,
    contract: Annotated[str, typer.Option(help="spire: contract or preset.")] = "typed",
    horizons: Annotated[str, typer.Option(help="warehouse: comma-separated T.")] = "5,10,20,30",
    base_url: BaseUrlOption = None,
    archive_option: ArchiveOption = None,
) -> None:
    """The main job: a spire game under the typed contract on the embedded model
    (`demo warehouse`: transcript vs state at several horizons)."""
    from bounded.jobs import demo as demos

    archive = archive_path(archive, archive_option, DEFAULT_ARCHIVE)
    if which not in ("spire", "warehouse"):
        raise ConfigError(f"unknown demo {which!r} (spire or warehouse)")
    try:
        values = [int(h) for h in horizons.split(",")]
    except ValueError as exc:
        raise ConfigError(f"--horizons must be integers separated by commas: {horizons!r}") from exc
    with Archive(archive) as store:
        if which == "spire":
            result = demos.run_spire_demo(
                model, acts=acts, contract=contract, seed=seed, archive=store,
                base_url=base_url, console=console,
            )  # fmt: skip
            summary = demos.spire_summary(result, archive)
            add_counterfactual_rows(summary, result.run, store.decisions(result.run.run_id))
            console.print(summary)
            return
        rows = demos.run_demo(
            model, values, seed=seed, archive=store, base_url=base_url, console=console
        )
    console.print(demos.demo_table(rows))
    console.print(f"archive: {archive}")


COMMANDS: dict[str, Callable[..., None]] = {
    "demo": demo,
}
"""Command name -> its function, registered by `bounded.cli`."""
