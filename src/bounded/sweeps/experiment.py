"""An experiment: a validated experiment file (`bounded.sweeps.experiment_file` says what
it holds), read from TOML, with its paths resolved; its plan (`stages`,
`bounded.sweeps.stages`) and the settings of it that cannot work (`problems`,
`bounded.sweeps.store_use`)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from bounded.core import ConfigError
from bounded.runner.spec import GameSpec
from bounded.sweeps.experiment_file import ExperimentFile, unknown_phases, validation_message
from bounded.sweeps.stages import Plan, Stages, default_archive, stores_dir
from bounded.sweeps.store_use import Problem, problems


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
        return default_archive(self.spec.experiment)

    def stores(self, archive_path: Path | None = None) -> Path:
        """Where the phases' stores live (`bounded.sweeps.stages.stores_dir`)."""
        return stores_dir(self.spec.experiment, archive_path)

    def plan(self, archive_path: Path | None = None) -> list[GameSpec]:
        """Every game of the experiment: the phases' in play order, then cell by cell,
        matrix point by matrix point, seed by seed."""
        return self.stages(archive_path).games

    def stages(self, archive_path: Path | None = None) -> Plan:
        """The phases and the cells, with every store path filled in (`archive_path`, the
        archive actually used, places the default stores beside it). A command builds it
        once and passes it down."""
        return Stages(self.spec, self.source).stages(archive_path)

    def problems(self) -> list[Problem]:
        """Phase and cell settings that cannot work (`bounded.sweeps.store_use.problems`)."""
        return problems(self.spec, self.source)


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


__all__ = ["Experiment", "load_experiment", "parse_experiment"]
