"""`episodic` (EpicStar): act from an episodic bank of winning games, explore with the model.

Each decision:

1. **Retrieval** (Eq. 1-3, `bounded.contracts.episodic.bank`): the bank's entries within
   `t_delta` of the current game time, ranked by min-max normalised D_item and D_value
   against the current observation; the top `n`. The retrieved action is the best
   ExtractAction (Algorithm 1): the first action of the top-ranked entry, when it is
   executable now (`replay = "first"`, the paper's: "select the first action", so
   EpicStar acts once per step like CoS); `extract = "first-executable"` falls through
   to the best entry whose first action is executable now; `replay = "plan"` replays
   the entry's whole decision (up to the observation's `max_actions`). No entry, or a
   read entry whose first action is the empty action, is the EmptyAction.
2. **Gating** (Algorithms 1 and 2, `bounded.contracts.episodic.gating`): the retrieved
   action is executed when there is one. When t >= l_e + d_e (`explore_every`) the
   model is asked for `explore_actions` exploration actions, pushed on the queue Q_a.
   When the retrieved action is EmptyAction, the queue is not empty and
   t >= l_q + d_q (`queue_cooldown`), the queue is popped; otherwise the environment's
   empty action is executed. l_e and l_q start at 0 (`gating_start = "paper"`), so the
   first exploration is at t = d_e. On an environment without an empty action the
   model is asked for the action instead (the contract then degrades to a model-driven
   agent with retrieval and working memory in its prompt).
3. **Working memory** (Eq. 4): Q_o(t) = (o_{t-L}, o_{t-2L}, ..., o_{t-k_max L}),
   decisions counted in steps; the augmented observation o_t x Q_o(t) is what an
   exploration prompt shows.
4. **Contextual fusion**: prompts state that recalled actions are used only when
   executable now, and the model writes a short description of the strategy behind
   the retrieved episodes, inserted where Prompt 1 puts it (after the role line);
   descriptions are cached per strategy (the set of source strategies of the retrieved
   entries) for the episode. The no-fusion ablation (`fusion = false`) removes contextual
   fusion whole, the description and the executable-now instruction
   (`fusion_ablation = "fusion"`, the paper's); `"description"` removes the description
   alone; `"legacy"` removes both and replays the top hit only.
5. **Prompt** (`prompt = "paper"`): Appendix B's Prompt 1, the CoS prompt
   (`bounded.contracts.cos_prompt`) with the strategy description; the exploration
   reply is its analysis, suggestions and `explore_actions` decisions. An exploration
   call is LLM(S, o'_t): S, the system prompt with the description, and o'_t, the
   observation with the working memory; `exploration_prompt = "recalled"` also shows
   the recalled episodes and the queue. `"short"` is this
   contract's first prompt (a role paragraph and a reply of actions).

Model calls: the runner asks `propose(obs)` first; a decision the gating settles
(retrieval, queue, empty action) needs no model call. Otherwise the runner assembles
the prompt, calls the model under `reply_schema` and hands the completion to `parse`.
The strategy description is a call the contract makes itself with `episode.model`, which
the runner meters: its tokens are counted with the decision it was made for.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bounded.contracts import cos_prompt
from bounded.contracts._configured import ConfiguredContract
from bounded.contracts._features import flatten_state
from bounded.contracts._render import render_observation
from bounded.contracts.episodic.bank import BankError, EpisodicBank, Retrieved
from bounded.contracts.episodic.config import (
    ACT_TASK,
    DESCRIBE_SYSTEM,
    DESCRIPTION_SCHEMA,
    EXECUTABLE_NOW,
    EXPLORE_TASK,
    ROLE,
    EpisodicConfig,
    default_bank_path,
)
from bounded.contracts.episodic.gating import GatingClock
from bounded.contracts.episodic.memory import (
    MemoryEntry,
    action_text,
    differing_keys,
    number,
    observation_text,
    render_changes,
    working_memory,
)
from bounded.contracts.replies import cos
from bounded.contracts.replies.reading import (
    action_schema,
    decode_reply,
    extract_json_object,
    note_scrubbed,
    reasoning_schema,
    resolve_action,
    scrub,
)
from bounded.contracts.replies.rules import text_instruction
from bounded.contracts.step_protocol import PAPER_TEMPERATURE, check_step, step_of, with_step
from bounded.core import (
    INVALID_KEY,
    JSON,
    Action,
    Completion,
    ConfigError,
    Decision,
    Observation,
    Prompt,
    StepResult,
    stable_hash,
)
from bounded.protocols import EpisodeContext, Model, TextRule

log = logging.getLogger(__name__)

NO_BANK = "no episodic bank: {path} does not exist and no bank is configured; every decision \
without exploration is the empty action"


@dataclass
class StepPlan:
    """What the gating decided for one observation, before any model call."""

    step: int
    features: dict[str, float]
    hits: list[Retrieved]
    retrieved: list[Action]
    explore: bool
    direct: Decision | None = None
    """The decision when no model call is needed."""
    fusion_error: str | None = None
    """Why the strategy description could not be written (the model failed)."""


class EpisodicContract(ConfiguredContract[EpisodicConfig]):
    """EpicStar's episodic memory, working memory, gating and contextual fusion."""

    name = "episodic"
    memory_settings = (
        "bank", "t_delta", "n", "alpha", "beta", "d_value", "memory_interval", "memory_depth",
        "memory_view", "exploration", "explore_every", "explore_actions", "queue_cooldown",
        "queue_limit", "gating_start", "extract", "replay", "fusion", "fusion_ablation",
        "exploration_prompt", "diff_keys"
    )  # fmt: skip
    """The configuration keys that are the memory under test (`MemoryHooks.memory_settings`)."""

    def __init__(self, **settings: object) -> None:
        self.config = EpisodicConfig.model_validate(settings)
        self.bank = EpisodicBank.empty()
        self.bank_path: Path | None = None
        self.instructions = ""
        self.model: Model | None = None
        self.seed: int | None = None
        self.queue: deque[Action] = deque(maxlen=self.config.queue_limit)
        self.history: deque[MemoryEntry] = deque(maxlen=self._history_length())
        """The latest decisions, oldest first, one per step (the working memory's source)."""
        self._history_json: deque[list[object]] = deque(maxlen=self._history_length())
        """`history` as the checkpoint stores it, each entry dumped once."""
        self.descriptions: dict[str, str] = {}
        self.step = 0
        self.clock = GatingClock(
            self.config.explore_every, self.config.queue_cooldown, self.config.gating_start
        )
        self.context_window: int | None = None
        self.sources: dict[str, int] = {}
        self._plan: StepPlan | None = None
        self._injected_bank = False
        self._loaded: tuple[Path, float] | None = None
        self.empty_action: str | None = self.config.empty_action
        """The do-nothing action in force (the configured one, else the environment's)."""
        self.no_bank: str = ""
        """Why the contract plays with an empty bank (no bank configured, none at the
        default path), or "" when it has one; logged at reset and kept in the run's record."""
        if self.config.bank:
            self._load_file(Path(self.config.bank))

    def _history_length(self) -> int:
        return max(1, self.config.memory_interval * self.config.memory_depth)

    # -- episode ----------------------------------------------------------

    def reset(self, episode: EpisodeContext) -> None:
        self.instructions = episode.instructions
        self.model = episode.model
        self.seed = episode.seed
        self.empty_action = self.config.empty_action or episode.empty_action
        self._load_bank(episode.env_id)
        self.queue.clear()
        self.history.clear()
        self._history_json.clear()
        self.descriptions = {}
        self.step = 0
        self.clock.reset()
        self.context_window = self.model.context_window if self.model is not None else None
        self.sources = {}
        self._plan = None
        if self.no_bank:
            log.warning("episodic: %s", self.no_bank)

    def use_bank(self, bank: EpisodicBank) -> None:
        """Use an in-memory bank (tests, notebooks) instead of a file."""
        self.bank, self.bank_path = bank, None
        self._injected_bank = True
        self.no_bank = ""

    def _load_bank(self, env_id: str) -> None:
        """Load the configured (or default) bank file; reloaded only when it changed. With
        no bank configured and none at the default path, an empty bank, said in the log."""
        if self._injected_bank:
            return
        path = Path(self.config.bank) if self.config.bank else default_bank_path(env_id)
        if not self.config.bank and not path.is_file():
            self.bank, self.bank_path, self._loaded = EpisodicBank.empty(), None, None
            self.no_bank = NO_BANK.format(path=path)
            return
        self.no_bank = ""
        self._load_file(path)

    def _load_file(self, path: Path) -> None:
        """Read a bank file; a missing or unreadable one is a one-line `ConfigError`."""
        stamp = path.stat().st_mtime if path.is_file() else -1.0
        if self._loaded == (path, stamp):
            return
        try:
            bank = EpisodicBank.load(path)
        except BankError as exc:
            raise ConfigError(str(exc)) from exc
        if not len(bank):
            raise ConfigError(f"bank {path} holds no entries: record winning games into it first")
        self.bank, self.bank_path, self._loaded = bank, path, (path, stamp)

    paper_temperature = PAPER_TEMPERATURE
    """The temperature of a game whose spec sets none (the paper's, Appendix A.1)."""

    def env_options(self, env_id: str, options: JSON) -> JSON:
        """The game's environment options with the bank's step filled in (the paper's step
        for an empty bank or one that records none); a game at another step than its
        bank's is refused with one line naming both."""
        self._load_bank(env_id)
        recorded = step_of(self.bank.meta.get("protocol") or {})
        filled = with_step(env_id, options, recorded or None)
        if recorded:
            name = str(self.bank_path) if self.bank_path else "(in memory)"
            check_step(step_of(filled), recorded, bank_name=name)
        return filled

    # -- gating -----------------------------------------------------------

    def plan(self, obs: Observation) -> StepPlan:
        """The retrieval and gating outcome for this decision (computed once per step)."""
        if self._plan is not None and self._plan.step == self.step:
            return self._plan
        config = self.config
        features = flatten_state(obs.state)
        hits = self.bank.retrieve(
            features,
            obs.t,
            t_delta=config.t_delta,
            n=config.n,
            alpha=config.alpha,
            beta=config.beta,
            d_value=config.d_value,
        )
        explore = config.exploration and self.clock.explore_due(self.step)
        if explore:
            self.clock.explored(self.step)
        plan = StepPlan(
            step=self.step,
            features=features,
            hits=hits,
            retrieved=self.retrieved_actions(hits, obs),
            explore=explore,
        )
        if not explore:
            plan.direct = self.gate(plan, obs)
        self._plan = plan
        return plan

    def retrieved_actions(self, hits: list[Retrieved], obs: Observation) -> list[Action]:
        """ExtractAction: the first action of the top hit when it is executable now
        (`extract = "first-executable"`: of the best hit whose first action is;
        `replay = "plan"`: that hit's executable actions); empty is EmptyAction."""
        legacy_plain = not self.config.fusion and self.config.fusion_ablation == "legacy"
        top_only = self.config.extract == "top" or legacy_plain
        candidates = hits[:1] if top_only else hits
        for hit in candidates:
            if self.config.replay == "first":
                first = self._legal(hit.actions[0], obs) if hit.actions else None
                if first is not None:
                    return [] if first.id == self.empty_action else [first]
                continue
            actions = self.executable(hit.actions, obs)
            if actions:
                return actions
        return []

    def executable(self, actions: list[Action], obs: Observation) -> list[Action]:
        """The recalled actions that are legal now, the empty action left out."""
        legal = (self._legal(action, obs) for action in actions)
        kept = [a for a in legal if a is not None and a.id != self.empty_action]
        return kept[: max(1, obs.max_actions)]

    def gate(self, plan: StepPlan, obs: Observation) -> Decision | None:
        """Algorithm 2: retrieved action, else a due queue pop, else the empty action.

        None means the model must choose (no empty action exists on this environment).
        """
        if plan.retrieved:
            return self._direct(plan, plan.retrieved, "retrieval")
        empty = obs.legal_action(self.empty_action)
        if self.queue and (self.clock.pop_due(self.step) or empty is None):
            popped = self._pop(obs)
            if popped is not None:
                return self._direct(plan, [popped], "queue")
        if empty is not None:
            return self._direct(plan, [empty], "empty")
        return None

    def _pop(self, obs: Observation) -> Action | None:
        """The first queued action that is executable now; older inexecutable ones drop."""
        while self.queue:
            action = self._legal(self.queue.popleft(), obs)
            if action is not None:
                self.clock.popped(self.step)
                return action
        return None

    @staticmethod
    def _legal(action: Action, obs: Observation) -> Action | None:
        try:
            return resolve_action({"id": action.id, "args": action.args}, obs)
        except ValueError:
            return None

    def _direct(self, plan: StepPlan, actions: list[Action], source: str) -> Decision:
        return Decision(actions=actions, extra=self._extra(plan, source))

    def _extra(self, plan: StepPlan, source: str) -> JSON:
        extra: JSON = {
            "source": source,
            "retrieved": [
                {"t": h.t, "game": h.game, "actions": [a.id for a in h.actions], "score": h.score}
                for h in plan.hits
            ],
            "queue": [a.id for a in self.queue],
        }
        if plan.fusion_error:
            extra["fusion_error"] = plan.fusion_error
        return extra

    # -- the contract protocol ---------------------------------------------

    def asks_model(self, empty_action: str | None) -> bool:
        """Without exploration, the gating settles every decision on an environment with an
        empty action (retrieval, else the empty action): the model is never asked."""
        return self.config.exploration or (self.config.empty_action or empty_action) is None

    def propose(self, obs: Observation) -> Decision | None:
        """The decision when the gating settles it without a model call, else None."""
        return self.plan(obs).direct

    def text_chars(self) -> int:
        """The length cap of each text field of a `paper` exploration reply."""
        if self.config.text_max_chars is not None:
            return self.config.text_max_chars
        return cos_prompt.field_chars(self.config.reply_tokens, self.context_window)

    def reply_schema(self, obs: Observation) -> JSON:
        if not self.plan(obs).explore:
            return self.decision_reply_schema(obs)
        if self.config.prompt == "paper":
            return cos_prompt.reply_schema(
                obs.legal, self.config.explore_actions, self.text_chars()
            )
        properties: JSON = {}
        if self.config.reasoning:
            properties["reasoning"] = reasoning_schema(self.reasoning_chars)
        properties["actions"] = {
            "type": "array",
            "items": action_schema(obs.legal),
            "minItems": 1,
            "maxItems": self.config.explore_actions,
        }
        return {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        }

    def assemble(self, obs: Observation) -> Prompt:
        plan = self.plan(obs)
        prompt = Prompt()
        description = self.describe(plan) if self.config.fusion and plan.hits else ""
        if self.config.prompt == "paper":
            before, after = self._paper_system(obs, strategy=bool(description))
            prompt.add("instructions", "system", before)
            if description:
                prompt.add("fusion", "system", cos_prompt.STRATEGY.format(description=description))
            prompt.add("instructions", "system", after)
        else:
            prompt.add("instructions", "system", self._system(obs))
            if description:
                prompt.add("fusion", "system", "Strategy of the recalled games: " + description)
        recalled = not plan.explore or self.config.exploration_prompt == "recalled"
        if recalled:
            prompt.add("episodic", "user", self.render_hits(plan))
        memory = self.render_memory(plan)
        if memory:
            prompt.add("working_memory", "user", memory)
        if recalled and self.queue:
            prompt.add("queue", "user", "Queued exploration actions: " + action_text(self.queue))
        prompt.add("observation", "user", render_observation(obs))
        task = EXPLORE_TASK.format(n=self.config.explore_actions) if plan.explore else ACT_TASK
        prompt.add("task", "user", task)
        return prompt

    def _executable_instruction(self) -> bool:
        """Fusion's executable-now instruction (the `description` ablation keeps it)."""
        return self.config.fusion or self.config.fusion_ablation == "description"

    def _system(self, obs: Observation) -> str:
        parts = [self.instructions, ROLE]
        if self._executable_instruction():
            parts.append(EXECUTABLE_NOW)
        parts.append(self.reply_instruction(obs))
        return "\n\n".join(p for p in parts if p)

    def text_rule_for(self, obs: Observation) -> TextRule:
        """An exploration call's `<ACTION NAME>`s; any other call's JSON block."""
        return "action-tags" if self.plan(obs).explore else self.reply_rule

    def reply_instruction(self, obs: Observation) -> str:
        """How to answer in the mode in force: an exploration call in `text` mode names its
        actions as `<ACTION NAME>` (EpicStar's), any other reply is a JSON object (in
        `text` mode: reasoning, then a JSON block)."""
        if self.reply_mode == "text" and self.plan(obs).explore:
            return text_instruction(self.reply_schema(obs), "action-tags")
        return super().reply_instruction(obs)

    def _paper_system(self, obs: Observation, *, strategy: bool) -> tuple[str, str]:
        """Prompt 1 around the strategy slot; an exploration-free decision (an environment
        without an empty action) keeps the plain reply format."""
        plan = self.plan(obs)
        if plan.explore:
            before, after = cos_prompt.system_prompt(
                self.instructions, self.config.explore_actions, strategy=strategy,
                text=self.reply_mode == "text",
            )  # fmt: skip
        else:
            before, after = self.instructions, self.reply_instruction(obs)
        if self._executable_instruction():
            after = f"{after}\n\n{EXECUTABLE_NOW}"
        return before, after

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        plan = self.plan(obs)
        if plan.direct is not None:
            return plan.direct
        if not plan.explore:
            decision, _ = self.read_reply(completion, obs)
            decision.extra.update(self._extra(plan, "model"))
            return decision
        text, replaced = scrub(completion.text)
        if self.reply_mode == "text":
            reading = cos.read_decisions(text, obs, keep=self.config.explore_actions)
            proposed = reading.actions
            reasoning, error, decoded = text.strip(), reading.problem, 0
        else:
            proposed, reasoning, error, decoded = self._exploration_reply(text, obs)
        self.queue.extend(proposed)
        gated = self.gate(plan, obs)
        decision = gated or Decision(
            parse_error=error or "no executable action", extra=self._extra(plan, "model")
        )
        decision.reasoning = reasoning  # whole: the completion's, however long
        decision.parse_error = decision.parse_error or error
        decision.extra["explored"] = [a.id for a in proposed]
        if self.reply_mode == "text":  # CoS's reading: near misses, dropped, invalid
            cos.note_reading(decision.extra, reading)
            if reading.invalid:
                decision.extra[INVALID_KEY] = reading.invalid
        note_scrubbed(decision, replaced + decoded)
        return decision

    def _exploration_reply(
        self, text: str, obs: Observation
    ) -> tuple[list[Action], str, str | None, int]:
        """A JSON exploration reply's proposed actions, the reasoning, a problem, and the
        lone surrogates the decoded strings held (replaced)."""
        try:
            reply, replaced = decode_reply(text)
        except ValueError as exc:
            return [], "", str(exc), 0
        reasoning = reply.get("reasoning") if isinstance(reply.get("reasoning"), str) else ""
        if "decisions" in reply:  # the paper prompt's reply
            raw = reply["decisions"]
            reasoning = cos_prompt.flatten_text(reply.get("analysis", ""))
        else:
            raw = reply.get("actions", [reply["action"]] if "action" in reply else [])
        if not isinstance(raw, list):
            return [], str(reasoning), "actions must be a list", replaced
        proposed: list[Action] = []
        errors: list[str] = []
        for item in raw[: self.config.explore_actions]:
            try:
                proposed.append(cos_prompt.resolve_decision(item, obs))
            except ValueError as exc:
                errors.append(str(exc))
        return proposed, str(reasoning), "; ".join(errors) or None, replaced

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        plan = self.plan(obs)
        source = str(decision.extra.get("source", "model"))
        self.sources[source] = self.sources.get(source, 0) + 1
        entry = MemoryEntry(step=self.step, t=obs.t, features=plan.features, text=obs.text)
        self.history.append(entry)
        self._history_json.append([entry.step, entry.t, entry.features, entry.text])
        self.step += 1
        self._plan = None

    @property
    def postrun_record(self) -> JSON:
        """A run without a bank says so in its record."""
        return {"note": self.no_bank} if self.no_bank else {}

    def store_hashes(self) -> dict[str, str]:
        return {
            "episodic_bank": self.bank.content_hash,
            "fusion_descriptions": stable_hash(self.descriptions),
        }

    def memory_snapshot(self) -> JSON:
        """The working memory, the action queue and the descriptions (`bounded resume`);
        the bank is not in it: it changes only after the run (a resume checks its hash).
        The working memory's history is a window on a log of every decision, the entry of
        step s at position s (`memory_logs`): a checkpoint stores one new entry per
        decision, not the whole history."""
        start = self.history[0].step if self.history else self.step
        return {
            "queue": [action.model_dump(by_alias=True) for action in self.queue],
            "history": {"start": start, "items": list(self._history_json)},
            "descriptions": self.descriptions,
            "step": self.step,
            "last_explore": self.clock.last_explore,
            "last_pop": self.clock.last_pop,
            "sources": self.sources,
        }

    def memory_logs(self) -> tuple[str, ...]:
        return ("history",)

    def restore_memory(self, memory: JSON) -> None:
        """Put a snapshot back; one written before the history was a window (a plain list
        of entries) is read too."""
        self.queue.clear()
        self.queue.extend(Action.model_validate(action) for action in memory["queue"])
        history = memory["history"]
        entries = history["items"] if isinstance(history, dict) else history
        self.history.clear()
        self.history.extend(MemoryEntry(*entry) for entry in entries)
        self._history_json.clear()
        self._history_json.extend(entries)
        self.descriptions = dict(memory["descriptions"])
        self.step = memory["step"]
        self.clock.last_explore = memory["last_explore"]
        self.clock.last_pop = memory["last_pop"]
        self.sources = dict(memory["sources"])
        self._plan = None

    # -- contextual fusion ------------------------------------------------

    def strategy_key(self, hits: Sequence[Retrieved]) -> str:
        return " | ".join(sorted({hit.strategy for hit in hits}))

    def describe(self, plan: StepPlan) -> str:
        """The cached description of the retrieved episodes' strategy (one call per key)."""
        key = self.strategy_key(plan.hits)
        if key in self.descriptions:
            return self.descriptions[key]
        if self.model is None:
            return ""
        messages = [
            {"role": "system", "content": DESCRIBE_SYSTEM},
            {"role": "user", "content": self.render_hits(plan)},
        ]
        try:
            completion = self.model.complete(
                messages,
                constraint=DESCRIPTION_SCHEMA,
                max_tokens=self.config.description_max_tokens,
                temperature=self.config.description_temperature,
                seed=self.seed,
            )
        except Exception as exc:  # the decision goes on without a description
            plan.fusion_error = f"{type(exc).__name__}: {exc}"
            return ""
        self.descriptions[key] = self._description_text(completion.text)
        return self.descriptions[key]

    @staticmethod
    def _description_text(text: str) -> str:
        try:
            value = extract_json_object(text).get("strategy")
        except ValueError:
            value = None
        return scrub(value if isinstance(value, str) else text)[0].strip()[:400]

    # -- rendering --------------------------------------------------------

    def render_hits(self, plan: StepPlan) -> str:
        if not plan.hits:
            return "Recalled episodes: none at this game time (EmptyAction)."
        lines = ["Recalled episodes from winning games (closest first):"]
        for rank, hit in enumerate(plan.hits, start=1):
            then = self.bank.entry(hit.index).features
            changes = differing_keys(plan.features, then, self.config.diff_keys)
            lines.append(
                f"{rank}. t={number(hit.t)} ({hit.strategy}): did {action_text(hit.actions)};"
                f" D_item={hit.d_item}, D_value={number(hit.d_value)};"
                f" then->now: {render_changes(changes)}"
            )
        return "\n".join(lines)

    def render_memory(self, plan: StepPlan) -> str:
        config = self.config
        entries = working_memory(
            self.history, plan.step, config.memory_interval, config.memory_depth
        )
        if not entries:
            return ""
        lines = [f"Working memory (every {config.memory_interval} decisions back):"]
        for entry in entries:
            when = f"- {plan.step - entry.step} decisions ago (t={number(entry.t)}):"
            if config.memory_view == "observation":
                lines.append(f"{when}\n{observation_text(entry)}")
                continue
            changes = differing_keys(plan.features, entry.features, config.diff_keys)
            lines.append(f"{when} then->now: {render_changes(changes)}")
        return "\n".join(lines)


__all__ = [
    "EpisodicConfig",
    "EpisodicContract",
    "MemoryEntry",
    "StepPlan",
    "default_bank_path",
    "differing_keys",
    "working_memory",
]
