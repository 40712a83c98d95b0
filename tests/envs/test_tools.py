"""ToolEnv's time budgets: a turn's calls and an episode's calls stop when their time is spent."""

from __future__ import annotations

import time

import pytest
from pydantic import ValidationError

from bounded.core import Action
from bounded.envs.tools import TIME_LIMIT, ToolEnv


def nap(seconds: float) -> str:
    """sleep for a while"""
    time.sleep(seconds)
    return "rested"


def naps(count: int, seconds: float) -> list[Action]:
    return [Action(id="nap", args={"seconds": seconds}) for _ in range(count)]


def test_calls_after_the_turn_budget_is_spent_are_not_run() -> None:
    env = ToolEnv("rest", [nap], turn_seconds=0.25, max_turns=5)
    env.reset(seed=0)
    obs, _, terminated, truncated, info = env.step(naps(8, 0.1))
    outputs = [r["output"] for r in obs.state["results"]]
    assert outputs[:3] == ["rested"] * 3
    assert all("turn's time limit (0.25 s)" in text for text in outputs[3:])
    assert env.calls == 3 and info["calls"] == 8
    assert not (terminated or truncated)
    obs, *_ = env.step(naps(1, 0.0))  # a new turn has a new budget
    assert obs.state["results"][0]["output"] == "rested"


def test_seconds_left_is_the_tighter_budget() -> None:
    env = ToolEnv("rest", [nap], turn_seconds=5, episode_seconds=0.3)
    env.reset(seed=0)
    assert env.seconds_left() == pytest.approx(0.3)
    env.step(naps(1, 0.1))
    assert 0.0 < (env.seconds_left() or 0) < 0.21
    assert ToolEnv("rest", [nap]).seconds_left() is None


def test_the_episode_ends_when_its_budget_is_spent() -> None:
    env = ToolEnv("rest", [nap], episode_seconds=0.3, max_turns=50)
    env.reset(seed=0)
    turns = 0
    truncated = False
    while not truncated:
        _, _, terminated, truncated, info = env.step(naps(1, 0.1))
        assert not terminated
        turns += 1
    assert turns <= 3 and env.tool_seconds >= 0.3  # 3 naps of 0.1 s, fewer on a loaded machine
    assert info["stop_reason"] == TIME_LIMIT
    assert env.metrics()["stop_reason"] == TIME_LIMIT
    assert env.outcome().ended_by == "truncated"
    assert env.legal_actions() and env.choices().legal == []


def test_finish_is_not_blamed_on_the_clock() -> None:
    env = ToolEnv("rest", [nap], turn_seconds=0.05)
    env.reset(seed=0)
    obs, _, terminated, *_ = env.step([*naps(1, 0.0), Action(id="finish"), *naps(1, 0.0)])
    assert terminated
    assert obs.state["results"][2]["output"] == "not run: after finish"


def test_budgets_must_be_positive() -> None:
    with pytest.raises(ValidationError):
        ToolEnv("rest", [nap], turn_seconds=0)
    with pytest.raises(ValidationError):
        ToolEnv("rest", [nap], episode_seconds=-1)
