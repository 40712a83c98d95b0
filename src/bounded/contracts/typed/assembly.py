"""One decision's prompt, assembled from the typed layers in a fixed order.

- **L1** fixed instructions (system): the task, the protocol, the reply format;
- **L5** strategic skills whose Boolean trigger holds now, highest priority first;
- **L4** case notes from earlier runs, retrieved by category and key;
- **L3** the rules of what is in play, from the rules store;
- **combat** (only inside a fight): the fight's first observation and a fixed
  acknowledgement, the one stateful container; earlier rounds are never resent;
- **L2** the decision: its kind, the state schema, the current state, the legal actions
  and the reply keys, last.

That is the paper's order (`order = "paper"`); `order = "legacy"` puts the combat
container and L2 first, then L3, L4, L5. `order = "cache"` puts what stays the same
across consecutive decisions first, so that a prefix cache (llama.cpp's, a provider's)
reuses the most: L1; the rules of the run's and the fight's lasting facts (relics, deck,
enemies, room), in a fixed order; the fight's start; L4; L5; the rules of what changes
every play (powers, potions, offers, hand cards the first block left out) under a
budget of its own; L2 last. It shows every rule the paper's selection shows, up to that
second budget (`l3.changing`), and the first block may show more of the deck's.

Every layer is cut to its budget and what a budget cut is recorded (`Assembly`), so a
prompt never exceeds the bound `Assembler.assemble` computes alongside it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from bounded.contracts._render import render_legal
from bounded.contracts.typed.config import TypedConfig
from bounded.core import JSON, Observation, Prompt, approx_tokens
from bounded.stores.budget import Truncation, fit_block, fit_items
from bounded.stores.directory import StoreSet
from bounded.stores.rules import Rule, RulesBook
from bounded.stores.situation import Situation, norm

ACKNOWLEDGEMENT = "Acknowledged. I will decide each round from the latest round state."

ORDERS: dict[str, tuple[str, ...]] = {
    "paper": ("L5", "L4", "L3", "combat", "L2"),
    "legacy": ("combat", "L2", "L3", "L4", "L5"),
    "cache": ("L3", "combat", "L4", "L5", "L3+", "L2"),
}
"""The parts after L1, in prompt order, for each `TypedConfig.order` (`L3+`: the cache
order's second block of rules, recorded as layer L3 like the first)."""


# -- L1 -------------------------------------------------------------------------------

PROTOCOL = """\
Protocol: every decision comes as one fresh message; you do not see earlier decisions.
Reply with one JSON object, your decision: a short "reasoning" first, then the action
(or, where several are allowed, an ordered list of actions, executed in that order).
Name actions by their exact id from the legal list."""

UNCAPPED_PROTOCOL = PROTOCOL.replace('a short "reasoning"', 'your "reasoning"')
"""The protocol where the reasoning is not capped (`reasoning_chars` None): the model
reasons as long as it needs within the reply's token limit."""

LAYER_GUIDE = """\
How to read each message:
- "Decision" (L2) is the current state, its schema, and the legal actions now.
- "Rules" (L3) explains the cards, enemies, relics and mechanics in play.
- "Notes from earlier runs" (L4) are case notes filed under this situation.
- "Skills" (L5) are strategies whose conditions hold now, most important first.
In a fight you see the fight's first state, then only the latest round state: plan
from what is shown now (where a plan of several actions is allowed, give the whole turn)."""


def instructions_text(
    task: str, mode: Literal["strict", "full"], *, short_reasoning: bool = True
) -> str:
    """L1: the task, the protocol (asking for a short reasoning only where it is capped)
    and, in `full` mode, the layer guide."""
    parts = [task.strip(), PROTOCOL if short_reasoning else UNCAPPED_PROTOCOL]
    if mode == "full":
        parts.append(LAYER_GUIDE)
    return "\n\n".join(p for p in parts if p)


# -- L2 -------------------------------------------------------------------------------


def _kind(value: Any) -> str:
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


def schema_line(state: JSON) -> str:
    """The state's shape in one line: top-level keys with types, one level into objects."""
    parts = []
    for key, value in state.items():
        if isinstance(value, dict) and value:
            inner = ", ".join(f"{k}: {_kind(v)}" for k, v in value.items())
            parts.append(f"{key}: {{{inner}}}")
        else:
            parts.append(f"{key}: {_kind(value)}")
    return "State schema: " + "; ".join(parts)


# -- L3 in the cache order -----------------------------------------------------------

CHANGING_RULES_HEADER = "Rules (L3) of what changes every play:"


def lasting_names(situation: Situation, fight_enemies: list[str]) -> list[str]:
    """The decision's lasting facts, what changes least first: relics, the deck's cards
    (in deck order, so a new card goes last), the fight's enemies (all it has shown, dead
    ones included), the encounter, the room and the event (normalised, each once)."""
    groups = [situation.relics, situation.deck, fight_enemies]
    groups.append([n for n in (situation.encounter, situation.room, situation.event) if n])
    return list(dict.fromkeys(norm(name) for group in groups for name in group))


def rules_named(book: RulesBook, names: list[str]) -> list[Rule]:
    """The core mechanics, then the rules of `names` in that order (each rule once)."""
    by_name: dict[str, list[Rule]] = {}
    for rule in book.rules:
        by_name.setdefault(norm(rule.name), []).append(rule)
    chosen = {r.id: r for r in book.rules if r.always}
    for name in names:
        for rule in by_name.get(name, []):
            chosen.setdefault(rule.id, rule)
    return list(chosen.values())


# -- the assembler ------------------------------------------------------------------


class Assembly(BaseModel):
    """What the latest prompt was built from (recorded on the decision)."""

    truncation: list[Truncation] = Field(default_factory=list)
    retrieved: dict[str, list[str]] = Field(default_factory=dict)
    prompt_bound: int = 0
    combat: str | None = None

    def note(self, cut: Truncation | None) -> None:
        """Record a budget cut (None: nothing was cut)."""
        if cut is not None:
            self.truncation.append(cut)

    def record(self) -> JSON:
        """For `Decision.extra` (the runner stores it)."""
        return {
            "truncation": [t.model_dump() for t in self.truncation],
            "retrieved": self.retrieved,
            "prompt_bound": self.prompt_bound,
            "combat": self.combat,
        }


@dataclass(frozen=True)
class Fight:
    """The fight in progress: when and where it started, and its budgeted start message."""

    start_t: float
    floor: int | None
    text: str
    cut: Truncation | None


class Assembler:
    """Builds each decision's prompt from the layers; keeps the fight in progress."""

    def __init__(
        self,
        config: TypedConfig,
        stores: StoreSet,
        task: str = "",
        *,
        reply_instruction: Callable[[Observation], str],
        short_reasoning: bool = True,
    ) -> None:
        self.config = config
        self.stores = stores
        self.task = task
        self.reply_instruction = reply_instruction
        """The contract's instruction of how to answer `obs`, in its reply mode in force."""
        self.short_reasoning = short_reasoning
        """Whether L1 asks for a short reasoning (the reasoning is capped)."""
        self.fight: Fight | None = None
        self.last = Assembly()
        self._changing_rules: list[tuple[str, str]] = []
        self._enemies_met: tuple[int | None, list[str]] = (None, [])

    def in_fight(self, obs: Observation) -> bool:
        return self.config.combat.enabled and obs.kind in self.config.combat.kinds

    def after(self, obs: Observation, situation: Situation) -> None:
        """A decision was committed: a fight ends at the first decision outside it, unless
        that decision is on the fight's own floor (a card chosen in the middle of a fight);
        a fight on another floor always starts a new container."""
        if self.in_fight(obs) or self.fight is None:
            return
        if situation.floor is None or situation.floor != self.fight.floor:
            self.fight = None

    def assemble(self, obs: Observation, situation: Situation) -> Prompt:
        """The prompt for `obs`; what it was built from is in `last`."""
        self.last = Assembly()
        prompt = Prompt()
        l1 = instructions_text(self.task, self.config.prompt, short_reasoning=self.short_reasoning)
        prompt.add("L1", "system", l1)
        bound = approx_tokens(l1)
        parts: dict[str, Callable[[], int]] = {
            "combat": lambda: self._add_combat(prompt, obs, situation),
            "L2": lambda: self._add_state(prompt, obs),
            "L3": lambda: self._add_rules(prompt, situation),
            "L3+": lambda: self._add_changing_rules(prompt),
            "L4": lambda: self._add_notes(prompt, situation),
            "L5": lambda: self._add_skills(prompt, situation),
        }
        for part in ORDERS[self.config.order]:
            bound += parts[part]()
        self.last.prompt_bound = bound
        return prompt

    def _add_combat(self, prompt: Prompt, obs: Observation, situation: Situation) -> int:
        if not self.in_fight(obs):
            return 0
        if self.fight is None or (
            situation.floor is not None and self.fight.floor != situation.floor
        ):
            header = "Combat start" + (f" (floor {situation.floor})" if situation.floor else "")
            cap = self.config.combat.start_tokens
            text, cut = fit_block("combat", f"{header}:\n{obs.text}", cap)
            self.fight = Fight(start_t=obs.t, floor=situation.floor, text=text, cut=cut)
        self.last.note(self.fight.cut)
        self.last.combat = "start" if self.fight.start_t == obs.t else "round"
        prompt.add("combat", "user", self.fight.text)
        prompt.add("combat", "assistant", ACKNOWLEDGEMENT)
        return self.config.combat.start_tokens + approx_tokens(ACKNOWLEDGEMENT)

    def _add_state(self, prompt: Prompt, obs: Observation) -> int:
        config = self.config.l2
        title = "Latest round state" if self.in_fight(obs) else "Decision"
        header = f"{title} ({obs.kind}):"
        body = obs.text
        if config.schema_hints and obs.state:
            body = f"{schema_line(obs.state)}\n{body}"
        state_text, cut = fit_block("L2", body, config.state_tokens)
        self.last.note(cut)
        rendered = render_legal(obs, limit=len(obs.legal)).splitlines()[1:]
        legal_lines = [line for line in rendered if line.startswith("- ")]
        lines, cut = fit_items("L2.actions", legal_lines, config.actions, prefix="")
        self.last.note(cut)
        footer = self.reply_instruction(obs)
        if obs.max_actions > 1:
            footer = f"You may give up to {obs.max_actions} actions, executed in order. {footer}"
        prompt.add("L2", "user", "\n".join([header, state_text, "Legal actions:", *lines, footer]))
        fixed = approx_tokens(f"{header} Legal actions: {footer}")
        return fixed + config.state_tokens + config.actions.capacity

    def _add_layer(
        self, prompt: Prompt, layer: str, header: str, entries: list[tuple[str, str]]
    ) -> int:
        """Add one store layer: header plus budgeted entries (id, text); returns its bound."""
        budget = self.config.layer(layer).budget
        lines, cut = fit_items(layer, [text for _, text in entries], budget)
        self.last.note(cut)
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
        entries = [(r.id, r.render()) for r in rules]
        if self.config.order != "cache":
            return self._add_layer(prompt, "L3", header, entries)
        return self._add_lasting_rules(prompt, header, situation, rules)

    def _add_lasting_rules(
        self, prompt: Prompt, header: str, situation: Situation, rules: list[Rule]
    ) -> int:
        """The cache order's first block: the rules of the lasting facts, chosen and
        ordered by those facts only, so that it stays the same round after round; the
        rules of what else is in play now wait for the second block (`L3+`)."""
        config = self.config.l3
        if config.scope == "full":
            lasting = rules
        else:
            names = lasting_names(situation, self._fight_enemies(situation))
            lasting = rules_named(self.stores.rules, names)
        shown = {r.id for r in lasting[: config.budget.items]}
        self._changing_rules = [(r.id, r.render()) for r in rules if r.id not in shown]
        bound = self._add_layer(prompt, "L3", header, [(r.id, r.render()) for r in lasting])
        return bound + approx_tokens(CHANGING_RULES_HEADER) + config.changing.capacity

    def _fight_enemies(self, situation: Situation) -> list[str]:
        """Every enemy the fight in progress has shown (outside a fight: none)."""
        if situation.kind not in self.config.combat.kinds:
            self._enemies_met = (None, [])
            return []
        floor, met = self._enemies_met
        if floor != situation.floor:
            met = []
        met = met + [e for e in situation.enemies if e not in met]
        self._enemies_met = (situation.floor, met)
        return met

    def _add_changing_rules(self, prompt: Prompt) -> int:
        """The cache order's second block, left out when empty; its bound is counted with
        the first block's."""
        entries, self._changing_rules = self._changing_rules, []
        if not entries:
            return 0
        budget = self.config.l3.changing
        lines, cut = fit_items("L3+", [text for _, text in entries], budget)
        self.last.note(cut)
        self.last.retrieved["L3+"] = [entry_id for entry_id, _ in entries[: len(lines)]]
        prompt.add("L3", "user", "\n".join([CHANGING_RULES_HEADER, *lines]))
        return 0

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


__all__ = [
    "ACKNOWLEDGEMENT",
    "CHANGING_RULES_HEADER",
    "LAYER_GUIDE",
    "ORDERS",
    "PROTOCOL",
    "UNCAPPED_PROTOCOL",
    "Assembler",
    "Assembly",
    "Fight",
    "instructions_text",
    "lasting_names",
    "rules_named",
    "schema_line",
]
