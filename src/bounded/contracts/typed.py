"""`typed` (AgenticSTS): every decision is one fresh prompt assembled from typed layers.

The prompt holds, in this fixed order, each as its own recorded segment:

- **L1** fixed instructions (system): the task, the protocol, the reply format;
- **combat** (only inside a fight): the fight's first observation and a fixed
  acknowledgement, the one stateful container; earlier rounds are never resent;
- **L2** the decision: its kind, the state schema, the current state, the legal actions
  and the reply keys;
- **L3** the rules of what is in play, from a versioned rules store;
- **L4** case notes from earlier runs, retrieved by category and key;
- **L5** strategic skills whose Boolean trigger holds now, highest priority first.

There is no cross-decision transcript. Every layer has a budget (k items x s tokens,
see `bounded.stores.budget`), enforced, and what a budget cut is recorded on the
decision (`Decision.extra["truncation"]`), so a prompt never exceeds
`|L1| + |L2| + |combat| + sum_i (header_i + k_i s_i)`, given on each decision as
`extra["prompt_bound"]`. After a run, writable layers learn: the model writes L4
notes and fills or revises L5 skills, through a write gate that refuses duplicates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bounded.contracts._render import render_legal, reply_format
from bounded.contracts._reply import decision_schema, extract_json_object, parse_decision
from bounded.core import (
    JSON,
    Completion,
    ConfigError,
    Decision,
    DecisionRecord,
    Model,
    Observation,
    Prompt,
    StepResult,
    approx_tokens,
    first_validation_error,
)
from bounded.stores.budget import LayerBudget, Truncation, fit_block, fit_items
from bounded.stores.directory import SkillSeed, StoreSet
from bounded.stores.gate import GateVerdict, WriteGate
from bounded.stores.rules import RulesScope
from bounded.stores.situation import Situation, norm, situation_of
from bounded.stores.skills import Skill, Trigger
from bounded.stores.summaries import Summary, keys_for

LayerMode = Literal["off", "on", "frozen", "writable"]
"""`off`: not in the prompt; `on`/`frozen`: read, never written; `writable`: read, and
written by postrun learning."""

ACKNOWLEDGEMENT = "Acknowledged. I will decide each round from the latest round state."


class StoreLayer(BaseModel):
    """One store-backed layer (L3, L4 or L5): whether it is used, and its budget."""

    model_config = ConfigDict(extra="forbid")

    mode: LayerMode = "off"
    """`off`, `on` (read only), `frozen` (read only), or `writable` (postrun writes)."""
    budget: LayerBudget = Field(default_factory=LayerBudget)
    """k entries of at most s tokens in one prompt."""

    @property
    def reads(self) -> bool:
        return self.mode != "off"

    @property
    def writes(self) -> bool:
        return self.mode == "writable"


class RulesLayer(StoreLayer):
    """L3: the rules store, retrieved for what is in play (`filtered`) or whole (`full`)."""

    mode: LayerMode = "on"
    """L3 is patched by hand (`RulesPatch`), never learned: `writable` is refused."""
    budget: LayerBudget = Field(default_factory=lambda: LayerBudget(items=12, tokens=80))
    scope: RulesScope = "filtered"
    """`filtered`: only rules of what is in play now, plus core mechanics; `full`: all rules."""


class StateLayer(BaseModel):
    """L2: how much of the decision's state and legal actions a prompt shows."""

    model_config = ConfigDict(extra="forbid")

    state_tokens: int = Field(default=900, ge=50, le=20_000)
    """Cap on the rendered state (schema line plus the observation text)."""
    actions: LayerBudget = Field(default_factory=lambda: LayerBudget(items=60, tokens=32))
    """k legal-action lines of at most s tokens (the reply schema still holds all of them)."""
    schema_hints: bool = True
    """Show the state's schema (its keys and their types) above the state."""


class CombatContainer(BaseModel):
    """The one stateful container: within a fight, start + acknowledgement + latest round."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    """Off: fights are decided like any other decision, from the latest state alone."""
    kinds: list[str] = Field(default_factory=lambda: ["combat"])
    """Observation kinds that belong to a fight."""
    start_tokens: int = Field(default=700, ge=20, le=20_000)
    """Cap on the fight's start message."""


class PostrunSettings(BaseModel):
    """What postrun learning may do after a run (only for writable layers)."""

    model_config = ConfigDict(extra="forbid")

    max_calls: int = Field(default=8, ge=0, le=200)
    """Model calls one postrun may make, over L4 and L5 together."""
    note_chars: int = Field(default=400, ge=40, le=4000)
    """Longest L4 note (characters), enforced by the reply schema."""
    skill_chars: int = Field(default=320, ge=40, le=4000)
    """Longest L5 skill text (characters)."""
    new_skills: int = Field(default=2, ge=0, le=10)
    """Most new skills one postrun may propose (self-evolve; templates are filled instead)."""
    facts_tokens: int = Field(default=400, ge=50, le=8000)
    """Cap on the trajectory facts shown in one postrun call."""
    max_tokens: int = Field(default=256, ge=16, le=4096)
    """Completion limit of one postrun call."""
    gate_threshold: float = Field(default=0.9, gt=0, le=1)
    """Similarity at or above which a new text is a duplicate of a stored one."""


class TypedConfig(BaseModel):
    """Settings of the typed contract (presets set several of these at once)."""

    model_config = ConfigDict(extra="forbid")

    prompt: Literal["strict", "full"] = "full"
    """`strict`: task, protocol and reply format only; `full`: plus the layer guide."""
    reasoning: bool = True
    """Ask for a short reasoning field before the action(s)."""
    l2: StateLayer = Field(default_factory=StateLayer)
    l3: RulesLayer = Field(default_factory=RulesLayer)
    l4: StoreLayer = Field(default_factory=lambda: StoreLayer(budget=LayerBudget(items=3)))
    l5: StoreLayer = Field(
        default_factory=lambda: StoreLayer(mode="on", budget=LayerBudget(items=4))
    )
    combat: CombatContainer = Field(default_factory=CombatContainer)
    skill_seed: SkillSeed = "hand"
    """L5 seed when the store has no skills yet: `hand` (written for the game, mode-a),
    `templates` (triggers and scaffold questions, filled postrun: mode-b), or `none`.
    Games without seed data start empty; ignored while L5 is off."""
    game: str | None = None
    """Which game's seed data and stores; None: from the environment id."""
    store_dir: str | None = None
    """Directory of the L3/L4/L5 files; None keeps the stores in memory."""
    postrun: PostrunSettings = Field(default_factory=PostrunSettings)

    @model_validator(mode="after")
    def _coherent(self) -> TypedConfig:
        if self.l3.mode == "writable":
            raise ValueError("l3.mode: the rules store is patched, not learned (use on or off)")
        if self.l4.mode == "frozen" and self.store_dir is None:
            raise ValueError(
                "store_dir: l4.mode 'frozen' reads notes from earlier runs: give store_dir"
            )
        if self.l5.mode == "frozen" and self.store_dir is None and self.skill_seed == "none":
            raise ValueError("store_dir: l5.mode 'frozen' with no seed needs store_dir")
        return self


def config_error(exc: ValidationError) -> ConfigError:
    """A one-line error naming the offending field."""
    return ConfigError(f"typed config: {first_validation_error(exc)}")


def game_of(env_id: str) -> str:
    """`bounded/Spire-v0` -> `spire`; any other id -> its lower-case name part."""
    name = env_id.rsplit("/", 1)[-1]
    return re.sub(r"-v\d+$", "", name).lower()


# -- L1 -------------------------------------------------------------------------------

PROTOCOL = """\
Protocol: every decision comes as one fresh message; you do not see earlier decisions.
Reply with one JSON object, your decision: a short "reasoning" first, then the action
(or, where several are allowed, an ordered list of actions, executed in that order).
Name actions by their exact id from the legal list."""

LAYER_GUIDE = """\
How to read each message:
- "Decision" (L2) is the current state, its schema, and the legal actions now.
- "Rules" (L3) explains the cards, enemies, relics and mechanics in play.
- "Notes from earlier runs" (L4) are case notes filed under this situation.
- "Skills" (L5) are strategies whose conditions hold now, most important first.
In a fight you see the fight's first state, then only the latest round state: plan
from what is shown now (where a plan of several actions is allowed, give the whole turn)."""


def instructions_text(task: str, mode: Literal["strict", "full"]) -> str:
    parts = [task.strip(), PROTOCOL]
    if mode == "full":
        parts.append(LAYER_GUIDE)
    return "\n\n".join(p for p in parts if p)


# -- L2 -------------------------------------------------------------------------------


def schema_line(state: JSON) -> str:
    """The state's shape in one line: top-level keys with types, one level into objects."""

    def kind(value: Any) -> str:
        if isinstance(value, bool):
            return "bool"
        if isinstance(value, int | float):
            return "number"
        if isinstance(value, str):
            return "text"
        if isinstance(value, list):
            return "list"
        if isinstance(value, dict):
            return "object"
        return "null"

    parts = []
    for key, value in state.items():
        if isinstance(value, dict) and value:
            inner = ", ".join(f"{k}: {kind(v)}" for k, v in value.items())
            parts.append(f"{key}: {{{inner}}}")
        else:
            parts.append(f"{key}: {kind(value)}")
    return "State schema: " + "; ".join(parts)


# -- the run digest postrun learning reads ------------------------------------------


class Episode(BaseModel):
    """The facts of one case (a fight, or the choices under one category and key)."""

    category: str
    key: str
    facts: list[str] = Field(default_factory=list)
    kinds: set[str] = Field(default_factory=set)
    enemies: set[str] = Field(default_factory=set)
    hp_start: int | None = None
    hp_end: int | None = None
    decisions: int = 0


class Digest(BaseModel):
    """What a run did, gathered decision by decision, for postrun learning (not for prompts)."""

    episodes: dict[str, Episode] = Field(default_factory=dict)
    matched_skills: list[str] = Field(default_factory=list)
    last: Situation | None = None
    terminated: bool = False
    outcome: str = ""

    def episode(self, category: str, key: str) -> Episode:
        name = f"{category}: {key}"
        return self.episodes.setdefault(name, Episode(category=category, key=key))


def choice_fact(situation: Situation, obs: Observation, decision: Decision) -> str:
    chosen = ", ".join(a.label or a.id for a in decision.actions) or "(no valid action)"
    where = f"floor {situation.floor}: " if situation.floor is not None else f"t={obs.t:g}: "
    options = f" (offered: {', '.join(situation.offered[:8])})" if situation.offered else ""
    return f"{where}{obs.kind}: chose {chosen}{options}"


def outcome_of(result: StepResult, last: Situation | None) -> str:
    info = result.info
    for key in ("outcome", "result"):
        if isinstance(info.get(key), str):
            return str(info[key])
    if isinstance(info.get("victory"), bool):
        return "victory" if info["victory"] else "defeat"
    if last is not None and last.hp is not None and last.hp <= 0:
        return "defeat"
    return "ended"


# -- the contract -------------------------------------------------------------------


class Assembly(BaseModel):
    """What the latest prompt was built from (recorded on the decision)."""

    truncation: list[Truncation] = Field(default_factory=list)
    retrieved: dict[str, list[str]] = Field(default_factory=dict)
    prompt_bound: int = 0
    combat: str | None = None


class TypedContract:
    """Fresh typed prompt per decision; stores read per layer mode, learned after the run."""

    name = "typed"

    def __init__(self, **settings: object) -> None:
        try:
            self.config = TypedConfig.model_validate(settings)
        except ValidationError as exc:
            raise config_error(exc) from None
        self.gate = WriteGate(threshold=self.config.postrun.gate_threshold)
        self.task = ""
        self.game = self.config.game or ""
        self.model: Model | None = None
        self.stores = StoreSet(self.game, None, skill_seed=self.config.skill_seed)
        self.fight: tuple[float, int | None, str, Truncation | None] | None = None
        """(start t, floor, start message, its truncation) of the fight in progress."""
        self.digest = Digest()
        self.last = Assembly()
        self.read_hashes: dict[str, str] = {}
        self.written_hashes: dict[str, str] = {}
        self.verdicts: list[GateVerdict] = []
        self.postrun_calls: list[Completion] = []
        self.postrun_note = ""

    # -- lifecycle ----------------------------------------------------------------

    def reset(self, episode: JSON) -> None:
        self.task = str(episode.get("instructions", ""))
        self.game = self.config.game or game_of(str(episode.get("env_id", "")))
        model = episode.get("model")
        self.model = model if model is not None and hasattr(model, "complete") else None
        path = Path(self.config.store_dir) if self.config.store_dir else None
        frozen = any(self._layer(layer).mode == "frozen" for layer in ("L4", "L5"))
        if path is not None and frozen and not path.is_dir():
            raise ConfigError(
                f"typed config: store_dir: {str(path)!r} does not exist "
                "(frozen layers read the stores of earlier runs)"
            )
        # In memory, what earlier episodes of this object learned is kept; on disk, the
        # directory is reread so that another process's writes are seen.
        if path is not None or self.stores.game != self.game:
            self.stores = StoreSet(self.game, path, skill_seed=self.config.skill_seed)
        self.fight = None
        self.digest = Digest()
        self.last = Assembly()
        self.read_hashes = {
            layer: digest
            for layer, digest in self.stores.layer_hashes().items()
            if self._layer(layer).reads
        }
        self.written_hashes = {}
        self.verdicts = []
        self.postrun_calls = []
        self.postrun_note = ""

    def _layer(self, layer: str) -> StoreLayer:
        return {"L3": self.config.l3, "L4": self.config.l4, "L5": self.config.l5}[layer]

    def config_dict(self) -> JSON:
        return self.config.model_dump()

    def store_hashes(self) -> dict[str, str]:
        """Hashes of every layer read at reset (`L3.read`, ...) and written by postrun."""
        hashes = {f"{layer}.read": h for layer, h in self.read_hashes.items()}
        hashes.update({f"{layer}.written": h for layer, h in self.written_hashes.items()})
        if self.config.store_dir:
            hashes["dir"] = self.stores.hash()
        return hashes

    # -- one decision -------------------------------------------------------------

    def reply_schema(self, obs: Observation) -> JSON:
        return decision_schema(obs, reasoning=self.config.reasoning)

    def assemble(self, obs: Observation) -> Prompt:
        situation = situation_of(obs)
        self.last = Assembly()
        prompt = Prompt()
        l1 = instructions_text(self.task, self.config.prompt)
        prompt.add("L1", "system", l1)
        bound = approx_tokens(l1)
        bound += self._add_combat(prompt, obs, situation)
        bound += self._add_state(prompt, obs)
        bound += self._add_rules(prompt, situation)
        bound += self._add_notes(prompt, situation)
        bound += self._add_skills(prompt, situation)
        self.last.prompt_bound = bound
        return prompt

    def _in_fight(self, obs: Observation) -> bool:
        return self.config.combat.enabled and obs.kind in self.config.combat.kinds

    def _add_combat(self, prompt: Prompt, obs: Observation, situation: Situation) -> int:
        if not self._in_fight(obs):
            return 0
        if self.fight is None or (situation.floor is not None and self.fight[1] != situation.floor):
            header = "Combat start" + (f" (floor {situation.floor})" if situation.floor else "")
            cap = self.config.combat.start_tokens
            text, cut = fit_block("combat", f"{header}:\n{obs.text}", cap)
            self.fight = (obs.t, situation.floor, text, cut)
        start_t, _, start_text, start_cut = self.fight
        self._note(start_cut)
        self.last.combat = "start" if start_t == obs.t else "round"
        prompt.add("combat", "user", start_text)
        prompt.add("combat", "assistant", ACKNOWLEDGEMENT)
        return self.config.combat.start_tokens + approx_tokens(ACKNOWLEDGEMENT)

    def _add_state(self, prompt: Prompt, obs: Observation) -> int:
        config = self.config.l2
        title = "Latest round state" if self._in_fight(obs) else "Decision"
        header = f"{title} ({obs.kind}):"
        body = obs.text
        if config.schema_hints and obs.state:
            body = f"{schema_line(obs.state)}\n{body}"
        state_text, cut = fit_block("L2", body, config.state_tokens)
        self._note(cut)
        rendered = render_legal(obs, limit=len(obs.legal)).splitlines()[1:]
        legal_lines = [line for line in rendered if line.startswith("- ")]
        lines, cut = fit_items("L2.actions", legal_lines, config.actions, prefix="")
        self._note(cut)
        footer = reply_format(self.reply_schema(obs))
        if obs.max_actions > 1:
            footer = f"You may give up to {obs.max_actions} actions, executed in order. {footer}"
        prompt.add("L2", "user", "\n".join([header, state_text, "Legal actions:", *lines, footer]))
        fixed = approx_tokens(f"{header} Legal actions: {footer}")
        return fixed + config.state_tokens + config.actions.capacity

    def _add_layer(
        self, prompt: Prompt, layer: str, header: str, entries: list[tuple[str, str]]
    ) -> int:
        """Add one store layer: header plus budgeted entries (id, text); returns its bound."""
        budget = self._layer(layer).budget
        lines, cut = fit_items(layer, [text for _, text in entries], budget)
        self._note(cut)
        self.last.retrieved[layer] = [entry_id for entry_id, _ in entries[: len(lines)]]
        body = lines or ["- (none)"]
        prompt.add(layer, "user", "\n".join([header, *body]))
        return approx_tokens(header) + max(budget.capacity, approx_tokens(body[0]))

    def _add_rules(self, prompt: Prompt, situation: Situation) -> int:
        if not self.config.l3.reads:
            return 0
        book = self.stores.rules
        rules = book.retrieve(situation, self.config.l3.scope)
        header = f"Rules (L3, {self.config.l3.scope}, version {book.version}):"
        return self._add_layer(prompt, "L3", header, [(r.id, r.render()) for r in rules])

    def _add_notes(self, prompt: Prompt, situation: Situation) -> int:
        if not self.config.l4.reads:
            return 0
        notes = self.stores.summaries.retrieve(situation)
        header = "Notes from earlier runs (L4):"
        return self._add_layer(prompt, "L4", header, [(n.id, n.render()) for n in notes])

    def _add_skills(self, prompt: Prompt, situation: Situation) -> int:
        if not self.config.l5.reads:
            return 0
        skills = self.stores.skills.fired(situation)
        header = "Skills (L5), most important first:"
        return self._add_layer(prompt, "L5", header, [(s.id, s.render()) for s in skills])

    def _note(self, cut: Truncation | None) -> None:
        if cut is not None:
            self.last.truncation.append(cut)

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        decision, _ = parse_decision(completion.text, obs)
        decision.extra.update(self.assembly_record())
        return decision

    def assembly_record(self) -> JSON:
        """What the latest prompt was built from, for `Decision.extra` (the runner stores it)."""
        return {
            "truncation": [t.model_dump() for t in self.last.truncation],
            "retrieved": self.last.retrieved,
            "prompt_bound": self.last.prompt_bound,
            "combat": self.last.combat,
        }

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        situation = situation_of(obs)
        self._digest(obs, situation, decision)
        if not self._in_fight(obs):
            self.fight = None
        if result.terminated or result.truncated:
            self.digest.terminated = True
            self.digest.outcome = outcome_of(result, situation)

    def _digest(self, obs: Observation, situation: Situation, decision: Decision) -> None:
        digest = self.digest
        digest.last = situation
        for skill in self.stores.skills.matching(situation):
            if skill.id not in digest.matched_skills:
                digest.matched_skills.append(skill.id)
        category, key = keys_for(situation)[0]
        episode = digest.episode(category, key)
        episode.kinds.add(obs.kind)
        episode.enemies.update(norm(e) for e in situation.enemies)
        episode.decisions += 1
        if episode.hp_start is None:
            episode.hp_start = situation.hp
        episode.hp_end = situation.hp
        episode.facts.append(choice_fact(situation, obs, decision))

    # -- postrun learning ---------------------------------------------------------

    def postrun(self, trajectory: list[DecisionRecord]) -> None:
        """Write L4 notes and fill or add L5 skills (writable layers only), through the gate."""
        writable = [layer for layer in ("L4", "L5") if self._layer(layer).writes]
        if not writable:
            return
        if self.model is None:
            self.postrun_note = "skipped: no model was given at reset"
            return
        run_id = trajectory[0].run_id if trajectory else ""
        learner = Learner(self, self.model, run_id)
        if "L4" in writable:
            learner.write_notes()
        if "L5" in writable:
            learner.fill_templates()
            if self.config.skill_seed != "templates":
                learner.propose_skills()
        self.verdicts = learner.verdicts
        self.postrun_calls = learner.calls
        if learner.errors:
            self.postrun_note = f"{len(learner.errors)} failed model calls: {learner.errors[0]}"
        self.stores.save()
        self.stores.journal(self.verdicts)
        hashes = self.stores.layer_hashes()
        self.written_hashes = {layer: hashes[layer] for layer in writable}

    @property
    def postrun_record(self) -> JSON:
        """What the last postrun did, for the run's archive row; {} when it did nothing."""
        if not (self.postrun_calls or self.verdicts or self.postrun_note):
            return {}
        return {
            "calls": [call.model_dump() for call in self.postrun_calls],
            "verdicts": [verdict.model_dump() for verdict in self.verdicts],
            "note": self.postrun_note,
        }


# -- postrun ------------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "skill"


class Learner:
    """One postrun: model calls bounded by `postrun.max_calls`, every write gate-checked."""

    def __init__(self, contract: TypedContract, model: Model, run_id: str) -> None:
        self.contract = contract
        self.settings = contract.config.postrun
        self.stores = contract.stores
        self.digest = contract.digest
        self.model = model
        self.run_id = run_id
        self.verdicts: list[GateVerdict] = []
        self.calls: list[Completion] = []
        self.errors: list[str] = []
        self.failure = ""
        """Why the latest call gave no JSON object (see `ask`)."""

    @property
    def budget_left(self) -> bool:
        return len(self.calls) < self.settings.max_calls

    def ask(self, system: str, user: str, schema: JSON) -> JSON | None:
        """One constrained model call; None when the reply is not a JSON object."""
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        try:
            completion = self.model.complete(
                messages, constraint=schema, max_tokens=self.settings.max_tokens, temperature=0.0
            )
        except Exception as exc:  # learning is best effort: a failed call must not fail the run
            self.errors.append(f"{type(exc).__name__}: {exc}")
            self.calls.append(Completion(text="", model=getattr(self.model, "id", "")))
            self.failure = f"the model call failed ({type(exc).__name__})"
            return None
        self.calls.append(completion)
        try:
            return extract_json_object(completion.text)
        except ValueError:
            self.failure = (
                f"the reply is not a JSON object (finish: {completion.finish_reason or '?'}, "
                f"{completion.completion_tokens} tokens)"
            )
            return None

    def refuse_unusable(self, layer: str, entry_id: str) -> None:
        """Record that a call meant to write `entry_id` gave nothing to judge, and why."""
        self._refuse(layer, entry_id, f"unusable reply: {self.failure}")

    def _refuse(self, layer: str, entry_id: str, reason: str) -> None:
        """A refusal decided before the gate (nothing it could judge), kept with the rest."""
        self.verdicts.append(
            GateVerdict(
                layer=layer, entry_id=entry_id, accepted=False, reason=reason, run_id=self.run_id
            )
        )

    def outcome_line(self) -> str:
        last = self.digest.last
        where = ""
        if last is not None and last.floor is not None:
            where = f" on floor {last.floor}" + (f", act {last.act}" if last.act else "")
        return f"Run outcome: {self.digest.outcome or 'unfinished'}{where}."

    def facts(self, episode: Episode) -> str:
        lines = list(episode.facts[-20:])
        if episode.enemies:
            lines.insert(0, f"enemies: {', '.join(sorted(episode.enemies))}")
        if episode.hp_start is not None:
            lines.insert(
                0, f"HP {episode.hp_start} -> {episode.hp_end} over {episode.decisions} decisions"
            )
        text, _ = fit_block("postrun", "\n".join(lines), self.settings.facts_tokens)
        return text

    def episodes_in_order(self) -> list[Episode]:
        """Cases worth a note first: the last one (it ended the run), bosses, then the rest."""
        episodes = list(self.digest.episodes.values())
        if not episodes:
            return []
        last, rest = episodes[-1], episodes[:-1]
        rest.sort(key=lambda e: (e.category != "boss", -e.decisions))
        return [last, *rest]

    def write_notes(self) -> None:
        book = self.stores.summaries
        schema = _object({"note": _prose(self.settings.note_chars)})
        for episode in self.episodes_in_order():
            if not self.budget_left:
                return
            system = (
                "You write case notes for an agent that will play this game again. The note is "
                f"filed under '{episode.category}: {episode.key}' and shown only when that "
                "situation comes back. In one to three sentences give concrete, reusable advice: "
                "what worked or failed here, and what to do next time."
            )
            reply = self.ask(
                system, f"{self.outcome_line()}\nFacts:\n{self.facts(episode)}", schema
            )
            seq = book.next_seq()
            entry_id = f"{_slug(episode.category)}-{_slug(episode.key)}-{seq}"
            if reply is None:
                self.refuse_unusable("L4", entry_id)
                continue
            text = str(reply.get("note", ""))
            same_key = [(s.id, s.text) for s in book.summaries if s.key == episode.key]
            if self._admit("L4", entry_id, text, same_key):
                book.add(
                    Summary(
                        id=entry_id,
                        category=episode.category,
                        key=episode.key,
                        text=text,
                        outcome=self.digest.outcome,
                        source_runs=[self.run_id] if self.run_id else [],
                        seq=seq,
                    )
                )

    def _admit(
        self, layer: str, entry_id: str, text: str, existing: Iterable[tuple[str, str]], **kw: Any
    ) -> bool:
        verdict = self.contract.gate.check(
            layer, entry_id, text, existing, run_id=self.run_id, **kw
        )
        self.verdicts.append(verdict)
        return verdict.accepted

    def _relevant_facts(self, trigger: Trigger) -> str:
        """Facts of the episodes whose kinds or enemies the trigger names (all if none named)."""
        wanted_kinds = {norm(k) for k in trigger.kinds}
        wanted_enemies = {norm(e) for e in trigger.enemies}
        chosen = [
            e
            for e in self.digest.episodes.values()
            if (not wanted_kinds or {norm(k) for k in e.kinds} & wanted_kinds)
            and (not wanted_enemies or e.enemies & wanted_enemies)
        ]
        blocks = [f"[{e.category}: {e.key}]\n{self.facts(e)}" for e in chosen[-3:]]
        text, _ = fit_block("postrun", "\n".join(blocks), self.settings.facts_tokens)
        return text

    def fill_templates(self) -> None:
        """Fill (or revise) the scaffolded skills whose trigger held during this run."""
        library = self.stores.skills
        schema = _object({"text": _prose(self.settings.skill_chars)})
        for skill_id in self.digest.matched_skills:
            skill = library.get(skill_id)
            if skill is None or not skill.scaffold or not self.budget_left:
                continue
            system = (
                "You maintain a library of strategic skills for an agent playing this game. "
                f"Skill '{skill.title}' answers: {skill.scaffold} Write the skill as concrete "
                "advice in at most three sentences."
            )
            current = f"Current text: {skill.text}\n" if skill.text else ""
            user = f"{self.outcome_line()}\n{current}Facts:\n{self._relevant_facts(skill.trigger)}"
            reply = self.ask(system, user, schema)
            if reply is None:
                self.refuse_unusable("L5", skill.id)
                continue
            text = str(reply.get("text", ""))
            others = [(s.id, s.text) for s in library.skills if s.text]
            if self._admit("L5", skill.id, text, others, revises=skill.id):
                library.put(
                    skill.model_copy(
                        update={
                            "text": text,
                            "provenance": "postrun",
                            "version": skill.version + (1 if skill.text else 0),
                            "source_runs": [*skill.source_runs, self.run_id],
                        }
                    )
                )

    def propose_skills(self) -> None:
        """Ask for up to `new_skills` new skills, with triggers over what this run met."""
        if not self.budget_left or not self.settings.new_skills or not self.digest.episodes:
            return
        kinds = sorted({k for e in self.digest.episodes.values() for k in e.kinds})
        enemies = sorted({n for e in self.digest.episodes.values() for n in e.enemies})
        reply = self.ask(
            "You maintain a library of strategic skills for an agent playing this game. Propose "
            "new skills that would have helped in this run: each a title, concrete advice, the "
            "decision kinds it applies to, optionally enemies and an HP fraction ceiling, and a "
            "priority from 0 to 100. Do not repeat the skills listed.",
            self._proposal_prompt(),
            self._proposal_schema(kinds, enemies),
        )
        if reply is None:
            self.refuse_unusable("L5", "learned-proposals")
            return
        for raw in reply.get("skills", [])[: self.settings.new_skills]:
            skill = self._skill_from(raw)
            if skill is None:
                continue
            library = self.stores.skills
            existing = [(s.id, s.text) for s in library.skills if s.text]
            if self._admit("L5", skill.id, skill.text, existing):
                library.put(skill)

    def _proposal_prompt(self) -> str:
        listed = [f"- {s.title}: {s.text}" for s in self.stores.skills.skills if s.text][:12]
        episodes = list(self.digest.episodes.values())[-4:]
        blocks = [f"[{e.category}: {e.key}]\n{self.facts(e)}" for e in episodes]
        facts, _ = fit_block("postrun", "\n".join(blocks), self.settings.facts_tokens)
        return "\n".join(
            [
                self.outcome_line(),
                "Skills already stored:",
                *(listed or ["- none"]),
                "Facts:",
                facts,
            ]
        )

    def _proposal_schema(self, kinds: list[str], enemies: list[str]) -> JSON:
        names = {"type": "array", "items": {"type": "string", "enum": enemies}, "maxItems": 3}
        item = _object(
            {
                "title": {"type": "string", "minLength": 3, "maxLength": 60},
                "text": _prose(self.settings.skill_chars),
                "kinds": {
                    "type": "array",
                    "items": {"type": "string", "enum": kinds},
                    "minItems": 1,
                    "maxItems": 3,
                },
                "hp_max": {"type": "number", "minimum": 0, "maximum": 1},
                "priority": {"type": "integer", "minimum": 0, "maximum": 100},
            }
        )
        if enemies:
            item["properties"]["enemies"] = names
            item["required"].append("enemies")
        skills = {"type": "array", "items": item, "maxItems": self.settings.new_skills}
        return _object({"skills": skills})

    def _skill_from(self, raw: Any) -> Skill | None:
        """A learned skill from one proposal; None (and a rejected verdict) when malformed."""
        title = str(raw.get("title", "")) if isinstance(raw, dict) else ""
        entry_id = f"learned-{_slug(title)}"
        try:
            trigger = Trigger(
                kinds=list(dict.fromkeys(raw.get("kinds", []))),
                enemies=list(dict.fromkeys(raw.get("enemies", []))),
                hp_max=raw.get("hp_max") if raw.get("hp_max", 1) < 1 else None,
            )
            return Skill(
                id=entry_id,
                title=title,
                text=str(raw.get("text", "")),
                trigger=trigger,
                priority=int(raw.get("priority", 50)),
                provenance="postrun",
                source_runs=[self.run_id] if self.run_id else [],
            )
        except (ValidationError, TypeError, AttributeError) as exc:
            self._refuse("L5", entry_id, f"malformed proposal: {str(exc).splitlines()[0]}")
            return None


PROSE_MIN_CHARS = 20
"""Shortest note or skill text the reply schema allows (a constrained model cannot send "")."""


def _prose(max_chars: int) -> JSON:
    return {"type": "string", "minLength": PROSE_MIN_CHARS, "maxLength": max_chars}


def _object(properties: JSON) -> JSON:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


__all__ = ["TypedConfig", "TypedContract"]
