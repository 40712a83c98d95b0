"""`bounded demo`: a bounded contract beside the transcript on one spire game (the
default), the whole spire game under the typed contract (`--full`), or the warehouse
horizons."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
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

DEMOS = ("compare", "spire", "warehouse")
DEFAULT_DECISIONS = 8
"""`bounded.jobs.demo_compare.COMPARE_DECISIONS` (kept here so `--help` imports no job)."""


def demo(
    which: Annotated[
        str,
        typer.Argument(
            help="compare (the default: typed beside transcript), spire (the whole game, as "
            "--full) or warehouse."
        ),
    ] = "compare",
    archive: NewArchiveArgument = None,
    model: ModelOption = "local",
    seed: Annotated[
        int,
        typer.Option(help="Episode seed (shared by every game of the demo).", min=0, max=MAX_SEED),
    ] = DEFAULT_SEED,
    full: Annotated[
        bool, typer.Option("--full", help="The whole spire game under the typed contract.")
    ] = False,
    decisions: Annotated[
        int | None,
        typer.Option(
            help=f"compare: decisions per game [default: {DEFAULT_DECISIONS}].", min=1, max=200
        ),
    ] = None,
    report: Annotated[
        Path | None,
        typer.Option(help="compare: the report to write (default: beside the archive)."),
    ] = None,
    acts: Annotated[
        int | None, typer.Option(help="spire: acts to play (1-3) [default: 1].", min=1, max=3)
    ] = None,
    contract: Annotated[
        str | None, typer.Option(help="spire: contract or preset [default: typed].")
    ] = None,
    horizons: Annotated[
        str | None, typer.Option(help="warehouse: comma-separated T [default: 5,10,20,30].")
    ] = None,
    base_url: BaseUrlOption = None,
    archive_option: ArchiveOption = None,
) -> None:
    """What bounded is for: the typed contract's prompt beside the transcript's on the same
    spire game, a few decisions each on the embedded model (`--full`: the whole game under
    typed; `demo warehouse`: transcript vs state at several horizons)."""
    archive = archive_path(archive, archive_option, DEFAULT_ARCHIVE)
    if which not in DEMOS:
        raise ConfigError(f"unknown demo {which!r} (one of {', '.join(DEMOS)})")
    if full:
        which = "spire"
    refuse_other_demos_options(
        which, {"decisions": decisions, "report": report, "acts": acts,
                "contract": contract, "horizons": horizons},
    )  # fmt: skip
    if which == "compare":
        compare_demo(archive, model, seed, decisions or DEFAULT_DECISIONS, report, base_url)
    elif which == "spire":
        spire_demo(archive, model, seed, acts or 1, contract or "typed", base_url)
    else:
        warehouse_demo(archive, model, seed, horizon_list(horizons or "5,10,20,30"), base_url)


OPTIONS_OF: dict[str, tuple[str, ...]] = {
    "compare": ("decisions", "report"),
    "spire": ("acts", "contract"),
    "warehouse": ("horizons",),
}
"""The options only one demo reads."""


def refuse_other_demos_options(which: str, given: dict[str, object]) -> None:
    """An option of another demo is refused, not ignored (`bounded demo --acts 3` would
    otherwise play the comparison)."""
    for other, names in OPTIONS_OF.items():
        stray = [f"--{name}" for name in names if other != which and given[name] is not None]
        if stray:
            command = "bounded demo --full" if other == "spire" else f"bounded demo {other}"
            raise ConfigError(
                f"{', '.join(stray)} belongs to the {other} demo, not the {which} one "
                f"(use: {command} {stray[0]} ...)"
            )


def horizon_list(horizons: str) -> list[int]:
    try:
        return [int(h) for h in horizons.split(",")]
    except ValueError as exc:
        raise ConfigError(f"--horizons must be integers separated by commas: {horizons!r}") from exc


def compare_demo(
    archive: Path, model: str, seed: int, decisions: int, report: Path | None, base_url: str | None
) -> None:
    from bounded.jobs import demo_compare
    from bounded.report import build_report

    with Archive(archive) as store:
        comparison = demo_compare.run_comparison(
            model, seed=seed, decisions=decisions, archive=store, base_url=base_url,
            console=console,
        )  # fmt: skip
    console.print(demo_compare.prompt_table(comparison))
    console.print(demo_compare.layer_table(comparison))
    written = build_report(archive, report or archive.parent / "demo-report.html")
    for line in demo_compare.closing_lines(comparison, archive, written):
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def spire_demo(
    archive: Path, model: str, seed: int, acts: int, contract: str, base_url: str | None
) -> None:
    from bounded.jobs import demo as demos

    with Archive(archive) as store:
        result = demos.run_spire_demo(
            model, acts=acts, contract=contract, seed=seed, archive=store,
            base_url=base_url, console=console,
        )  # fmt: skip
        summary = demos.spire_summary(result, archive)
        add_counterfactual_rows(summary, result.run, store.decisions(result.run.run_id))
    console.print(summary)


def warehouse_demo(
    archive: Path, model: str, seed: int, horizons: list[int], base_url: str | None
) -> None:
    from bounded.jobs import demo as demos

    with Archive(archive) as store:
        rows = demos.run_demo(
            model, horizons, seed=seed, archive=store, base_url=base_url, console=console
        )
    console.print(demos.demo_table(rows))
    console.print(f"archive: {archive}", markup=False)


COMMANDS: dict[str, Callable[..., None]] = {
    "demo": demo,
}
"""Command name -> its function, registered by `bounded.cli`."""
