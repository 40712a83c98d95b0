"""The scripted model answers in the form each reply mode asks for: a reply object as JSON
where a response format is asked for, and in `text` mode written as the call's text rule
reads it, so a scripted play reads the same decision in every mode."""

from __future__ import annotations

import json

import pytest

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.contracts.replies.reading import decision_schema
from bounded.contracts.replies.rules import TEXT_RULES, parse_reply
from bounded.core import Action, Observation
from bounded.envs import make
from bounded.models.scripted import ScriptedModel, action_ids, as_text, schema_filler
from bounded.protocols import ANY_JSON_OBJECT
from bounded.runner import run_episode

OBS = Observation(
    kind="test", text="A corridor.", legal=[Action(id="go forward"), Action(id="turn left")]
)
REPLY = {"reasoning": "the corridor is open", "action": {"id": "turn left"}}


@pytest.mark.parametrize("rule", TEXT_RULES)
def test_a_reply_object_is_written_as_each_text_rule_reads_it(rule):
    model = ScriptedModel([REPLY])
    schema = decision_schema(OBS)
    completion = model.complete([], constraint=None, reply_schema=schema, text_rule=rule)
    decision, _ = parse_reply(completion.text, OBS, "text", rule)
    assert decision.parse_error is None, completion.text
    assert [a.id for a in decision.actions] == ["turn left"]


def test_json_is_sent_where_a_format_is_asked_for_and_strings_as_they_are():
    model = ScriptedModel([REPLY, REPLY, "free words"])
    assert json.loads(model.complete([], constraint=ANY_JSON_OBJECT).text) == REPLY
    assert json.loads(model.complete([], constraint=None).text) == REPLY  # no rule: JSON
    assert model.complete([], constraint=None, text_rule="json-block").text == "free words"


def test_a_reply_function_is_handed_the_reply_schema_in_text_mode():
    schema = decision_schema(OBS)
    seen = []
    model = ScriptedModel(lambda _messages, constraint: seen.append(constraint) or REPLY)
    model.complete([], constraint=None, reply_schema=schema, text_rule="decision-tag")
    assert seen == [schema] and model.calls[0]["constraint"] is None


def test_the_ids_of_a_reply_are_read_from_each_of_its_shapes():
    assert action_ids({"action": "x"}) == ["x"]
    assert action_ids({"actions": [{"id": "a"}, {"id": "b"}]}) == ["a", "b"]
    assert action_ids({"decisions": ["<GO>", {"id": "BUILD", "args": {}}]}) == ["GO", "BUILD"]
    assert as_text({"decisions": ["<GO>"], "analysis": "so"}, "action-tags") == (
        "so\nDecisions:\n0: <GO>"
    )


@pytest.mark.parametrize("contract", ["state", "mode-a", "summary", "balrog-cot"])
def test_the_schema_filler_plays_every_paper_preset_in_text_mode(tmp_path, contract):
    """The dry run's model: in `text` mode it is told the schema and the rule, so its
    minimal replies are read as legal decisions, not fallbacks."""
    env = make("babyai", level="goto", max_steps=4)
    built = make_contract(contract)
    assert built.reply_mode == "text"
    with Archive(tmp_path / "a.sqlite") as archive:
        run = run_episode(env, built, schema_filler(), seed=1, archive=archive, max_decisions=3)
        decisions = archive.decisions(run.run_id)
    asked = [d for d in decisions if d.completion is not None]
    assert asked and not any(d.fallback for d in asked)
    assert run.model_params["reply"]["mode"] == "text"
