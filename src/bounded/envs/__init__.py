"""Environment registry: short names, Gymnasium ids, import paths and installed plugins.

Each environment has one record (`bounded.env_records`): our environments are
registered with Gymnasium under `bounded/<Name>-v0` with a lazy `"module:Class"` entry
point (so importing this package imports no engine) and have a short name (`spire`). A
run records the canonical Gymnasium id, whichever name made it. A user's environment
plugs in the same way, from Python, the CLI and experiment files:

- `register_env(EnvRecord(name="echo", env_id="mine/Echo-v0", entry_point=...))`, or
  only `register_env("mine/Echo-v0", "pkg.mod:EchoEnv")`, then `make("mine/Echo-v0")`;
- Gymnasium's `module:Env-v0` form: `make("pkg.mod:Echo-v0")` imports `pkg.mod`, whose
  import registers `Echo-v0`;
- an installed package's entry point in the `bounded.envs` group naming its record or
  its class, `"mine/Echo-v0" = "pkg.mod:EchoEnv"`, registered on first use (worker
  processes too).
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import gymnasium
from pydantic import ValidationError

from bounded.core import ConfigError, first_validation_error
from bounded.env_records import (
    BUILTIN_RECORDS,
    ENV_RECORDS,
    EnvRecord,
    env_record,
    register_record,
)
from bounded.envs.base import TextEnv
from bounded.protocols import Env
from bounded.registry import did_you_mean, missing_extra


def _gym_register(env_id: str, entry_point: Any) -> None:
    if env_id not in gymnasium.registry:
        gymnasium.register(id=env_id, entry_point=entry_point, disable_env_checker=True)


for _record in BUILTIN_RECORDS:
    _gym_register(_record.env_id, _record.entry_point)

ENV_IDS: dict[str, str] = {record.name: record.env_id for record in BUILTIN_RECORDS}
"""Our environments' short names -> Gymnasium ids."""


def register_env(env: str | EnvRecord, entry_point: Any = None) -> None:
    """Register an environment: its record (`EnvRecord`), or a Gymnasium id (`ns/Name-v0`)
    and entry point (`"module:Class"`, handed to sweep workers, or a class or factory)."""
    if isinstance(env, str):
        if entry_point is None:
            raise ConfigError(f"register_env({env!r}) needs an entry point")
        env = EnvRecord(name=env, env_id=env, entry_point=entry_point)
    register_record(env)
    _gym_register(env.env_id, env.entry_point)


def env_names() -> list[str]:
    """What may name an environment: every record's short name, and installed plugins' ids."""
    return ENV_RECORDS.names()


def _import_for(name: str) -> str:
    """Gymnasium's `module:Env-v0` form: import the module, return the id it registers."""
    module, _, env_id = name.partition(":")
    try:
        importlib.import_module(module)
    except ImportError as exc:
        missing = missing_extra(exc, name)
        if missing is not None:
            raise missing from exc
        raise ConfigError(f"cannot import {module!r} for environment {name!r}: {exc}") from exc
    return env_id


def resolve_env_id(name: str) -> str:
    """The canonical Gymnasium id of a short name, an id, `module:Env-v0`, or a plugin."""
    env_id = canonical_env_id(name)
    record = env_record(env_id)
    if env_id not in gymnasium.registry and record is not None:
        _gym_register(env_id, record.entry_point)
    if env_id not in gymnasium.registry and ":" in name:
        env_id = _import_for(name)
    if env_id not in gymnasium.registry:
        names = env_names()
        known = ", ".join(names)
        raise ConfigError(
            f"unknown environment {name!r}{did_you_mean(name, names)} (known: {known}, a "
            "registered Gymnasium id, "
            "or module:Env-v0)"
        )
    return env_id


def canonical_env_id(name: str) -> str:
    """The id a run is archived under: a short name's Gymnasium id, any other name as is."""
    record = env_record(name)
    return record.env_id if record is not None else name


def make(name: str, **kwargs: Any) -> Env:
    """Build an environment by short name, id or import path, without Gymnasium's wrappers."""
    return make_resolved(resolve_env_id(name), name, **kwargs)


def make_resolved(env_id: str, name: str, **kwargs: Any) -> Env:
    """Build the environment of `env_id`, the id `resolve_env_id(name)` gave (a builder
    that resolved the name once already), without Gymnasium's wrappers."""
    try:
        env = gymnasium.make(env_id, **kwargs).unwrapped
    except ModuleNotFoundError as exc:
        missing = missing_extra(exc, name)
        if missing is None:
            raise
        raise missing from exc
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
    "ENV_IDS",
    "ENV_RECORDS",
    "EnvRecord",
    "TextEnv",
    "canonical_env_id",
    "env_names",
    "env_record",
    "make",
    "make_resolved",
    "register_env",
    "resolve_env_id",
]
