"""Condition tags of the EpicStar ablations, registered as contract presets.

`episodic` is both the contract's name and the full method's tag: its preset maps to
the default configuration, so `make_contract("episodic")` is the same either way.
"""

from __future__ import annotations

from typing import Any

EPISODIC_PRESETS: dict[str, dict[str, Any]] = {
    "episodic": {},
    "episodic-no-exploration": {"exploration": False},
    "episodic-no-fusion": {"fusion": False},
}
"""Tag -> overrides of `EpisodicConfig` (the paper's ablations)."""


__all__ = ["EPISODIC_PRESETS"]
