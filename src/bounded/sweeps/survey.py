"""A sweep's survey: where every game of a plan stands, and what stops the sweep.

Read only: the games still to play, the interrupted ones to continue from their last
decision, the incomplete rows to replace, every planned game's settings built once per
distinct environment and contract (played or not), the completed games compared with the
plan (`bounded.runner.identity`), and, for a dry run or a budget, the estimates
(`bounded.sweeps.estimate`). `bounded.sweeps.sweep` acts on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from bounded.analysis.parity import ParityReport, parity_of_plan
from bounded.archive import Archive
from bounded.archive.queries import holds_runs_table as has_runs_table
from bounded.core import JSON, ConfigError, RunRecord
from bounded.protocols import Contract, ReplyMode
from bounded.runner.identity import changed_cells
from bounded.runner.resume import resumable_games
from bounded.runner.spec import GameKey, GameSpec, duplicates_of, run_key
from bounded.sweeps.estimate import CellEstimate, estimate_cells
from bounded.sweeps.experiment import Experiment
from bounded.sweeps.phases import (
    PhaseResume,
    resume_phase,
    shared_stores,
    snapshot_problem,
    store_problems,
)
from bounded.sweeps.preflight import model_problems, preflight, unplayable_cells
from bounded.sweeps.stages import Plan, stable_key
from bounded.sweeps.store_use import store_use


def pending_games(archive: Archive, plan: list[GameSpec]) -> tuple[list[GameSpec], list[RunRecord]]:
    """The games still to play, and the incomplete rows of planned games to clear first."""
    if not plan:
        return [], []
    planned = {spec.key for spec in plan}
    existing = archive.runs(experiment=plan[0].experiment)
    done = {run_key(r) for r in existing if r.status == "completed"}
    stale = [r for r in existing if r.status != "completed" and run_key(r) in planned]
    return [spec for spec in plan if spec.key not in done], stale


def duplicate_games(archive: Archive, experiment: str) -> dict[GameKey, int]:
    """Keys with more than one completed run: a sweep must never produce any."""
    return duplicates_of(archive.runs(experiment=experiment, status="completed"))


def config_key(spec: GameSpec) -> str:
    """What building a game's environment and contract depends on."""
    return stable_key([spec.env, spec.env_options, spec.contract, spec.contract_config])


@dataclass
class Settings:
    """What building each distinct environment and contract of a plan found."""

    problems: list[str] = field(default_factory=list)
    """A line per one that fails, naming the cell or phase whose settings it is."""
    inputs: dict[str, dict[str, str]] = field(default_factory=dict)
    """The inputs of each one that builds (`game_inputs`), by `config_key`."""
    contracts: dict[str, Contract] = field(default_factory=dict)
    """The contract each one built, by `config_key`."""
    empty_actions: dict[str, str | None] = field(default_factory=dict)
    """The empty action of each environment that builds, by `config_key`."""

    def as_played(self, spec: GameSpec) -> GameSpec:
        """The spec as its game records it: with the settings its contract fills in
        (`bounded.runner.build.contract_spec`: EpicStar's paper temperature, its one-action
        step), which archived games are compared with."""
        from bounded.runner.build import contract_spec

        contract = self.contracts.get(config_key(spec))
        return contract_spec(spec, contract) if contract is not None else spec

    def inputs_of(self, spec: GameSpec) -> dict[str, str] | None:
        return self.inputs.get(config_key(spec))


def inspect_settings(games: list[GameSpec], plan: Plan | None = None) -> Settings:
    """Build each distinct environment and contract once (see `Settings`)."""
    from bounded.runner.build import build_contract, inspect_spec

    found = Settings()
    failed: dict[tuple[str, str], set[str]] = {}  # (entry, problem) -> the cells it is of
    for spec in games:
        key = config_key(spec)
        if key in found.inputs or key in found.contracts:
            continue
        try:
            found.contracts[key] = contract = build_contract(spec)
            checked = inspect_spec(spec, contract)
            found.inputs[key], found.empty_actions[key] = checked.inputs, checked.empty_action
        except ConfigError as exc:
            entry = plan.entries.get(spec.cell, spec.cell) if plan else spec.cell
            failed.setdefault((entry, str(exc)), set()).add(spec.cell)
    for (entry, problem), cells in failed.items():
        where = entry
        if plan is not None and len(cells) == 1:  # one matrix point: name it
            where = cell_name(plan, next(iter(cells)))
        found.problems.append(f"{where}: {problem}" if where else problem)
    return found


def plan_parity(plan: Plan, settings: Settings) -> ParityReport:
    """The parity check of the planned cells, by condition tag (`parity_of_plan`: cells
    compared within each block of the design), each game as it would be played: its
    contract's whole configuration, fallback policy, memory keys, and whether it asks the
    model at all. A cell's acting rate is its contract's bound by construction where it
    has one and the environment has an empty action (`≤` a share of decisions), else up to
    every decision."""
    cells: dict[str, list[JSON]] = {}
    bounds: dict[tuple[str, str], float] = {}
    for spec in plan.cells:
        key = config_key(spec)
        contract = settings.contracts.get(key)
        played = settings.as_played(spec).model_dump()
        empty = settings.empty_actions.get(key)
        if contract is not None:
            played.update(played_contract(contract, empty))
        cells.setdefault(spec.run_tag, []).append(played)
        bound = contract.setup.action_rate_bound() if contract is not None else None
        if bound is not None and empty:
            where = (spec.run_tag, spec.env)
            bounds[where] = min(bound, bounds.get(where, 1.0))
    rates: dict[str | tuple[str, str], float | None] = {
        (tag, env): bounds.get((tag, env), 1.0)
        for tag, env in {(spec.run_tag, spec.env) for spec in plan.cells}
    }
    return parity_of_plan(cells.items(), rates, bounded=True)


def played_contract(contract: Contract, empty_action: str | None) -> JSON:
    """What a planned game's contract settles beside its spec, as its run will record it."""
    return {
        "contract_config": contract.config_dict(),
        "fallback": contract.replies.fallback_policy(),
        "memory_settings": list(contract.memory.memory_settings),
        "sends_game_seed": contract.setup.sends_game_seed,
        "asks_model": contract.setup.asks_model(empty_action),
    }


def identity_problems(
    archive: Archive, plan: Plan, settings: Settings, skip: Iterable[str] = ()
) -> list[str]:
    """A line per cell (or phase) whose completed games differ from what the file plans
    (`bounded.runner.identity.changed_cells`), each planned game as it would be played;
    the cells of `skip` (already refused) are not compared."""
    if not plan.games:
        return []
    writers = [phase.name for phase in plan.phases] + [
        spec.cell for spec in plan.cells if writes_store(spec)
    ]
    skipped = set(skip)
    games = [spec for spec in plan.games if spec.cell not in skipped]
    played = {spec.key: (settings.as_played(spec), settings.inputs_of(spec)) for spec in games}
    return changed_cells(
        [spec for spec, _ in played.values()],
        archive.runs(experiment=plan.games[0].experiment),
        lambda spec: played[spec.key][1],
        lambda cell: cell_name(plan, cell),
        phases=writers,
    )


def cell_name(plan: Plan, cell: str) -> str:
    """A cell's name as messages show it: `cells.TAG[horizon=10]`, `phases.NAME`."""
    entry = plan.entries.get(cell, cell)
    return f"{entry.split('.', 1)[0]}.{cell}" if "." in entry else cell


def writes_store(spec: GameSpec) -> bool:
    """Whether the game's contract writes the store it reads (each game then starts from
    what the previous one left)."""
    use = store_use(spec.model_dump())
    return use is not None and bool(use.writes)


class SweepPlan(BaseModel):
    """What a sweep (or its dry run) found before playing: every phase's state, the cell
    games still to play, and the problems that stop it."""

    plan: Plan
    phases: list[PhaseResume] = Field(default_factory=list)
    cells: list[GameSpec] = Field(default_factory=list)
    """Cell games still to play."""
    stale: list[RunRecord] = Field(default_factory=list)
    """Incomplete cell rows to delete first."""
    resumable: list[RunRecord] = Field(default_factory=list)
    """Interrupted cell games to continue from their last decision."""
    problems: list[str] = Field(default_factory=list)
    """One line each; any stops the sweep before its first game."""
    estimates: list[CellEstimate] = Field(default_factory=list)
    """Per cell with games to play, when asked for (`estimate`)."""
    parity: ParityReport | None = None
    """What else than the memory contract differs between the planned cells."""
    endpoints: list[str] = Field(default_factory=list)
    """A dry run's line per endpoint probed: usage, the response formats it accepts
    (`bounded.sweeps.preflight`)."""
    unbuilt: set[str] = Field(default_factory=set)
    """Cells whose model cannot be built (each a problem already)."""
    reply_modes: dict[str, list[ReplyMode]] = Field(default_factory=dict)
    """Per planned cell (and phase) whose contract builds: the reply modes it may play in,
    its `reply` first, then its `reply_fallback`."""

    @property
    def pending(self) -> list[GameSpec]:
        return [spec for phase in self.phases for spec in phase.pending] + self.cells


def survey(
    experiment: Experiment, archive: Archive, plan: Plan, *, models: bool = True
) -> SweepPlan:
    """Read where every phase and cell stands and check every setting and store of every
    planned game, played or not, its model (`models`: built once each, so that an unknown
    one is named as such) and that the completed games are the games the file plans
    (`identity_problems`). Changes nothing."""
    problems = experiment.problems()
    found = SweepPlan(plan=plan, problems=[p.line for p in problems] + shared_stores(plan))
    wrong = {p.entry for p in problems}
    checked = [spec for spec in plan.games if plan.entries.get(spec.cell) not in wrong]
    settings = inspect_settings(checked, plan)
    if models:  # an unknown model is named as such, not as a change of archived settings
        unbuilt, found.unbuilt = model_problems(checked)
        found.problems += unbuilt
    found.reply_modes = {
        spec.cell: contract.replies.reply_modes()
        for spec in checked
        if (contract := settings.contracts.get(config_key(spec))) is not None
    }
    found.cells, stale = pending_games(archive, plan.cells)
    inputs = {spec.key: settings.inputs_of(spec) for spec in plan.cells}
    found.resumable, found.stale = resumable_games(
        archive,
        [settings.as_played(spec) for spec in plan.cells],
        stale,
        lambda spec: inputs.get(spec.key),
    )
    reading = {plan.reads.get(spec.cell) for spec in plan.cells}
    for phase in plan.phases:
        try:
            resume = resume_phase(archive, phase)
        except ConfigError as exc:
            found.problems.append(str(exc))
            continue
        found.phases.append(resume)
        if resume.record is not None and phase.name in reading:
            line = snapshot_problem(plan, phase, resume.record)
            found.problems += [line] if line else []
    found.problems += settings.problems
    found.problems += store_problems(plan, plan.cells)
    found.problems += identity_problems(archive, plan, settings, skip=found.unbuilt)
    found.parity = plan_parity(plan, settings)
    return found


@contextmanager
def surveyed(path: Path) -> Iterator[Archive]:
    """The archive at `path` opened to read (an empty one in memory when there is none
    yet, or only the start of one that a killed sweep was creating), so that a survey
    writes nothing anywhere."""
    if has_runs_table(path):
        with Archive(path, read_only=True) as archive:
            yield archive
        return
    with Archive(":memory:") as archive:
        yield archive


def estimate(state: SweepPlan, archive: Archive) -> list[CellEstimate]:
    """Estimates of the games still to play, per cell (`bounded.sweeps.estimate`)."""
    plan = state.plan
    archived = archive.runs(experiment=plan.games[0].experiment) if plan.games else []
    return estimate_cells(state.pending, archived, lambda cell: cell_name(plan, cell))


def dry_run(
    experiment: Experiment, archive_path: Path | None = None, plan: Plan | None = None
) -> SweepPlan:
    """What `bounded sweep` would do, what stops it and what it would cost, without playing
    or writing anything (no archive, no lock file); `plan`: the experiment's plan as the
    command built it (default: built here)."""
    path = Path(archive_path or experiment.archive)
    plan = plan if plan is not None else experiment.stages(path)
    with surveyed(path) as archive:
        state = survey(experiment, archive, plan)
        reached = [spec for spec in state.pending if spec.cell not in state.unbuilt]
        checked = preflight(reached, probe_formats=True)
        unplayable = unplayable_cells(
            checked, state.reply_modes, lambda cell: cell_name(plan, cell)
        )
        state.problems += checked.problems + unplayable
        state.endpoints = checked.lines
        if not state.problems:
            state.estimates = estimate(state, archive)
        return state


__all__ = [
    "SweepPlan",
    "cell_name",
    "dry_run",
    "duplicate_games",
    "estimate",
    "pending_games",
    "resumable_games",
    "survey",
    "surveyed",
]
