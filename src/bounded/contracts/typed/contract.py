"""`TypedContract`: a fresh typed prompt per decision, stores read per layer mode, learned
after the run.

The contract knows no game. At reset it takes the environment's `GameKnowledge`
(`EpisodeContext.knowledge`): the rules book and seed skills a fresh store starts from,
and the reader of a decision's facts. Without knowledge L3 and L5 start empty and the
generic `situation_of` reads the facts: the contract still runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import ValidationError

from bounded.contracts._configured import ConfiguredContract
from bounded.contracts.base import StoreLayers
from bounded.contracts.typed.assembly import Assembler, Fight
from bounded.contracts.typed.config import StoreLayer, TypedConfig, config_error, game_of
from bounded.contracts.typed.learning import Digest, Learner, outcome_word
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
)
from bounded.protocols import EpisodeContext, Knowledge, Model
from bounded.stores.budget import Truncation
from bounded.stores.directory import StoreSet
from bounded.stores.gate import GateVerdict
from bounded.stores.situation import Situation, situation_of
from bounded.stores.skills import SkillLibrary
from bounded.stores.snapshot import manifest_hash, verify_snapshot

LEARNED_LAYERS = ("L4", "L5")
"""The layers postrun learning may write (L3 is patched, never learned)."""


class TypedContract(ConfiguredContract[TypedConfig]):
    """Fresh typed prompt per decision; stores read per layer mode, learned after the run."""

    name = "typed"
    memory_settings = (
        "prompt", "order", "l2", "l3", "l4", "l5", "combat", "skill_seed", "postrun"
    )  # fmt: skip
    """The configuration keys that are the memory under test (`MemoryHooks.memory_settings`)."""

    @classmethod
    def store_layers(cls, settings: JSON) -> StoreLayers:
        """The learned layers (L4, L5) its settings read, write and read frozen; it needs a
        store for a frozen L4, or a frozen L5 with no seed to start from."""
        config = TypedConfig.model_validate({**settings, "store_dir": "-"})

        def layers(given: Callable[[StoreLayer], bool]) -> tuple[str, ...]:
            return tuple(name for name in LEARNED_LAYERS if given(config.layer(name)))

        return StoreLayers(
            reads=layers(lambda layer: layer.reads),
            writes=layers(lambda layer: layer.writes),
            frozen=layers(lambda layer: layer.mode == "frozen"),
            needs_store=config.l4.mode == "frozen"
            or (config.l5.mode == "frozen" and config.skill_seed == "none"),
        )

    def __init__(self, **settings: object) -> None:
        try:
            self.config = TypedConfig.model_validate(settings)
        except ValidationError as exc:
            raise config_error(exc) from None
        self.game = self.config.game or ""
        self.knowledge: Knowledge | None = None
        self.model: Model | None = None
        self.run_id = ""
        self.stores = StoreSet(self.game)
        self._stores_seeded = False
        """Whether `stores` was built at a reset (from that episode's knowledge)."""
        self.assembler = self._assembler()
        self.digest = Digest()
        self.read_hashes: dict[str, str] = {}
        self.written_hashes: dict[str, str] = {}
        self.verdicts: list[GateVerdict] = []
        self.postrun_calls: list[Completion] = []
        self.postrun_note = ""

    # -- lifecycle ----------------------------------------------------------------

    def reset(self, episode: EpisodeContext) -> None:
        self.knowledge = episode.knowledge
        self.game = self._game_for(episode)
        self.model = episode.model
        self.run_id = episode.run_id
        path = self._store_path()
        # In memory, what earlier episodes of this object learned is kept; on disk, the
        # directory is reread so that another process's writes are seen.
        if path is not None or not self._stores_seeded or self.stores.game != self.game:
            self.stores = self._open_stores(path)
            self._stores_seeded = True
        self.assembler = self._assembler(episode.instructions)
        self.digest = Digest()
        self.read_hashes = {
            layer: digest
            for layer, digest in self.stores.layer_hashes().items()
            if self.config.layer(layer).reads
        }
        self.written_hashes = {}
        self.verdicts = []
        self.postrun_calls = []
        self.postrun_note = ""

    def _assembler(self, task: str = "") -> Assembler:
        """The prompt's assembler for the stores and the reasoning budget in force."""
        return Assembler(
            self.config, self.stores, task,
            reply_instruction=self.reply_instruction,
            short_reasoning=self.reasoning_chars is not None,
        )  # fmt: skip

    def _game_for(self, episode: EpisodeContext) -> str:
        """The stores' namespace: the config's, else the knowledge's, else the env id's."""
        if self.config.game:
            return self.config.game
        if episode.knowledge is not None:
            return episode.knowledge.game
        return game_of(episode.env_id)

    def _store_path(self) -> Path | None:
        """The store directory, checked: frozen layers need one that exists, and a frozen
        snapshot (`bounded.stores.snapshot.freeze_to`) must still hash as it did when it was
        frozen, and is never written."""
        path = Path(self.config.store_dir) if self.config.store_dir else None
        frozen = any(self.config.layer(layer).mode == "frozen" for layer in LEARNED_LAYERS)
        if path is not None and frozen and not path.is_dir():
            raise ConfigError(
                f"typed config: store_dir: {str(path)!r} does not exist "
                "(frozen layers read the stores of earlier runs)"
            )
        if path is not None and manifest_hash(path) is not None:
            self._check_snapshot(path)
        return path

    def _check_snapshot(self, path: Path) -> None:
        """Refuse a frozen snapshot this contract would write, or whose content drifted."""
        writes = [layer for layer in LEARNED_LAYERS if self.config.layer(layer).writes]
        if writes:
            raise ConfigError(
                f"typed config: store_dir: {str(path)!r} is a frozen snapshot and "
                f"{' and '.join(writes)} would write it (thaw a copy to learn from it)"
            )
        verify_snapshot(path)

    def _open_stores(self, path: Path | None) -> StoreSet:
        """The stores at `path` (or in memory), seeded from the game's knowledge."""
        knowledge = self.knowledge
        if knowledge is None:
            return StoreSet(self.game, path)
        return StoreSet(self.game, path, rules=knowledge.rules, skills=self._skill_seed())

    def _skill_seed(self) -> SkillLibrary | None:
        """The knowledge's seed library `skill_seed` names (None: none, or no such library)."""
        if self.knowledge is None or self.config.skill_seed == "none":
            return None
        return self.knowledge.skills.get(self.config.skill_seed)

    def situation(self, obs: Observation) -> Situation:
        """The facts of one decision, read as the game's knowledge says (or generically)."""
        reader = self.knowledge.situation if self.knowledge is not None else situation_of
        return reader(obs)

    def store_hashes(self) -> dict[str, str]:
        """Hashes of every layer read at reset (`L3.read`, ...) and written by postrun."""
        hashes = {f"{layer}.read": h for layer, h in self.read_hashes.items()}
        hashes.update({f"{layer}.written": h for layer, h in self.written_hashes.items()})
        if self.config.store_dir:
            hashes["dir"] = self.stores.hash()
        return hashes

    # -- one decision -------------------------------------------------------------

    def assemble(self, obs: Observation) -> Prompt:
        return self.assembler.assemble(obs, self.situation(obs))

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        decision, _ = self.read_reply(completion, obs)
        decision.extra.update(self.assembly_record())
        return decision

    def assembly_record(self) -> JSON:
        """What the latest prompt was built from, for `Decision.extra` (the runner stores it)."""
        return self.assembler.last.record()

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        self.digest.record(obs, self.situation(obs), decision, self.stores.skills)
        self.assembler.after(obs, self.situation(obs))

    # -- resume -------------------------------------------------------------------

    def memory_snapshot(self) -> JSON:
        """The fight in progress (its combat container) and the run digest (`bounded
        resume`); the stores are not in it: they change only after the run."""
        fight = self.assembler.fight
        return {
            "fight": None
            if fight is None
            else {
                "start_t": fight.start_t,
                "floor": fight.floor,
                "text": fight.text,
                "cut": None if fight.cut is None else fight.cut.model_dump(mode="json"),
            },
            "digest": self.digest.without_facts(),
            "facts": self.digest.fact_log,
        }

    def memory_logs(self) -> tuple[str, ...]:
        return ("facts",)

    def restore_memory(self, memory: JSON) -> None:
        fight = memory["fight"]
        if fight is not None:
            cut = None if fight["cut"] is None else Truncation.model_validate(fight["cut"])
            fight = Fight(
                start_t=fight["start_t"], floor=fight["floor"], text=fight["text"], cut=cut
            )
        self.assembler.fight = fight
        self.digest = Digest.model_validate(memory["digest"])
        self.digest.restore_facts(memory.get("facts"))

    # -- postrun learning ---------------------------------------------------------

    def postrun(self, trajectory: Sequence[DecisionRecord], outcome: Outcome) -> None:
        """Write L4 notes and fill or add L5 skills (writable layers only), through the gate;
        `outcome` is the environment's verdict on the run."""
        self.digest.outcome = outcome_word(outcome)
        writable = [layer for layer in LEARNED_LAYERS if self.config.layer(layer).writes]
        if not writable:
            return
        if self.model is None:
            self.postrun_note = "skipped: no model was given at reset"
            return
        run_id = self.run_id or (trajectory[-1].run_id if trajectory else "")
        learner = Learner(self.config.postrun, self.stores, self.digest, self.model, run_id)
        learner.learn(writable, propose=self.config.skill_seed != "templates")
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


__all__ = ["LEARNED_LAYERS", "TypedContract"]
