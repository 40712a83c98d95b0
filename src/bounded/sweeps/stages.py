"""An experiment's plan: its phases and cells expanded into `GameSpec`s, one per game,
matrix point by matrix point and seed by seed, with every store path filled in. A command
builds it once (`Experiment.stages`) and hands it to what it runs (the survey, the sweep,
the sequential sweep's looks, `bounded plan`)."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from bounded.core import ConfigError
from bounded.runner.spec import GameSpec
from bounded.sweeps.experiment_file import (
    CellConfig,
    CellSettings,
    ExperimentFile,
    ExperimentMeta,
    PhaseConfig,
    Scalar,
    cell_seeds,
    merged_settings,
)


class PhasePlan(BaseModel):
    """A learning phase, planned: its games in play order, its store and the frozen copy."""

    name: str
    """The phase's name (the `cell` of its games)."""
    store: Path
    """The store its games write."""
    frozen: Path
    """Where the store is frozen once every game is completed; the cells reading the phase
    read this copy."""
    games: list[GameSpec]
    """Its games, in the order they are played."""


class Plan(BaseModel):
    """Every game of an experiment: the phases' (in order), then the cells'."""

    phases: list[PhasePlan] = Field(default_factory=list)
    """The learning phases, in file order."""
    cells: list[GameSpec] = Field(default_factory=list)
    """The cells' games."""
    reads: dict[str, str] = Field(default_factory=dict)
    """Cell name (as in its games) -> the phase whose frozen store it reads."""
    entries: dict[str, str] = Field(default_factory=dict)
    """Cell name (as in its games) -> where the file declares it (`cells.TAG`,
    `phases.NAME`), for messages."""

    @property
    def games(self) -> list[GameSpec]:
        return [spec for phase in self.phases for spec in phase.games] + self.cells

    def phase(self, name: str) -> PhasePlan:
        return next(phase for phase in self.phases if phase.name == name)

    def readers(self, phase: str) -> list[GameSpec]:
        """The cell games that read a phase's frozen store."""
        return [spec for spec in self.cells if self.reads.get(spec.cell) == phase]


def default_archive(meta: ExperimentMeta) -> Path:
    """Where an experiment's runs go: `[experiment] archive`, else `runs/<name>.sqlite`."""
    return meta.archive or Path("runs") / f"{meta.name}.sqlite"


def stores_dir(meta: ExperimentMeta, archive_path: Path | None = None) -> Path:
    """Where the phases' stores live: `[experiment] stores`, else beside the archive
    (`runs/NAME.stores/EXPERIMENT/` for `runs/NAME.sqlite`)."""
    if meta.stores is not None:
        return meta.stores
    archive = Path(archive_path or default_archive(meta))
    return archive.with_name(f"{archive.stem}.stores") / safe_name(meta.name)


class Stages:
    """Expands an experiment file into its `Plan` (`source`: the file it was read from,
    against which relative `scripted:` paths are resolved)."""

    def __init__(self, spec: ExperimentFile, source: Path | None = None) -> None:
        self.spec, self.source = spec, source
        self.name = spec.experiment.name

    def stages(self, archive_path: Path | None = None) -> Plan:
        """The phases and the cells, with every store path filled in (`archive_path`, the
        archive actually used, places the default stores beside it)."""
        phases = [self._phase_plan(phase, archive_path) for phase in self.spec.phases]
        frozen = {phase.name: phase.frozen for phase in phases}
        plan = Plan(phases=phases, entries={p.name: f"phases.{p.name}" for p in phases})
        for cell in self.spec.cells:
            for point in matrix_points(self.spec.matrix):
                name = cell.label + point_suffix(point)
                plan.entries[name] = f"cells.{cell.label}"
                store = frozen.get(cell.store_from or "")
                plan.cells.extend(self._games(cell, name, cell.tag, point, store))
                if cell.store_from:
                    plan.reads[name] = cell.store_from
        return plan

    def _phase_plan(self, phase: PhaseConfig, archive_path: Path | None) -> PhasePlan:
        store = phase.store or stores_dir(self.spec.experiment, archive_path) / phase.name
        store = store.absolute()
        games = self._games(phase, phase.name, phase.tag or phase.name, {}, store)
        return PhasePlan(name=phase.name, store=store, frozen=frozen_path(store), games=games)

    def _games(
        self,
        entry: CellConfig | PhaseConfig,
        name: str,
        tag: str,
        point: dict[str, Scalar],
        store: Path | None,
    ) -> list[GameSpec]:
        """The games of one cell at one matrix point, or of one phase (`store`: the store
        its contract reads or writes)."""
        settings = merged_settings(self.spec.defaults, entry)
        missing = [f for f in ("env", "contract", "model") if settings.get(f) is None]
        if missing:
            raise ConfigError(
                f"{self._where()}{kind_of(entry)} {name!r}: no {', '.join(missing)} "
                "(set it there or in [defaults])"
            )
        config = dict(settings.get("contract_config") or {})
        cap = settings.get("reasoning_chars")
        if cap is not None:
            config["reasoning_chars"] = None if cap == "none" else cap
        if settings.get("reply") is not None:
            config["reply"] = settings["reply"]
        if store is not None:
            config["store_dir"] = str(store)
        common = {
            "experiment": self.name,
            "cell": name,
            "tag": tag,
            "env": settings["env"],
            "contract": settings["contract"],
            "model": self._resolve_model(settings["model"]),
            "models": {
                kind: self._resolve_model(spec)
                for kind, spec in (settings.get("models") or {}).items()
            },
            "base_url": settings.get("base_url"),
            "model_options": settings.get("model_options") or {},
            "env_options": {**(settings.get("env_options") or {}), **point},
            "contract_config": config,
        }
        for budget in ("max_tokens", "temperature", "max_decisions", "seed_draw"):
            if settings.get(budget) is not None:
                common[budget] = settings[budget]
        seeds = cell_seeds(settings, self.name, name)
        return [GameSpec(seed=seed, **common) for seed in seeds]

    def _resolve_model(self, model: str) -> str:
        kind, sep, path = model.partition(":")
        if kind != "scripted" or not sep or self.source is None or Path(path).is_absolute():
            return model
        beside = self.source.parent / path
        return f"scripted:{beside}" if beside.is_file() else model

    def _where(self) -> str:
        return f"{self.source}: " if self.source else ""


def stable_key(value: Any) -> str:
    """A canonical text form of JSON-able settings, to tell distinct settings apart."""
    return json.dumps(value, sort_keys=True, default=str)


def safe_name(name: str) -> str:
    """A name usable as one path component."""
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", name)


def kind_of(entry: CellSettings) -> str:
    return "phase" if isinstance(entry, PhaseConfig) else "cell"


def frozen_path(store: Path) -> Path:
    """Where a phase's store is frozen: `<store>.frozen` beside it."""
    return store.with_name(f"{store.name}.frozen")


def matrix_points(matrix: dict[str, list[Scalar]]) -> list[dict[str, Scalar]]:
    """The cartesian product of the matrix axes, in file order (one empty point if none)."""
    keys = list(matrix)
    return [dict(zip(keys, values, strict=True)) for values in itertools.product(*matrix.values())]


def point_suffix(point: dict[str, Scalar]) -> str:
    if not point:
        return ""
    return "[" + ",".join(f"{key}={value}" for key, value in point.items()) + "]"


__all__ = [
    "PhasePlan",
    "Plan",
    "Stages",
    "default_archive",
    "frozen_path",
    "matrix_points",
    "stable_key",
    "stores_dir",
]
