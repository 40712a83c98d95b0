"""The experiment's design as data: each game's treatment, block and unit.

A memory study crosses tasks with memory designs on common seeds. Every game, archived
(`RunRecord`) or planned (a `GameSpec` as a dict, what `bounded sweep --dry-run` sees),
has:

- its *treatment*, the memory under test: the run's tag, else its contract or preset;
- its *block*, the task: the environment plus the environment options that define the
  game. An experiment file's `[matrix]` crosses environment options with every cell and
  names each point in the cell's name (`balrog-naive[level=goto]`); those options are the
  block. Where no game of an environment records a matrix point (games of `bounded run`),
  the block is the environment plus every option that varies *within* a treatment (the
  same memory played on several values is a task dimension). An option constant within
  each treatment but differing between them is no block: it is a confound, which the
  parity report flags;
- its *unit*, the seed.

Two treatments are compared on the games they share a (block, unit) with. Where a
treatment mixes settings that are neither treatment nor block (two reply modes, two
`max_decisions`, two temperatures, an environment option off the matrix), the `Design`
lists a `MixedSetting`, so that a table splits or flags it instead of pooling silently.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bounded.analysis.settings import missing_value, settings_of_run, settings_of_spec
from bounded.core import RunRecord

Block = tuple[tuple[str, str], ...]
"""(("env", name), (option, value), ...): a task, the environment first."""
Key = tuple[Block, int]
"""(block, unit): what pairs two treatments' games."""

ENV = "env"
UNSET = "(default)"
"""A block option a game leaves to the environment's default."""

_POINT = re.compile(r"\[([^\[\]]*)\]$")
_POINT_KEY = re.compile(r"(?:^|,)([A-Za-z_][\w.-]*)=")


class GameDesign(BaseModel):
    """One game's place in the design."""

    model_config = ConfigDict(frozen=True)

    treatment: str
    block: Block
    unit: int

    @property
    def env(self) -> str:
        return dict(self.block).get(ENV, "")

    @property
    def block_label(self) -> str:
        """`babyai level=goto`; the environment alone for a block with no options."""
        return block_label(self.block)

    @property
    def key(self) -> Key:
        return (self.block, self.unit)


class MixedSetting(BaseModel):
    """A setting that takes several values within one treatment, neither treatment nor
    block: its games are not one condition."""

    model_config = ConfigDict(frozen=True)

    treatment: str
    setting: str
    values: tuple[str, ...]

    def line(self) -> str:
        return f"{self.treatment} mixes {self.setting}: {' / '.join(self.values)}"


class PairedGames(BaseModel):
    """Two treatments' games on one (block, unit): indices into the games the design was
    built from."""

    model_config = ConfigDict(frozen=True)

    block: Block
    unit: int
    first: int
    second: int


class Design(BaseModel):
    """Many games' design: their blocks, treatments and units, which games pair, and the
    settings a treatment mixes."""

    games: list[GameDesign] = Field(default_factory=list)
    """One per game, in the order given."""
    mixed: list[MixedSetting] = Field(default_factory=list)

    @property
    def blocks(self) -> list[Block]:
        return sorted({game.block for game in self.games})

    @property
    def treatments(self) -> list[str]:
        return sorted({game.treatment for game in self.games})

    @property
    def units(self) -> list[int]:
        return sorted({game.unit for game in self.games})

    @property
    def block_options(self) -> list[str]:
        """Every option that defines a block somewhere in the design (the environment
        apart)."""
        return sorted({key for block in self.blocks for key, _ in block if key != ENV})

    def block_label(self, block: Block) -> str:
        return block_label(block)

    def games_of(self, treatment: str) -> dict[Key, list[int]]:
        """A treatment's games by (block, unit): indices into the games given."""
        found: dict[Key, list[int]] = {}
        for index, game in enumerate(self.games):
            if game.treatment == treatment:
                found.setdefault(game.key, []).append(index)
        return found

    def duplicates(self) -> dict[tuple[str, Block, int], int]:
        """(treatment, block, unit) held by more than one game -> how many."""
        counts: dict[tuple[str, Block, int], int] = {}
        for game in self.games:
            key = (game.treatment, game.block, game.unit)
            counts[key] = counts.get(key, 0) + 1
        return {key: n for key, n in counts.items() if n > 1}

    def pairs(self, first: str, second: str) -> list[PairedGames]:
        """The games of two treatments paired on (block, unit), in block and unit order;
        a key either treatment holds twice pairs nothing (`duplicates` names it)."""
        mine, theirs = self.games_of(first), self.games_of(second)
        return [
            PairedGames(block=block, unit=unit, first=mine[key][0], second=theirs[key][0])
            for key in sorted(mine.keys() & theirs.keys())
            for block, unit in [key]
            if len(mine[key]) == 1 and len(theirs[key]) == 1
        ]

    def mixed_in(self, treatment: str) -> list[MixedSetting]:
        return [entry for entry in self.mixed if entry.treatment == treatment]


def value_order(value: str) -> tuple[int, float | str]:
    """Numbers in numeric order, before words."""
    try:
        return (0, float(value))
    except ValueError:
        return (1, value)


def block_label(block: Block) -> str:
    env = dict(block).get(ENV, "")
    options = " ".join(f"{key}={value}" for key, value in block if key != ENV)
    return f"{env} {options}".strip() if options else env


# -- one game -------------------------------------------------------------------------------


def matrix_keys(cell: str) -> list[str]:
    """The options of the matrix point a cell's name carries (`name[level=goto,seed=2]`:
    level, seed), in order; none for a cell with no point."""
    found = _POINT.search(cell or "")
    return _POINT_KEY.findall(found.group(1)) if found else []


def option_text(options: Mapping[str, Any], key: str) -> str:
    """An option's value as a matrix point writes it (`UNSET` where the game leaves it)."""
    return f"{options[key]}" if key in options else UNSET


def _game(
    treatment: str, env: str, options: Mapping[str, Any], keys: Iterable[str], unit: int
) -> GameDesign:
    block = ((ENV, env), *((key, option_text(options, key)) for key in keys))
    return GameDesign(treatment=treatment, block=block, unit=unit)


def run_env(run: RunRecord) -> str:
    """The environment as the game's spec names it (its id for a run with no spec)."""
    return str(run.spec.get("env") or run.env_id)


def run_options(run: RunRecord) -> Mapping[str, Any]:
    return run.spec.get("env_options") or {}


def run_treatment(run: RunRecord) -> str:
    return run.tag or run.contract


def spec_treatment(spec: Mapping[str, Any]) -> str:
    return str(spec.get("tag") or spec.get("contract") or "")


def design_of_run(run: RunRecord) -> GameDesign:
    """One archived game's design; its block holds only the matrix point its cell records
    (`design_of_runs` adds the options that vary within a treatment)."""
    keys = matrix_keys(run.cell)
    return _game(run_treatment(run), run_env(run), run_options(run), keys, run.seed)


def design_of_spec(spec: Mapping[str, Any]) -> GameDesign:
    """One planned game's design (a `GameSpec` as a dict); its block holds the matrix point
    its cell's name carries."""
    keys = matrix_keys(str(spec.get("cell", "")))
    options = spec.get("env_options") or {}
    return _game(spec_treatment(spec), str(spec.get("env", "")), options, keys, _unit(spec))


DEFAULT_UNIT = 1
"""The seed of a planned game that names none (`bounded.runner.spec.DEFAULT_SEED`)."""


def _unit(spec: Mapping[str, Any]) -> int:
    return int(spec.get("seed", DEFAULT_UNIT))


# -- many games -----------------------------------------------------------------------------


class _Game(BaseModel):
    """What the design reads of one game, archived or planned."""

    treatment: str
    env: str
    cell: str
    options: dict[str, Any]
    unit: int
    settings: dict[str, str]


_GAME_FIELDS = set(_Game.model_fields)


def design_of_runs(runs: Iterable[RunRecord]) -> Design:
    """The design of archived games (see the module docstring)."""
    seen: dict[str, dict[str, Any]] = {}
    return _design(  # a cell's options and settings read once, shared by its games
        _Game.model_construct(
            _GAME_FIELDS, treatment=run_treatment(run), env=run_env(run), cell=run.cell,
            options=_shared(seen, dict(run_options(run))), unit=run.seed,
            settings=_shared(seen, {"contract": run.contract, **settings_of_run(run)}),
        )
        for run in runs
    )  # fmt: skip


def _shared(seen: dict[str, dict[str, Any]], found: dict[str, Any]) -> dict[str, Any]:
    """`found`, or the equal dict met before (read-only: games that agree share it)."""
    return seen.setdefault(json.dumps(found, default=str), found)


def design_of_plan(specs: Iterable[Mapping[str, Any]]) -> Design:
    """The design of planned games (`GameSpec`s as dicts)."""
    return _design(
        _Game(
            treatment=spec_treatment(spec), env=str(spec.get("env", "")),
            cell=str(spec.get("cell", "")), options=dict(spec.get("env_options") or {}),
            unit=_unit(spec),
            settings={"contract": str(spec.get("contract", "")), **settings_of_spec(spec)},
        )
        for spec in specs
    )  # fmt: skip


def _design(games: Iterable[_Game]) -> Design:
    listed = list(games)
    keys = block_keys(listed)
    designs = [_game(g.treatment, g.env, g.options, keys[g.env], g.unit) for g in listed]
    return Design(games=designs, mixed=mixed_settings(listed, keys))


def block_keys(games: Sequence[_Game]) -> dict[str, list[str]]:
    """Per environment, the options that define its blocks: the matrix points its games
    record, else the options that vary within a treatment."""
    found: dict[str, list[str]] = {}
    for env in dict.fromkeys(game.env for game in games):
        mine = [game for game in games if game.env == env]
        points = [key for game in mine for key in matrix_keys(game.cell)]
        found[env] = list(dict.fromkeys(points)) if points else varying_options(mine)
    return found


def varying_options(games: Sequence[_Game]) -> list[str]:
    """The options that take more than one value within some treatment, sorted."""
    varying = set()
    for treatment in {game.treatment for game in games}:
        mine = [game.options for game in games if game.treatment == treatment]
        for key in {key for options in mine for key in options}:
            if len({option_text(options, key) for options in mine}) > 1:
                varying.add(key)
    return sorted(varying)


def mixed_settings(games: Sequence[_Game], keys: Mapping[str, list[str]]) -> list[MixedSetting]:
    """Each setting, or environment option off the blocks, with several values within one
    treatment (options compared within each environment the treatment plays)."""
    found = []
    for treatment in sorted({game.treatment for game in games}):
        mine = [game for game in games if game.treatment == treatment]
        values: dict[str, set[str]] = {}
        for game in mine:
            for setting, value in game.settings.items():
                values.setdefault(setting, set()).add(value)
        for setting, seen in values.items():
            default = missing_value(setting)
            if default is not None and any(setting not in game.settings for game in mine):
                seen.add(default)
        for env in sorted({game.env for game in mine}):
            here = [game.options for game in mine if game.env == env]
            for option in {key for options in here for key in options} - set(keys[env]):
                # one environment's values only: two games' `task` options mix nothing
                # when one is TextWorld's and the other MiniHack's
                seen = {option_text(options, option) for options in here}
                if len(seen) > 1:
                    values[option_setting(option, env, mine)] = seen
        found += [
            MixedSetting(
                treatment=treatment, setting=setting, values=tuple(sorted(seen, key=value_order))
            )
            for setting, seen in sorted(values.items())
            if len(seen) > 1
        ]
    return found


def option_setting(option: str, env: str, games: Sequence[_Game]) -> str:
    """How a mixed environment option is named: with its environment where the treatment
    plays several."""
    several = len({game.env for game in games}) > 1
    return f"environment option {option}" + (f" on {env}" if several else "")


__all__ = [
    "Block",
    "Design",
    "GameDesign",
    "MixedSetting",
    "PairedGames",
    "block_label",
    "design_of_plan",
    "design_of_run",
    "design_of_runs",
    "design_of_spec",
    "matrix_keys",
]
