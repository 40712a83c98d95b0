"""`paged` (MemGPT-style; Packer et al., 2023, "MemGPT: Towards LLMs as Operating
Systems"): a small core memory the model edits itself, a FIFO queue of recent turns kept
within a budget, and an archive of the turns the queue evicted, which the model can search.

From the paper: the main context holds the system instructions, a working context (core
memory, edited only through memory functions) and a FIFO queue of messages; when the
queue passes its budget the oldest messages are evicted to recall storage, which the
agent searches with a function call whose result comes back before it answers (a
"heartbeat"). Here:

- **core memory** (layer `core`): one text block of at most `core_chars` characters,
  edited by the reply's `memory` operations, applied after the step: `append` adds a
  line, `replace` swaps one exact passage for another (an empty `new` deletes it). An
  operation that would overflow the block, or a `replace` whose `old` is not in it, is
  refused and recorded on the decision (`info["memory"]`), as MemGPT returns an error;
- **queue** (layer `queue`): the latest turns (observation and reply) as they were sent
  and answered. Once they pass `queue_tokens`, the oldest are evicted to the archive until
  the queue is back under `flush_to` of its budget (MemGPT flushes at a warning threshold
  down to about half, so a cached prefix survives many decisions between flushes). This
  contract writes no recursive summary of what it evicts (MemGPT does: a choice, so that
  every model call is the decision's own or a search's);
- **archive**: every evicted turn, searchable by BM25 (`bounded.contracts._search`) with
  a `search` operation. A search costs a decision's call: the reply's action is set aside,
  the results (the top `search_k`) are shown after the reply, and a second call, metered
  and archived with the decision (`extra_completions`), gives the action executed. One
  search per decision; the second call cannot search again. The archive keeps every
  evicted turn, so this contract's memory grows with the game by design, while its
  prompt stays within its budgets (bench/memory_scaling.py).

A search extends the decision's prompt (the one `assemble` returned, which the runner
archives) with what the second call was sent: the reply that asked (layer `search`,
assistant), the results (layer `archive`) and the request for the action (layer
`search`). The archived decision is then the prompt of the call whose action was
executed, its layers counted like any other's (its `prompt_tokens` stay those of its
`completion`, the first call; the second's are on its `extra_completions` entry), and
`bounded attribute --layer archive` re-asks it without the results, under that call's
schema (`counterfactual_schema`).

The prompt is bounded by |instructions| + `core_chars` + `queue_tokens` + |observation|
(+ the search results on a search's second call).
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bounded.contracts._configured import ConfiguredContract
from bounded.contracts._render import render_observation
from bounded.contracts._search import BM25Index
from bounded.contracts.replies.policy import reply_constraint
from bounded.contracts.replies.reading import scrub
from bounded.contracts.replies.rules import instruction
from bounded.contracts.replies.settings import FallbackSettings, ReasoningSettings
from bounded.core import (
    JSON,
    Completion,
    Decision,
    Observation,
    Prompt,
    Segment,
    StepResult,
    TokenCounter,
    approx_tokens,
    stable_hash,
)
from bounded.protocols import EpisodeContext, Model

MEMORY_RULES = """\
Memory: the queue above holds only your latest turns; older ones are moved to an archive.
Keep what matters in your core memory, which you edit with the reply's "memory"
operations: {"op": "append", "text": "..."} adds a line; {"op": "replace", "old": "exact
text", "new": "..."} replaces it ("new": "" deletes it). {"op": "search", "query": "..."}
searches the archive: you are then shown the results and asked again for the action.
Send [] when no operation is needed."""

MESSAGE_OVERHEAD_TOKENS = 4
"""Chat-template tokens around each message, counted against the queue's budget."""


class PagedConfig(ReasoningSettings, FallbackSettings):
    """Settings of the paged-memory contract."""

    model_config = ConfigDict(extra="forbid")

    core: bool = True
    """Offer `append` and `replace` on the core memory (off: no core memory)."""
    search: bool = True
    """Offer `search` over the archive (off: evicted turns are never seen again)."""
    core_chars: int = Field(default=1200, ge=40)
    """The core memory's size limit, in characters."""
    queue_tokens: int = Field(default=1500, ge=64)
    """The FIFO queue's budget in the model's tokens; passing it evicts the oldest turns."""
    flush_to: float = Field(default=0.5, gt=0.0, le=1.0)
    """The share of `queue_tokens` an eviction brings the queue down to."""
    search_k: int = Field(default=3, ge=1, le=20)
    """How many archived turns a search shows."""
    result_chars: int = Field(default=400, ge=40)
    """Each search result's text is cut to this many characters."""
    op_chars: int = Field(default=200, ge=10)
    """Longest text of one memory operation's field."""
    max_ops: int = Field(default=2, ge=1, le=8)
    """Most memory operations in one reply."""
    search_reply_tokens: int = Field(default=256, ge=16)
    """Reply tokens of a search's second call."""


class Turn(BaseModel):
    """One decision as the queue and the archive keep it."""

    t: float
    kind: str
    seen: str
    reply: str
    tokens: int


def string(limit: int) -> JSON:
    return {"type": "string", "maxLength": limit}


def op_schema(op: str, fields: dict[str, JSON]) -> JSON:
    properties = {"op": {"const": op}, **fields}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


class PagedContract(ConfiguredContract[PagedConfig]):
    """Core memory the model edits, a budgeted queue, a searchable archive of evictions."""

    name = "paged"
    memory_settings = (
        "core", "search", "core_chars", "queue_tokens", "flush_to", "search_k", "result_chars",
        "op_chars", "max_ops"
    )  # fmt: skip
    """The configuration keys that are the memory under test (`MemoryHooks.memory_settings`)."""

    def __init__(self, **settings: object) -> None:
        self.config = PagedConfig.model_validate(settings)
        self.instructions = ""
        self.core = ""
        self.queue: deque[Turn] = deque()
        self.archive: list[Turn] = []
        self._archived: list[JSON] = []
        """Each evicted turn as dumped once (the snapshot's append-only log)."""
        self.archive_hash = ""
        self.decisions = 0
        self.model: Model | None = None
        self._count: TokenCounter = approx_tokens
        self._index = BM25Index()
        self._prompt = Prompt()
        self._current = ""
        self._pending_reply = ""
        self._pending_ops: list[JSON] = []
        self._evicted = 0

    def reset(self, episode: EpisodeContext) -> None:
        self.instructions = episode.instructions
        self.model = episode.model
        self._count = self.model.count_tokens if self.model is not None else approx_tokens
        self.core, self.archive_hash, self.decisions = "", "", 0
        self.queue.clear()
        self.archive, self._archived = [], []
        self._index = BM25Index()
        self._clear_pending()

    def _clear_pending(self) -> None:
        self._prompt, self._current, self._pending_reply = Prompt(), "", ""
        self._pending_ops, self._evicted = [], 0

    # -- the reply --------------------------------------------------------------------

    def op_schemas(self) -> list[JSON]:
        limit = self.config.op_chars
        schemas = []
        if self.config.core:
            schemas.append(op_schema("append", {"text": string(limit)}))
            schemas.append(op_schema("replace", {"old": string(limit), "new": string(limit)}))
        if self.config.search:
            schemas.append(op_schema("search", {"query": string(min(limit, 120))}))
        return schemas

    def reply_schema(self, obs: Observation) -> JSON:
        ops = self.op_schemas()
        extra: JSON = {}
        if ops:
            item = ops[0] if len(ops) == 1 else {"anyOf": ops}
            extra["memory"] = {"type": "array", "items": item, "maxItems": self.config.max_ops}
        return self.decision_reply_schema(obs, extra)

    def action_schema(self, obs: Observation) -> JSON:
        """The schema of a search's second call: the action, no memory operations."""
        return self.decision_reply_schema(obs)

    def counterfactual_schema(self, obs: Observation, segments: Sequence[Segment]) -> JSON:
        """The schema an archived decision was answered under (attribution re-asks under
        it): a search's second call had no memory operations."""
        if any(segment.layer == "search" for segment in segments):
            return self.action_schema(obs)
        return self.reply_schema(obs)

    # -- one decision -------------------------------------------------------------------

    def system_text(self) -> str:
        rules = MEMORY_RULES if self.op_schemas() else ""
        return "\n\n".join(p for p in (self.instructions.strip(), rules) if p)

    def core_text(self) -> str:
        size, limit = len(self.core), self.config.core_chars
        return f"Core memory ({size}/{limit} characters):\n{self.core or '(empty)'}"

    def assemble(self, obs: Observation) -> Prompt:
        self._evicted = self._evict()
        self._current = render_observation(obs)
        prompt = Prompt()
        prompt.add("instructions", "system", self.system_text())
        if self.config.core:
            prompt.add("core", "user", self.core_text())
        for turn in self.queue:
            prompt.add("queue", "user", turn.seen)
            prompt.add("queue", "assistant", turn.reply)
        prompt.add(
            "observation",
            "user",
            f"{self._current}\n\n{self.reply_instruction(obs)}",
        )
        self._prompt = prompt
        return prompt

    def _evict(self) -> int:
        """Move the oldest turns to the archive once the queue passes its budget, down to
        `flush_to` of it; how many moved."""
        budget = self.config.queue_tokens
        total = sum(turn.tokens for turn in self.queue)
        if total <= budget:
            return 0
        moved = 0
        while self.queue and total > budget * self.config.flush_to:
            turn = self.queue.popleft()
            total -= turn.tokens
            self._archive(turn)
            moved += 1
        return moved

    def _archive(self, turn: Turn) -> None:
        self.archive.append(turn)
        self._archived.append(turn.model_dump())
        self._index.add(f"{turn.seen}\n{turn.reply}")
        blob = (self.archive_hash + turn.model_dump_json()).encode()
        self.archive_hash = hashlib.sha256(blob).hexdigest()

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        decision, reply = self.read_reply(completion, obs)
        self._pending_reply = scrub(completion.text)[0]
        ops, refused = self._valid_ops(reply.get("memory", []))
        if self._evicted:
            decision.extra["evicted"] = self._evicted
        search = next((op for op in ops if op["op"] == "search"), None)
        self._pending_ops = [op for op in ops if op["op"] != "search"]
        if refused:
            decision.extra["memory_refused"] = refused
        if search is not None:
            decision = self._search_then_decide(search["query"], completion, decision, obs)
        return decision

    def _valid_ops(self, raw: Any) -> tuple[list[JSON], list[str]]:
        """The reply's well-formed operations this config offers (at most `max_ops`), and a
        line for each one refused."""
        if not isinstance(raw, list):
            return [], ["memory must be a list of operations"]
        fields = {"append": ("text",), "replace": ("old", "new"), "search": ("query",)}
        offered = {s["properties"]["op"]["const"] for s in self.op_schemas()}
        ops, refused = [], []
        for item in raw[: self.config.max_ops]:
            name = item.get("op") if isinstance(item, dict) else None
            wanted = fields.get(name) if isinstance(name, str) else None
            if wanted is None or name not in offered:
                refused.append(f"unknown operation {str(name)[:40]!r}")
                continue
            assert isinstance(item, dict)
            if not all(isinstance(item.get(key), str) for key in wanted):
                refused.append(f"{name}: {', '.join(wanted)} must be text")
                continue
            ops.append({"op": name, **{key: item[key][: self.config.op_chars] for key in wanted}})
        return ops, refused

    def search_archive(self, query: str) -> list[int]:
        return [doc for doc, _ in self._index.search(query, self.config.search_k)]

    def results_text(self, query: str, hits: list[int]) -> str:
        if not hits:
            return f"Archive search for {query!r}: nothing found."
        limit = self.config.result_chars
        shown = [
            f"[t={self.archive[i].t:g}, {self.archive[i].kind}] "
            f"{self.archive[i].seen[:limit]}\nyou answered: {self.archive[i].reply[:limit]}"
            for i in hits
        ]
        return f"Archive search for {query!r}, best first:\n" + "\n\n".join(shown)

    def _search_then_decide(
        self, query: str, first: Completion, decision: Decision, obs: Observation
    ) -> Decision:
        """Search the archive, show the results after the reply, and ask again (metered);
        the second reply's action is the one executed."""
        hits = self.search_archive(query)
        record: JSON = {"query": query, "hits": [self.archive[i].t for i in hits]}
        if self.model is None:  # replayed outside a run (attribution): the first action stands
            decision.extra["search"] = {**record, "asked_again": False}
            return decision
        schema = self.action_schema(obs)
        asked = Prompt(segments=list(self._prompt.segments))
        asked.add("search", "assistant", scrub(first.text)[0])
        asked.add("archive", "user", self.results_text(query, hits))
        ask = instruction(schema, self.reply_mode, self.reply_rule)
        asked.add("search", "user", "Now choose the action.\n\n" + ask)
        constraint = reply_constraint(self.reply_mode, lambda: schema)
        try:
            second = self.model.complete(
                asked.messages(), constraint=constraint, max_tokens=self.config.search_reply_tokens
            )
        except Exception as exc:  # the search's call failed: the first action stands
            decision.extra["search"] = {**record, "asked_again": False, "error": str(exc)[:200]}
            return decision
        self._prompt.segments[:] = asked.segments  # the decision's prompt: the call that decided
        again, _ = self.read_reply(second, obs)
        again.extra.update(decision.extra)
        again.extra["search"] = {**record, "asked_again": True}
        again.extra["set_aside"] = [a.id for a in decision.actions]
        self._pending_reply = scrub(second.text)[0]
        return again

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        outcomes = [self.apply(op) for op in self._pending_ops]
        if outcomes:
            result.info["memory"] = outcomes
        seen = self._current or render_observation(obs)
        tokens = self._count(seen) + self._count(self._pending_reply)
        self.queue.append(
            Turn(
                t=obs.t,
                kind=obs.kind,
                seen=seen,
                reply=self._pending_reply,
                tokens=tokens + 2 * MESSAGE_OVERHEAD_TOKENS,
            )
        )
        self.decisions += 1
        self._clear_pending()

    def apply(self, op: JSON) -> JSON:
        """Apply one core-memory operation; what happened, for the decision's record."""
        limit = self.config.core_chars
        if op["op"] == "append":
            core = f"{self.core}\n{op['text']}" if self.core else op["text"]
        elif op["old"] and op["old"] in self.core:
            core = self.core.replace(op["old"], op["new"], 1)
        else:
            return {"op": op["op"], "ok": False, "reason": "old text is not in core memory"}
        if len(core) > limit:
            reason = f"core memory would be {len(core)} characters, over {limit}"
            return {"op": op["op"], "ok": False, "reason": reason}
        self.core = core.strip("\n")
        return {"op": op["op"], "ok": True}

    # -- records and resume -----------------------------------------------------------

    def store_hashes(self) -> dict[str, str]:
        return {"core": stable_hash(self.core), "archive": self.archive_hash}

    def memory_snapshot(self) -> JSON:
        """The core memory, the queue and the archive (the index is rebuilt from it; the
        archive is a memory log, stored a turn at a time)."""
        return {
            "core": self.core,
            "queue": [turn.model_dump() for turn in self.queue],
            "archive": self._archived,
            "decisions": self.decisions,
        }

    def memory_logs(self) -> tuple[str, ...]:
        return ("archive",)

    def restore_memory(self, memory: JSON) -> None:
        self.core, self.decisions = memory["core"], memory["decisions"]
        self.queue = deque(Turn.model_validate(turn) for turn in memory["queue"])
        self.archive, self._archived, self.archive_hash = [], [], ""
        self._index = BM25Index()
        for turn in memory["archive"]:
            self._archive(Turn.model_validate(turn))
        self._clear_pending()


__all__ = ["PagedConfig", "PagedContract", "Turn"]
