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

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from bounded.core import (
    Action,
    BoundedError,
    DecisionRecord,
    IllegalActionError,
    Observation,
    RunRecord,
)
from bounded.env_records import env_record
from bounded.protocols import Env, Expert
from bounded.registry import Registry, load_target
from bounded.runner import GameSpec
from bounded.runner.build import build_env

ExpertFactory = Callable[[], Expert]

EXPERTS = Registry("expert", "bounded.experts")
"""Experts named at run time or by installed plugins (Gymnasium id -> `"module:Class"` or a
factory taking no arguments), for environments whose record names none."""


class ReplayError(BoundedError):
    """A run that cannot be replayed; the message names the run and the reason."""


def register_expert(env_id: str, target: str | ExpertFactory) -> None:
    """Name the expert of an environment (its Gymnasium id), for attribution."""
    EXPERTS.register(env_id, target)


def _expert_target(run: RunRecord) -> tuple[Any, bool]:
    """The run's expert (a target or factory) and whether it is built from the
    environment; ReplayError when the record refuses replays or names no expert."""
    record = env_record(run.env_id)
    where = f"run {run.run_id[:12]} cannot be replayed"
    if record is not None and record.replay == "refused":
        raise ReplayError(f"{where}: {run.env_id}: {record.replay_refusal}")
    if run.env_id in EXPERTS:
        return EXPERTS.target(run.env_id), False
    if record is not None and record.expert is not None:
        return record.expert, record.expert_reads_env
    raise ReplayError(
        f"{where}: environment {run.env_id} has no expert (its EnvRecord's `expert`, or "
        "bounded.attribution.register_expert)"
    )


def expert_for(run: RunRecord, env: Env | None = None) -> Expert:
    """A fresh expert for the run's environment (its record's, else one registered with
    `register_expert`), built from `env` when its record says the expert reads the game
    it plays; ReplayError when its record refuses replays or it has none."""
    target, reads_env = _expert_target(run)
    factory = load_target(target) if isinstance(target, str) else target
    if not reads_env:
        return factory()
    if env is None:
        raise ReplayError(
            f"run {run.run_id[:12]} cannot be replayed without its environment: its expert "
            "reads the game it plays"
        )
    return factory(env)


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


def _check_contiguous(run: RunRecord, records: Iterable[DecisionRecord]) -> None:
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
    records: Iterable[DecisionRecord],
    wanted: Iterable[int],
    *,
    env: Env | None = None,
) -> dict[int, ReplayedDecision]:
    """Replay the run up to the last wanted decision; each wanted decision with its
    observation and the expert's actions there. `records` is read twice, in order (a
    list, or an archive's decisions streamed by `StoredDecisions`): the replay needs
    their actions, not their prompts."""
    targets = set(wanted)
    if not targets:
        return {}
    _expert_target(run)  # refuses before the environment is built
    _check_contiguous(run, records)
    if env is None:
        env = build_env(spec_of(run))[1]
    try:
        return _walk(run, records, targets, env, expert_for(run, env))
    finally:
        env.close()


def _walk(
    run: RunRecord,
    records: Iterable[DecisionRecord],
    targets: set[int],
    env: Env,
    expert: Expert,
) -> dict[int, ReplayedDecision]:
    replayed: dict[int, ReplayedDecision] = {}
    obs, _ = env.reset(seed=run.seed)
    default = env.default_action()
    last = max(targets)
    for record in records:
        if record.index > last:  # indices are positions (`_check_contiguous`)
            break
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
    "ReplayError",
    "ReplayedDecision",
    "expert_for",
    "register_expert",
    "replay",
    "spec_of",
]
