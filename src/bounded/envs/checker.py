"""`check_bounded_env`: what bounded needs of an environment beyond Gymnasium's API.

Gymnasium's `check_env` checks the spaces, seeding, and the types `reset` and `step`
return. This checker plays short episodes with a seeded policy that picks uniformly among
the legal actions (arguments filled from their schemas, `bounded.envs.base.draw_action`)
and checks what the runner, the archive and replays rely on:

- determinism: the same seed and actions give the same trajectory (every observation's
  kind, text, state, legal actions, time and plan size, every reward and end flag), and
  the same saves;
- save and load: `save()` is JSON-able; a fresh environment that loads a game saved
  mid-way saves the same data and continues it exactly as the original did;
- legality: `obs.legal` is non-empty (with unique ids) until the episode ends, and every
  action it lists is accepted by `step` (probed on copies loaded from saves);
- reporting: `metrics()` is a JSON-able dict, `outcome()` an `Outcome` with a finite score
  and progress in [0, 1], both agree on victory, and an ended episode says how it ended.

A failure raises `ConformanceError` (an `AssertionError`) naming the environment, the
seed, the decision and what broke.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bounded.core import JSON, Action, IllegalActionError, Observation, Outcome, stable_hash
from bounded.envs.base import MAX_DRAW, draw_action
from bounded.protocols import Env

EnvFactory = Callable[[], Env]


class ConformanceError(AssertionError):
    """An environment broke one of bounded's requirements; the message names which."""


@dataclass
class Trajectory:
    """One played episode: a digest per decision, the actions taken, saves along the way."""

    digests: list[str] = field(default_factory=list)
    """The reset's observation, then one per step (observation, reward, end flags)."""
    actions: list[Action] = field(default_factory=list)
    saves: dict[int, JSON] = field(default_factory=dict)
    """Decision index -> `save()` before that decision's action (after a JSON round trip)."""
    legal: dict[int, list[Action]] = field(default_factory=dict)
    """Decision index -> the legal actions listed there, for the saved decisions."""
    ended: bool = False


def decision_digest(
    obs: Observation, reward: float = 0.0, terminated: bool = False, truncated: bool = False
) -> str:
    """A stable digest of one decision: what the observation shows and how the step ended."""
    return stable_hash(
        {
            "kind": obs.kind,
            "text": obs.text,
            "state": obs.state,
            "legal": [a.model_dump(by_alias=True) for a in obs.legal],
            "t": obs.t,
            "max_actions": obs.max_actions,
            "reward": reward,
            "terminated": terminated,
            "truncated": truncated,
        }
    )


def _fail(env: Env, message: str) -> ConformanceError:
    return ConformanceError(f"{type(env).__name__}: {message}")


@contextmanager
def _made(make_env: EnvFactory) -> Iterator[Env]:
    """A fresh environment, closed afterwards (a workbench removes its directory)."""
    env = make_env()
    try:
        yield env
    finally:
        env.close()


def _json(env: Env, value: Any, what: str) -> Any:
    """`value` after a JSON round trip; a value `json.dumps` refuses is a failure."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise _fail(env, f"{what} is not JSON-able: {exc}") from exc


def _step(env: Env, action: Action, where: str) -> tuple[Observation, float, bool, bool]:
    try:
        obs, reward, terminated, truncated, _ = env.step(action)
    except IllegalActionError as exc:
        raise _fail(env, f"{where}: step refused the legal action {action.id!r}: {exc}") from exc
    return obs, float(reward), bool(terminated), bool(truncated)


def _check_legal(env: Env, obs: Observation, where: str) -> None:
    """A decision before the episode's end lists legal actions, each id once."""
    if not isinstance(obs, Observation):
        raise _fail(env, f"{where}: the observation is a {type(obs).__name__}, not an Observation")
    if not obs.legal:
        raise _fail(env, f"{where}: no legal action listed, yet the episode has not ended")
    ids = [a.id for a in obs.legal]
    if len(set(ids)) != len(ids):
        raise _fail(env, f"{where}: an action id is listed twice among {ids}")
    if obs.max_actions < 1:
        raise _fail(env, f"{where}: max_actions is {obs.max_actions}, below 1")


def check_reports(env: Env, where: str, *, ended: bool = False) -> Outcome:
    """`metrics()` is a JSON-able dict; `outcome()` a sound `Outcome` that agrees with it."""
    metrics = env.metrics()
    if not isinstance(metrics, dict):
        raise _fail(env, f"{where}: metrics() returned a {type(metrics).__name__}, not a dict")
    _json(env, metrics, f"{where}: metrics()")
    outcome = env.outcome()
    if not isinstance(outcome, Outcome):
        raise _fail(env, f"{where}: outcome() returned a {type(outcome).__name__}")
    if not 0.0 <= outcome.progress <= 1.0:
        raise _fail(env, f"{where}: outcome().progress is {outcome.progress}, outside [0, 1]")
    if not math.isfinite(outcome.score):
        raise _fail(env, f"{where}: outcome().score is {outcome.score}")
    if "victory" in metrics and bool(metrics["victory"]) != outcome.victory:
        raise _fail(env, f"{where}: metrics() and outcome() disagree on victory")
    if ended and outcome.ended_by in ("", "running"):
        raise _fail(
            env, f"{where}: the episode ended, yet outcome().ended_by is {outcome.ended_by!r}"
        )
    return outcome


def play(
    env: Env, seed: int, steps: int, *, save_at: Sequence[int] = (), check: bool = True
) -> Trajectory:
    """Play up to `steps` decisions from `reset(seed=seed)` with the seeded legal-action
    policy, saving before the decisions `save_at` names; with `check`, check every decision."""
    obs, info = env.reset(seed=seed)
    if not isinstance(info, dict):
        raise _fail(env, f"seed {seed}: reset() returned a {type(info).__name__} as info")
    policy = np.random.default_rng(seed)
    trajectory = Trajectory(digests=[decision_digest(obs)])
    if check:
        check_reports(env, f"seed {seed}, after reset()")
    for index in range(steps):
        where = f"seed {seed}, decision {index}"
        if check:
            _check_legal(env, obs, where)
        if index in save_at:
            trajectory.saves[index] = _json(env, env.save(), f"{where}: save()")
            trajectory.legal[index] = list(obs.legal)
        action = draw_action(obs.legal, int(policy.integers(MAX_DRAW)))
        obs, reward, terminated, truncated = _step(env, action, where)
        trajectory.actions.append(action)
        trajectory.digests.append(decision_digest(obs, reward, terminated, truncated))
        trajectory.ended = terminated or truncated
        if check:
            check_reports(env, where, ended=trajectory.ended)
        if trajectory.ended:
            break
    return trajectory


def trajectory_digest(make_env: EnvFactory, seed: int, steps: int) -> str:
    """One digest of a whole policy-played trajectory: equal across processes for a
    deterministic environment."""
    with _made(make_env) as env:
        return stable_hash(play(env, seed, steps, check=False).digests)


def _first_difference(a: list[str], b: list[str]) -> int:
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def _check_same(env: Env, seed: int, first: Trajectory, second: Trajectory) -> None:
    if first.digests != second.digests:
        index = _first_difference(first.digests, second.digests)
        raise _fail(env, f"seed {seed}: not deterministic: decision {index} differs on a replay")
    for index, saved in first.saves.items():
        if stable_hash(saved) != stable_hash(second.saves.get(index)):
            raise _fail(env, f"seed {seed}: save() before decision {index} differs on a replay")


def _check_resume(make_env: EnvFactory, seed: int, reference: Trajectory, index: int) -> None:
    """A fresh environment loads the save made before decision `index`, saves it back
    unchanged, and continues exactly as the reference did."""
    saved = reference.saves[index]
    with _made(make_env) as env:
        env.load(saved)
        if stable_hash(_json(env, env.save(), "save()")) != stable_hash(saved):
            raise _fail(env, f"seed {seed}: save() after load() differs from the loaded data")
        for offset, action in enumerate(reference.actions[index:]):
            where = f"seed {seed}, decision {index + offset} after load()"
            obs, reward, terminated, truncated = _step(env, action, where)
            if (
                decision_digest(obs, reward, terminated, truncated)
                != reference.digests[index + offset + 1]
            ):
                raise _fail(env, f"{where}: differs from the game that was saved")


def _check_every_legal_action(make_env: EnvFactory, seed: int, reference: Trajectory) -> None:
    """Every action listed at a saved decision is accepted by `step` (each on a fresh copy
    loaded from that save; arguments filled from the action's schema)."""
    for index, legal in reference.legal.items():
        for number, listed in enumerate(legal):
            action = draw_action([listed], seed * 1_000 + number)
            with _made(make_env) as env:
                env.load(reference.saves[index])
                _step(env, action, f"seed {seed}, decision {index} (loaded)")


def check_bounded_env(
    make_env: EnvFactory, *, seeds: Sequence[int] = (0, 1), steps: int = 50
) -> None:
    """Check an environment against bounded's requirements (see the module docstring):
    for each seed, play `steps` decisions twice, resume the game from a mid-way save, and
    step every legal action at the first, middle and last saved decisions."""
    if steps < 1:
        raise ValueError("steps must be at least 1")
    save_at = sorted({0, steps // 2, steps - 1})
    for seed in seeds:
        with _made(make_env) as env:
            first = play(env, seed, steps, save_at=save_at)
        with _made(make_env) as env:
            second = play(env, seed, steps, save_at=save_at)
        _check_same(env, seed, first, second)
        for index in first.saves:
            _check_resume(make_env, seed, first, index)
        _check_every_legal_action(make_env, seed, first)


__all__ = [
    "ConformanceError",
    "Trajectory",
    "check_bounded_env",
    "check_reports",
    "decision_digest",
    "play",
    "trajectory_digest",
]
