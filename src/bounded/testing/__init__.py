"""Helpers for testing a contract outside the runner (ours and users' alike)."""

from __future__ import annotations

from typing import Any

from bounded.protocols import EpisodeContext


def episode(env_id: str = "test", seed: int = 0, **fields: Any) -> EpisodeContext:
    """An `EpisodeContext` for `Contract.reset`, with any field given by keyword."""
    return EpisodeContext(env_id=env_id, seed=seed, **fields)


__all__ = ["episode"]
