"""`reflexion` (Shinn et al., 2023, "Reflexion: Language Agents with Verbal Reinforcement
Learning"): after a game that was not won, the model writes a reflection on what went
wrong; the next games' prompts carry the latest reflections beside a short window of the
current game. The design EpicStar and SKILL.state set their memories against.

From the paper: an Actor (the decision model), an Evaluator (here the environment's own
verdict, `Outcome.victory`: Reflexion's binary success signal) and a Self-Reflection
model (the same model, asked once after a failed trial) whose verbal feedback goes into a
long-term memory bounded to the last Omega experiences (the paper keeps 1 to 3; 3 here,
`reflections`). The actor's short-term memory is the current trial's trajectory; over
games of hundreds of decisions it is a window of the last `window` turns (the choice this
contract makes to keep every prompt bounded; `window = 0` shows none).

Each prompt: the instructions (layer `instructions`), the reflections (layer
`reflections`, oldest first), the window's turns as they were sent and answered (layer
`window`), the current observation with the reply format (layer `observation`).

Reflections persist as the typed contract's L4 does: with `store_dir`, in
`reflections.json` there (every reflection written, the prompts reading the last
`reflections`), hashed per file and as a directory (`bounded.stores.snapshot`), so a
learning phase of an experiment writes it and frozen cells read its snapshot; without,
in the contract object, so a ladder's runs (one object) carry them from game to game.
`mode`: `writable` (reflect after each game not won), `frozen` (read, never write), `off`
(no reflections: the window-only ablation). The reflection call is metered like every
model call and archived with the run (`RunRecord.postrun`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bounded.contracts._configured import ConfiguredContract
from bounded.contracts._render import render_observation
from bounded.contracts.base import StoreLayers
from bounded.contracts.replies.reading import closed_object, extract_json_object, scrub
from bounded.contracts.replies.settings import FallbackSettings, ReasoningSettings
from bounded.core import (
    JSON,
    Completion,
    ConfigError,
    Decision,
    DecisionRecord,
    Observation,
    Outcome,
    Prompt,
    StepResult,
    stable_hash,
)
from bounded.protocols import EpisodeContext, Model
from bounded.stores.directory import REFLECTIONS_FILE, canonical_bytes
from bounded.stores.snapshot import hash_files, manifest_hash, sha256, verify_snapshot

ReflexionMode = Literal["writable", "frozen", "off"]

REFLECT_SYSTEM = """\
You will read the record of an earlier attempt at a task, in which you did not succeed.
Do not describe the game back. Think about the strategy you followed and where it went
wrong, then write a short plan for the next attempt that avoids that mistake, naming the
specific actions or choices you should have made instead."""

REFLECTIONS = "reflections"
"""Its one store layer (its `reflections.json`), by name."""
REFLECTIONS_HEADER = "Your reflections on earlier attempts (oldest first):"


class ReflexionConfig(ReasoningSettings, FallbackSettings):
    """Settings of the Reflexion contract."""

    model_config = ConfigDict(extra="forbid")

    mode: ReflexionMode = "writable"
    """`writable`: reflect after a game not won; `frozen`: read reflections, never write;
    `off`: no reflections (the window alone)."""
    reflections: int = Field(default=3, ge=1, le=16)
    """Omega: how many of the latest reflections each prompt carries (the paper's 3)."""
    window: int = Field(default=4, ge=0, le=64)
    """Turns of the current game (observation and reply) each prompt carries."""
    store_dir: str | None = None
    """Directory of `reflections.json`; None keeps reflections in the contract object."""
    reflection_chars: int = Field(default=600, ge=40)
    """Longest reflection (the reflection call's schema caps it)."""
    trail: int = Field(default=40, ge=1)
    """Latest decisions of the game the reflection call reads."""
    trail_chars: int = Field(default=240, ge=40)
    """Each of those decisions' observation is cut to this many characters."""
    max_tokens: int = Field(default=320, ge=16)
    """Reply tokens of the reflection call."""


class Reflection(BaseModel):
    """One reflection, with the game it reflects on (its environment and seed; the run that
    wrote it names it in its `store_hashes["reflections.written"]` and its postrun record,
    so the content does not depend on an archive's run ids)."""

    id: str
    env_id: str = ""
    seed: int = 0
    outcome: str = ""
    text: str


class ReflectionBook(BaseModel):
    """Every reflection written, oldest first (`reflections.json`)."""

    version: int = 1
    reflections: list[Reflection] = Field(default_factory=list)


def outcome_text(outcome: Outcome) -> str:
    ended = outcome.ended_by or ("victory" if outcome.victory else "not won")
    return f"{ended} (score {outcome.score:g}, progress {outcome.progress:.0%})"


class ReflexionContract(ConfiguredContract[ReflexionConfig]):
    """Instructions, the last reflections, a short window, the current observation."""

    name = "reflexion"
    memory_settings = (
        "mode", "reflections", "window", "reflection_chars", "trail", "trail_chars"
    )  # fmt: skip
    """The configuration keys that are the memory under test (`MemoryHooks.memory_settings`)."""

    @classmethod
    def store_layers(cls, settings: JSON) -> StoreLayers:
        """Its reflections play the part of a typed layer (written by a learning phase,
        read frozen by the cells)."""
        mode = ReflexionConfig.model_validate({**settings, "store_dir": "-"}).mode
        return StoreLayers(
            reads=(REFLECTIONS,) if mode != "off" else (),
            writes=(REFLECTIONS,) if mode == "writable" else (),
            frozen=(REFLECTIONS,) if mode == "frozen" else (),
            needs_store=mode == "frozen",
        )

    def __init__(self, **settings: object) -> None:
        self.config = ReflexionConfig.model_validate(settings)
        self.book = ReflectionBook()
        self.read: list[Reflection] = []
        self.window: deque[tuple[str, str]] = deque(maxlen=self.config.window)
        self.trail: deque[str] = deque(maxlen=self.config.trail)
        self.instructions = ""
        self.episode: EpisodeContext | None = None
        self.model: Model | None = None
        self.written = ""
        self.postrun_calls: list[Completion] = []
        self.postrun_note = ""
        self._current = ""
        self._pending = ""

    # -- the store ------------------------------------------------------------------

    @property
    def path(self) -> Path | None:
        return Path(self.config.store_dir) if self.config.store_dir else None

    def _open_book(self) -> ReflectionBook:
        """The reflections of the store directory (checked), or those kept in memory."""
        path = self.path
        if path is None:
            return self.book
        if self.config.mode == "frozen" and not path.is_dir():
            raise ConfigError(
                f"reflexion config: store_dir: {str(path)!r} does not exist "
                "(frozen reflections are read from earlier runs)"
            )
        if manifest_hash(path) is not None:
            if self.config.mode == "writable":
                raise ConfigError(
                    f"reflexion config: store_dir: {str(path)!r} is a frozen snapshot and "
                    "writable reflections would write it (thaw a copy to learn from it)"
                )
            verify_snapshot(path)
        file = path / REFLECTIONS_FILE
        if not file.is_file():
            return ReflectionBook()
        try:
            return ReflectionBook.model_validate_json(file.read_bytes())
        except ValueError as exc:
            first = str(exc).splitlines()[0]
            raise ConfigError(f"store file {str(file)!r} is invalid: {first}") from exc

    def files(self) -> dict[str, bytes]:
        return {REFLECTIONS_FILE: canonical_bytes(self.book)}

    def _save(self) -> None:
        path = self.path
        if path is None:
            return
        path.mkdir(parents=True, exist_ok=True)
        partial = path / f".{REFLECTIONS_FILE}.partial"
        partial.write_bytes(self.files()[REFLECTIONS_FILE])
        partial.replace(path / REFLECTIONS_FILE)  # atomic: a kill leaves the old or the new

    # -- lifecycle --------------------------------------------------------------------

    def reset(self, episode: EpisodeContext) -> None:
        self.episode, self.model = episode, episode.model
        self.instructions = episode.instructions
        self.book = self._open_book()
        shown = self.config.reflections
        self.read = [] if self.config.mode == "off" else self.book.reflections[-shown:]
        self.window.clear()
        self.trail.clear()
        self.written, self.postrun_calls, self.postrun_note = "", [], ""
        self._current = self._pending = ""

    # -- one decision ----------------------------------------------------------------

    def assemble(self, obs: Observation) -> Prompt:
        prompt = Prompt()
        prompt.add("instructions", "system", self.instructions.strip())
        if self.read:
            lines = [f"{i}. {r.text}" for i, r in enumerate(self.read, start=1)]
            prompt.add("reflections", "user", "\n".join([REFLECTIONS_HEADER, *lines]))
        for seen, reply in self.window:
            prompt.add("window", "user", seen)
            prompt.add("window", "assistant", reply)
        self._current = render_observation(obs)
        current = f"{self._current}\n\n{self.reply_instruction(obs)}"
        prompt.add("observation", "user", current)
        return prompt

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        self._pending = scrub(completion.text)[0]
        decision, _ = self.read_reply(completion, obs)
        decision.extra["reflections_shown"] = [r.id for r in self.read]
        return decision

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        if self.config.window:
            self.window.append((self._current or render_observation(obs), self._pending))
        chosen = ", ".join(a.id for a in decision.actions) or "(unusable reply)"
        seen = " ".join(obs.text.split())[: self.config.trail_chars]
        self.trail.append(f"t={obs.t:g} {obs.kind}: {seen} -> {chosen}")
        self._current = self._pending = ""

    # -- after the game -----------------------------------------------------------------

    def postrun(self, trajectory: Sequence[DecisionRecord], outcome: Outcome) -> None:
        """Reflect on a game that was not won (writable mode), and keep the reflection; the
        store is saved either way, so that its directory holds what the run's `dir` hash
        says."""
        if self.config.mode != "writable":
            return
        try:
            self._learn(outcome)
        finally:
            self._save()

    def _learn(self, outcome: Outcome) -> None:
        if outcome.victory:
            self.postrun_note = "won: no reflection"
            return
        if self.model is None:
            self.postrun_note = "skipped: no model was given at reset"
            return
        text = self._reflect(outcome)
        if not text:
            return
        episode = self.episode
        self.book.reflections.append(
            Reflection(
                id=f"r{len(self.book.reflections) + 1}",
                env_id=episode.env_id if episode else "",
                seed=episode.seed if episode else 0,
                outcome=outcome_text(outcome),
                text=text,
            )
        )
        self.written = sha256(self.files()[REFLECTIONS_FILE])

    def reflection_prompt(self, outcome: Outcome) -> list[dict[str, str]]:
        earlier = "\n".join(f"- {r.text}" for r in self.read) or "(none)"
        user = "\n\n".join(
            [
                f"The task:\n{self.instructions.strip()}",
                "The attempt, latest decisions (t, kind: observation -> action):\n"
                + "\n".join(self.trail),
                f"How it ended: {outcome_text(outcome)}.",
                f"Your earlier reflections:\n{earlier}",
                'Answer with one JSON object {"reflection": "..."}.',
            ]
        )
        return [{"role": "system", "content": REFLECT_SYSTEM}, {"role": "user", "content": user}]

    def _reflect(self, outcome: Outcome) -> str:
        """The reflection call (metered through the run's model); "" when it gave none."""
        assert self.model is not None
        schema = closed_object(
            {
                "reflection": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": self.config.reflection_chars,
                }
            }
        )
        try:
            completion = self.model.complete(
                self.reflection_prompt(outcome),
                constraint=schema,
                max_tokens=self.config.max_tokens,
                temperature=0.0,
            )
        except Exception as exc:  # reflecting is best effort: a failed call must not fail the run
            self.postrun_note = f"the reflection call failed: {type(exc).__name__}: {exc}"
            return ""
        self.postrun_calls.append(completion)
        try:
            reply = extract_json_object(completion.text)
        except ValueError as exc:
            self.postrun_note = f"unusable reflection: {exc}"
            return ""
        text = reply.get("reflection")
        if not isinstance(text, str) or not text.strip():
            self.postrun_note = "unusable reflection: no reflection text"
            return ""
        return " ".join(text.split())[: self.config.reflection_chars]

    @property
    def postrun_record(self) -> JSON:
        if not (self.postrun_calls or self.postrun_note):
            return {}
        return {
            "calls": [call.model_dump() for call in self.postrun_calls],
            "note": self.postrun_note,
            "reflection": self.book.reflections[-1].text if self.written else "",
        }

    # -- records and resume ---------------------------------------------------------

    def store_hashes(self) -> dict[str, str]:
        """The reflections read at reset and, after a postrun that wrote one, the store's
        hash; with `store_dir`, the directory's snapshot hash (`dir`)."""
        hashes = {"reflections.read": stable_hash([r.model_dump() for r in self.read])}
        if self.written:
            hashes["reflections.written"] = self.written
        if self.path is not None:
            hashes["dir"] = hash_files(self.files())
        return hashes

    def memory_snapshot(self) -> JSON:
        """The window, the trail the reflection will read, and the reflections shown."""
        return {
            "window": [list(turn) for turn in self.window],
            "trail": list(self.trail),
            "read": [r.model_dump() for r in self.read],
        }

    def restore_memory(self, memory: JSON) -> None:
        self.window.clear()
        self.window.extend((seen, reply) for seen, reply in memory["window"])
        self.trail.clear()
        self.trail.extend(memory["trail"])
        self.read = [Reflection.model_validate(r) for r in memory["read"]]
        self._current = self._pending = ""


__all__ = ["Reflection", "ReflectionBook", "ReflexionConfig", "ReflexionContract"]
