"""The runner's count of the actions given and of the effective ones."""

from __future__ import annotations

import pytest

from bounded.analysis.parity import parity_of_runs
from bounded.contracts import make_contract
from bounded.core import Action
from bounded.env_records import ENV_RECORDS
from bounded.envs import make
from bounded.models.scripted import ScriptedModel, minimal_instance, schema_filler
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
        "acting_rate": 0.5,
        "fallback_decisions": 0,
        "fallback_rate": 0.0,
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
    assert run.outcome["acting_rate"] == 1.0
    assert run.outcome["fallback_rate"] == 0.0


def test_an_action_the_harness_chose_is_never_effective() -> None:
    """A fallback (a no-op, the game's default, the first legal action) is the harness's
    choice, not the agent's: given, never effective, on an environment with or without an
    empty action."""
    for empty in ("EMPTY ACTION", None):
        tally = ActionTally(empty)
        tally.add([Action(id="go forward")], fallback=True)
        tally.add([Action(id="noop")], fallback=True)
        tally.add([Action(id="pick up"), Action(id="drop")])
        assert tally.outcome() == {
            "actions_given": 4,
            "effective_actions": 2,
            "effective_action_rate": 2 / 3,
            "acting_rate": 1 / 3,
            "fallback_decisions": 2,
            "fallback_rate": 2 / 3,
        }


UNUSABLE = "I am not sure what to do here."


def without_first(schema, first):
    """The schema with every enum that starts with `first` (the empty action) rotated past
    it, so that its minimal instance names another action."""
    if isinstance(schema, dict):
        found = {key: without_first(value, first) for key, value in schema.items()}
        enum = found.get("enum")
        if isinstance(enum, list) and len(enum) > 1 and enum[0] == first:
            found["enum"] = [*enum[1:], enum[0]]
        return found
    if isinstance(schema, list):
        return [without_first(item, first) for item in schema]
    return schema


def acting_model(empty: str | None) -> ScriptedModel:
    """A model whose every reply names a legal action other than the empty one."""
    return ScriptedModel(
        lambda _messages, constraint: minimal_instance(without_first(constraint or {}, empty))
    )


GENERATED = {"textworld": {"task": "coin_collector", "settings": {"level": 3}}}
"""Small games of the environments whose record has none (TextWorld generates its games on
disk first: into the test's folder)."""


def every_record() -> list:
    return [
        pytest.param(record, id=record.name,
                     marks=[] if record.runs_here() else [pytest.mark.skip(reason="not here")])
        for record in ENV_RECORDS.records()
    ]  # fmt: skip


@pytest.mark.parametrize("record", every_record())
def test_an_agent_whose_every_reply_is_unusable_acts_at_rate_zero(record, tmp_path) -> None:
    """On every environment, with or without a declared empty action: `state` fed replies
    that hold no action plays fallbacks only; its acting and effective rates are 0, and the
    parity report flags it against the same contract given usable replies."""
    if record.test_options is not None:
        options = dict(record.test_options)
    elif record.name in GENERATED:
        options = {**GENERATED[record.name], "games_dir": str(tmp_path)}
    else:
        pytest.fail(f"{record.name}: no small game to play (add one to GENERATED)")
    played = {}
    for tag in ("unusable", "acting"):
        env = make(record.env_id, **options)
        model = (
            ScriptedModel([UNUSABLE], cycle=True) if tag == "unusable"
            else acting_model(env.empty_action)
        )  # fmt: skip
        played[tag] = run_episode(
            env, make_contract("state", {}), model, seed=1, tag=tag,
            max_decisions=min(record.test_steps, 6),
        )  # fmt: skip
        assert played[tag].status == "completed", played[tag].error
    idle = played["unusable"].outcome
    assert idle["fallback_rate"] == 1.0
    assert idle["effective_action_rate"] == idle["acting_rate"] == 0.0
    assert played["acting"].outcome["acting_rate"] > 0.5
    report = parity_of_runs([(tag, {}, [run]) for tag, run in played.items()])
    assert any(line.startswith("parity: acting rate differs: unusable 0.00;")
               for line in report.lines()), report.lines()  # fmt: skip


ACTING_REPLY = {"craft": "Decisions:\n0: <TRAIN PROBE>", "crafter": "Decisions:\n0: <Move West>"}
"""A CoS reply naming an action other than the empty one, in CoS's format."""


@pytest.mark.parametrize("name", sorted(ACTING_REPLY))
def test_the_empty_action_played_for_an_unusable_reply_is_a_fallback(name) -> None:
    """CoS (`summary`) plays the environment's empty action where a reply gives no decision,
    as its reference queues `EMPTY ACTION`: on an environment that declares one, each call
    whose reply is unusable is a fallback decision (the calls' share of the decisions), the
    queue's empty steps between calls are not, and the parity report flags the cell against
    the same contract given usable replies, its fallback rate beside its acting rate."""
    record = ENV_RECORDS.get(name)
    played = {}
    for tag, reply in (("unusable", UNUSABLE), ("acting", ACTING_REPLY[name])):
        env = make(record.env_id, **dict(record.test_options or {}))
        assert env.empty_action is not None
        contract = make_contract("summary", {"interval": 2, "decisions": 1, "reply": "text"})
        model = ScriptedModel([reply], cycle=True)
        played[tag] = run_episode(env, contract, model, seed=1, tag=tag, max_decisions=10)
        assert played[tag].status == "completed", played[tag].error
    idle = played["unusable"]
    assert idle.outcome["effective_action_rate"] == idle.outcome["acting_rate"] == 0.0
    assert idle.outcome["fallback_decisions"] == idle.model_calls == 5
    assert idle.outcome["fallback_rate"] == 0.5
    assert played["acting"].outcome["fallback_rate"] == 0.0
    assert played["acting"].outcome["acting_rate"] > 0.25
    report = parity_of_runs([(tag, {}, [run]) for tag, run in played.items()])
    assert any(line.startswith("parity: acting rate differs: unusable 0.00;")
               for line in report.lines()), report.lines()  # fmt: skip
    assert [cell.fallback_rate for cell in report.cells] == [0.5, 0.0]
