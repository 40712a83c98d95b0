import jsonschema
import pytest

from bounded.contracts.replies.reading import decision_schema, extract_json_object, parse_decision
from bounded.core import Action, Observation

ARGS = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0}},
    "required": ["n"],
    "additionalProperties": False,
}


def obs(max_actions=1):
    legal = [Action(id="wait"), Action(id="skip"), Action(id="count", schema=ARGS)]
    return Observation(kind="test", legal=legal, max_actions=max_actions)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "no JSON object"),
        ("I think I will wait.", "no JSON object"),
        ('{"reasoning": "x"', "no JSON object"),
        ("[1, 2]", "no JSON object"),
        ('{"reasoning": "x"}', "names no action"),
        ('{"action": {"id": "fly"}}', "'fly' is not legal"),
        ('{"action": 7}', "string id"),
        ('{"action": {"id": "count", "args": {"n": -1}}}', "bad args for 'count'"),
        ('{"action": {"id": "count"}}', "bad args for 'count'"),
        ('{"actions": []}', "non-empty list"),
    ],
)
def test_malformed_replies_become_parse_errors(text, error):
    decision, _ = parse_decision(text, obs())
    assert decision.actions == []
    assert error in (decision.parse_error or "")


def test_json_is_found_in_fences_and_prose():
    assert extract_json_object('Sure!\n```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json_object('My answer: {"a": {"b": 2}} done') == {"a": {"b": 2}}


def test_a_raw_line_break_inside_a_string_is_read_not_refused():
    assert extract_json_object('{"note": "first line\nsecond line"}') == {
        "note": "first line\nsecond line"
    }
    decision, _ = parse_decision('{"reasoning": "a\n\nb", "action": {"id": "wait"}}', obs())
    assert decision.parse_error is None and decision.reasoning == "a\n\nb"


def test_plan_longer_than_allowed_is_refused():
    text = '{"actions": [{"id": "wait"}, {"id": "wait"}, {"id": "skip"}]}'
    decision, _ = parse_decision(text, obs(max_actions=2))
    assert "at most 2" in (decision.parse_error or "")
    decision, _ = parse_decision(text, obs(max_actions=3))
    assert [a.id for a in decision.actions] == ["wait", "wait", "skip"]


def test_schema_accepts_exactly_the_legal_replies():
    schema = decision_schema(obs())
    good = {"reasoning": "r", "action": {"id": "count", "args": {"n": 2}}}
    jsonschema.validate(good, schema)
    jsonschema.validate({"reasoning": "", "action": {"id": "wait"}}, schema)
    for bad in (
        {"reasoning": "r", "action": {"id": "fly"}},
        {"reasoning": "r", "action": {"id": "count", "args": {"n": "2"}}},
        {"reasoning": "r", "action": {"id": "count"}},
        {"action": {"id": "wait"}},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_chosen_action_carries_its_arguments():
    decision, _ = parse_decision('{"action": {"id": "count", "args": {"n": 3}}}', obs())
    assert decision.actions[0].args == {"n": 3}
    assert decision.parse_error is None
