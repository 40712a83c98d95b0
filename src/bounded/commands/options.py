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


__all__ = ["parse_options"]
