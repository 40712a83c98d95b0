"""The bank an episodic game plays with: the configured file, else the environment's default
path (`default_bank_path`), else an empty bank said in the log and the run's record; or
one put in memory (`use_bank`). A file is reloaded only when it changed. The game's
environment options take the bank's step (`env_options`).
"""

from __future__ import annotations

from pathlib import Path

from bounded.contracts._configured import ConfiguredContract
from bounded.contracts.episodic.bank import BankError, EpisodicBank
from bounded.contracts.episodic.config import EpisodicConfig, default_bank_path
from bounded.contracts.step_protocol import check_step, step_of, with_step
from bounded.core import JSON, ConfigError

NO_BANK = "no episodic bank: {path} does not exist and no bank is configured; every decision \
without exploration is the empty action"


class BankFile(ConfiguredContract[EpisodicConfig]):
    """Which bank the contract reads, loaded from its file (state set by the contract)."""

    bank: EpisodicBank
    bank_path: Path | None
    no_bank: str
    _injected_bank: bool
    _loaded: tuple[Path, float] | None

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


__all__ = ["NO_BANK", "BankFile"]
