"""Environment registry: short names, Gymnasium ids, import paths and installed plugins.

Each of our environments is registered with Gymnasium under `bounded/<Name>-v0` with a
lazy `"module:Class"` entry point (so importing this package imports no engine) and has
a short name (`spire`). A run records the canonical Gymnasium id, whichever name made it.
A user's environment plugs in the same way, from Python, the CLI and experiment files:

- `register_env("mine/Echo-v0", "pkg.mod:EchoEnv")`, then `make("mine/Echo-v0")`;
- Gymnasium's `module:Env-v0` form: `make("pkg.mod:Echo-v0")` imports `pkg.mod`, whose
  import registers `Echo-v0`;
- an installed package's entry point in the `bounded.envs` group,
  `"mine/Echo-v0" = "pkg.mod:EchoEnv"`, registered on first use (worker processes too).
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import gymnasium
from pydantic import ValidationError

from bounded.core import ConfigError, Env, first_validation_error
from bounded.envs.base import TextEnv
from bounded.registry import Registry, did_you_mean

ENV_IDS: dict[str, str] = {
    "warehouse": "bounded/Warehouse-v0",
    "spire": "bounded/Spire-v0",
    "craft": "bounded/Craft-v0",
    "workbench": "bounded/Workbench-v0",
    "nethack": "bounded/NetHack-v0",
    "babyai": "bounded/BabyAI-v0",
    "crafter": "bounded/Crafter-v0",
    "textworld": "bounded/TextWorld-v0",
    "minihack": "bounded/MiniHack-v0",
}
"""Short name -> Gymnasium id."""

_ENTRY_POINTS: dict[str, str] = {
    "bounded/Warehouse-v0": "bounded.envs.warehouse:WarehouseEnv",
    "bounded/Spire-v0": "bounded.envs.spire:SpireEnv",
    "bounded/Craft-v0": "bounded.envs.craft:CraftEnv",
    "bounded/Workbench-v0": "bounded.envs.workbench:WorkbenchEnv",
    "bounded/NetHack-v0": "bounded.envs.nethack:NetHackEnv",
    "bounded/BabyAI-v0": "bounded.envs.babyai:BabyAIEnv",
    "bounded/Crafter-v0": "bounded.envs.crafter:CrafterEnv",
    "bounded/TextWorld-v0": "bounded.envs.textworld:TextWorldEnv",
    "bounded/MiniHack-v0": "bounded.envs.minihack:MiniHackEnv",
}

ENVS = Registry("environment", "bounded.envs")
"""Environments registered by users and installed plugins: Gymnasium id -> entry point."""


def _gym_register(env_id: str, entry_point: Any) -> None:
    if env_id not in gymnasium.registry:
        gymnasium.register(id=env_id, entry_point=entry_point, disable_env_checker=True)


for _env_id, _entry_point in _ENTRY_POINTS.items():
    _gym_register(_env_id, _entry_point)


def register_env(env_id: str, entry_point: Any) -> None:
    """Register an environment under a Gymnasium id (`ns/Name-v0`); the entry point is
    `"module:Class"` (handed to sweep workers) or a class or factory."""
    ENVS.register(env_id, entry_point)
    _gym_register(env_id, entry_point)


def _import_for(name: str) -> str:
    """Gymnasium's `module:Env-v0` form: import the module, return the id it registers."""
    module, _, env_id = name.partition(":")
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(f"cannot import {module!r} for environment {name!r}: {exc}") from exc
    return env_id


def resolve_env_id(name: str) -> str:
    """The canonical Gymnasium id of a short name, an id, `module:Env-v0`, or a plugin."""
    env_id = canonical_env_id(name)
    if env_id not in gymnasium.registry and env_id in ENVS:
        _gym_register(env_id, ENVS.target(env_id))
    if env_id not in gymnasium.registry and ":" in name:
        env_id = _import_for(name)
    if env_id not in gymnasium.registry:
        names = sorted(ENV_IDS) + ENVS.names()
        known = ", ".join(names)
        raise ConfigError(
            f"unknown environment {name!r}{did_you_mean(name, names)} (known: {known}, a "
            "registered Gymnasium id, "
            "or module:Env-v0)"
        )
    return env_id


def canonical_env_id(name: str) -> str:
    """The id a run is archived under: a short name's Gymnasium id, any other name as is."""
    return ENV_IDS.get(name, name)


def make(name: str, **kwargs: Any) -> Env:
    """Build an environment by short name, id or import path, without Gymnasium's wrappers."""
    env_id = resolve_env_id(name)
    try:
        env = gymnasium.make(env_id, **kwargs).unwrapped
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"bad options for {name}: {option_error(exc)}") from exc
    return env  # type: ignore[return-value]


_UNKNOWN_KEYWORD = re.compile(r"unexpected keyword argument '([^']+)'")


def option_error(exc: Exception) -> str:
    """An environment constructor's refusal as one line naming the option."""
    if isinstance(exc, ValidationError):
        return first_validation_error(exc)
    text = str(exc).strip()
    unknown = _UNKNOWN_KEYWORD.search(text)
    if unknown is not None:
        return f"unknown option {unknown.group(1)!r}"
    return text.splitlines()[0] if text else type(exc).__name__


__all__ = [
    "ENVS",
    "ENV_IDS",
    "TextEnv",
    "canonical_env_id",
    "make",
    "register_env",
    "resolve_env_id",
]
