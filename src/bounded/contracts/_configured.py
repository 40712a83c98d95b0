"""`ConfiguredContract`: the base of a contract whose settings are one pydantic model.

Its `config_dict` (what a run records of the contract's settings) is that model as JSON,
written once here rather than in every contract."""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel

from bounded.core import JSON, ContractBase

ConfigT = TypeVar("ConfigT", bound=BaseModel)


class ConfiguredContract(ContractBase, Generic[ConfigT]):
    """A contract whose settings are `config`, a `ConfigT`."""

    config: ConfigT

    def config_dict(self) -> JSON:
        return self.config.model_dump()


__all__ = ["ConfiguredContract"]
