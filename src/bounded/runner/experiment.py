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
"""

from __future__ import annotations

import itertools
import json
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bounded.core import JSON, ConfigError
from bounded.runner.spec import GameSpec

Scalar = str | int | float | bool


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExperimentMeta(_Strict):
    """The `[experiment]` table."""

    name: str = Field(min_length=1)
    """The experiment's name: the first part of every game's resume key."""
    archive: Path | None = None
    """Where the runs go (default `runs/<name>.sqlite`); `--archive` overrides it."""
    description: str = ""
    """Free text kept for humans."""


class CellSettings(_Strict):
    """Settings a cell may set itself or inherit from `[defaults]`."""

    env: str | None = None
    """Environment short name or Gymnasium id (`warehouse`, `bounded/Spire-v0`)."""
    contract: str | None = None
    """Memory contract or preset name (`state`, `typed`, `episodic-no-fusion`)."""
    model: str | None = None
    """Model spec: `local`, `local:PATH.gguf`, `openai:MODEL`, `scripted:FILE.jsonl`."""
    base_url: str | None = None
    """Endpoint of an OpenAI-compatible server, for `openai:` models."""
    env_options: JSON | None = None
    """Fixed environment settings (ascension, level, style, map, horizon, budgets)."""
    contract_config: JSON | None = None
    """Contract settings, over the preset's."""
    seeds: list[int] | None = None
    """Explicit seeds; exclusive with `games`."""
    games: int | None = Field(default=None, ge=1)
    """Number of games: seeds `first_seed` .. `first_seed + games - 1`."""
    first_seed: int | None = None
    """First seed when `games` is given (default 0)."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Reply token limit per model call (default 256)."""
    temperature: float | None = Field(default=None, ge=0)
    """Sampling temperature (default 0)."""
    max_decisions: int | None = Field(default=None, ge=1)
    """Decision budget per game (default 100,000)."""

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


class ExperimentFile(_Strict):
    """A whole experiment file."""

    experiment: ExperimentMeta
    """Name, archive and description."""
    defaults: CellSettings = Field(default_factory=CellSettings)
    """Settings every cell inherits unless it sets its own."""
    cells: list[CellConfig] = Field(min_length=1)
    """The conditions compared."""
    matrix: dict[str, list[Scalar]] = Field(default_factory=dict)
    """Environment settings crossed with every cell (each list is one axis)."""

    @model_validator(mode="after")
    def _unique_cells(self) -> ExperimentFile:
        names = [cell.name or cell.tag for cell in self.cells]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"cell names must be unique; repeated: {', '.join(duplicates)}")
        empty = [key for key, values in self.matrix.items() if not values]
        if empty:
            raise ValueError(f"matrix axes must not be empty: {', '.join(empty)}")
        return self


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
    def archive(self) -> Path:
        return self.spec.experiment.archive or Path("runs") / f"{self.name}.sqlite"

    def plan(self) -> list[GameSpec]:
        """Every game of the experiment, cell by cell, matrix point by point, seed by seed."""
        games = []
        for cell in self.spec.cells:
            for point in matrix_points(self.spec.matrix):
                games.extend(self._cell_games(cell, point))
        return games

    def _cell_games(self, cell: CellConfig, point: dict[str, Scalar]) -> list[GameSpec]:
        settings = merged_settings(self.spec.defaults, cell)
        missing = [f for f in ("env", "contract", "model") if settings.get(f) is None]
        if missing:
            raise ConfigError(
                f"{self._where()}cell {cell.tag!r}: no {', '.join(missing)} "
                "(set it in the cell or in [defaults])"
            )
        name = (cell.name or cell.tag) + point_suffix(point)
        common = {
            "experiment": self.name,
            "cell": name,
            "tag": cell.tag,
            "env": settings["env"],
            "contract": settings["contract"],
            "model": self._resolve_model(settings["model"]),
            "base_url": settings.get("base_url"),
            "env_options": {**(settings.get("env_options") or {}), **point},
            "contract_config": settings.get("contract_config") or {},
        }
        for budget in ("max_tokens", "temperature", "max_decisions"):
            if settings.get(budget) is not None:
                common[budget] = settings[budget]
        return [GameSpec(seed=seed, **common) for seed in cell_seeds(settings)]

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


def merged_settings(defaults: CellSettings, cell: CellConfig) -> dict[str, Any]:
    """A cell's settings over the defaults; `seeds` and `games` replace each other."""
    merged = defaults.model_dump(exclude_none=True)
    own = cell.model_dump(exclude_none=True, exclude={"tag", "name"})
    if "seeds" in own or "games" in own:
        merged.pop("seeds", None)
        merged.pop("games", None)
    merged.update(own)
    return merged


def cell_seeds(settings: dict[str, Any]) -> list[int]:
    if settings.get("seeds") is not None:
        return list(settings["seeds"])
    first = settings.get("first_seed") or 0
    return list(range(first, first + (settings.get("games") or 1)))


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
    return Experiment(spec=spec, source=source)


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
    "load_experiment",
    "parse_experiment",
]
