"""Every environment record's small game passes Gymnasium's `check_env` and bounded's own
`check_bounded_env` (determinism, in this process and another, JSON save/load, legal
actions, reports) and is what its record says (thread safety, short name); and the
bounded checker catches each kind of broken environment. The cases are the registry's:
a plugin whose record names a small game is checked here too."""

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
from bounded.core import JSON, Action, Observation, Outcome
from bounded.env_records import ENV_RECORDS, EnvRecord
from bounded.envs import canonical_env_id, make, resolve_env_id
from bounded.envs.checker import ConformanceError, check_bounded_env, trajectory_digest
from bounded.envs.warehouse import WarehouseEnv
from bounded.protocols import Env


def conformance_cases() -> list[Any]:
    """Every environment record with a small game, skipped where it cannot run here."""
    cases = []
    for record in ENV_RECORDS.records():
        if record.test_options is None:
            continue
        marks = []
        if not record.runs_here():
            marks.append(pytest.mark.skip(reason=f"{record.name} cannot run here"))
        cases.append(pytest.param(record, id=record.name, marks=marks))
    return cases


CASES = conformance_cases()


def factory(record: EnvRecord) -> Callable[[], Env]:
    return lambda: make(record.env_id, **record.test_options)


# -- Gymnasium ----------------------------------------------------------------------------


@pytest.mark.parametrize("record", CASES)
def test_gymnasium_check_env_passes_without_warnings(record: EnvRecord) -> None:
    env = gymnasium.make(resolve_env_id(record.env_id), **record.test_options).unwrapped
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


@pytest.mark.parametrize("record", CASES)
def test_check_bounded_env_passes(record: EnvRecord) -> None:
    check_bounded_env(factory(record), seeds=(0, 1), steps=record.test_steps)


@pytest.mark.parametrize("record", CASES)
def test_the_record_says_what_the_environment_is(record: EnvRecord) -> None:
    env = factory(record)()
    try:
        assert env.thread_safe == record.thread_safe
    finally:
        env.close()
    assert canonical_env_id(record.name) == record.env_id


@pytest.mark.parametrize("record", CASES)
def test_same_seed_same_trajectory_in_another_process(record: EnvRecord) -> None:
    code = (
        "import json, sys; from bounded.envs import make;"
        "from bounded.envs.checker import trajectory_digest;"
        "name, options, steps = json.loads(sys.argv[1]);"
        "print(trajectory_digest(lambda: make(name, **options), 5, steps))"
    )
    spec = json.dumps([record.env_id, dict(record.test_options or {}), record.test_steps])
    out = subprocess.run(
        [sys.executable, "-c", code, spec], capture_output=True, text=True, check=True
    )
    here = trajectory_digest(factory(record), 5, record.test_steps)
    assert out.stdout.strip() == here
    assert trajectory_digest(factory(record), 6, record.test_steps) != here


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
