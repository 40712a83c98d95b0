"""Command-line values shared by the commands: `key=value` options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def archive_path(given: Path | None, option: Path, default: Path) -> Path:
    """The archive a command reads, given as its argument (as `analyze`, `report`, ... take
    it) or as `--archive`: the two must agree when both are given."""
    if given is not None and option != default and given != option:
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


__all__ = ["REASONING_CHARS_HELP", "parse_options", "parse_reasoning_chars", "parse_tiers"]
