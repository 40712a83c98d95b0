"""An experiment file's tables, validated by pydantic: a matrix of games declared in TOML.

An experiment is a list of cells (a condition tag with its environment, contract or
preset, model and settings), crossed with an optional matrix of environment settings,
each played on a list of seeds. `bounded.sweeps.stages` expands it into `GameSpec`s, one
per game, each identified by the key (experiment, cell, seed) that makes sweeps
resumable; `bounded.sweeps.experiment` reads a file into an `Experiment`.

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
a cell reading a layer its phase never writes (`bounded.sweeps.store_use.problems`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

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


def validation_message(exc: ValidationError, source: str) -> str:
    """One line per error, each naming the field by its dotted path in the file."""
    lines = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "(file)"
        lines.append(f"{source}: {where}: {error['msg']}")
    return "; ".join(lines)


def unknown_phases(spec: ExperimentFile) -> list[str]:
    """A line per cell whose `store_from` names no phase of the file."""
    names = [phase.name for phase in spec.phases]
    known = ", ".join(names) or "none"
    return [
        f"cells.{cell.label}.store_from: unknown phase {cell.store_from!r} (phases: {known})"
        for cell in spec.cells
        if cell.store_from is not None and cell.store_from not in names
    ]


__all__ = [
    "SPEC_SETTINGS",
    "CellConfig",
    "CellSettings",
    "ExperimentFile",
    "ExperimentMeta",
    "PhaseConfig",
    "Scalar",
    "cell_seeds",
    "merged_settings",
    "unknown_phases",
    "validation_message",
]
