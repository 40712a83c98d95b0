"""`bounded ladder`: the ascension ladder (one level up after a victory)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer

from bounded.archive import DEFAULT_ARCHIVE, Archive
from bounded.cli._options import (
    MAX_SEED,
    ArchiveOption,
    NewArchiveArgument,
    archive_path,
    parse_options,
)
from bounded.core import ConfigError
from bounded.runner.spec import DEFAULT_SEED


def ladder(
    env: Annotated[str, typer.Argument(help="An environment with ascension levels (spire).")],
    archive: NewArchiveArgument = None,
    contract: Annotated[str, typer.Option(help="Contract or preset.")] = "self-evolve",
    model: Annotated[str, typer.Option(help="local | local:PATH.gguf | openai:MODEL.")] = "local",
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint.")] = None,
    runs: Annotated[int, typer.Option(help="Number of runs.")] = 10,
    start: Annotated[int, typer.Option(help="First ascension level.")] = 0,
    top: Annotated[int, typer.Option(help="Highest ascension level.")] = 10,
    seed: Annotated[
        int,
        typer.Option(
            help="Seed of the first run; run i plays seed + i (default: 1, every command's "
            "first seed).",
            min=0,
            max=MAX_SEED,
            show_default=False,
        ),
    ] = DEFAULT_SEED,
    postrun: Annotated[bool, typer.Option(help="Learn after each run.")] = True,
    copt: Annotated[list[str] | None, typer.Option(help="Contract option key=value.")] = None,
    archive_option: ArchiveOption = None,
) -> None:
    """Ascension ladder: after a victory the next run is one level up, after a defeat the same."""
    from bounded.jobs.ladder import LadderStep, run_ladder
    from bounded.runner.build import build_model, check_spec
    from bounded.runner.spec import make_spec

    archive = archive_path(archive, archive_option, DEFAULT_ARCHIVE)
    if not 0 <= start <= top:
        raise ConfigError(f"--start {start} is outside 0..{top}")
    spec = make_spec(
        env=env, env_options={"ascension": start}, contract=contract,
        contract_config=parse_options(copt or []), model=model, base_url=base_url, seed=seed,
        tag=contract,
    )  # fmt: skip
    check_spec(spec)  # refuse an environment without levels before loading a model
    llm = build_model(spec)

    def show(step: LadderStep) -> None:
        result = "victory" if step.victory else "defeat"
        typer.echo(f"run {step.index}: A{step.ascension} seed {step.seed} {result}")

    with Archive(archive) as store:
        result = run_ladder(
            spec, runs=runs, start=start, top=top, postrun=postrun, archive=store, model=llm,
            on_step=show,
        )  # fmt: skip
    typer.echo(
        f"endpoint A{result.endpoint}, highest won "
        f"{'-' if result.highest_won is None else f'A{result.highest_won}'}, "
        f"{result.victories}/{len(result.steps)} victories, completed: {result.completed}"
    )


COMMANDS: dict[str, Callable[..., None]] = {
    "ladder": ladder,
}
"""Command name -> its function, registered by `bounded.cli`."""
