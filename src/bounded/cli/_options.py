"""Command-line values shared by the commands: `key=value` options, the archive given the
same way everywhere, and the typer options several commands take."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from bounded.archive import DEFAULT_ARCHIVE, Archive
from bounded.core import ConfigError


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """`key=value` pairs; values are read as JSON when they parse, else kept as strings."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"option {pair!r} is not key=value")
        try:
            options[key] = json.loads(raw)
        except json.JSONDecodeError:
            options[key] = raw
    return options


REASONING_CHARS_HELP = (
    "Cap on a reply's reasoning, in characters: N, none (no cap) or model (the default: the "
    "model's own budget, 120 on the embedded model, none elsewhere). Sets the contract "
    "option reasoning_chars."
)


def parse_reasoning_chars(raw: str) -> int | str | None:
    """`--reasoning-chars`: a positive number of characters, `none` or `model`."""
    word = raw.strip().lower()
    if word in ("none", "null"):
        return None
    if word == "model":
        return "model"
    try:
        value = int(word)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigError(f"--reasoning-chars {raw!r}: give a positive number, none or model")
    return value


def archive_path(given: Path | None, option: Path | None, default: Path) -> Path:
    """The archive a command reads or writes: its `ARCHIVE` argument, else the deprecated
    `--archive` (said so in one line on stderr), else `default`; the two must agree when
    both are given."""
    return given_archive(given, option) or default


def given_archive(given: Path | None, option: Path | None) -> Path | None:
    """`archive_path` without a default: None when neither was given."""
    if option is not None:
        print(
            "bounded: note: --archive is deprecated; give the archive as the command's "
            "ARCHIVE argument",
            file=sys.stderr,
        )
        if given is not None and given != option:
            raise ConfigError(f"two archives given: {given} and --archive {option}")
    return given if given is not None else option


def parse_tiers(pairs: list[str]) -> dict[str, str]:
    """`KIND=SPEC` pairs (`combat=local:fast.gguf`): the model of each decision kind."""
    tiers: dict[str, str] = {}
    for pair in pairs:
        kind, sep, spec = pair.partition("=")
        if not sep or not kind.strip() or not spec.strip():
            raise ConfigError(f"--model-for {pair!r} is not KIND=MODEL (e.g. combat=local)")
        tiers[kind.strip()] = spec.strip()
    return tiers


__all__ = [
    "REASONING_CHARS_HELP",
    "archive_path",
    "given_archive",
    "parse_options",
    "parse_reasoning_chars",
    "parse_tiers",
]


ArchiveOption = Annotated[
    Path | None,
    typer.Option("--archive", help="Deprecated: the ARCHIVE argument.", show_default=False),
]
"""The `--archive` of commands that took the archive so before it became their argument."""


ModelOption = Annotated[
    str, typer.Option("--model", help="local | local:PATH.gguf | openai:MODEL | scripted:FILE.")
]


BaseUrlOption = Annotated[
    str | None, typer.Option("--base-url", help="Endpoint of an OpenAI-compatible server.")
]


MAX_SEED = 2**63 - 1
"""The largest seed: seeds are stored as SQLite integers (signed 64 bits), and numpy and
Gymnasium take any seed from 0 up."""


ArchiveArgument = Annotated[
    Path,
    typer.Argument(
        metavar="ARCHIVE", help=f"SQLite run archive (default {DEFAULT_ARCHIVE}).",
        show_default=False,
    ),
]  # fmt: skip
"""Every command's archive: its last argument, `runs/bounded.sqlite` when left out."""

OptionalArchiveArgument = Annotated[
    Path | None,
    typer.Argument(
        metavar="ARCHIVE", help=f"SQLite run archive (default {DEFAULT_ARCHIVE}).",
        show_default=False,
    ),
]  # fmt: skip
"""`ArchiveArgument` beside the deprecated `ArchiveOption` (None when left out)."""

NewArchiveArgument = Annotated[
    Path | None,
    typer.Argument(
        metavar="ARCHIVE", help=f"SQLite run archive, created if missing (default "
        f"{DEFAULT_ARCHIVE}).", show_default=False,
    ),
]  # fmt: skip
"""The archive of a command that writes one (created if missing), beside `ArchiveOption`."""


def existing_archive(path: Path) -> Path:
    """`path`, checked to be a bounded archive by opening it read-only (nothing is written:
    a directory, a missing file, another application's database or a non-SQLite file is
    refused)."""
    if path.is_dir():  # as opening one to write says
        raise ConfigError(f"cannot open archive {path}: it is a directory")
    if not path.is_file():
        raise ConfigError(f"no archive at {path}")
    with Archive(path, read_only=True):
        return path


ByOption = Annotated[
    list[str] | None,
    typer.Option(
        help="Group by: tag, cell, experiment, env_id, contract, model, reasoning_chars (the "
        "reasoning cap in force) (repeat); with --cell, split each cell by these."
    ),
]


CellOption = Annotated[
    list[str] | None,
    typer.Option(
        "--cell", help="A cell: LABEL=TAG[,TAG...] (repeat; in order). Replaces tag grouping."
    ),
]


ChangeOption = Annotated[
    list[str] | None,
    typer.Option(help="Percent change of mean score from cell A to B per --by group: A,B."),
]


DiffOption = Annotated[
    list[str] | None,
    typer.Option(help="Mean score of A minus B, 95% bootstrap interval: A,B (repeat)."),
]


FirstOption = Annotated[
    int | None, typer.Option(help="Count the first N completed games per row by start time.")
]


FisherOption = Annotated[
    list[str] | None, typer.Option(help="Fisher exact test between two cells: A,B (repeat).")
]


PoolAllOption = Annotated[bool, typer.Option(help="Add a pooled row over every row.")]


PoolOption = Annotated[
    list[str] | None,
    typer.Option(help="Add a pooled row (Clopper-Pearson) over these cells: A,B,... (repeat)."),
]


PoolTagsOption = Annotated[
    bool, typer.Option(help="Allow one cell to pool games of different tags.")
]


ExperimentOption = Annotated[str | None, typer.Option(help="Only runs of this experiment.")]


PriceOption = Annotated[
    list[str] | None,
    typer.Option(
        help="Prices of a model per million tokens: MODEL=INPUT,CACHED,OUTPUT (repeat; MODEL "
        "'default' prices every other model), over the archive's or --prices' prices."
    ),
]


PricesOption = Annotated[
    list[Path] | None,
    typer.Option(
        help="A price file: TOML with a [prices] table (an experiment file's own), or a "
        "shipped one's name (list-2025); repeat. Default: the prices the archive's sweeps "
        "stored; none: costs read unpriced."
    ),
]


SeedOption = Annotated[int, typer.Option(help="Bootstrap seed.")]


ExcludeFallbackWinsOption = Annotated[
    bool,
    typer.Option(
        "--exclude-fallback-wins",
        help="Leave out of every row the games won on fallbacks (a decision executed a "
        "fallback, not the model's action); the count is printed.",
    ),
]
