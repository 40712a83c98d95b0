"""Contract registry: a short name (or a preset, which is a name plus settings) to a class.

Entry points are `"module:Class"` strings resolved on first use, so a user's own
contract registers the same way ours do: `register_contract("mine", "pkg.mod:Mine")`.
"""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import ValidationError

from bounded.core import ConfigError, Contract, first_validation_error

_CONTRACTS: dict[str, str] = {
    "transcript": "bounded.contracts.transcript:TranscriptContract",
    "state": "bounded.contracts.state:StateContract",
    "summary": "bounded.contracts.summary:SummaryContract",
    "typed": "bounded.contracts.typed:TypedContract",
    "episodic": "bounded.contracts.episodic:EpisodicContract",
}

PRESETS: dict[str, tuple[str, dict[str, Any]]] = {}
"""Preset name -> (contract name, config overrides). Presets double as condition tags."""


def register_contract(name: str, entry_point: str) -> None:
    _CONTRACTS[name] = entry_point


def register_preset(name: str, contract: str, overrides: dict[str, Any]) -> None:
    PRESETS[name] = (contract, overrides)


def contract_names() -> list[str]:
    return sorted(set(_CONTRACTS) | set(PRESETS))


def _load(entry_point: str) -> type:
    module_name, _, attr = entry_point.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def make_contract(name: str, config: dict[str, Any] | None = None) -> Contract:
    """Build a contract by name or preset; `config` overrides the preset's settings."""
    settings: dict[str, Any] = {}
    if name in PRESETS:
        name, preset = PRESETS[name]
        settings.update(preset)
    if name not in _CONTRACTS:
        raise ConfigError(f"unknown contract {name!r} (known: {', '.join(contract_names())})")
    settings.update(config or {})
    cls = _load(_CONTRACTS[name])
    try:
        return cls(**settings)
    except (TypeError, ValueError) as exc:
        first = (
            first_validation_error(exc)
            if isinstance(exc, ValidationError)
            else str(exc).splitlines()[0]
        )
        raise ConfigError(f"bad settings for contract {name!r}: {first}") from exc


__all__ = ["PRESETS", "contract_names", "make_contract", "register_contract", "register_preset"]
from bounded.contracts import episodic_presets as _episodic_presets  # noqa: E402,F401
from bounded.contracts import typed_presets as _typed_presets  # noqa: E402,F401
