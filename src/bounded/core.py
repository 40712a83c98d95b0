"""The project's vocabulary: what an environment shows, what a model sees and says, what a
contract decides and what the archive keeps, and the errors every part raises.

Every other module speaks in these types. The protocols the parts implement (`Env`,
`Model`, `Contract`, `Expert`, ...) live in `bounded.protocols`; the reply policy in
`bounded.contracts.replies`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

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


class Embeddings(BaseModel):
    """What an embedding call returned: one vector per text, and what it cost."""

    vectors: list[list[float]]
    prompt_tokens: int = 0
    latency_s: float = 0.0
    model: str = ""


FREE_TEXT_ACTION: Final = "free text"
"""The id of an action that carries any string the game takes as typed, in its `text`
argument (TextWorld's commands): a BALROG agent's reply that names no other legal action
is sent through it, as BALROG hands any string to such a game."""
