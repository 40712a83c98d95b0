"""How a cell's contract uses the learned layers' store (L4, L5), as the contract declares
it (`store_layers`), and the phase and cell settings that cannot work because of it, one
line each naming the field (see `bounded.sweeps.experiment_file`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError

from bounded.core import ConfigError
from bounded.sweeps.experiment_file import (
    CellSettings,
    ExperimentFile,
    cell_seeds,
    merged_settings,
)


class Problem(NamedTuple):
    """A setting that cannot work."""

    entry: str
    """The cell or phase it is in (`cells.NAME`, `phases.NAME`)."""
    line: str
    """One line naming the field (`FILE: cells.NAME.store_from: ...`)."""


class StoreUse(NamedTuple):
    """How a contract uses the learned layers' store (L4, L5)."""

    contract: str
    typed: bool = False
    """Whether it keeps stores (declares `store_layers`: the typed contract or a preset of
    it, `reflexion`, whose reflections are its one layer)."""
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    frozen: tuple[str, ...] = ()
    """The layers it reads frozen: their store directory, if given, must exist."""
    needs_store: bool = False
    """Whether it reads what only earlier runs can have written (a frozen L4, or a frozen
    L5 with no seed to start from): the contract refuses to start without a store."""


def store_use(settings: dict[str, Any]) -> StoreUse | None:
    """How the contract of a cell's (merged) settings uses the store, as the contract
    declares it (`store_layers`); None when its name or settings do not resolve (building
    the contract says why)."""
    from bounded.contracts import resolve_contract

    contract = settings.get("contract")
    if contract is None:
        return None
    try:
        cls, preset = resolve_contract(contract)
    except ConfigError:
        return None
    declared = getattr(cls, "store_layers", None)  # a plugin may implement only the protocol
    try:
        layers = (
            declared({**preset, **(settings.get("contract_config") or {})}) if declared else None
        )
    except ValidationError:
        return None
    if layers is None:
        return StoreUse(contract)
    return StoreUse(
        contract,
        typed=True,
        reads=layers.reads,
        writes=layers.writes,
        frozen=layers.frozen,
        needs_store=layers.needs_store,
    )


class Problems:
    """The phase and cell settings of a file that cannot work (`problems`)."""

    def __init__(self, spec: ExperimentFile, source: Path | None = None) -> None:
        self.spec, self.source = spec, source

    def problems(self) -> list[Problem]:
        """Phase and cell settings that cannot work, one line each naming the field: a
        phase's contract that writes no layer, a cell that would write a phase's store, a
        cell whose frozen stores come from nowhere, a layer read that the phase never
        writes. (Names that do not resolve are left to building the contract.)"""
        found = self._phase_problems() + self._cell_problems()
        return [Problem(entry, f"{self._where()}{entry}.{text}") for entry, text in found]

    def _use(self, entry: CellSettings) -> StoreUse | None:
        return store_use(merged_settings(self.spec.defaults, entry))

    def _phase_problems(self) -> list[Problem]:
        found = []
        for phase in self.spec.phases:
            entry = f"phases.{phase.name}"
            settings = merged_settings(self.spec.defaults, phase)
            if "store_dir" in (settings.get("contract_config") or {}):
                found.append(
                    Problem(
                        entry,
                        "contract_config.store_dir: a phase writes its own store "
                        f"(set {entry}.store)",
                    )
                )
            if not cell_seeds(settings):
                found.append(Problem(entry, "seeds: a phase plays at least one game"))
            use = self._use(phase)
            if use is not None and not use.writes:
                what = "writes no layer" if use.typed else "keeps no typed stores"
                found.append(
                    Problem(
                        entry,
                        f"contract: {use.contract!r} {what} (a learning phase needs a typed "
                        "contract with a writable l4 or l5, e.g. mode-b or self-evolve)",
                    )
                )
        return found

    def _cell_problems(self) -> list[Problem]:
        found = []
        for cell in self.spec.cells:
            use = self._use(cell)
            if use is None:
                continue
            entry = f"cells.{cell.label}"
            own = merged_settings(self.spec.defaults, cell).get("contract_config") or {}
            if cell.store_from is None:
                if use.needs_store and "store_dir" not in own:
                    found.append(
                        Problem(
                            entry,
                            f"store_from: {use.contract!r} reads frozen stores: name the phase "
                            "that writes them (store_from) or give contract_config.store_dir",
                        )
                    )
            elif "store_dir" in own:
                text = "store_from: give store_from or contract_config.store_dir, not both"
                found.append(Problem(entry, text))
            else:
                found.extend(
                    Problem(entry, f"store_from: {text}")
                    for text in self._reader_problems(cell.store_from, use)
                )
        return found

    def _reader_problems(self, phase_name: str, use: StoreUse) -> list[str]:
        """What is wrong with a cell reading a phase's frozen store."""
        if not use.typed:
            return [f"{use.contract!r} keeps no typed stores to read"]
        if use.writes:
            return [
                f"{use.contract!r} writes {' and '.join(use.writes)}, but a cell reads a "
                "phase's store frozen (use a frozen preset: mode-b-frozen, full-frozen)"
            ]
        phase = self.spec.phase(phase_name)
        learned = self._use(phase) if phase is not None else None
        if learned is None or not learned.writes:
            return []  # an unknown phase, or the phase's own problem: reported once
        unwritten = [layer for layer in use.reads if layer not in learned.writes]
        if not unwritten:
            return []
        return [
            f"{use.contract!r} reads {' and '.join(unwritten)}, which phase {phase_name!r} "
            f"({learned.contract}) never writes"
        ]

    def _where(self) -> str:
        return f"{self.source}: " if self.source else ""


def problems(spec: ExperimentFile, source: Path | None = None) -> list[Problem]:
    """Phase and cell settings of the file that cannot work (`Problems.problems`)."""
    return Problems(spec, source).problems()


__all__ = ["Problem", "StoreUse", "problems", "store_use"]
