"""Environment registry: short names and Gymnasium ids for every environment.

Each environment is registered with Gymnasium under `bounded/<Name>-v0` with a
lazy `"module:Class"` entry point, so importing this package imports no engine.
A user's environment plugs in the same way: `gymnasium.register(id=..., entry_point=...)`
and then `make("their/Id-v0")`.
"""

from __future__ import annotations

from typing import Any

import gymnasium

from bounded.core import ConfigError, Env

ENV_IDS: dict[str, str] = {
    "warehouse": "bounded/Warehouse-v0",
    "spire": "bounded/Spire-v0",
    "craft": "bounded/Craft-v0",
    "workbench": "bounded/Workbench-v0",
}
"""Short name -> Gymnasium id."""

_ENTRY_POINTS: dict[str, str] = {
    "bounded/Warehouse-v0": "bounded.envs.warehouse:WarehouseEnv",
    "bounded/Spire-v0": "bounded.envs.spire:SpireEnv",
    "bounded/Craft-v0": "bounded.envs.craft:CraftEnv",
    "bounded/Workbench-v0": "bounded.envs.workbench:WorkbenchEnv",
}

for _env_id, _entry_point in _ENTRY_POINTS.items():
    if _env_id not in gymnasium.registry:
        gymnasium.register(id=_env_id, entry_point=_entry_point, disable_env_checker=True)


def resolve_env_id(name: str) -> str:
    """Map a short name (`warehouse`) or an id (`bounded/Warehouse-v0`) to a registered id."""
    env_id = ENV_IDS.get(name, name)
    if env_id not in gymnasium.registry:
        known = ", ".join(sorted(ENV_IDS))
        raise ConfigError(f"unknown environment {name!r} (known: {known}, or a registered id)")
    return env_id


def make(name: str, **kwargs: Any) -> Env:
    """Build an environment by short name or Gymnasium id, without Gymnasium's wrappers."""
    env_id = resolve_env_id(name)
    try:
        env = gymnasium.make(env_id, **kwargs).unwrapped
    except (TypeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(f"bad options for {name}: {first}") from exc
    return env  # type: ignore[return-value]


__all__ = ["ENV_IDS", "make", "resolve_env_id"]
