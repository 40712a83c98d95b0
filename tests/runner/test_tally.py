"""The runner's count of the actions given and of the effective ones."""

from __future__ import annotations

import pytest

from bounded.contracts import make_contract
from bounded.core import Action
from bounded.envs import make
from bounded.models.scripted import schema_filler
from bounded.runner import run_episode
from bounded.runner.tally import ActionTally


def test_the_empty_action_is_given_but_not_effective() -> None:
    tally = ActionTally("EMPTY ACTION")
    tally.add([Action(id="TRAIN PROBE")])
    tally.add([Action(id="EMPTY ACTION")])
    tally.add([Action(id="BUILD PYLON"), Action(id="EMPTY ACTION")])
    tally.add([Action(id="EMPTY ACTION")])
    assert tally.outcome() == {
        "actions_given": 5,
        "effective_actions": 2,
        "effective_action_rate": 0.5,
    }
    assert ActionTally(None).outcome()["effective_action_rate"] == 0.0  # no decision yet


def test_a_run_records_its_effective_action_rate_from_the_environments_empty_action() -> None:
    env = make("craft", level=3, map="highlands", time_limit=120)
    assert env.empty_action == "EMPTY ACTION"
    summary = make_contract("summary", {"interval": 5, "decisions": 1})
    run = run_episode(env, summary, schema_filler(), seed=2)
    outcome = run.outcome
    assert outcome["actions_given"] == run.decisions  # one action a step
    # One queued action per call, a call every 5 steps: the empty action the rest.
    assert outcome["effective_action_rate"] == pytest.approx(
        outcome["effective_actions"] / run.decisions
    )
    assert 0.15 <= outcome["effective_action_rate"] <= 0.25
    assert outcome["actions_given_per_step"] == 1.0


def test_an_environment_without_an_empty_action_counts_every_action() -> None:
    env = make("warehouse", horizon=6)
    assert env.empty_action is None
    run = run_episode(env, make_contract("state", {}), schema_filler(), seed=1)
    assert run.outcome["effective_actions"] == run.outcome["actions_given"] == run.decisions
    assert run.outcome["effective_action_rate"] == 1.0
