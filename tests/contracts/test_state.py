import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bounded.contracts import make_contract
from bounded.contracts.state import (
    NOTES_CHARS,
    NOTES_FACTS,
    PatchRejected,
    StateContract,
    merge_patch,
    notes_schema,
    patch_schema,
    replay_journal,
)
from bounded.core import Action, Completion, Observation, StepResult
from bounded.testing import episode

keys = st.text(alphabet="abcdef", min_size=1, max_size=3)
scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=4)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3),
    max_leaves=12,
)
states = st.dictionaries(keys, json_values, max_size=5)
patches = st.dictionaries(keys, json_values, max_size=5)


@given(states, patches)
def test_merge_is_idempotent_for_the_same_patch(state, patch):
    once = merge_patch(state, patch)
    assert merge_patch(once, patch) == once


@given(states, patches)
def test_merge_does_not_modify_its_inputs(state, patch):
    before = repr(state), repr(patch)
    merge_patch(state, patch)
    assert (repr(state), repr(patch)) == before


@given(states, keys)
def test_null_deletes_a_key(state, key):
    state = {**state, key: 1}
    assert key not in merge_patch(state, {key: None})


@given(states, keys, st.lists(scalars, max_size=4), st.lists(scalars, min_size=1, max_size=4))
def test_append_appends_to_a_list(state, key, existing, items):
    state = {**state, key: existing}
    merged = merge_patch(state, {key: {"$append": items}})
    assert merged[key] == existing + items


def test_append_starts_a_missing_list_and_refuses_a_non_list():
    assert merge_patch({}, {"log": {"$append": [1]}}) == {"log": [1]}
    with pytest.raises(PatchRejected, match=r"log: \$append on a non-list"):
        merge_patch({"log": 3}, {"log": {"$append": [1]}})


def test_nested_objects_merge_key_by_key():
    state = {"a": {"x": 1, "y": 2}, "b": 1}
    assert merge_patch(state, {"a": {"y": None, "z": 3}}) == {"a": {"x": 1, "z": 3}, "b": 1}


def test_patch_must_be_an_object():
    with pytest.raises(PatchRejected):
        merge_patch({}, [1, 2])  # type: ignore[arg-type]


SCHEMA = {
    "type": "object",
    "properties": {"count": {"type": "integer", "minimum": 0}},
    "additionalProperties": False,
}


@given(st.integers(-10, 10) | st.text(max_size=3), st.integers(0, 5))
def test_a_rejected_patch_changes_nothing(value, start):
    contract = StateContract(state_schema=SCHEMA)
    contract.reset(episode(initial_state={"count": start}))
    entry = contract.apply({"count": value})
    valid = isinstance(value, int) and value >= 0
    assert entry.accepted == valid
    assert contract.state == {"count": value if valid else start}
    assert contract.journal[-1].reason == ("" if valid else entry.reason) and (
        valid or entry.reason
    )


def test_unknown_key_is_rejected_by_schema_and_journaled():
    contract = StateContract(state_schema=SCHEMA)
    contract.reset(episode())
    entry = contract.apply({"other": 1})
    assert not entry.accepted and entry.reason.startswith("schema:")
    assert contract.state == {}


def test_journal_replays_the_state_history():
    contract = StateContract()
    contract.reset(episode(initial_state={"n": 0}))
    for patch in ({"n": 1}, [3], {"log": {"$append": ["a"]}}, {"n": None}):
        contract.apply(patch)
    states = replay_journal({"n": 0}, contract.journal)
    assert states == [{"n": 0}, {"n": 1}, {"n": 1, "log": ["a"]}, {"log": ["a"]}]
    assert states[-1] == contract.state


def observation():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    return Observation(kind="stream", text="Event 1", legal=[Action(id="report", schema=schema)])


def test_prompt_holds_exactly_spec_state_and_latest_observation():
    contract = make_contract("state")
    contract.reset(episode(instructions="Count things.", initial_state={"n": 0}))
    obs = observation()
    for i in range(5):
        reply = {
            "reasoning": "r",
            "state_patch": {"n": i},
            "action": {"id": "report", "args": {"n": i}},
        }
        decision = contract.parse(Completion(text=str(reply).replace("'", '"')), obs)
        contract.commit(obs, decision, StepResult())
    prompt = contract.assemble(obs)
    assert [s.layer for s in prompt.segments] == ["spec", "state", "observation"]
    assert prompt.segments[1].text == 'Your state: {"n":4}'
    assert "Count things." in prompt.segments[0].text


def test_malformed_reply_is_a_parse_error_and_a_no_op():
    contract = StateContract()
    contract.reset(episode(initial_state={"n": 1}))
    obs = observation()
    for text in ("", "not json", '{"action": {"id": "fly"}}', '{"state_patch": 5, "action": "x"}'):
        decision = contract.parse(Completion(text=text), obs)
        assert decision.parse_error
        assert decision.actions == []
        result = StepResult()
        contract.commit(obs, decision, result)
    assert contract.state == {"n": 1}


def test_patch_schema_makes_every_property_optional_and_nullable():
    schema = patch_schema(SCHEMA)
    assert "required" not in schema
    assert {"type": "null"} in schema["properties"]["count"]["anyOf"]
    assert patch_schema(None) == {"type": "object"}


# -- the fallback on an unusable reply -----------------------------------------------------


def _malformed_then_honest(messages, constraint):
    from bounded.envs.warehouse import state_keeping_reply

    if "Event 2 of" in messages[-1]["content"]:
        return "this is not JSON"
    return state_keeping_reply(messages, constraint)


@pytest.mark.parametrize(("fallback", "executed"), [("no-op", "noop"), ("first-legal", "report")])
def test_an_unusable_reply_degrades_to_the_configured_fallback(fallback, executed):
    from bounded.envs import make
    from bounded.models.scripted import ScriptedModel
    from bounded.runner import EpisodeRunner

    env = make("warehouse", horizon=3, state_hint="schema")
    contract = StateContract(fallback=fallback)
    runner = EpisodeRunner(
        env, contract, ScriptedModel(_malformed_then_honest), seed=4, env_id="warehouse"
    )
    run = runner.execute()
    second = runner.trajectory[1]
    assert second.parse_error and second.fallback
    assert [a.id for a in second.actions] == [executed]
    assert second.info["reported"] == [None, None] and second.info["correct"] is False
    assert second.info.get("no_report", False) is (fallback == "no-op")
    assert run.outcome["reports"] == 3


def test_the_state_contracts_default_fallback_is_the_replications_no_op() -> None:
    assert StateContract().config.fallback == "no-op"


def test_the_journal_is_a_memory_log_its_snapshot_restores_whole():
    contract = StateContract()
    contract.reset(episode())
    for patch in ({"a": 1}, [1], {"b": {"$append": [2]}}):
        contract.apply(patch)
    snapshot = contract.memory_snapshot()
    assert contract.memory_logs() == ("journal",)
    items = [entry.model_dump() for entry in contract.journal]
    assert snapshot["journal"] == {"start": 0, "items": items}
    again = StateContract()
    again.reset(episode())
    again.restore_memory(json.loads(json.dumps(snapshot)))  # as the archive keeps it
    assert again.journal == contract.journal and again.state == contract.state
    assert again.memory_snapshot() == snapshot


# -- a state without a schema ---------------------------------------------------------------


class _BudgetedModel:
    """A model that declares a free-text budget, as the embedded ones do."""

    reasoning_chars = 120


_OBS = Observation(kind="stream", text="x", legal=[Action(id="noop")])


def _reset_with(model=None, schema=None, **settings):
    contract = make_contract("state", settings)
    contract.reset(episode(model=model, state_schema=schema))
    return contract


def _patch_properties(contract):
    return contract.reply_schema(_OBS)["properties"]["state_patch"].get("properties")


def test_a_model_with_a_free_text_budget_keeps_notes_within_it():
    contract = _reset_with(_BudgetedModel())
    assert contract.schema == notes_schema(40)
    assert set(_patch_properties(contract)) == {"goal", "plan", "facts"}
    assert "JSON schema" in contract.spec(_OBS)


def test_any_other_model_keeps_the_papers_open_state():
    contract = _reset_with(None)
    assert contract.schema is None
    assert _patch_properties(contract) is None


def test_a_schema_from_the_environment_or_the_settings_wins_over_the_shape():
    assert _reset_with(_BudgetedModel(), schema=SCHEMA).schema == SCHEMA
    assert _reset_with(_BudgetedModel(), state_schema={}).schema == {}
    assert _reset_with(None, state_shape="notes").schema == notes_schema(NOTES_CHARS)
    assert _reset_with(_BudgetedModel(), state_shape="open").schema is None


def test_the_notes_state_refuses_a_longer_list_or_string_and_journals_why():
    contract = _reset_with(_BudgetedModel())
    entry = contract.apply({"facts": [f"fact {i}" for i in range(NOTES_FACTS + 1)]})
    assert not entry.accepted and entry.reason.startswith("schema:")
    assert not contract.apply({"plan": "x" * 41}).accepted
    assert contract.apply({"goal": "find water", "facts": ["a tree north"]}).accepted
    assert contract.state == {"goal": "find water", "facts": ["a tree north"]}


def test_the_notes_patch_converts_to_a_grammar_that_must_close():
    from bounded.models.local import schema_grammar

    grammar = schema_grammar(json.dumps(patch_schema(notes_schema(40))))
    assert "*" not in grammar and "+" not in grammar  # no unbounded repetition
    assert "*" in schema_grammar(json.dumps(patch_schema(None)))
