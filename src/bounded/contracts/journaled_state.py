"""The `state` contract with a patch journal on disk: `patches.jsonl`, a header line with
the initial state, then one line per patch, from which the state history is replayed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from bounded.contracts.state import JournalEntry, StateContract, replay_journal
from bounded.core import FORMAT_VERSION, JSON, ConfigError, Decision, Observation, StepResult
from bounded.protocols import EpisodeContext


class PatchJournal:
    """`patches.jsonl`: a header line with the initial state, then one line per patch."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def start(self, initial_state: JSON, meta: JSON | None = None) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        header = {"format_version": FORMAT_VERSION, "initial_state": initial_state, **(meta or {})}
        self.path.write_text(json.dumps(header, sort_keys=True) + "\n")

    def append(self, entries: Sequence[JournalEntry]) -> None:
        with self.path.open("a") as handle:
            for entry in entries:
                handle.write(entry.model_dump_json() + "\n")

    def read(self) -> tuple[JSON, list[JournalEntry]]:
        lines = [line for line in self.path.read_text().splitlines() if line.strip()]
        if not lines:
            raise ConfigError(f"{self.path}: empty journal")
        header = json.loads(lines[0])
        entries = [JournalEntry.model_validate_json(line) for line in lines[1:]]
        return header["initial_state"], entries

    def replay(self) -> list[JSON]:
        """The state after each accepted patch, starting with the initial state."""
        initial, entries = self.read()
        return replay_journal(initial, entries)


def replay_patches(path: str | Path) -> list[JSON]:
    """The state history recorded in a `patches.jsonl` file."""
    return PatchJournal(path).replay()


class JournaledStateContract(StateContract):
    """The `state` contract, also writing each episode's patches to a `patches.jsonl`."""

    journal_kept = None
    """Every entry is held, so that a resume writes the whole journal to the file again."""

    def __init__(self, journal_path: str | Path | None = None, **settings: object) -> None:
        super().__init__(**settings)
        self.journal_file = PatchJournal(journal_path) if journal_path else None
        self._written = 0

    def reset(self, episode: EpisodeContext) -> None:
        super().reset(episode)
        self._written = 0
        if self.journal_file is not None:
            meta = {"env_id": episode.env_id, "seed": episode.seed}
            self.journal_file.start(self.state, meta)

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        super().commit(obs, decision, result)
        if self.journal_file is not None and self.journaled > self._written:
            self.journal_file.append(self.journal_since(self._written))
        self._written = self.journaled

    def restore_memory(self, memory: JSON) -> None:
        """The restored journal is written again to the file `reset` restarted."""
        super().restore_memory(memory)
        if self.journal_file is not None and self.journal:
            self.journal_file.append(list(self.journal))
        self._written = self.journaled


__all__ = ["JournaledStateContract", "PatchJournal", "replay_patches"]
