"""The episodic contract's memory hooks: the stores a game's identity hashes, and the
checkpoint `bounded resume` restores (the working memory's history, the action queue,
the strategy descriptions, the gating clock); the bank is not in it, a resume checks its
hash.
"""

from __future__ import annotations

from collections import deque

from bounded.contracts._configured import ConfiguredContract
from bounded.contracts.episodic.bank import EpisodicBank
from bounded.contracts.episodic.config import EpisodicConfig
from bounded.contracts.episodic.gating import GatingClock
from bounded.contracts.episodic.memory import MemoryEntry
from bounded.contracts.episodic.planning import StepPlan
from bounded.core import JSON, Action, stable_hash


class MemorySnapshot(ConfiguredContract[EpisodicConfig]):
    """Store hashes and the checkpoint (state set by the contract)."""

    bank: EpisodicBank
    queue: deque[Action]
    history: deque[MemoryEntry]
    _history_json: deque[list[object]]
    descriptions: dict[str, str]
    step: int
    clock: GatingClock
    sources: dict[str, int]
    _plan: StepPlan | None

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


__all__ = ["MemorySnapshot"]
