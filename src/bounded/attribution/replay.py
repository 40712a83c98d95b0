"""Reconstructing the environment's state at archived decisions: the recorded actions are
replayed from the run's seed, and the environment's expert is asked what it would do.

Our environments are seeded per game with no global state, so a run's `GameSpec` and seed
rebuild its game and its recorded actions replay it. A run is refused (`ReplayError`, one
line) when it cannot be: no spec, an environment without an expert or whose games a replay
cannot promise to reproduce, a gap in its decisions, or a divergence (a replayed decision
of another kind or time than the archived one, or a recorded action the replayed state
does not allow).

The expert sees every replayed observation in order, not only the sampled ones, so an
expert that keeps its own counts (the warehouse's) is in the state it would be in had it
played the recorded game's observations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from bounded.core import (
    Action,
    BoundedError,
    DecisionRecord,
    Env,
    Expert,
    IllegalActionError,
    Observation,
    RunRecord,
)
from bounded.registry import Registry
from bounded.runner import GameSpec
from bounded.runner.build import build_env

ExpertFactory = Callable[[], Expert]

EXPERTS = Registry("expert", "bounded.experts")
"""Environment id -> its expert (`"module:Class"` or a factory taking no arguments)."""

for _env_id, _target in {
    "bounded/Spire-v0": "bounded.envs.spire:SpireExpert",
    "bounded/Warehouse-v0": "bounded.envs.warehouse:WarehouseExpert",
    "bounded/Craft-v0": "bounded.envs.craft:CraftExpert",
    "bounded/NetHack-v0": "bounded.envs.nethack:NetHackExpert",
}.items():
    EXPERTS.register(_env_id, _target)

NOT_REPLAYABLE = {
    "bounded/Workbench-v0": "its tools run real processes in a sandbox directory, whose "
    "results a replay cannot promise to reproduce, and its expert is a script of replies",
}
"""Environments refused for attribution, with the reason."""


class ReplayError(BoundedError):
    """A run that cannot be replayed; the message names the run and the reason."""


def register_expert(env_id: str, target: str | ExpertFactory) -> None:
    """Name the expert of an environment (its Gymnasium id), for attribution."""
    EXPERTS.register(env_id, target)


def expert_for(run: RunRecord) -> Expert:
    """A fresh expert for the run's environment; ReplayError when it has none."""
    if run.env_id in NOT_REPLAYABLE:
        raise ReplayError(
            f"run {run.run_id[:12]} cannot be replayed: {run.env_id}: {NOT_REPLAYABLE[run.env_id]}"
        )
    if run.env_id not in EXPERTS:
        raise ReplayError(
            f"run {run.run_id[:12]} cannot be replayed: environment {run.env_id} has no "
            "expert (bounded.attribution.register_expert)"
        )
    factory = EXPERTS.load(run.env_id)
    return factory()


def spec_of(run: RunRecord) -> GameSpec:
    """The spec the run was built from; ReplayError for a run archived without one."""
    if not run.spec:
        raise ReplayError(
            f"run {run.run_id[:12]} cannot be replayed: it was archived without its game "
            "spec (imported, or made by an older version)"
        )
    try:
        return GameSpec.model_validate(run.spec)
    except ValidationError as exc:
        raise ReplayError(f"run {run.run_id[:12]} cannot be replayed: bad spec: {exc}") from exc


@dataclass(frozen=True)
class ReplayedDecision:
    """An archived decision in its reconstructed state."""

    record: DecisionRecord
    obs: Observation
    expert_actions: list[Action]


def _as_list(chosen: Action | list[Action]) -> list[Action]:
    return [chosen] if isinstance(chosen, Action) else list(chosen)


def _check_contiguous(run: RunRecord, records: Sequence[DecisionRecord]) -> None:
    for position, record in enumerate(records):
        if record.index != position:
            raise ReplayError(
                f"run {run.run_id[:12]} cannot be replayed: decision {position} is missing "
                "from the archive"
            )


def _check_same(
    run: RunRecord, record: DecisionRecord, obs: Observation, default: Action | None
) -> None:
    """A replayed observation must be the archived decision's, and allow its actions (the
    listed ones, or the game's default action, which a fallback may have executed)."""
    where = f"run {run.run_id[:12]} cannot be replayed: divergence at decision {record.index}"
    if obs.kind != record.kind or obs.t != record.t:
        raise ReplayError(
            f"{where}: replayed {obs.kind} at t={obs.t:g}, archived {record.kind} at t={record.t:g}"
        )
    for action in record.actions:
        if obs.legal_action(action.id) is None and (default is None or action.id != default.id):
            raise ReplayError(f"{where}: recorded action {action.id!r} is not legal there")


def replay(
    run: RunRecord,
    records: Sequence[DecisionRecord],
    wanted: Iterable[int],
    *,
    env: Env | None = None,
) -> dict[int, ReplayedDecision]:
    """Replay the run up to the last wanted decision; each wanted decision with its
    observation and the expert's actions there."""
    targets = set(wanted)
    if not targets:
        return {}
    expert = expert_for(run)
    _check_contiguous(run, records)
    if env is None:
        env = build_env(spec_of(run))[1]
    try:
        return _walk(run, records, targets, env, expert)
    finally:
        env.close()


def _walk(
    run: RunRecord,
    records: Sequence[DecisionRecord],
    targets: set[int],
    env: Env,
    expert: Expert,
) -> dict[int, ReplayedDecision]:
    replayed: dict[int, ReplayedDecision] = {}
    obs, _ = env.reset(seed=run.seed)
    default = env.default_action()
    last = max(targets)
    for record in records[: last + 1]:
        _check_same(run, record, obs, default)
        expert_actions = _as_list(expert.act(obs))
        if record.index in targets:
            replayed[record.index] = ReplayedDecision(record, obs, expert_actions)
        try:
            obs, *_ = env.step(record.actions)
        except IllegalActionError as exc:
            raise ReplayError(
                f"run {run.run_id[:12]} cannot be replayed: divergence at decision "
                f"{record.index}: the environment refused the recorded actions ({exc})"
            ) from exc
    return replayed


__all__ = [
    "EXPERTS",
    "NOT_REPLAYABLE",
    "ReplayError",
    "ReplayedDecision",
    "expert_for",
    "register_expert",
    "replay",
    "spec_of",
]
