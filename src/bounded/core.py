"""The project's vocabulary: what an environment shows, what a model sees and says,
what a contract decides and what the archive keeps.

Every other module speaks in these types. The protocols (`Env`, `Model`, `Contract`,
`Expert`) are structural, so a user's own environment, model or contract needs no
base class to plug in.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

FORMAT_VERSION = 3
"""Stamped on every archived record; bump when a stored shape changes."""

JSON = dict[str, Any]

DEFAULT_MAX_TOKENS = 256
"""The reply token limit of a model call that names none (every model, every game)."""


class BoundedError(Exception):
    """A user-facing error whose message is complete on one line."""


class ConfigError(BoundedError):
    """Bad configuration or arguments: the message names what is wrong."""


class Interrupted(BoundedError):
    """A command stopped by a signal (Ctrl-C, SIGTERM); its message names the signal, what
    was kept and the command that continues (exit status 130)."""


def first_validation_error(exc: ValidationError) -> str:
    """A pydantic error as one line naming the offending field: `l3.mode: Input should be ...`."""
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


class ResponseFormatRefused(BoundedError):
    """An endpoint refuses the response format a reply mode needs (strict `json_schema`,
    `json_object`); the message names the model, the format and the server's reason in one
    line. Raised by a model's `complete`; the runner falls back to the next reply mode the
    contract allows, before the game is played, or stops."""

    def __init__(self, message: str, response_format: str) -> None:
        super().__init__(message)
        self.response_format = response_format


class IllegalActionError(BoundedError):
    """An environment refused an action; its state is unchanged."""


class Action(BaseModel):
    """One thing an agent may do now.

    `id` is stable across renderings (a model names it); `label` is for humans.
    `schema_` is the JSON schema of arguments the agent must fill in (None: no
    arguments); `args` holds the filled-in arguments of a chosen action.
    """

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    id: str
    label: str = ""
    schema_: JSON | None = Field(default=None, alias="schema")
    args: JSON = Field(default_factory=dict)

    def with_args(self, args: Mapping[str, Any]) -> Action:
        return self.model_copy(update={"args": dict(args)})


class Observation(BaseModel):
    """What an environment shows at one decision point."""

    kind: str
    """The decision type: `combat`, `map`, `stream`, `macro`, `tool`, ..."""
    state: JSON = Field(default_factory=dict)
    """The full machine-readable state (JSON-able)."""
    text: str = ""
    """The state rendered for a model."""
    history_text: str | None = None
    """What a history keeps of this observation once it is past: the end of `text`,
    without what only the current observation shows (BALROG's NetHack shows the map and
    cursor for the current observation only); None: all of `text`."""
    legal: list[Action] = Field(default_factory=list)
    """Every legal action now, each with a stable id."""
    t: float = 0
    """Decision index, or game time for real-time environments."""
    max_actions: int = 1
    """How many actions one decision may carry (a combat plan may hold several)."""

    @model_validator(mode="after")
    def _history_text_ends_the_text(self) -> Observation:
        if self.history_text is not None and not self.text.endswith(self.history_text):
            raise ValueError("an observation's history_text must be the end of its text")
        return self

    @property
    def kept_text(self) -> str:
        """What a history keeps of this observation: `history_text`, else all of `text`."""
        return self.text if self.history_text is None else self.history_text

    @property
    def current_only_text(self) -> str:
        """The part of `text` before `kept_text`: shown only while the observation is
        current ("" where a history keeps it all)."""
        return self.text[: len(self.text) - len(self.kept_text)]

    def legal_action(self, action_id: str | None) -> Action | None:
        """The legal action with this id, or None (always None for the id None)."""
        if action_id is None:
            return None
        return next((a for a in self.legal if a.id == action_id), None)


class Segment(BaseModel):
    """One typed piece of a prompt; `layer` names which memory it came from."""

    model_config = ConfigDict(frozen=True)

    layer: str
    role: str
    text: str


TokenCounter = Callable[[str], int]

_TOKEN_PATTERN = re.compile(r"\w+|[^\w\s]")


def approx_tokens(text: str) -> int:
    """A model-free token estimate: words, numbers and punctuation marks each count one."""
    return len(_TOKEN_PATTERN.findall(text))


OWN_MESSAGE_LAYERS: Final = frozenset({"instruction", "events"})
"""The layers whose segments are each a message of their own, never merged with a neighbour
of the same role: BALROG's instruction prompt (the first user message, followed by the
first observation as another) and its history's events (two observations in a row stay two
messages). Kept in the layer, so an archived prompt renders the same again."""


class Prompt(BaseModel):
    """An ordered list of segments. Consecutive segments with the same role form one message,
    except segments of `OWN_MESSAGE_LAYERS`."""

    segments: list[Segment] = Field(default_factory=list)

    def add(self, layer: str, role: str, text: str) -> Prompt:
        self.segments.append(Segment(layer=layer, role=role, text=text))
        return self

    def messages(self) -> list[dict[str, str]]:
        merged: list[dict[str, str]] = []
        previous: Segment | None = None
        for segment in self.segments:
            alone = segment.layer in OWN_MESSAGE_LAYERS or (
                previous is not None and previous.layer in OWN_MESSAGE_LAYERS
            )
            previous = segment
            if merged and merged[-1]["role"] == segment.role and not alone:
                merged[-1]["content"] += "\n\n" + segment.text
            else:
                merged.append({"role": segment.role, "content": segment.text})
        return merged

    def tokens_by_layer(self, count: TokenCounter = approx_tokens) -> dict[str, int]:
        totals: dict[str, int] = {}
        for segment in self.segments:
            totals[segment.layer] = totals.get(segment.layer, 0) + count(segment.text)
        return totals


class Completion(BaseModel):
    """A model's reply and what it cost."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    usage_estimated: bool = False
    """True when the server reported no usage and the token counts are the model's own
    estimate (its tokenizer, or `approx_tokens`)."""
    counted_prompt_tokens: int = 0
    counted_completion_tokens: int = 0
    """The same call counted by bounded's own tokenizer (the model's `count_tokens`), beside
    what the server reported in `prompt_tokens`/`completion_tokens`: context tables read the
    counted tokens, costs the reported ones (`bounded.archive.totals`); 0 in a call recorded
    before they were kept."""
    latency_s: float = 0.0
    model: str = ""
    finish_reason: str = ""
    reasoning: str = ""
    """What the model wrote on a reasoning channel apart from its reply (`reasoning_content`
    of DeepSeek-R1-style servers and vLLM's reasoning parsers): archived and shown, never
    parsed as the reply."""
    reasoning_tokens: int = 0
    """Of `completion_tokens`, those the server reports as reasoning (usage's
    `completion_tokens_details.reasoning_tokens`); 0 when it reports none."""


EMBEDDED_REASONING_CHARS = 120
"""The embedded model's reasoning budget (`bounded.models.local` declares it): a 135M model
degenerates inside long free text, so its replies' reasoning is capped at 120 characters."""

REASONING_BY_MODEL: Final = "model"
"""A contract's `reasoning_chars` that leaves the reasoning budget to the model."""

ReasoningSetting = int | Literal["model"] | None
"""A contract's `reasoning_chars`: a cap in characters, `model` (the model's own budget),
or None (no cap)."""


def reasoning_chars_in_force(setting: ReasoningSetting, model: Any = None) -> int | None:
    """The cap on a reply's reasoning, in characters, that a contract's `reasoning_chars`
    puts in force with this model; None: no cap. `model` takes the budget the model declares
    (its optional `reasoning_chars` attribute: 120 on the embedded 135M model, which
    degenerates inside long free text), and none where it declares none (endpoint and
    plugin models: the reply's token limit bounds what they write)."""
    if setting != REASONING_BY_MODEL:
        return setting if setting is None else int(setting)
    declared = getattr(model, "reasoning_chars", None)
    return int(declared) if declared else None


class Decision(BaseModel):
    """What a contract made of a completion."""

    actions: list[Action] = Field(default_factory=list)
    state_patch: JSON | None = None
    reasoning: str = ""
    parse_error: str | None = None
    extra: JSON = Field(default_factory=dict)
    """Contract-specific fields of the reply (e.g. a combat plan's notes)."""
    reply_object: JSON | None = Field(default=None, exclude=True)
    """The JSON object the contract's parse decoded from the reply, or None where it decoded
    none; left unset (not in `model_fields_set`) by a contract that does not say. The run's
    reply ledger reads it instead of decoding the reply again; never archived."""


INVALID_KEY: Final = "invalid_actions"
"""`Decision.extra` key (and so an archived decision's `info`): the actions a reply named
that were not legal now, as it named them (invalid actions, as BALROG counts them)."""


def invalid_count(info: Mapping[str, Any]) -> int:
    """How many invalid actions a decision's record holds (`INVALID_KEY`)."""
    found = info.get(INVALID_KEY)
    return len(found) if isinstance(found, list) else 0


class StepResult(BaseModel):
    """What the environment answered to a decision's actions."""

    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    info: JSON = Field(default_factory=dict)


class Outcome(BaseModel):
    """How an episode ended, as its environment defines it: the one definition of victory,
    score and progress that the ladder, the bank, the analysis and the contracts use."""

    model_config = ConfigDict(frozen=True)

    victory: bool = False
    """The game was won (its goal reached)."""
    score: float = 0.0
    """The environment's own score (spire: floor reached; warehouse: accuracy; ...)."""
    progress: float = 0.0
    """How much of the game was done, from 0 to 1 (spire: floors of the acts played)."""
    ended_by: str = ""
    """Why the episode ended: `victory`, `defeat`, `truncated`, `running`, ... (free text)."""


def victory_of(outcome: Mapping[str, Any]) -> bool:
    """Whether an archived run's outcome dict is a victory (the environment's own verdict,
    stored by the runner under `victory`)."""
    return outcome.get("victory") is True


class DecisionRecord(BaseModel):
    """One archived decision: everything needed to audit what the model saw and did."""

    format_version: int = FORMAT_VERSION
    run_id: str
    index: int
    t: float
    kind: str
    segments: list[Segment]
    tokens_by_layer: dict[str, int]
    prompt_tokens: int
    completion: Completion | None
    actions: list[Action]
    model: str = ""
    """The id of the model asked for this decision ("" when the contract decided alone)."""
    reasoning: str = ""
    state_patch: JSON | None = None
    parse_error: str | None = None
    fallback: bool = False
    """True when the executed action was not the model's (malformed or illegal reply)."""
    reward: float = 0.0
    latency_s: float = 0.0
    info: JSON = Field(default_factory=dict)
    extra_completions: list[Completion] = Field(default_factory=list)
    """Model calls the contract made itself for this decision (summaries, descriptions)."""


class RunRecord(BaseModel):
    """One archived episode."""

    format_version: int = FORMAT_VERSION
    run_id: str
    env_id: str
    env_version: str = "0"
    contract: str
    contract_config: JSON = Field(default_factory=dict)
    contract_config_hash: str = ""
    store_hashes: dict[str, str] = Field(default_factory=dict)
    model: str
    model_params: JSON = Field(default_factory=dict)
    seed: int
    tag: str = ""
    experiment: str = ""
    cell: str = ""
    status: str = "running"
    """`running`, `completed` or `failed`."""
    error: str | None = None
    outcome: JSON = Field(default_factory=dict)
    """The environment's `metrics()` at the end."""
    postrun: JSON = Field(default_factory=dict)
    """What the contract's postrun learning did, when it has one: each model call whole
    (so a malformed reply can be read), the write gate's verdicts, and a note."""
    spec: JSON = Field(default_factory=dict)
    """The game specification the run was built from (`bounded.runner.GameSpec`)."""
    identity: str = ""
    """The canonical hash of the game: its spec and its `inputs`
    (`bounded.runner.identity`); "" for a run of an older bounded."""
    inputs: dict[str, str] = Field(default_factory=dict)
    """What the game read beyond its spec's strings: the environment's version, the hash of
    the contract's resolved configuration, the hashes of the stores the contract reads."""
    usage: dict[str, JSON] = Field(default_factory=dict)
    """Per model id: `calls`, `prompt_tokens`, `completion_tokens`, `cached_tokens` (every
    call: decisions, the contract's own and postrun), for runs with several models."""
    decisions: int = 0
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    last_prompt_tokens: int = 0
    wall_s: float = 0.0
    started_at: float = 0.0
    package_version: str = ""
    code_revision: str = ""
    """Which code played the run (`bounded.version.code_revision`: `git describe --always
    --dirty` of a checkout, else the version and a hash of the installed source); "" for a
    run of an older bounded or an imported one."""


def stable_hash(value: Any) -> str:
    """SHA-256 of a JSON-able value in canonical form (sorted keys, no spaces)."""
    blob = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


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


class Embeddings(BaseModel):
    """What an embedding call returned: one vector per text, and what it cost."""

    vectors: list[list[float]]
    prompt_tokens: int = 0
    latency_s: float = 0.0
    model: str = ""


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
"""How a `text` reply is read: the method's own rule (`bounded.contracts.replies`). A model
that reads the reply's form (`reads_reply_schema`: the scripted model, the embedded model's
`text_grammar = "frame"`) is told the rule of each call."""

ANY_JSON_OBJECT: Final[JSON] = {"type": "object", "$comment": "bounded: the json reply mode"}
"""The constraint of the `json` reply mode: any JSON object, and nothing about its keys. An
endpoint model sends it as `response_format = {"type": "json_object"}`; the embedded model
decodes it under the grammar of any object (validators and llama.cpp's converter ignore the
`$comment`, which tells this constraint from a reply schema that is `{"type": "object"}`)."""


def reply_constraint(mode: ReplyMode, schema: Callable[[], JSON]) -> JSON | None:
    """The constraint a model call gets in a reply mode: the reply's schema (`schema()`,
    built only when asked for) when constrained, any JSON object in `json`, none in `text`."""
    if mode == "constrained":
        return schema()
    return dict(ANY_JSON_OBJECT) if mode == "json" else None


def is_any_object(constraint: JSON | None) -> bool:
    """Whether a constraint is the `json` mode's (any JSON object, no schema of keys)."""
    return constraint == ANY_JSON_OBJECT


FallbackPolicy = Literal["no-op", "first-legal", "game-default"]
"""What a decision executes when the model's reply is unusable (see `fallback_actions`)."""

NOOP_ACTION = Action(id="noop", label="no action: the reply was unusable")

FREE_TEXT_ACTION: Final = "free text"
"""The id of an action that carries any string the game takes as typed, in its `text`
argument (TextWorld's commands): a BALROG agent's reply that names no other legal action
is sent through it, as BALROG hands any string to such a game."""


def fallback_actions(
    obs: Observation, policy: FallbackPolicy, default: Action | None = None
) -> list[Action]:
    """The one fallback rule: what runs when the model's reply is unusable (malformed, or
    no action), under the contract's `fallback_policy()`; `default` is the game's own
    (`Env.default_action()`).

    - `no-op` (the SKILL.state replication's `parse_response`, which "degrades to a no-op
      with a recorded parse_error"): the `noop` action, which an environment that supports
      it takes as doing nothing this decision (the warehouse: no report for the event,
      counted wrong). An environment that refuses it gets the `game-default` fallback
      instead, and the decision records the refusal.
    - `first-legal`: the first legal action as the observation lists it (this toolkit's
      original behaviour).
    - `game-default`: the game's default action (BALROG's: `esc` in NetHack, `Noop` in
      Crafter, `help` in TextWorld), as BALROG's `check_action_validity` does; the first
      legal action where the game declares none.
    """
    if policy == "no-op":
        return [NOOP_ACTION]
    if policy == "first-legal" and obs.legal:
        return list(obs.legal[:1])
    return [default] if default is not None else list(obs.legal[:1])


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


@runtime_checkable
class Contract(Protocol):
    """A memory contract: decides what each prompt holds and what is kept between decisions.

    Every hook the runner calls is declared here; `ContractBase` gives the optional ones
    (`paper_temperature`, `paper_max_tokens`, `memory_settings`, `sends_game_seed`,
    `max_reply_tokens`, `env_options`,
    `action_rate_bound`, `propose`, `fallback_policy`,
    `counterfactual_schema`, `postrun`,
    `postrun_record`, `store_hashes`, `memory_snapshot`, `memory_logs`, `restore_memory`)
    their defaults."""

    name: str
    paper_temperature: float | None
    """The sampling temperature the contract's paper plays at, for a game whose spec sets
    none; None: the spec's (or 0)."""
    paper_max_tokens: int | None
    """The reply token limit the contract's paper plays at (BALROG's 8,192), for a game
    whose spec sets none; None: the spec's."""

    @property
    def memory_settings(self) -> tuple[str, ...]:
        """The configuration keys that are the contract's memory under test (the parity
        report compares every other key)."""
        ...

    @property
    def sends_game_seed(self) -> bool:
        """Whether each model request carries the game's seed as its sampling `seed`."""
        ...

    def max_reply_tokens(self, model: Model) -> int | None:
        """The most tokens a reply may take on `model` (a cap below the game's limit that
        the model's context window requires; recorded with the run), or None: no cap."""
        ...

    def env_options(self, env_id: str, options: JSON) -> JSON:
        """The environment options the contract plays at, completed from the spec's (or a
        `ConfigError` refusing them), asked before the environment is built."""
        ...

    def action_rate_bound(self) -> float | None:
        """On an environment with an empty action: the largest share of decisions that can
        carry any other action, by the contract's construction (Chain of Summarization's
        `decisions` per `interval`), or None where only the game decides. A sweep's dry run
        compares the cells' bounds before anything is played."""
        ...

    def reset(self, episode: EpisodeContext) -> None: ...

    def propose(self, obs: Observation) -> Decision | None:
        """A decision made without a model call (a replayed or queued action), or None."""
        ...

    def assemble(self, obs: Observation) -> Prompt: ...

    def reply_schema(self, obs: Observation) -> JSON: ...

    def parse(self, completion: Completion, obs: Observation) -> Decision: ...

    def fallback_policy(self) -> FallbackPolicy:
        """What a decision whose reply is unusable executes (`fallback_actions`)."""
        ...

    @property
    def reply_mode(self) -> ReplyMode:
        """How replies are asked for and read now (`ReplyMode`): the runner sends the
        constraint this mode says (`reply_constraint`), `parse` reads by it."""
        ...

    def reply_modes(self) -> list[ReplyMode]:
        """The modes the contract may play in, in order of preference (its `reply`, then
        its `reply_fallback`)."""
        ...

    def use_reply_mode(self, mode: ReplyMode) -> None:
        """Play in `mode` (one of `reply_modes()`), chosen before the game starts when the
        endpoint refuses the preferred one's response format."""
        ...

    def text_rule_for(self, obs: Observation) -> TextRule | None:
        """The rule this decision's `text` reply is read by (`TextRule`), told to a model
        that reads it (`ReplyReader`); None: the contract does not say."""
        ...

    def counterfactual_schema(self, obs: Observation, segments: Sequence[Segment]) -> JSON:
        """The schema an archived decision (its prompt's `segments`) was answered under,
        which attribution re-asks under: a contract that asks again within a decision
        under another schema says which."""
        ...

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None: ...

    def postrun(self, trajectory: Sequence[DecisionRecord], outcome: Outcome) -> None: ...

    @property
    def postrun_record(self) -> JSON:
        """What postrun learning did (calls, verdicts, note), archived with the run."""
        ...

    def config_dict(self) -> JSON: ...

    def store_hashes(self) -> dict[str, str]: ...

    def memory_snapshot(self) -> JSON | None:
        """The contract's memory between two decisions as JSON (saved with each decision,
        so that `bounded resume` can continue a killed run), or None when it has none to
        give (the run cannot be resumed)."""
        ...

    def memory_logs(self) -> tuple[str, ...]:
        """The keys of `memory_snapshot()` whose values are logs: an archive's checkpoint
        stores only the items added since the last one, so that saving a checkpoint costs
        the same at every decision, and `restore_memory` gets each value back as it was.
        A log is a list that only grows between two `reset`s (a journal), or a window on
        a log whose oldest items drop out (a bounded history): `{"start": s, "items":
        [...]}`, the items at positions s, s + 1, ..., s only growing; an item at a
        position never changes (`bounded.archive.progress`)."""
        ...

    def restore_memory(self, memory: JSON) -> None:
        """Put a `memory_snapshot()` back, after `reset` of the same episode."""
        ...


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


@runtime_checkable
class Expert(Protocol):
    """A scripted player: `act(obs)` returns one legal action (or a plan of several)."""

    def act(self, obs: Observation) -> Action | list[Action]: ...
