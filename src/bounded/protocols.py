"""The protocols the parts of bounded implement, and the reply modes they speak: an
environment (`Env`, `Knowledge`, `Expert`), a model (`Model`, `ReplyReader`, `Embedder`), a
memory contract (`Contract`, with `EpisodeContext`, what it learns when an episode starts).

They are structural, so a user's own environment, model or contract needs no base class
to plug in; `ModelBase`, `bounded.envs.TextEnv` and `bounded.contracts.base.ContractBase`
give the optional members their defaults.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal, Protocol, cast, runtime_checkable

from bounded.core import (
    DEFAULT_MAX_TOKENS,
    JSON,
    Action,
    Completion,
    ConfigError,
    Decision,
    DecisionRecord,
    Embeddings,
    Observation,
    Outcome,
    Prompt,
    Segment,
    StepResult,
    approx_tokens,
)

EMBEDDED_REASONING_CHARS = 120
"""The embedded model's reasoning budget (`bounded.models.local` declares it): a 135M model
degenerates inside long free text, so its replies' reasoning is capped at 120 characters."""


class Knowledge(Protocol):
    """What an environment tells its contracts about its game: the namespace of the
    stores, the L3 rules book, the seed L5 libraries by name, and the reader of one
    decision's facts. `bounded.stores.GameKnowledge` is the one our environments supply
    (the stores' own types live there, above this module)."""

    @property
    def game(self) -> str: ...

    @property
    def rules(self) -> Any: ...

    @property
    def skills(self) -> Mapping[str, Any]: ...

    @property
    def situation(self) -> Callable[[Observation], Any]: ...


@runtime_checkable
class Env(Protocol):
    """Gymnasium's API over `Observation`s, plus an episode outcome and JSON save/load.

    Every member is declared here; `bounded.envs.TextEnv` gives the optional ones their
    defaults (no state schema, no initial state, version "0", thread-safe, no game
    knowledge, no default action, presentation `bounded`; `gymnasium.Env` gives `spec`)."""

    instructions: str
    """The fixed task description a contract shows the model."""
    version: str
    """The environment's content version, stored with every run."""
    state_schema: JSON | None
    """A JSON schema for an agent's own state (the `state` contract), or None."""
    initial_state: JSON | None
    """A suggested initial agent state, or None."""
    spec: Any
    """Gymnasium's `EnvSpec` (its `id`) where `gymnasium.make` built the environment, else
    None (`gymnasium.Env`'s default)."""
    thread_safe: bool
    """Whether games of this environment may be played at once in threads of one process
    (`--concurrency`); False for one wrapping a library with process-wide state: a sweep
    then plays its games one at a time in each process (its constructor, called before
    that is known, must not touch that state)."""
    empty_action: str | None
    """The id of the game's do-nothing action (craft's `EMPTY ACTION`, Crafter's `Noop`), or
    None where it has none. A contract that idles plays it; the runner counts every other
    action the agent chose as an effective one (`effective_action_rate`; an action the
    harness chose because the reply was unusable never is: `bounded.runner.tally`)."""

    @property
    def presentation(self) -> str:
        """What the model is shown: `bounded` (the environment's own text) or `balrog` (what
        BALROG's wrapper shows, where the environment offers it)."""
        ...

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]: ...

    def step(
        self, action: Action | Sequence[Action]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]: ...

    def metrics(self) -> dict[str, Any]: ...

    def outcome(self) -> Outcome: ...

    def game_knowledge(self) -> Knowledge | None:
        """What the typed contract may know about this game (rules, seed skills, the facts
        of a decision), or None for a game it knows nothing about."""
        ...

    def default_action(self) -> Action | None:
        """What an unusable reply executes in this game when the contract has no fallback
        of its own or the game refuses it (BALROG's `default_action`: `esc` in NetHack), or
        None: the first legal action."""
        ...

    def save(self) -> JSON: ...

    def load(self, data: JSON) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class Model(Protocol):
    """Anything that completes chat messages, optionally under a JSON-schema constraint.

    A model may also declare `reasoning_chars` (an int, or None), the reasoning budget the
    contracts give it by default (see `reasoning_chars_in_force`); none declared: no cap."""

    id: str
    context_window: int | None
    """Tokens the model can read at once (prompt and reply), or None when unknown."""
    run_deadline_s: float | None
    """The model time one run may spend on it, in seconds (a run past it ends `failed`),
    or None: no budget."""

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        constraint: JSON | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> Completion: ...

    def count_tokens(self, text: str) -> int: ...


class ModelBase:
    """Defaults for a model's optional members; subclass it or declare them yourself."""

    context_window: int | None = None
    """Default: unknown."""
    run_deadline_s: float | None = None
    """Default: no budget of model time per run."""
    last_response_format: str | None = None
    """The response format the latest call sent (`json_schema`, `json_object`, `grammar`,
    `none`, ...), recorded with a run (`model_params["reply"]`); None: the model does not
    say (the constraint was given to it as it is)."""

    def count_tokens(self, text: str) -> int:
        """Default: `approx_tokens`'s estimate, for a model without a tokenizer of its own."""
        return approx_tokens(text)


@runtime_checkable
class ReplyReader(Protocol):
    """A model that is told a decision's reply in the `json` and `text` reply modes: its
    `complete` takes `reply_schema` (the reply's schema) and `text_rule` (the call's
    `TextRule`), handed to it where `reads_reply_schema` is True. The scripted model reads
    them (it cannot read a prompt's instruction), the embedded model where it decodes a
    text reply's frame; no other model is handed them."""

    reads_reply_schema: bool


@runtime_checkable
class Embedder(Protocol):
    """A model that can also embed text (optional: `rag` uses it where a model has it)."""

    id: str

    def embed(self, texts: list[str]) -> Embeddings: ...


@dataclass(frozen=True)
class EpisodeContext:
    """What a contract learns when an episode starts."""

    env_id: str
    """The environment's canonical id (`bounded/Spire-v0`)."""
    seed: int
    """The episode's seed."""
    instructions: str = ""
    """The environment's task description."""
    state_schema: JSON | None = None
    """The environment's suggested schema for an agent's own state."""
    initial_state: JSON | None = None
    """The environment's suggested initial agent state."""
    model: Model | None = None
    """The model, for calls a contract makes itself (summaries, descriptions, postrun);
    every call through it is counted in the run's totals."""
    knowledge: Knowledge | None = None
    """The environment's game knowledge (`Env.game_knowledge()`), for the typed contract."""
    run_id: str = ""
    """The archive's id of this run."""
    empty_action: str | None = None
    """The environment's do-nothing action id (`Env.empty_action`), or None."""
    presentation: str = "bounded"
    """What the environment shows (`TextEnv.presentation`): `balrog` where it shows BALROG's
    text, whose instruction prompt already lists the actions."""


ReplyMode = Literal["constrained", "json", "text"]
"""How a contract asks for a reply and reads it (`reply` in its settings, recorded in a run's
`model_params["reply"]`):

- `constrained`: decoded under the reply's JSON schema (the embedded model's grammar, an
  endpoint's `response_format` json_schema, strict), so a reply can only name a legal action;
- `json`: one JSON object asked for in the prompt, decoded as any JSON object (an endpoint's
  `json_object` response format, the embedded model's any-object grammar) and parsed
  leniently; an action outside the legal set is an invalid action;
- `text`: free text with no response format, read by the contract's own rule (AgenticSTS's
  decision tag, SKILL.state's reasoning and JSON block, CoS's `<ACTION NAME>`, BALROG's
  per-agent extraction)."""

REPLY_MODES: Final = ("constrained", "json", "text")

TextRule = Literal[
    "decision-tag",
    "json-block",
    "action-tags",
    "balrog-naive",
    "balrog-cot",
    "balrog-robust",
    "balrog-robust-cot",
]
"""How a `text` reply is read: the method's own rule (`bounded.contracts.replies.rules`). A model
that reads the reply's form (`reads_reply_schema`: the scripted model, the embedded model's
`text_grammar = "frame"`) is told the rule of each call."""

ANY_JSON_OBJECT: Final[JSON] = {"type": "object", "$comment": "bounded: the json reply mode"}
"""The constraint of the `json` reply mode: any JSON object, and nothing about its keys. An
endpoint model sends it as `response_format = {"type": "json_object"}`; the embedded model
decodes it under the grammar of any object (validators and llama.cpp's converter ignore the
`$comment`, which tells this constraint from a reply schema that is `{"type": "object"}`)."""


def is_any_object(constraint: JSON | None) -> bool:
    """Whether a constraint is the `json` mode's (any JSON object, no schema of keys)."""
    return constraint == ANY_JSON_OBJECT


FallbackPolicy = Literal["no-op", "first-legal", "game-default"]
"""What a decision executes when the model's reply is unusable (see `fallback_actions`)."""


class ReplyHooks:
    """A contract's reply hooks: how its replies are asked for and read, and what an unusable
    one executes. Each hook is declared here with its default, so a new one is one method
    on this class. A contract's `replies` answers them; `ContractBase`'s is the contract
    itself, which inherits these defaults and overrides a hook as a method of its own."""

    @property
    def replies(self) -> ReplyHooks:
        """The hook set: the contract itself, for a contract built on these defaults."""
        return self

    def fallback_policy(self) -> FallbackPolicy:
        """What a decision whose reply is unusable executes
        (`bounded.contracts.replies.policy.fallback_actions`). Default: the game's default
        action, else the first legal one."""
        return "game-default"

    @property
    def reply_mode(self) -> ReplyMode:
        """How replies are asked for and read now (`ReplyMode`): the runner sends the
        constraint this mode says (`reply_constraint`), `parse` reads by it. Default:
        constrained decoding under `reply_schema`."""
        return "constrained"

    def reply_modes(self) -> list[ReplyMode]:
        """The modes the contract may play in, in order of preference (its `reply`, then
        its `reply_fallback`). Default: the one mode in force."""
        return [self.replies.reply_mode]

    def use_reply_mode(self, mode: ReplyMode) -> None:
        """Play in `mode` (one of `reply_modes()`), chosen before the game starts when the
        endpoint refuses the preferred one's response format. Default: only the mode in
        force (a `ConfigError` for any other)."""
        if mode != self.replies.reply_mode:
            name = cast(Contract, self).name  # the set's defaults are the contract's
            raise ConfigError(f"contract {name!r} cannot reply in {mode!r} mode")

    def text_rule_for(self, obs: Observation) -> TextRule | None:
        """The rule this decision's `text` reply is read by (`TextRule`), told to a model
        that reads it (`ReplyReader`); None (the default): the contract does not say."""
        return None

    def counterfactual_schema(self, obs: Observation, segments: Sequence[Segment]) -> JSON:
        """The schema an archived decision (its prompt's `segments`) was answered under,
        which attribution re-asks under: a contract that asks again within a decision
        under another schema says which. Default: the reply schema (one call per
        decision)."""
        return cast(Contract, self).reply_schema(obs)

    def max_reply_tokens(self, model: Model) -> int | None:
        """The most tokens a reply may take on `model` (a cap below the game's limit that
        the model's context window requires; recorded with the run), or None (the
        default): no cap of the contract's own."""
        return None


class MemoryHooks:
    """A contract's memory hooks: what it keeps, how it is saved and put back, what it
    learned after the game. Declared here with their defaults (a contract with no memory
    to save), as `ReplyHooks` are; a contract's `memory` answers them."""

    @property
    def memory(self) -> MemoryHooks:
        """The hook set: the contract itself, for a contract built on these defaults."""
        return self

    memory_settings: ClassVar[tuple[str, ...]] = ()
    """The configuration keys that are the contract's memory under test (what its presets
    and ablations vary); the parity report compares every other key of two cells'
    configurations (`bounded.analysis.parity`). Recorded with each run."""

    def store_hashes(self) -> dict[str, str]:
        """The hashes of the stores the contract reads, part of the game's identity.
        Default: no stores."""
        return {}

    def memory_snapshot(self) -> JSON | None:
        """The contract's memory between two decisions as JSON (saved with each decision,
        so that `bounded resume` can continue a killed run), or None when it has none to
        give. Default: None, so a killed run of this contract cannot be resumed."""
        return None

    def memory_logs(self) -> tuple[str, ...]:
        """The keys of `memory_snapshot()` whose values are logs: an archive's checkpoint
        stores only the items added since the last one, so that saving a checkpoint costs
        the same at every decision, and `restore_memory` gets each value back as it was.
        A log is a list that only grows between two `reset`s (a journal), or a window on
        a log whose oldest items drop out (a bounded history): `{"start": s, "items":
        [...]}`, the items at positions s, s + 1, ..., s only growing; an item at a
        position never changes (`bounded.archive.progress`). Default: none (the whole
        snapshot is saved at every checkpoint)."""
        return ()

    def restore_memory(self, memory: JSON) -> None:
        """Put a `memory_snapshot()` back, after `reset` of the same episode. Default:
        refused (there is no snapshot to restore)."""
        name = cast(Contract, self).name
        raise ConfigError(f"contract {name!r} cannot be resumed (no memory_snapshot hook)")

    @property
    def postrun_record(self) -> JSON:
        """What postrun learning did (calls, verdicts, note), archived with the run.
        Default: nothing to archive."""
        return {}


class SetupHooks:
    """What a contract says when its game is set up: the environment options and sampling
    it plays at, and what a sweep's dry run compares. Declared here with their defaults,
    as `ReplyHooks` are; a contract's `setup` answers them."""

    @property
    def setup(self) -> SetupHooks:
        """The hook set: the contract itself, for a contract built on these defaults."""
        return self

    paper_temperature: float | None = None
    """The sampling temperature the contract's paper plays at, for a game whose spec sets
    none; None (the default): the spec's (or 0)."""
    paper_max_tokens: int | None = None
    """The reply token limit the contract's paper plays at (BALROG's 8,192), for a game
    whose spec sets none; None (the default): the spec's."""
    sends_game_seed: bool = True
    """Whether each model request carries the game's seed as its sampling `seed` (a server
    that honours it, vLLM does, then samples alike on every run of that game); False: no
    seed, as BALROG's clients send. Recorded with the run (`model_params["sampling_seed"]`)."""

    def env_options(self, env_id: str, options: JSON) -> JSON:
        """The environment options the contract plays at, completed from the spec's (or a
        `ConfigError` refusing them), asked before the environment is built. Default: the
        spec's options as they are."""
        return options

    def action_rate_bound(self) -> float | None:
        """On an environment with an empty action: the largest share of decisions that can
        carry any other action, by the contract's construction (Chain of Summarization's
        `decisions` per `interval`), or None (the default) where only the game decides. A
        sweep's dry run compares the cells' bounds before anything is played."""
        return None

    def asks_model(self, empty_action: str | None) -> bool:
        """Whether a game on an environment with this empty action asks the model for any
        decision (a contract deciding alone sends no reply format: none is compared).
        Default: yes."""
        return True


HOOK_SETS: Final[Mapping[str, type]] = {
    "replies": ReplyHooks,
    "memory": MemoryHooks,
    "setup": SetupHooks,
}
"""The contract's hook sets by the name it answers them under: every member of a set has
its default in the set's class, so a contract that does not implement one still has it."""

REQUIRED_MEMBERS: Final = (
    "name",
    "reset",
    "propose",
    "assemble",
    "reply_schema",
    "parse",
    "commit",
    "postrun",
    "config_dict",
)
"""What every contract implements itself: its name and the loop (`Contract`)."""


def hook_names(hook_set: type) -> tuple[str, ...]:
    """The hooks a hook set's class declares (its public members, the set's own accessor
    aside)."""
    accessor = {name for name, kind in HOOK_SETS.items() if kind is hook_set}
    declared = {*vars(hook_set), *getattr(hook_set, "__annotations__", {})}
    return tuple(sorted(n for n in declared if not n.startswith("_") and n not in accessor))


@runtime_checkable
class Contract(Protocol):
    """A memory contract: decides what each prompt holds and what is kept between decisions.

    A contract implements its name and the loop (`REQUIRED_MEMBERS`): `reset` at an
    episode's start; at each decision `propose` (a decision made without the model, or
    None), `assemble` (the prompt), `reply_schema`, `parse` (the reply into a `Decision`)
    and `commit` (what was done); `postrun` after the game; `config_dict` (its settings,
    recorded with the run). Everything else the runner asks is grouped in named hook sets,
    each member with its default (`HOOK_SETS`): `replies` (`ReplyHooks`), `memory`
    (`MemoryHooks`) and `setup` (`SetupHooks`); `bounded.contracts.base.ContractBase`
    inherits all three, and `as_contract` gives them to a contract that has none."""

    name: str

    def reset(self, episode: EpisodeContext) -> None: ...

    def propose(self, obs: Observation) -> Decision | None:
        """A decision made without a model call (a replayed or queued action), or None."""
        ...

    def assemble(self, obs: Observation) -> Prompt: ...

    def reply_schema(self, obs: Observation) -> JSON: ...

    def parse(self, completion: Completion, obs: Observation) -> Decision: ...

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None: ...

    def postrun(self, trajectory: Sequence[DecisionRecord], outcome: Outcome) -> None: ...

    def config_dict(self) -> JSON: ...

    @property
    def replies(self) -> ReplyHooks:
        """The reply hooks (`ReplyHooks`, defaulted)."""
        ...

    @property
    def memory(self) -> MemoryHooks:
        """The memory hooks (`MemoryHooks`, defaulted)."""
        ...

    @property
    def setup(self) -> SetupHooks:
        """The setup hooks (`SetupHooks`, defaulted)."""
        ...


@runtime_checkable
class Expert(Protocol):
    """A scripted player: `act(obs)` returns one legal action (or a plan of several)."""

    def act(self, obs: Observation) -> Action | list[Action]: ...
