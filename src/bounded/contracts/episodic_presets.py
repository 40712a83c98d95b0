"""Condition tags of the EpicStar ablations, registered as contract presets.

`episodic` is both the contract's name and the full method's tag: its preset maps to
the default configuration, so `make_contract("episodic")` is the same either way.
"""

from __future__ import annotations

from typing import Any

from bounded.contracts import register_preset

EPISODIC_PRESETS: dict[str, dict[str, Any]] = {
    "episodic": {},
    "episodic-no-exploration": {"exploration": False},
    "episodic-no-fusion": {"fusion": False},
}
"""Tag -> overrides of `EpisodicConfig` (the paper's ablations)."""

for _tag, _overrides in EPISODIC_PRESETS.items():
    register_preset(_tag, "episodic", _overrides)

__all__ = ["EPISODIC_PRESETS"]
