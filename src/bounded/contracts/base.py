"""What every contract shares: `ContractBase` (the optional hooks' defaults),
`ContractWrapper` (a contract wrapping another) and `StoreLayers` (what a contract reads
and writes of its store directory)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from bounded.core import (
    JSON,
    Completion,
    ConfigError,
    Decision,
    DecisionRecord,
    Observation,
    Outcome,
    Prompt,
    Segment,
    StepResult,
)
from bounded.protocols import (
    Contract,
    EpisodeContext,
    FallbackPolicy,
    Model,
    ReplyMode,
    TextRule,
)


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


class ContractBase:
    """Defaults for a contract's optional hooks; subclass it or implement them yourself."""

    name: str = "contract"
    paper_temperature: float | None = None
    paper_max_tokens: int | None = None
    memory_settings: ClassVar[tuple[str, ...]] = ()
    """The configuration keys that are the contract's memory under test (what its presets
    and ablations vary); the parity report compares every other key of two cells'
    configurations (`bounded.analysis.parity`). Recorded with each run."""

    def asks_model(self, empty_action: str | None) -> bool:
        """Whether a game on an environment with this empty action asks the model for any
        decision (a contract deciding alone sends no reply format: none is compared).
        Default: yes."""
        return True

    sends_game_seed: bool = True
    """Whether each model request carries the game's seed as its sampling `seed` (a server
    that honours it, vLLM does, then samples alike on every run of that game); False: no
    seed, as BALROG's clients send. Recorded with the run (`model_params["sampling_seed"]`)."""

    def max_reply_tokens(self, model: Model) -> int | None:
        """Default: no cap of the contract's own."""
        return None

    @classmethod
    def store_layers(cls, settings: JSON) -> StoreLayers | None:
        """The store layers a contract of these settings (its config as JSON, `store_dir`
        aside) reads and writes; None: it keeps no store (the default). A pydantic
        `ValidationError` for settings the contract would refuse."""
        return None

    def env_options(self, env_id: str, options: JSON) -> JSON:
        """Default: the spec's options as they are."""
        return options

    def action_rate_bound(self) -> float | None:
        """Default: no bound of the contract's own."""
        return None

    def propose(self, obs: Observation) -> Decision | None:
        """Default: every decision asks the model."""
        return None

    def fallback_policy(self) -> FallbackPolicy:
        """Default: the game's default action, else the first legal one."""
        return "game-default"

    @property
    def reply_mode(self) -> ReplyMode:
        """Default: constrained decoding under `reply_schema`."""
        return "constrained"

    def reply_modes(self) -> list[ReplyMode]:
        """Default: the one mode in force."""
        return [self.reply_mode]

    def use_reply_mode(self, mode: ReplyMode) -> None:
        """Default: only the mode in force (a `ConfigError` for any other)."""
        if mode != self.reply_mode:
            raise ConfigError(f"contract {self.name!r} cannot reply in {mode!r} mode")

    def text_rule_for(self, obs: Observation) -> TextRule | None:
        """Default: the contract does not say."""
        return None

    def counterfactual_schema(self, obs: Observation, segments: Sequence[Segment]) -> JSON:
        """Default: the reply schema (one call per decision)."""
        return self.reply_schema(obs)

    def reply_schema(self, obs: Observation) -> JSON:
        """Required: every contract gives its own (declared here for the default above)."""
        raise NotImplementedError(f"contract {self.name!r} has no reply_schema")

    def postrun(self, trajectory: Sequence[DecisionRecord], outcome: Outcome) -> None:
        """Default: nothing is learned after the episode."""
        return None

    @property
    def postrun_record(self) -> JSON:
        """Default: nothing to archive."""
        return {}

    def store_hashes(self) -> dict[str, str]:
        """Default: no stores."""
        return {}

    def memory_snapshot(self) -> JSON | None:
        """Default: no snapshot, so a killed run of this contract cannot be resumed."""
        return None

    def memory_logs(self) -> tuple[str, ...]:
        """Default: the whole snapshot is saved at every checkpoint."""
        return ()

    def restore_memory(self, memory: JSON) -> None:
        """Default: refused (there is no snapshot to restore)."""
        raise ConfigError(f"contract {self.name!r} cannot be resumed (no memory_snapshot hook)")


class ContractWrapper:
    """Wraps a contract and forwards every hook to it; override what should differ.

    Attributes the wrapper does not define (a contract's own config, its stores) are read
    from the wrapped contract too, as Gymnasium's `Wrapper` does."""

    def __init__(self, inner: Contract) -> None:
        self.inner = inner
        self.name = inner.name
        self.paper_temperature = inner.paper_temperature
        self.paper_max_tokens = inner.paper_max_tokens

    def __getattr__(self, attr: str) -> Any:
        if attr == "inner":  # not yet set (copy, unpickling): never recurse
            raise AttributeError(attr)
        return getattr(self.inner, attr)

    def env_options(self, env_id: str, options: JSON) -> JSON:
        return self.inner.env_options(env_id, options)

    def action_rate_bound(self) -> float | None:
        return self.inner.action_rate_bound()

    def max_reply_tokens(self, model: Model) -> int | None:
        return self.inner.max_reply_tokens(model)

    def reset(self, episode: EpisodeContext) -> None:
        self.inner.reset(episode)

    def propose(self, obs: Observation) -> Decision | None:
        return self.inner.propose(obs)

    def fallback_policy(self) -> FallbackPolicy:
        return self.inner.fallback_policy()

    @property
    def reply_mode(self) -> ReplyMode:
        return self.inner.reply_mode

    def reply_modes(self) -> list[ReplyMode]:
        return self.inner.reply_modes()

    def use_reply_mode(self, mode: ReplyMode) -> None:
        self.inner.use_reply_mode(mode)

    def text_rule_for(self, obs: Observation) -> TextRule | None:
        return self.inner.text_rule_for(obs)

    def counterfactual_schema(self, obs: Observation, segments: Sequence[Segment]) -> JSON:
        return self.inner.counterfactual_schema(obs, segments)

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

    @property
    def postrun_record(self) -> JSON:
        return self.inner.postrun_record

    def config_dict(self) -> JSON:
        return self.inner.config_dict()

    def store_hashes(self) -> dict[str, str]:
        return self.inner.store_hashes()

    def memory_snapshot(self) -> JSON | None:
        return self.inner.memory_snapshot()

    def memory_logs(self) -> tuple[str, ...]:
        return self.inner.memory_logs()

    def restore_memory(self, memory: JSON) -> None:
        self.inner.restore_memory(memory)
