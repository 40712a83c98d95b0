"""`bounded textworld-games`: the TextWorld games an experiment (or a task and seeds) will
play, put on disk before its first game, in parallel, with a progress bar
(`bounded.envs.textworld.prepare`)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from bounded.cli._output import plain
from bounded.core import BoundedError, ConfigError


def planned_games(
    source: Path | None, task: str, seeds: str, options: dict[str, Any]
) -> list[tuple[str, dict[str, Any], int]]:
    """(env, options, seed) of the experiment's games, else of `task` over `seeds`."""
    if source is not None:
        from bounded.sweeps.experiment import load_experiment

        specs = load_experiment(source).plan()
        return [(spec.env, dict(spec.env_options), spec.seed) for spec in specs]
    first, _, last = seeds.partition("-")
    try:
        span = range(int(first), int(last or first) + 1)
    except ValueError as exc:
        raise ConfigError(f"--seeds must be N or N-M, got {seeds!r}") from exc
    return [("textworld", {"task": task, **options}, seed) for seed in span]


def textworld_games(
    source: Annotated[
        Path | None, typer.Argument(help="Experiment file (TOML) whose TextWorld games to make.")
    ] = None,
    task: Annotated[str, typer.Option(help="Without a file: the task.")] = "treasure_hunter",
    seeds: Annotated[str, typer.Option(help="Without a file: seeds N or N-M.")] = "0-9",
    options: Annotated[
        str, typer.Option(help="Without a file: more environment options (JSON).")
    ] = "{}",
    workers: Annotated[
        int, typer.Option(help="Games generated at once (default: the CPU count).")
    ] = 0,
) -> None:
    """Put the TextWorld games an experiment (or a task's seeds) plays on disk first: BALROG's
    shipped pool unpacked, generated games generated in parallel, so that no episode's first
    decision waits for a generation. Games already on disk are kept."""
    from pydantic import ValidationError
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from bounded.core import first_validation_error
    from bounded.envs.textworld.prepare import needs_of, prepare

    try:
        extra = dict(json.loads(options))
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"--options must be a JSON object, got {options!r}") from exc
    try:
        needs = needs_of(planned_games(source, task, seeds, extra))
    except ValidationError as exc:  # a TextWorld option the environment refuses
        raise ConfigError(f"bad TextWorld options: {first_validation_error(exc)}") from exc
    if not needs:
        plain("no TextWorld games to make")
        return
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns) as progress:
        bar = progress.add_task("TextWorld games", total=len(needs))

        def done(need: Any, error: str | None) -> None:
            progress.advance(bar)
            progress.console.print(f"{'failed' if error else 'ready'}: {error or need.label}")

        errors = prepare(needs, workers or os.cpu_count() or 1, done)
    plain(f"{len(needs) - len(errors)} of {len(needs)} ready")
    if errors:
        raise BoundedError(f"{len(errors)} TextWorld games could not be made: {errors[0]}")
