"""Experiment files: a matrix of games declared in TOML and validated by pydantic.

An experiment is a list of cells (a condition tag with its environment, contract or
preset, model and settings), crossed with an optional matrix of environment settings,
each played on a list of seeds. `plan()` expands it into `GameSpec`s, one per game,
each identified by the key (experiment, cell, seed) that makes sweeps resumable.

```toml
[experiment]
name = "warehouse-contracts"
archive = "runs/warehouse.sqlite"

[defaults]
env = "warehouse"
model = "local"
games = 5          # seeds first_seed .. first_seed + games - 1
env_options = { horizon = 30 }

[[cells]]
tag = "state"
contract = "state"

[[cells]]
tag = "transcript"
contract = "transcript"

[matrix]           # environment settings crossed with every cell
horizon = [10, 30]
```

**Learning phases.** `[[phases]]` are played before the cells, in file order. A phase
plays its games one after another in the driver's process (each learns from the ones
before) with a learning contract, a typed preset with a writable L4 or L5 (`mode-b`,
`self-evolve`), whose `store_dir` is the phase's store. Once all its games are completed,
the store is frozen: copied read-only to `<store>.frozen/` and its SHA-256 snapshot hash
(`bounded.stores.snapshot.directory_hash`) recorded in the archive. A cell that names the
phase in `store_from` reads that snapshot (its contract's `store_dir` is the frozen copy)
and refuses to start if the copy no longer hashes as recorded. A phase takes the cell
settings and inherits `[defaults]`; it is not crossed with `[matrix]`.

```toml
[experiment]
name = "spire-a0"
stores = "stores/spire-a0"    # the phases' stores (default: runs/spire-a0.stores/spire-a0)

[[phases]]
name = "learn-mode-b"     # the phase's name in resume keys, tag and store directory
contract = "mode-b"       # a learning preset: writes L5
games = 10
first_seed = 1001
# store = "stores/spire-mode-b"   # default <stores>/<name>; frozen to <store>.frozen

[[cells]]
tag = "mode-b-frozen"
contract = "mode-b-frozen"
store_from = "learn-mode-b"   # reads the phase's frozen store
```

Mistakes are refused before any game with one line naming the field: an unknown phase in
`store_from`, a phase whose contract writes no layer, a cell that would write a phase's
store, a cell with frozen stores but neither `store_from` nor `contract_config.store_dir`,
a cell reading a layer its phase never writes (`Experiment.problems`).
"""

from __future__ import annotations

import itertools
import json
import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator

from bounded.analysis.cost import CURRENCY, Prices
from bounded.core import ConfigError
from bounded.protocols import ReplyMode
from bounded.runner.spec import GameSpec, balrog_seeds, seed_range

Scalar = str | int | float | bool

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$"
"""A phase's name: it names a directory."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExperimentMeta(_Strict):
    """The `[experiment]` table."""

    name: str = Field(min_length=1)
    """The experiment's name: the first part of every game's resume key."""
    archive: Path | None = None
    """Where the runs go (default `runs/<name>.sqlite`); the sweep's ARCHIVE argument
    overrides it."""
    description: str = ""
    """Free text kept for humans."""
    stores: Path | None = None
    """Where learning phases keep their stores (default: beside the archive,
    `runs/NAME.stores/EXPERIMENT/` for `runs/NAME.sqlite`)."""
    concurrency: Annotated[int, Field(ge=1)] | None = None
    """Games each sweep worker plays at once, for remote models (default 1;
    `--concurrency` overrides it; `bounded.sweeps.concurrency`)."""


SPEC_SETTINGS = (
    "env",
    "contract",
    "model",
    "models",
    "base_url",
    "model_options",
    "env_options",
    "contract_config",
    "max_tokens",
    "temperature",
    "max_decisions",
    "seed_draw",
)
"""The `GameSpec` fields a cell (or `[defaults]`) may set; one it leaves unset takes the
spec's default."""


def unset_field(name: str) -> tuple[Any, Any]:
    """A `GameSpec` field as a cell's setting: its type and constraints, None when unset."""
    info = GameSpec.model_fields[name]
    kind: Any = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
    return kind | None, Field(default=None, description=info.description)


_SPEC_FIELDS: dict[str, Any] = {name: unset_field(name) for name in SPEC_SETTINGS}
_SpecSettings: type[BaseModel] = create_model("_SpecSettings", __base__=_Strict, **_SPEC_FIELDS)


class CellSettings(_SpecSettings):  # type: ignore[misc,valid-type]
    """Settings a cell may set itself or inherit from `[defaults]`: the `GameSpec` fields
    of `SPEC_SETTINGS` (unset: the spec's defaults), the reasoning cap and the seeds."""

    reasoning_chars: Annotated[int, Field(ge=1)] | Literal["none", "model"] | None = None
    """Cap on a reply's reasoning in characters, `none` (no cap) or `model` (the model's own
    budget: the contracts' default); sets `contract_config.reasoning_chars`."""
    reply: ReplyMode | None = None
    """The reply mode (`constrained`, `json` or `text`; unset: the contract's default, its
    paper's for a paper's contract, docs/replies.md); sets `contract_config.reply`."""
    seeds: list[int] | None = None
    """Explicit seeds; exclusive with `games`."""
    games: int | None = Field(default=None, ge=1)
    """Number of games: seeds `first_seed` .. `first_seed + games - 1`."""
    first_seed: int | None = None
    """First seed when `games` is given (default `spec.DEFAULT_SEED`, 1)."""

    @model_validator(mode="after")
    def _seeds_or_games(self) -> CellSettings:
        if self.seeds is not None and self.games is not None:
            raise ValueError("give either `seeds` or `games`, not both")
        return self


class CellConfig(CellSettings):
    """One `[[cells]]` entry: a condition tag and what differs from the defaults."""

    tag: str = Field(min_length=1)
    """The condition tag stored with every run of the cell; analysis groups by it."""
    name: str | None = None
    """The cell's name in resume keys (default: the tag)."""
    store_from: str | None = None
    """A phase's name: the cell's contract reads that phase's frozen store (its `store_dir`
    is set to the snapshot)."""

    @property
    def label(self) -> str:
        return self.name or self.tag


class PhaseConfig(CellSettings):
    """One `[[phases]]` entry: games played in order by a learning contract into one store,
    which is frozen once they are all completed."""

    name: str = Field(min_length=1, pattern=NAME_PATTERN)
    """The phase's name: its cell name in resume keys, and its store directory's name."""
    tag: str | None = None
    """The condition tag stored with the phase's runs (default: the name)."""
    store: Path | None = None
    """The store the phase writes (default `<experiment.stores>/<name>`); it is frozen to
    `<store>.frozen`."""


class ExperimentFile(_Strict):
    """A whole experiment file."""

    experiment: ExperimentMeta
    """Name, archive and description."""
    defaults: CellSettings = Field(default_factory=CellSettings)
    """Settings every cell inherits unless it sets its own."""
    phases: list[PhaseConfig] = Field(default_factory=list)
    """Learning phases, played in order before the cells (see the module's docstring)."""
    cells: list[CellConfig] = Field(min_length=1)
    """The conditions compared."""
    matrix: dict[str, list[Scalar]] = Field(default_factory=dict)
    """Environment settings crossed with every cell (each list is one axis)."""
    prices: dict[str, Prices] = Field(default_factory=dict)
    """Prices per model id (`default`: every other model): the sweep's budget and spend,
    stored in the archive for the cost columns of `analyze`, `table`, `report` and `audit`
    (`bounded.analysis.cost`)."""
    currency: str = Field(default=CURRENCY, min_length=1)
    """The currency of `prices` (a top-level `currency = "EUR"`; default USD)."""

    @model_validator(mode="after")
    def _unique_cells(self) -> ExperimentFile:
        names = [cell.label for cell in self.cells] + [phase.name for phase in self.phases]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(
                f"cell and phase names must be unique; repeated: {', '.join(duplicates)}"
            )
        empty = [key for key, values in self.matrix.items() if not values]
        if empty:
            raise ValueError(f"matrix axes must not be empty: {', '.join(empty)}")
        return self

    def phase(self, name: str) -> PhaseConfig | None:
        return next((phase for phase in self.phases if phase.name == name), None)


class Problem(NamedTuple):
    """A setting that cannot work."""

    entry: str
    """The cell or phase it is in (`cells.NAME`, `phases.NAME`)."""
    line: str
    """One line naming the field (`FILE: cells.NAME.store_from: ...`)."""


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


class Experiment(BaseModel):
    """A validated experiment file, with paths resolved."""

    spec: ExperimentFile
    """The file's content."""
    source: Path | None = None
    """The file it was read from (relative `scripted:` paths are resolved against it)."""

    @property
    def name(self) -> str:
        return self.spec.experiment.name

    @property
    def concurrency(self) -> int:
        """Games each sweep worker plays at once (`[experiment] concurrency`, else 1)."""
        return self.spec.experiment.concurrency or 1

    @property
    def archive(self) -> Path:
        return self.spec.experiment.archive or Path("runs") / f"{self.name}.sqlite"

    def stores(self, archive_path: Path | None = None) -> Path:
        """Where the phases' stores live: `[experiment] stores`, else beside the archive
        (`runs/NAME.stores/EXPERIMENT/` for `runs/NAME.sqlite`)."""
        if self.spec.experiment.stores is not None:
            return self.spec.experiment.stores
        archive = Path(archive_path or self.archive)
        return archive.with_name(f"{archive.stem}.stores") / safe_name(self.name)

    def plan(self, archive_path: Path | None = None) -> list[GameSpec]:
        """Every game of the experiment: the phases' in play order, then cell by cell,
        matrix point by matrix point, seed by seed."""
        return self.stages(archive_path).games

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
        store = (phase.store or self.stores(archive_path) / phase.name).absolute()
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


def merged_settings(defaults: CellSettings, cell: CellSettings) -> dict[str, Any]:
    """A cell's (or a phase's) settings over the defaults; `seeds` and `games` replace each
    other."""
    merged = defaults.model_dump(exclude_none=True)
    own = cell.model_dump(include=set(CellSettings.model_fields), exclude_none=True)
    if "seeds" in own or "games" in own:
        merged.pop("seeds", None)
        merged.pop("games", None)
    merged.update(own)
    return merged


def safe_name(name: str) -> str:
    """A name usable as one path component."""
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", name)


def kind_of(entry: CellSettings) -> str:
    return "phase" if isinstance(entry, PhaseConfig) else "cell"


def frozen_path(store: Path) -> Path:
    """Where a phase's store is frozen: `<store>.frozen` beside it."""
    return store.with_name(f"{store.name}.frozen")


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


def cell_seeds(settings: dict[str, Any], experiment: str = "", cell: str = "") -> list[int]:
    """A cell's seeds: its `seeds`, else `games` of them drawn by its `seed_draw` (paired:
    from `first_seed`; balrog: `balrog_seeds` of the experiment and cell)."""
    if settings.get("seeds") is not None:
        if settings.get("seed_draw") == "balrog":
            raise ConfigError('seed_draw = "balrog" draws the seeds: give `games`, not `seeds`')
        return list(settings["seeds"])
    games = settings.get("games") or 1
    if settings.get("seed_draw") == "balrog":
        return balrog_seeds(games, experiment, cell)
    return seed_range(games, settings.get("first_seed"))


def matrix_points(matrix: dict[str, list[Scalar]]) -> list[dict[str, Scalar]]:
    """The cartesian product of the matrix axes, in file order (one empty point if none)."""
    keys = list(matrix)
    return [dict(zip(keys, values, strict=True)) for values in itertools.product(*matrix.values())]


def point_suffix(point: dict[str, Scalar]) -> str:
    if not point:
        return ""
    return "[" + ",".join(f"{key}={value}" for key, value in point.items()) + "]"


def validation_message(exc: ValidationError, source: str) -> str:
    """One line per error, each naming the field by its dotted path in the file."""
    lines = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "(file)"
        lines.append(f"{source}: {where}: {error['msg']}")
    return "; ".join(lines)


def parse_experiment(data: dict[str, Any], *, source: Path | None = None) -> Experiment:
    """Validate an already-parsed experiment table."""
    try:
        spec = ExperimentFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(validation_message(exc, str(source or "experiment"))) from exc
    unknown = unknown_phases(spec)
    if unknown:
        raise ConfigError("; ".join(f"{source or 'experiment'}: {line}" for line in unknown))
    return Experiment(spec=spec, source=source)


def unknown_phases(spec: ExperimentFile) -> list[str]:
    """A line per cell whose `store_from` names no phase of the file."""
    names = [phase.name for phase in spec.phases]
    known = ", ".join(names) or "none"
    return [
        f"cells.{cell.label}.store_from: unknown phase {cell.store_from!r} (phases: {known})"
        for cell in spec.cells
        if cell.store_from is not None and cell.store_from not in names
    ]


def load_experiment(path: str | Path) -> Experiment:
    """Read and validate an experiment TOML file; errors name the file and the field."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError as exc:
        raise ConfigError(f"experiment file not found: {path}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    return parse_experiment(data, source=path)


__all__ = [
    "CellConfig",
    "CellSettings",
    "Experiment",
    "ExperimentFile",
    "ExperimentMeta",
    "GameSpec",
    "PhaseConfig",
    "PhasePlan",
    "Plan",
    "Problem",
    "StoreUse",
    "frozen_path",
    "load_experiment",
    "parse_experiment",
]
