"""Command-line values shared by the commands: `key=value` options."""

from __future__ import annotations

import json
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


def parse_tiers(pairs: list[str]) -> dict[str, str]:
    """`KIND=SPEC` pairs (`combat=local:fast.gguf`): the model of each decision kind."""
    tiers: dict[str, str] = {}
    for pair in pairs:
        kind, sep, spec = pair.partition("=")
        if not sep or not kind.strip() or not spec.strip():
            raise ConfigError(f"--model-for {pair!r} is not KIND=MODEL (e.g. combat=local)")
        tiers[kind.strip()] = spec.strip()
    return tiers


__all__ = ["parse_options", "parse_tiers"]
