"""`GameSpec`: everything needed to build and play one game, as plain data.

Every path that plays a game (`bounded run`, sweeps and their workers, the demo, the
ladder, the bank bootstrap, the Python API) describes it with a `GameSpec` and plays it
with `bounded.runner.play`, so a game is built one way only and its archived row says
the same things whichever path made it. The spec is stored with the run.

It is also the one settings model: an experiment's cells (`CellSettings`), `bounded run`'s
options and inspect's tasks and solver take their fields and defaults from it, and leave
an environment's options that they do not set to the environment's own defaults.

Seeds, one rule: a lone game plays `DEFAULT_SEED` (1), and N games play the seeds
`DEFAULT_SEED` .. `DEFAULT_SEED + N - 1` (a sweep cell's `games = N` without `first_seed`,
inspect's `seeds=N`), so `bounded run`, the demo and the first game of a sweep or an
inspect task are the same game. That is the paired draw (`seed_draw = "paired"`): every cell
of a sweep plays the same seeds. `seed_draw = "balrog"` draws each game's seed as BALROG's
evaluator does (`get_unique_seed`: the first 8 hex digits of a SHA-256, a 32-bit seed), per
cell and game, so cells play unrelated seeds as BALROG's agents do; the hash is of the
experiment, the cell and the game's index instead of BALROG's process id and clock, so that
a resumed sweep plans the same games (`balrog_seeds`).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bounded.core import (
    DEFAULT_MAX_TOKENS,
    JSON,
    BoundedError,
    ConfigError,
    RunRecord,
    first_validation_error,
)

DEFAULT_MAX_DECISIONS = 100_000
DEFAULT_SEED = 1
SeedDraw = Literal["paired", "balrog"]
"""How a sweep cell's seeds are drawn (see the module docstring)."""
DEFAULT_CONTRACT = "state"
DEFAULT_MODEL = "local"
"""The seed of a game that names none, and the first of N games (see the module docstring)."""


class GameSpec(BaseModel):
    """One game: environment, contract, model, seed, and the generation settings."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    env: str
    """Environment: short name (`spire`), Gymnasium id, `module:Env-v0`, or a plugin's name."""
    env_options: JSON = Field(default_factory=dict)
    """Environment constructor settings (ascension, level, horizon, task, ...)."""
    contract: str = DEFAULT_CONTRACT
    """Contract, preset, import path (`pkg.mod:Mine`) or a plugin's name."""
    contract_config: JSON = Field(default_factory=dict)
    """Contract settings, over the preset's."""
    model: str = DEFAULT_MODEL
    """Model spec: `local`, `local:PATH.gguf`, `openai:MODEL`, `scripted:FILE`, a plugin's
    `kind:REST`, or an import path."""
    models: dict[str, str] = Field(default_factory=dict)
    """Model tiers: decision kind -> model spec, for decisions of that kind (AgenticSTS: a
    fast model for `combat`, the strategic `model` elsewhere). Decisions of other kinds and
    the contract's own calls (summaries, postrun learning) go to `model`."""
    base_url: str | None = None
    """Endpoint of an OpenAI-compatible server, for `openai:` models."""
    model_options: JSON = Field(default_factory=dict)
    """Options for every model the spec builds (`make_model(spec, **model_options)`), e.g.
    `{"retry": {"timeout_s": 60, "attempts": 3}}` for `openai:` models (see
    `bounded.models.openai_compat.RetryPolicy`); in-process models ignore `retry`."""
    seed: int = DEFAULT_SEED
    """Episode seed."""
    seed_draw: SeedDraw = "paired"
    """How the seed was drawn: `paired` (every cell the same seeds) or `balrog` (BALROG's
    draw, unrelated per cell and game; `balrog_seeds`)."""
    tag: str = ""
    """Condition tag stored with the run (default: the contract's name)."""
    experiment: str = ""
    """Experiment name, for games planned by an experiment file."""
    cell: str = ""
    """Cell name within the experiment."""
    max_tokens: int = Field(default=DEFAULT_MAX_TOKENS, ge=1)
    """Reply token limit per model call; left unset, the contract's (`paper_max_tokens`:
    BALROG's 8,192 for the balrog agents), else this default."""
    temperature: float | None = Field(default=None, ge=0)
    """Sampling temperature; None: the contract's (`paper_temperature`: 0.1 for EpicStar
    and CoS, 1.0 for the balrog agents), else 0."""
    max_decisions: int = Field(default=DEFAULT_MAX_DECISIONS, ge=1)
    """Decision budget."""

    @property
    def key(self) -> tuple[str, str, int]:
        """The resume key: a sweep plays each key exactly once."""
        return (self.experiment, self.cell, self.seed)

    @property
    def label(self) -> str:
        return f"{self.cell or self.tag or self.contract} seed {self.seed}"

    @property
    def run_tag(self) -> str:
        return self.tag or self.contract


GameKey = tuple[str, str, int]
"""(experiment, cell, seed): a sweep plays each key exactly once."""


def run_key(run: RunRecord) -> GameKey:
    """The resume key of an archived run (`GameSpec.key` of the spec that made it)."""
    return (run.experiment, run.cell, run.seed)


def duplicates_of(runs: Iterable[RunRecord]) -> dict[GameKey, int]:
    """Games of an experiment completed more than once: (experiment, cell, seed) -> count."""
    counts = Counter(run_key(r) for r in runs if r.status == "completed" and r.experiment)
    return {key: n for key, n in counts.items() if n > 1}


def check_no_duplicates(runs: Iterable[RunRecord]) -> None:
    """Raise a one-line `BoundedError` naming the first cell that holds a game twice."""
    found = duplicates_of(runs)
    if found:
        (experiment, cell, seed), count = min(found.items())
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise BoundedError(
            f"duplicate games: cell {cell!r} of experiment {experiment!r} holds seed {seed} "
            f"{count} times{more}"
        )


def seed_range(games: int, first: int | None = None) -> list[int]:
    """The seeds of `games` games from `first` (default `DEFAULT_SEED`)."""
    start = DEFAULT_SEED if first is None else first
    return list(range(start, start + games))


def balrog_seeds(games: int, experiment: str, cell: str) -> list[int]:
    """The seeds of `games` games drawn as BALROG's `get_unique_seed` draws them (the first
    8 hex digits of a SHA-256 of what identifies the game), from the experiment, the cell
    and each game's index in place of BALROG's process id, index and clock."""
    return [
        int(hashlib.sha256(f"{experiment}_{cell}_{index}".encode()).hexdigest()[:8], 16)
        for index in range(games)
    ]


def make_spec(**fields: Any) -> GameSpec:
    """A `GameSpec` from a user's settings; a bad one is a one-line error naming the field.
    Fields given as None take their defaults."""
    try:
        return GameSpec(**{name: value for name, value in fields.items() if value is not None})
    except ValidationError as exc:
        raise ConfigError(f"bad game settings: {first_validation_error(exc)}") from exc


__all__ = [
    "DEFAULT_CONTRACT",
    "DEFAULT_MAX_DECISIONS",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_MODEL",
    "DEFAULT_SEED",
    "GameKey",
    "GameSpec",
    "SeedDraw",
    "balrog_seeds",
    "check_no_duplicates",
    "duplicates_of",
    "make_spec",
    "run_key",
    "seed_range",
]
