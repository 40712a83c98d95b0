"""Contract registry: a short name, a preset (a name plus settings), or an import path.

`make_contract("state")`, `make_contract("mode-a")` (a preset) and
`make_contract("pkg.mod:Mine")` all work, from Python, the CLI and experiment files. A
user's contract registers the same way ours do: `register_contract("mine", "pkg.mod:Mine")`
in Python, or an entry point in the `bounded.contracts` group of an installed package
(whose target may also be a `Preset`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pydantic import ValidationError

from bounded.contracts._declared import check_undeclared, split_undeclared
from bounded.contracts.balrog_presets import BALROG_PRESETS
from bounded.contracts.base import as_contract
from bounded.contracts.episodic.presets import EPISODIC_PRESETS
from bounded.contracts.memory_presets import MEMORY_PRESETS
from bounded.contracts.typed.presets import TYPED_PRESETS
from bounded.core import ConfigError, first_validation_error
from bounded.protocols import Contract
from bounded.registry import Registry, did_you_mean


class Preset(NamedTuple):
    """A contract name and the settings it is built with; presets double as condition tags."""

    contract: str
    overrides: dict[str, Any]


CONTRACTS = Registry(
    "contract",
    "bounded.contracts",
    {
        "transcript": "bounded.contracts.transcript:TranscriptContract",
        "balrog": "bounded.contracts.balrog:BalrogContract",
        "state": "bounded.contracts.state:StateContract",
        "summary": "bounded.contracts.summary:SummaryContract",
        "typed": "bounded.contracts.typed:TypedContract",
        "episodic": "bounded.contracts.episodic:EpisodicContract",
        "paged": "bounded.contracts.paged:PagedContract",
        "rag": "bounded.contracts.rag:RagContract",
        "reflexion": "bounded.contracts.reflexion:ReflexionContract",
    },
)

PRESETS: dict[str, Preset] = {}
"""Preset name -> (contract name, config overrides), ours and those registered in Python."""


def register_contract(name: str, entry_point: Any) -> None:
    """Make `name` build the contract class `entry_point` (`"module:Class"` or the class)."""
    CONTRACTS.register(name, entry_point)


def register_preset(name: str, contract: str, overrides: dict[str, Any]) -> None:
    PRESETS[name] = Preset(contract, overrides)


def contract_names() -> list[str]:
    return sorted(set(CONTRACTS.names()) | set(PRESETS))


def resolve_contract(name: str) -> tuple[type, dict[str, Any]]:
    """The contract class `name` stands for and the preset settings it starts from."""
    if name not in PRESETS and name not in CONTRACTS and ":" not in name:
        hint = did_you_mean(name, contract_names())
        raise ConfigError(f"unknown contract {name!r}{hint} (known: {', '.join(contract_names())})")
    target = PRESETS.get(name) or CONTRACTS.load(name)
    if isinstance(target, Preset):
        return _contract_class(target.contract), dict(target.overrides)
    if not isinstance(target, type):
        raise ConfigError(f"contract {name!r} is not a class or a Preset: {target!r}")
    return target, {}


def _contract_class(name: str) -> type:
    cls = CONTRACTS.load(name)
    if not isinstance(cls, type):
        raise ConfigError(f"contract {name!r} is not a class: {cls!r}")
    return cls


def make_contract(name: str, config: dict[str, Any] | None = None) -> Contract:
    """Build a contract by name, preset or import path; `config` overrides the settings.
    The shared reply settings a contract does not declare are checked, not passed
    (`bounded.contracts._declared`)."""
    cls, settings = resolve_contract(name)
    settings.update(config or {})
    undeclared = split_undeclared(cls, settings)  # [defaults]' reply reaches every contract
    try:
        contract = as_contract(cls(**settings))
    except (TypeError, ValueError) as exc:
        first = (
            first_validation_error(exc)
            if isinstance(exc, ValidationError)
            else str(exc).splitlines()[0]
        )
        raise ConfigError(f"bad settings for contract {name!r}: {first}") from exc
    check_undeclared(contract, undeclared, name)
    return contract


__all__ = [
    "CONTRACTS",
    "PRESETS",
    "Preset",
    "contract_names",
    "make_contract",
    "register_contract",
    "register_preset",
    "resolve_contract",
]


def _register_our_presets() -> None:
    """Our presets: each method's condition tags (data in the preset modules, which
    import nothing from this one, so there is no cycle)."""
    for tag, overrides in BALROG_PRESETS.items():
        register_preset(tag, "balrog", overrides)
    for tag, overrides in EPISODIC_PRESETS.items():
        register_preset(tag, "episodic", overrides)
    for tag, (contract, overrides) in MEMORY_PRESETS.items():
        register_preset(tag, contract, overrides)
    for tag, overrides in TYPED_PRESETS.items():
        register_preset(tag, "typed", overrides)


_register_our_presets()
