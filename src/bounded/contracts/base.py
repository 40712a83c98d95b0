"""What every contract shares: `ContractBase` (the hook sets' defaults), `ContractWrapper` (a
contract wrapping another, forwarding what it does not override), `as_contract` (the check
a contract passes before it plays) and `StoreLayers` (what a contract reads and writes of
its store directory)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast, overload

from bounded.core import (
    JSON,
    Completion,
    ConfigError,
    Decision,
    DecisionRecord,
    Observation,
    Outcome,
    Prompt,
    StepResult,
)
from bounded.protocols import (
    HOOK_SETS,
    REQUIRED_MEMBERS,
    Contract,
    EpisodeContext,
    MemoryHooks,
    ReplyHooks,
    SetupHooks,
    hook_names,
)

HookSet = TypeVar("HookSet")


@dataclass(frozen=True)
class StoreLayers:
    """What a contract of some settings reads and writes of its store directory
    (`store_dir`): the layers by name (`L4`, `reflections`), for a sweep's phases."""

    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    frozen: tuple[str, ...] = ()
    """The layers it reads frozen: their store directory, if given, must exist."""
    needs_store: bool = False
    """Whether it reads what only earlier runs can have written: it refuses to start
    without a store."""


class ContractBase(ReplyHooks, MemoryHooks, SetupHooks):
    """A contract's base: every hook set with its defaults (`bounded.protocols`), the
    contract itself answering them, so a subclass overrides a hook as a method of its own
    and implements the loop (`bounded.protocols.REQUIRED_MEMBERS`)."""

    name: str = "contract"

    @classmethod
    def store_layers(cls, settings: JSON) -> StoreLayers | None:
        """The store layers a contract of these settings (its config as JSON, `store_dir`
        aside) reads and writes; None: it keeps no store (the default). A pydantic
        `ValidationError` for settings the contract would refuse."""
        return None

    def propose(self, obs: Observation) -> Decision | None:
        """Default: every decision asks the model."""
        return None

    def reply_schema(self, obs: Observation) -> JSON:
        """Required: every contract gives its own (declared here for
        `counterfactual_schema`'s default)."""
        raise NotImplementedError(f"contract {self.name!r} has no reply_schema")

    def postrun(self, trajectory: Sequence[DecisionRecord], outcome: Outcome) -> None:
        """Default: nothing is learned after the episode."""
        return None


class Overlay:
    """A hook set answered by `own` for the hooks in `names`, by `rest` for every other:
    a wrapper's overrides over the wrapped contract's set, or a contract's own hooks over
    the defaults."""

    def __init__(self, own: object, names: frozenset[str], rest: object) -> None:
        self._own, self._names, self._rest = own, names, rest

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(self._own if attr in self._names else self._rest, attr)


class Forwarded(Generic[HookSet]):
    """A wrapper's hook set: the wrapped contract's, but for the hooks a subclass of the
    wrapper defines itself (no hook is named, so a new hook passes through)."""

    def __init__(self, kind: type[HookSet]) -> None:
        self.kind = kind

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, wrapper: None, owner: type) -> Forwarded[HookSet]: ...

    @overload
    def __get__(self, wrapper: ContractWrapper, owner: type) -> HookSet: ...

    def __get__(self, wrapper: ContractWrapper | None, owner: type) -> Any:
        if wrapper is None:
            return self
        inner = getattr(wrapper.inner, self.name)
        own = frozenset(hook for hook in hook_names(self.kind) if overrides(type(wrapper), hook))
        return Overlay(wrapper, own, inner) if own else inner


def overrides(cls: type, attr: str) -> bool:
    """Whether a subclass of `ContractWrapper` defines `attr` itself."""
    return any(attr in vars(c) for c in cls.__mro__ if c is not ContractWrapper and c is not object)


class ContractWrapper:
    """Wraps a contract and forwards to it what it does not override, as Gymnasium's
    `Wrapper` does: the loop, each hook set (a hook the subclass defines replaces the
    wrapped one) and any other attribute (a contract's own config, its stores)."""

    replies = Forwarded(ReplyHooks)
    memory = Forwarded(MemoryHooks)
    setup = Forwarded(SetupHooks)

    def __init__(self, inner: Contract) -> None:
        self.inner = inner
        self.name = inner.name

    def __getattr__(self, attr: str) -> Any:
        if attr == "inner":  # not yet set (copy, unpickling): never recurse
            raise AttributeError(attr)
        return getattr(self.inner, attr)

    def reset(self, episode: EpisodeContext) -> None:
        self.inner.reset(episode)

    def propose(self, obs: Observation) -> Decision | None:
        return self.inner.propose(obs)

    def assemble(self, obs: Observation) -> Prompt:
        return self.inner.assemble(obs)

    def reply_schema(self, obs: Observation) -> JSON:
        return self.inner.reply_schema(obs)

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        return self.inner.parse(completion, obs)

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        self.inner.commit(obs, decision, result)

    def postrun(self, trajectory: Sequence[DecisionRecord], outcome: Outcome) -> None:
        self.inner.postrun(trajectory, outcome)

    def config_dict(self) -> JSON:
        return self.inner.config_dict()


class _Defaulted(ContractWrapper, ReplyHooks, MemoryHooks, SetupHooks):
    """A contract that declares no hook sets, given them: each hook its own method of that
    name where it has one (a contract written before the hook sets), else the default."""

    def __init__(self, inner: Contract) -> None:
        super().__init__(inner)
        self.sets = {
            name: Overlay(inner, frozenset(h for h in hook_names(kind) if hasattr(inner, h)), self)
            for name, kind in HOOK_SETS.items()
        }

    @property
    def replies(self) -> ReplyHooks:  # type: ignore[override]
        return cast(ReplyHooks, self.sets["replies"])

    @property
    def memory(self) -> MemoryHooks:  # type: ignore[override]
        return cast(MemoryHooks, self.sets["memory"])

    @property
    def setup(self) -> SetupHooks:  # type: ignore[override]
        return cast(SetupHooks, self.sets["setup"])


def as_contract(contract: Any) -> Contract:
    """The contract, checked before it plays: a `ConfigError` naming every required member
    it lacks (`bounded.protocols.REQUIRED_MEMBERS`), rather than an `AttributeError` deep
    in the runner; one without hook sets gets their defaults (`_Defaulted`)."""
    name = getattr(contract, "name", type(contract).__name__)
    missing = [member for member in REQUIRED_MEMBERS if not hasattr(contract, member)]
    if missing:
        raise ConfigError(
            f"contract {name!r} lacks {', '.join(missing)}: a contract implements "
            f"{', '.join(REQUIRED_MEMBERS)} (subclass bounded.ContractBase for the rest)"
        )
    if all(hasattr(contract, hook_set) for hook_set in HOOK_SETS):
        return cast(Contract, contract)
    return _Defaulted(contract)


__all__ = ["ContractBase", "ContractWrapper", "StoreLayers", "as_contract"]
