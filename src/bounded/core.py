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
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

FORMAT_VERSION = 1
"""Stamped on every archived record; bump when a stored shape changes."""

JSON = dict[str, Any]


class BoundedError(Exception):
    """A user-facing error whose message is complete on one line."""


class ConfigError(BoundedError):
    """Bad configuration or arguments: the message names what is wrong."""


def first_validation_error(exc: ValidationError) -> str:
    """A pydantic error as one line naming the offending field: `l3.mode: Input should be ...`."""
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


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
    legal: list[Action] = Field(default_factory=list)
    """Every legal action now, each with a stable id."""
    t: float = 0
    """Decision index, or game time for real-time environments."""
    max_actions: int = 1
    """How many actions one decision may carry (a combat plan may hold several)."""

    def legal_action(self, action_id: str) -> Action | None:
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


class Prompt(BaseModel):
    """An ordered list of segments. Consecutive segments with the same role form one message."""

    segments: list[Segment] = Field(default_factory=list)

    def add(self, layer: str, role: str, text: str) -> Prompt:
        self.segments.append(Segment(layer=layer, role=role, text=text))
        return self

    def messages(self) -> list[dict[str, str]]:
        merged: list[dict[str, str]] = []
        for segment in self.segments:
            if merged and merged[-1]["role"] == segment.role:
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
    latency_s: float = 0.0
    model: str = ""
    finish_reason: str = ""


class Decision(BaseModel):
    """What a contract made of a completion."""

    actions: list[Action] = Field(default_factory=list)
    state_patch: JSON | None = None
    reasoning: str = ""
    parse_error: str | None = None
    extra: JSON = Field(default_factory=dict)
    """Contract-specific fields of the reply (e.g. a combat plan's notes)."""


class StepResult(BaseModel):
    """What the environment answered to a decision's actions."""

    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    info: JSON = Field(default_factory=dict)


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
    decisions: int = 0
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    last_prompt_tokens: int = 0
    wall_s: float = 0.0
    started_at: float = 0.0
    package_version: str = ""


def stable_hash(value: Any) -> str:
    """SHA-256 of a JSON-able value in canonical form (sorted keys, no spaces)."""
    blob = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


@runtime_checkable
class Env(Protocol):
    """Gymnasium's API over `Observation`s, plus an episode outcome and JSON save/load."""

    instructions: str
    """The fixed task description a contract shows the model."""

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]: ...

    def step(
        self, action: Action | Sequence[Action]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]: ...

    def metrics(self) -> dict[str, Any]: ...

    def save(self) -> JSON: ...

    def load(self, data: JSON) -> None: ...


@runtime_checkable
class Model(Protocol):
    """Anything that completes chat messages, optionally under a JSON-schema constraint."""

    id: str

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        constraint: JSON | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> Completion: ...

    def count_tokens(self, text: str) -> int: ...


@runtime_checkable
class Contract(Protocol):
    """A memory contract: decides what each prompt holds and what is kept between decisions."""

    name: str

    def reset(self, episode: JSON) -> None: ...

    def assemble(self, obs: Observation) -> Prompt: ...

    def reply_schema(self, obs: Observation) -> JSON: ...

    def parse(self, completion: Completion, obs: Observation) -> Decision: ...

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None: ...

    def postrun(self, trajectory: list[DecisionRecord]) -> None: ...

    def config_dict(self) -> JSON: ...

    def store_hashes(self) -> dict[str, str]: ...


@runtime_checkable
class Expert(Protocol):
    """A scripted player: `act(obs)` returns one legal action (or a plan of several)."""

    def act(self, obs: Observation) -> Action | list[Action]: ...
