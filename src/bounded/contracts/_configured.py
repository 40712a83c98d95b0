"""`ConfiguredContract`: the base of a contract whose settings are one pydantic model.

Its `config_dict` (what a run records of the contract's settings) is that model as JSON,
written once here rather than in every contract. A configuration that inherits
`ReplySettings` gives the contract its reply mode (`reply`) and the modes it may fall back
to (`reply_fallback`); switching mode rewrites the configuration, so the mode played is the
one the run records and hashes."""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel

from bounded.contracts.reply_settings import ReplySettings
from bounded.core import JSON, ConfigError, ContractBase, ReplyMode

ConfigT = TypeVar("ConfigT", bound=BaseModel)


class ConfiguredContract(ContractBase, Generic[ConfigT]):
    """A contract whose settings are `config`, a `ConfigT`."""

    config: ConfigT

    def config_dict(self) -> JSON:
        return self.config.model_dump()

    @property
    def reply_mode(self) -> ReplyMode:
        """The configuration's `reply` (constrained for one without reply settings)."""
        return self.config.reply if isinstance(self.config, ReplySettings) else "constrained"

    def reply_modes(self) -> list[ReplyMode]:
        if isinstance(self.config, ReplySettings):
            return self.config.reply_modes
        return ["constrained"]

    def use_reply_mode(self, mode: ReplyMode) -> None:
        """Play in `mode`, one of `reply_modes()` (a `ConfigError` for any other)."""
        if mode == self.reply_mode:
            return
        if mode not in self.reply_modes():
            allowed = ", ".join(self.reply_modes())
            raise ConfigError(f"contract {self.name!r} may reply in {allowed}, not {mode!r}")
        self.config = self.config.model_copy(update={"reply": mode})


__all__ = ["ConfiguredContract"]
