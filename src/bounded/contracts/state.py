"""`state` (SKILL.state): the model sees a fixed spec, its own JSON state and the latest
observation, and replies with reasoning (discarded), a state patch and an action.

Merge rules, applied by `merge_patch`:
- objects merge recursively, key by key;
- `null` deletes a key;
- `{"$append": [...]}` appends to a list (a missing key starts an empty list);
- any other value replaces the old one.
An optional JSON schema is checked after the merge; a rejected patch leaves the state
unchanged and is journaled with its reason. So are a patch that is not an object (also
a parse error of its decision), one nested deeper than `max_patch_depth`, and one whose
result would exceed `max_state_chars`: the state, and so every prompt, stays bounded.

**A state without a schema.** The paper's state is any JSON object, and so is ours where
no schema is in force (`state_shape = "open"`). Under a constrained decoder a small model
fills an open `state_patch` object until the reply's token limit cuts it (the embedded
model on Crafter and spire: every reply truncated, every decision a parse error), since
nothing in an open object's grammar makes closing it likely. `state_shape = "notes"` gives
such a game `notes_schema` instead (a goal, a plan and two facts, each string a third of
the model's free-text budget: `notes_chars`), which a decoder always closes; `model`, the
default, takes `notes` for a model that declares a free-text budget (the embedded models'
`reasoning_chars`) and `open` for every other model. A schema from the configuration or
the environment always wins over either shape.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Iterable
from typing import Any, Literal

import jsonschema
from pydantic import BaseModel, ConfigDict, Field, field_validator

from bounded.contracts._configured import ConfiguredContract
from bounded.contracts._render import compact_json, render_observation
from bounded.contracts.perturbation import Perturbation, corrupt_value
from bounded.contracts.replies.policy import REASONING_BY_MODEL, reasoning_chars_in_force
from bounded.contracts.replies.reading import MAX_JSON_DEPTH, clip, json_depth
from bounded.contracts.replies.rules import TextRule
from bounded.contracts.replies.settings import FallbackSettings, ReasoningSettings
from bounded.core import JSON, Completion, Decision, Observation, Prompt, StepResult, stable_hash
from bounded.protocols import EpisodeContext, FallbackPolicy, ReplyMode
from bounded.validation import validate, validator

APPEND = "$append"

MAX_PATCH_DEPTH = 32
"""Default deepest nesting of a patch (`StateConfig.max_patch_depth`)."""

MAX_STATE_CHARS = 16_000
"""Default size limit of the state as the prompt shows it, in characters of compact JSON
(`StateConfig.max_state_chars`; about 4,000 tokens)."""

NOTES_FACTS = 2
"""Most facts the `notes` state holds."""

NOTES_CHARS = 200
"""Longest string of the `notes` state when the model declares no free-text budget."""


def notes_chars(budget: int | None) -> int:
    """Longest string of the `notes` state: a third of the model's free-text budget (40
    characters on the embedded model: the four strings together fit in about 70 of its
    tokens beside the reasoning and a plan of actions), `NOTES_CHARS` without one."""
    return max(16, budget // 3) if budget else NOTES_CHARS


StateShape = Literal["model", "open", "notes"]
"""What a state without a schema may hold (see the module's docstring)."""


def notes_schema(chars: int = NOTES_CHARS) -> JSON:
    """The `notes` state: a goal, a plan and at most `NOTES_FACTS` facts, each string at
    most `chars` characters, nothing else."""
    text = {"type": "string", "maxLength": chars}
    return {
        "type": "object",
        "properties": {
            "goal": text,
            "plan": text,
            "facts": {"type": "array", "items": text, "maxItems": NOTES_FACTS},
        },
        "additionalProperties": False,
    }


def state_shape_in_force(shape: StateShape, model: Any = None) -> Literal["open", "notes"]:
    """The shape a schema-less state takes with this model: `model` reads the model's
    declared free-text budget (`reasoning_chars`; the embedded models declare one)."""
    if shape != "model":
        return shape
    return "notes" if reasoning_chars_in_force(REASONING_BY_MODEL, model) else "open"


MERGE_RULES = """\
State rules: you keep a JSON state between events; it is all you remember. Each reply
carries "state_patch", merged into your state: objects merge key by key, null deletes a
key, {"$append": [items]} appends to a list, any other value replaces the old one. Send
{} when nothing changes. The reasoning is discarded after each reply."""


class PatchRejected(ValueError):
    """A patch that cannot be merged or whose result breaks the state schema."""


def merge_patch(state: JSON, patch: JSON, *, max_depth: int = MAX_PATCH_DEPTH) -> JSON:
    """The state after `patch`, as a new object; `state` is not modified.

    A patch nested deeper than `max_depth` is rejected before anything recurses into it."""
    if not isinstance(patch, dict):
        raise PatchRejected(f"patch must be an object, got {type(patch).__name__}")
    depth = json_depth(patch)
    if depth > max_depth:
        raise PatchRejected(f"patch nests {depth} levels deep, more than {max_depth}")
    merged = copy.deepcopy(state)
    _merge_into(merged, patch, path="")
    return merged


def _merge_into(target: JSON, patch: JSON, path: str) -> None:
    for key, value in patch.items():
        where = f"{path}.{key}" if path else key
        if value is None:
            target.pop(key, None)
        elif isinstance(value, dict) and set(value) == {APPEND}:
            items = value[APPEND]
            if not isinstance(items, list):
                raise PatchRejected(f"{where}: $append needs a list")
            current = target.get(key, [])
            if not isinstance(current, list):
                raise PatchRejected(f"{where}: $append on a non-list")
            target[key] = [*current, *copy.deepcopy(items)]
        elif isinstance(value, dict):
            child = target.get(key)
            if not isinstance(child, dict):
                child = {}
            _merge_into(child, value, where)
            target[key] = child
        else:
            target[key] = copy.deepcopy(value)


def patch_schema(state_schema: JSON | None) -> JSON:
    """What a patch may look like: the state's properties, each optional and nullable."""
    properties = (state_schema or {}).get("properties")
    if not properties:
        return {"type": "object"}
    nullable = {key: {"anyOf": [schema, {"type": "null"}]} for key, schema in properties.items()}
    return {"type": "object", "properties": nullable, "additionalProperties": False}


class StateConfig(ReasoningSettings, FallbackSettings):
    """Settings of the state contract (a reply's reasoning is archived with its decision
    and not kept: the state is all that is carried)."""

    model_config = ConfigDict(extra="forbid")

    reply: ReplyMode = "text"
    """SKILL.state's: free text, read by `text_rule` (`constrained` or `json` on request)."""
    text_rule: TextRule = "json-block"
    """How a `text` reply is read: `json-block` (SKILL.state's `parse_response`: reasoning,
    then a JSON block with `state_patch` and `action`; a reply without one is a no-op with
    its parse error) or `decision-tag`."""
    state_schema: JSON | None = None
    """JSON schema the state must satisfy after each merge; None takes the environment's
    suggestion (if any), `{}` disables the check."""
    initial_state: JSON = Field(default_factory=dict)
    """The state before the first decision (the environment's suggestion fills keys left out)."""
    max_state_chars: int | None = Field(default=MAX_STATE_CHARS, ge=2)
    """Largest state, in characters of the compact JSON the prompt shows; a patch whose
    result is larger is rejected and journaled. None: no limit (the state can then grow
    every prompt without bound)."""
    max_patch_depth: int = Field(default=MAX_PATCH_DEPTH, ge=1, le=MAX_JSON_DEPTH)
    """Deepest nesting of arrays and objects a patch may hold; a deeper one is rejected
    and journaled."""
    state_shape: StateShape = "model"
    """What a state without a schema (none configured, none suggested) may hold: `open`
    (any object, the paper's), `notes` (`notes_schema`, which a constrained decoder always
    closes) or `model` (`notes` for a model that declares a free-text budget, such as the
    embedded one; `open` otherwise). See the module's docstring."""
    fallback: FallbackPolicy = "no-op"
    """The SKILL.state replication's: a malformed reply is a no-op with its parse error."""
    perturb_at: int | None = Field(default=None, ge=0)
    """State recovery: the decision (0-based) before which the state is perturbed
    (see `bounded.contracts.perturbation`); None: never."""
    perturb: Perturbation = "wipe"
    """How: `wipe` (the state becomes {}) or `corrupt` (numbers off by one)."""

    @field_validator("state_schema")
    @classmethod
    def _a_valid_schema(cls, schema: JSON | None) -> JSON | None:
        """Refuse a schema that is not one (`{"type": 5}`) when the contract is built, not
        at the first merge."""
        if schema:
            try:
                validator(schema)  # checked once, and compiled for the merges
            except jsonschema.SchemaError as exc:
                raise ValueError(f"not a valid JSON schema: {clip(exc.message)}") from exc
        return schema


class JournalEntry(BaseModel):
    """One line of the patch journal: replaying accepted patches rebuilds the state history."""

    t: float
    patch: Any
    accepted: bool
    reason: str = ""
    state_hash: str


JOURNAL_KEPT = 1_000
"""Journal entries a state contract keeps in memory by default (each decision's patch is
archived with the decision; a `JournaledStateContract` writes every entry to its file)."""


class StateContract(ConfiguredContract[StateConfig]):
    """Bounded by construction: spec + state + latest observation, nothing else.

    `journal` holds the latest `journal_kept` entries (None: every one) and `journaled`
    counts them all, so that what the contract holds does not grow with the game; its
    snapshot gives the journal as a window on the whole (`memory_logs`)."""

    name = "state"
    memory_settings = (
        "state_schema", "initial_state", "max_state_chars", "max_patch_depth", "state_shape"
    )  # fmt: skip
    """The configuration keys that are the memory under test (`MemoryHooks.memory_settings`)."""
    journal_kept: int | None = JOURNAL_KEPT

    def __init__(self, **settings: object) -> None:
        self.config = StateConfig.model_validate(settings)
        self.instructions = ""
        self.schema: JSON | None = None
        self.state: JSON = {}
        self.journal: deque[JournalEntry] = deque(maxlen=self.journal_kept)
        self._journal_json: deque[JSON] = deque(maxlen=self.journal_kept)
        """`journal` as JSON, each entry dumped once (the checkpoints read it)."""
        self.journaled = 0
        """Entries journaled since `reset` (the position after the latest one)."""
        self._pending_patch: Any = None
        self.decisions = 0
        self._perturbed_now = False

    def reset(self, episode: EpisodeContext) -> None:
        self.instructions = episode.instructions
        self.model = episode.model
        self.schema = self._schema_in_force(episode)
        self.state = {**(episode.initial_state or {}), **self.config.initial_state}
        self.journal.clear()
        self._journal_json.clear()
        self.journaled = 0
        self._pending_patch = None
        self.decisions = 0
        self._perturbed_now = False

    def _schema_in_force(self, episode: EpisodeContext) -> JSON | None:
        """The configured schema, else the environment's, else the shape's (`notes` only)."""
        if self.config.state_schema is not None:
            return self.config.state_schema
        if episode.state_schema is not None:
            return episode.state_schema
        if state_shape_in_force(self.config.state_shape, episode.model) == "notes":
            budget = reasoning_chars_in_force(REASONING_BY_MODEL, episode.model)
            return notes_schema(notes_chars(budget))
        return None

    def spec(self, obs: Observation) -> str:
        parts = [self.instructions, MERGE_RULES]
        if self.schema:
            parts.append("Your state must match this JSON schema: " + compact_json(self.schema))
        parts.append(self.reply_instruction(obs))
        return "\n\n".join(p for p in parts if p)

    def reply_schema(self, obs: Observation) -> JSON:
        extra = {"state_patch": patch_schema(self.schema)}
        return self.decision_reply_schema(obs, extra)

    def _perturb_if_due(self) -> None:
        self._perturbed_now = self.decisions == self.config.perturb_at
        if self._perturbed_now:
            wiped = self.config.perturb == "wipe"
            self.state = {} if wiped else corrupt_value(self.state)

    def assemble(self, obs: Observation) -> Prompt:
        self._perturb_if_due()
        prompt = Prompt()
        prompt.add("spec", "system", self.spec(obs))
        prompt.add("state", "user", "Your state: " + compact_json(self.state))
        prompt.add("observation", "user", render_observation(obs))
        return prompt

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        """The decision and its pending patch; a patch that is not an object is a parse
        error (and is journaled as rejected when the decision is committed)."""
        decision, reply = self.read_reply(completion, obs)
        if self._perturbed_now:
            decision.extra["perturbed"] = self.config.perturb
        patch = self._pending_patch = reply.get("state_patch")  # null: no patch
        if isinstance(patch, dict):
            decision.state_patch = patch
        elif patch is not None:
            problem = f"state_patch must be an object, got {type(patch).__name__}"
            decision.parse_error = "; ".join(e for e in (decision.parse_error, problem) if e)
        return decision

    def apply(self, patch: Any, t: float = 0) -> JournalEntry:
        """Merge one patch (checked against the depth limit, the schema and the size limit)
        and journal the outcome."""
        try:
            merged = merge_patch(self.state, patch, max_depth=self.config.max_patch_depth)
            self._check_size(merged)
            if self.schema:
                validate(merged, self.schema)
        except PatchRejected as exc:
            entry = self._journal(t, patch, accepted=False, reason=str(exc))
        except jsonschema.ValidationError as exc:
            reason = f"schema: {clip(exc.message)}"
            entry = self._journal(t, patch, accepted=False, reason=reason)
        else:
            self.state = merged
            entry = self._journal(t, patch, accepted=True)
        return entry

    def _check_size(self, state: JSON) -> None:
        """Refuse a state larger than `max_state_chars` (as the prompt would show it)."""
        limit = self.config.max_state_chars
        if limit is None:
            return
        size = len(compact_json(state))
        if size > limit:
            raise PatchRejected(
                f"state would be {size:,} characters, over max_state_chars ({limit:,})"
            )

    def _journal(self, t: float, patch: Any, *, accepted: bool, reason: str = "") -> JournalEntry:
        entry = JournalEntry(
            t=t, patch=patch, accepted=accepted, reason=reason, state_hash=stable_hash(self.state)
        )
        self.journal.append(entry)
        self._journal_json.append(entry.model_dump())
        self.journaled += 1
        return entry

    def journal_since(self, position: int) -> list[JournalEntry]:
        """The entries held at `position` and after (positions count from `reset`)."""
        skip = max(0, position - (self.journaled - len(self.journal)))
        return list(self.journal)[skip:]

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        if self._pending_patch is not None:
            entry = self.apply(self._pending_patch, obs.t)
            result.info["patch_accepted"] = entry.accepted
            if not entry.accepted:
                result.info["patch_rejected"] = entry.reason
        self._pending_patch = None
        self.decisions += 1

    def store_hashes(self) -> dict[str, str]:
        return {"state": stable_hash(self.state)}

    def memory_snapshot(self) -> JSON:
        """The state and its patch journal (`bounded resume`): the journal, a window on a
        log (`memory_logs`), is stored by what is new, so a snapshot costs the same at
        every decision."""
        start = self.journaled - len(self._journal_json)
        journal = {"start": start, "items": list(self._journal_json)}
        return {"state": self.state, "journal": journal, "decisions": self.decisions}

    def memory_logs(self) -> tuple[str, ...]:
        return ("journal",)

    def restore_memory(self, memory: JSON) -> None:
        self.state = copy.deepcopy(memory["state"])
        saved = memory["journal"]  # a checkpoint written before the window: the whole list
        window = saved if isinstance(saved, dict) else {"start": 0, "items": saved}
        entries = [JournalEntry.model_validate(entry) for entry in window["items"]]
        self.journal = deque(entries, maxlen=self.journal_kept)
        self._journal_json = deque((e.model_dump() for e in self.journal), self.journal_kept)
        self.journaled = int(window["start"]) + len(entries)
        self.decisions = memory["decisions"]
        self._pending_patch = None


def replay_journal(initial: JSON, journal: Iterable[JournalEntry]) -> list[JSON]:
    """The state after each accepted patch, starting from `initial`."""
    states = [copy.deepcopy(initial)]
    for entry in journal:
        if entry.accepted:
            states.append(merge_patch(states[-1], entry.patch, max_depth=MAX_JSON_DEPTH))
    return states
