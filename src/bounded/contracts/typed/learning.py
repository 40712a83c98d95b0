"""Postrun learning: after a run, writable layers learn from what the run did.

During the run the contract gathers a `Digest`, decision by decision: the facts of each
case (a fight, or the choices under one category and key) and the skills whose trigger
held. After it, a `Learner` asks the model (the episode's, bounded by
`postrun.max_calls`) for L4 case notes and L5 skills, and every write passes a
`WriteGate` that refuses duplicates. How the run ended is the environment's own verdict
(`Outcome`), never guessed from the steps.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr, ValidationError

from bounded.contracts.replies.reading import closed_object, extract_json_object
from bounded.contracts.typed.config import PostrunSettings
from bounded.core import JSON, Completion, Decision, Observation, Outcome
from bounded.protocols import Model
from bounded.stores.budget import fit_block
from bounded.stores.case_notes import CaseNote, keys_for
from bounded.stores.directory import StoreSet
from bounded.stores.gate import GateVerdict, WriteGate
from bounded.stores.situation import Situation, norm
from bounded.stores.skills import Skill, SkillLibrary, Trigger

# -- the run digest postrun learning reads ------------------------------------------


FACTS_KEPT = 20
"""Facts of one case that postrun learning reads: its latest."""

FACTS_WINDOW = 2_000
"""The run's latest facts the digest holds (and a checkpoint stores): a case's facts are
its latest `FACTS_KEPT` among them, so the digest, like the prompts, stays bounded."""


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


def choice_fact(situation: Situation, obs: Observation, decision: Decision) -> str:
    """One decision as a fact line: where, what kind, what was chosen among what."""
    chosen = ", ".join(a.label or a.id for a in decision.actions) or "(no valid action)"
    where = f"floor {situation.floor}: " if situation.floor is not None else f"t={obs.t:g}: "
    options = f" (offered: {', '.join(situation.offered[:8])})" if situation.offered else ""
    return f"{where}{obs.kind}: chose {chosen}{options}"


class Digest(BaseModel):
    """What a run did, gathered decision by decision, for postrun learning (not for prompts)."""

    episodes: dict[str, Episode] = Field(default_factory=dict)
    matched_skills: list[str] = Field(default_factory=list)
    last: Situation | None = None
    outcome: str = ""
    """How the run ended (`outcome_word`), set when postrun starts."""
    _fact_log: deque[list[str]] = PrivateAttr(default_factory=lambda: deque(maxlen=FACTS_WINDOW))
    """The latest `FACTS_WINDOW` facts as they were added, `[episode name, fact]`: a fact a
    decision, so a checkpoint stores them as a window on a log (`memory_logs`)."""
    _facts_added: int = PrivateAttr(default=0)
    _in_window: dict[str, int] = PrivateAttr(default_factory=dict)
    """Facts of each episode among the log's."""

    def without_facts(self) -> JSON:
        """The digest as JSON with its episodes' facts left out (they are in `fact_log`)."""
        return self.model_dump(mode="json", exclude={"episodes": {"__all__": {"facts"}}})

    @property
    def fact_log(self) -> JSON:
        """The facts as a window on the run's log: `{"start": s, "items": [...]}`."""
        log = self._fact_log
        return {"start": self._facts_added - len(log), "items": list(log)}

    def add_fact(self, name: str, fact: str) -> None:
        """Add one fact to episode `name`; the log's oldest fact, once past the window,
        leaves its episode too (so a restored digest holds what this one holds)."""
        log = self._fact_log
        if len(log) == log.maxlen:
            old = log[0][0]
            left = self._in_window.pop(old) - 1
            if left:
                self._in_window[old] = left
            facts = self.episodes[old].facts
            if len(facts) > left:
                del facts[0]
        log.append([name, fact])
        self._facts_added += 1
        self._in_window[name] = self._in_window.get(name, 0) + 1
        facts = self.episodes[name].facts
        facts.append(fact)
        del facts[:-FACTS_KEPT]

    def restore_facts(self, log: JSON | list[list[str]] | None) -> None:
        """Put the facts of a `fact_log` back into a digest read `without_facts` (a list: a
        log saved before the window, from its start); None: the facts are in the episodes
        already (an older snapshot), and the log is rebuilt from them."""
        if log is None:
            log = [[name, fact] for name, ep in self.episodes.items() for fact in ep.facts]
            for episode in self.episodes.values():
                episode.facts.clear()
        start, items = (int(log["start"]), log["items"]) if isinstance(log, dict) else (0, log)
        self._facts_added = start
        for name, fact in items[-FACTS_WINDOW:]:
            self.add_fact(name, fact)
        self._facts_added = start + len(items)

    def episode(self, category: str, key: str) -> Episode:
        name = f"{category}: {key}"
        return self.episodes.setdefault(name, Episode(category=category, key=key))

    def record(
        self, obs: Observation, situation: Situation, decision: Decision, skills: SkillLibrary
    ) -> None:
        """Add one committed decision: its case's facts, and the skills whose trigger held."""
        self.last = situation
        for skill in skills.matching(situation):
            if skill.id not in self.matched_skills:
                self.matched_skills.append(skill.id)
        category, key = keys_for(situation)[0]
        episode = self.episode(category, key)
        episode.kinds.add(obs.kind)
        episode.enemies.update(norm(e) for e in situation.enemies)
        episode.decisions += 1
        if episode.hp_start is None:
            episode.hp_start = situation.hp
        episode.hp_end = situation.hp
        fact = choice_fact(situation, obs, decision)
        self.add_fact(f"{category}: {key}", fact)


def outcome_word(outcome: Outcome) -> str:
    """How a run ended, for notes and postrun prompts: `victory` when the environment says
    it was won, else why it ended (`defeat`, `truncated`, ...), else `not won`."""
    if outcome.victory:
        return "victory"
    if outcome.ended_by and outcome.ended_by != "victory":
        return outcome.ended_by
    return "not won"


# -- the learner ----------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "skill"


class Learner:
    """One postrun: model calls bounded by `postrun.max_calls`, every write gate-checked."""

    def __init__(
        self,
        settings: PostrunSettings,
        stores: StoreSet,
        digest: Digest,
        model: Model,
        run_id: str,
    ) -> None:
        self.settings = settings
        self.stores = stores
        self.digest = digest
        self.gate = WriteGate(threshold=settings.gate_threshold)
        self.model = model
        self.run_id = run_id
        self.verdicts: list[GateVerdict] = []
        self.calls: list[Completion] = []
        self.errors: list[str] = []
        self.failure = ""
        """Why the latest call gave no JSON object (see `ask`)."""

    def learn(self, layers: list[str], *, propose: bool) -> None:
        """Write what the writable `layers` learn from this run: L4 notes; L5 filled templates
        and, when `propose`, new skills."""
        if "L4" in layers:
            self.write_notes()
        if "L5" in layers:
            self.fill_templates()
            if propose:
                self.propose_skills()

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
        return f"Run outcome: {self.digest.outcome}{where}."

    def facts(self, episode: Episode) -> str:
        lines = list(episode.facts[-FACTS_KEPT:])
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
        schema = closed_object({"note": _prose(self.settings.note_chars)})
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
                    CaseNote(
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
        verdict = self.gate.check(layer, entry_id, text, existing, run_id=self.run_id, **kw)
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
        schema = closed_object({"text": _prose(self.settings.skill_chars)})
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
        item = closed_object(
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
        return closed_object({"skills": skills})

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


__all__ = ["Digest", "Episode", "Learner", "choice_fact", "outcome_word"]
