"""Every environment passes Gymnasium's `check_env` and bounded's own `check_bounded_env`
(determinism, in this process and another, JSON save/load, legal actions, reports); and
the bounded checker catches each kind of broken environment."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import bounded.envs  # noqa: F401 (registers the Gymnasium ids, until `import bounded` does)
from bounded.core import JSON, Action, Env, Observation, Outcome
from bounded.envs import make
from bounded.envs.checker import ConformanceError, check_bounded_env, trajectory_digest
from bounded.envs.warehouse import WarehouseEnv
from bounded.envs.workbench import sandbox_available, task_names

needs_sandbox = pytest.mark.skipif(not sandbox_available(), reason="bubblewrap cannot run here")

FIRST_TASK = task_names()[0]

GYM_CASES = [
    pytest.param("bounded/Warehouse-v0", {"horizon": 5}, id="warehouse"),
    pytest.param("bounded/Spire-v0", {"acts": 1}, id="spire"),
    pytest.param("bounded/Craft-v0", {"time_limit": 300}, id="craft"),
    pytest.param("bounded/Workbench-v0", {"task": FIRST_TASK}, id="workbench", marks=needs_sandbox),
]

OPTIONS: dict[str, dict[str, Any]] = {
    "warehouse": {"horizon": 12},
    "spire": {"acts": 1},
    "craft": {"time_limit": 300},
    "workbench": {"task": FIRST_TASK, "max_turns": 6},
}
"""Small games: a short stream, one act, five minutes of game time, six turns."""
STEPS = {"warehouse": 50, "spire": 50, "craft": 20, "workbench": 8}
ENV_NAMES = ["warehouse", "spire", "craft", pytest.param("workbench", marks=needs_sandbox)]


def factory(name: str) -> Callable[[], Env]:
    return lambda: make(name, **OPTIONS[name])


# -- Gymnasium ----------------------------------------------------------------------------


@pytest.mark.parametrize(("env_id", "kwargs"), GYM_CASES)
def test_gymnasium_check_env_passes_without_warnings(env_id: str, kwargs: dict) -> None:
    env = gymnasium.make(env_id, **kwargs).unwrapped
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env)
    finally:
        env.close()
    # The workbench's sandbox leaves a subprocess pipe to the garbage collector (a
    # ResourceWarning from sandbox.py, on any reset); nothing else may warn.
    messages = [str(w.message) for w in caught if not issubclass(w.category, ResourceWarning)]
    assert messages == []


def test_importing_bounded_registers_the_environments() -> None:
    """`import bounded` alone (a fresh process) makes `bounded/...` ids available."""
    code = "import bounded, gymnasium; print(type(gymnasium.make('bounded/Spire-v0').unwrapped))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-500:]
    assert "SpireEnv" in out.stdout


# -- bounded ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ENV_NAMES)
def test_check_bounded_env_passes(name: str) -> None:
    check_bounded_env(factory(name), seeds=(0, 1), steps=STEPS[name])


@pytest.mark.parametrize("name", ENV_NAMES)
def test_same_seed_same_trajectory_in_another_process(name: str) -> None:
    code = (
        "import json, sys; from bounded.envs import make;"
        "from bounded.envs.checker import trajectory_digest;"
        "name, options, steps = json.loads(sys.argv[1]);"
        "print(trajectory_digest(lambda: make(name, **options), 5, steps))"
    )
    spec = json.dumps([name, OPTIONS[name], STEPS[name]])
    out = subprocess.run(
        [sys.executable, "-c", code, spec], capture_output=True, text=True, check=True
    )
    here = trajectory_digest(factory(name), 5, STEPS[name])
    assert out.stdout.strip() == here
    assert trajectory_digest(factory(name), 6, STEPS[name]) != here


# -- broken environments are caught --------------------------------------------------------


class Counting(WarehouseEnv):
    """Shows how many observations this process has made: differs on a replay."""

    made = 0

    def _observe(self) -> Observation:
        Counting.made += 1
        obs = super()._observe()
        return obs.model_copy(update={"text": f"{obs.text} #{Counting.made}"})


class LoadsAnotherStream(WarehouseEnv):
    """Loads a save (and saves it back) right, but goes on with another seed's events."""

    def load(self, data: JSON) -> None:
        super().load(data)
        self._events = self.generate(self.config, (self._seed or 0) + 1)


class LosesItsPlace(WarehouseEnv):
    """Loads a save but starts the stream over."""

    def load(self, data: JSON) -> None:
        super().load(data)
        self._step = 0


class ListsADance(WarehouseEnv):
    """Lists an action its own `step` refuses."""

    def _observe(self) -> Observation:
        obs = super()._observe()
        return obs.model_copy(update={"legal": [*obs.legal, Action(id="dance")]})


class GoesQuiet(WarehouseEnv):
    """Lists no legal action at the third event, before the stream ends."""

    def _observe(self) -> Observation:
        obs = super()._observe()
        return obs.model_copy(update={"legal": []}) if self._step == 2 else obs


class SetMetrics(WarehouseEnv):
    def metrics(self) -> dict[str, Any]:
        return {**super().metrics(), "shelves": {1, 2}}


class Overdone(WarehouseEnv):
    def outcome(self) -> Outcome:
        return super().outcome().model_copy(update={"progress": 2.0})


class Disagrees(WarehouseEnv):
    def outcome(self) -> Outcome:
        return super().outcome().model_copy(update={"victory": True})


class NeverEnds(WarehouseEnv):
    def outcome(self) -> Outcome:
        return super().outcome().model_copy(update={"ended_by": "running"})


class SavesASet(WarehouseEnv):
    def save(self) -> JSON:
        return {**super().save(), "seen": {1}}


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (Counting, "not deterministic: decision 0 differs"),
        (LoadsAnotherStream, r"after load\(\): differs from the game that was saved"),
        (LosesItsPlace, r"save\(\) after load\(\) differs"),
        (ListsADance, "step refused the legal action 'dance'"),
        (GoesQuiet, "decision 2: no legal action listed"),
        (SetMetrics, r"metrics\(\) is not JSON-able"),
        (Overdone, "progress is 2.0, outside"),
        (Disagrees, "disagree on victory"),
        (NeverEnds, "ended_by is 'running'"),
        (SavesASet, r"save\(\) is not JSON-able"),
    ],
)
def test_the_bounded_checker_names_what_is_broken(broken: type, message: str) -> None:
    with pytest.raises(ConformanceError, match=message) as caught:
        check_bounded_env(lambda: broken(horizon=6), seeds=(0,), steps=10)
    assert str(caught.value).startswith(f"{broken.__name__}: ")

    assert isinstance(caught.value, AssertionError)
