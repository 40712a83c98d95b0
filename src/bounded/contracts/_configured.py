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
        """The settings as JSON. The reply settings of a game played constrained without a
        fallback, at their defaults, are left out: such a game is the one bounded played
        before reply modes existed, and keeps its archived identity (`reply_fields`)."""
        data = self.config.model_dump()
        for key in implicit_reply_fields(self.config):
            data.pop(key, None)
        return data

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


REPLY_FIELDS = ("reply", "reply_fallback", "text_rule")
"""The reply settings a configuration may hold (`text_rule`: a contract's own)."""


def implicit_reply_fields(config: BaseModel) -> list[str]:
    """The reply settings left out of a configuration's record: all of them, where each is
    at its default and the default mode is constrained with no fallback (nothing about the
    reply differs from a game of a bounded without reply modes); none otherwise."""
    if not isinstance(config, ReplySettings) or config.reply_modes != ["constrained"]:
        return []
    fields = type(config).model_fields
    present = [key for key in REPLY_FIELDS if key in fields]
    at_default = all(getattr(config, key) == fields[key].get_default(call_default_factory=True)
                     for key in present)  # fmt: skip
    return present if at_default else []


__all__ = ["ConfiguredContract", "implicit_reply_fields"]
