import jsonschema
import pytest

from bounded import validation
from bounded.validation import is_valid, validate, validator

SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0}, "name": {"type": "string"}},
    "required": ["n"],
    "additionalProperties": False,
}


def test_a_schema_is_checked_and_compiled_once_for_every_equal_copy(monkeypatch):
    checks = []
    real = jsonschema.validators.validator_for

    def counted(schema, *args, **kwargs):
        if isinstance(schema, dict) and schema.get("title") == "counted":
            checks.append(schema)  # jsonschema also calls it for its own meta-schemas
        return real(schema, *args, **kwargs)

    monkeypatch.setattr(jsonschema.validators, "validator_for", counted)
    fresh = {**SCHEMA, "title": "counted"}  # a schema no other test compiled
    for n in range(5):
        validate({"n": n}, dict(fresh))  # a new but equal object each time
    assert len(checks) == 1 and validator(fresh) is validator(dict(fresh))


@pytest.mark.parametrize(
    "instance", [{"n": -1}, {"name": "x"}, {"n": 1, "extra": 2}, {"n": "one"}, [], {"n": 1.5}]
)
def test_the_error_is_the_one_jsonschema_validate_raises(instance):
    with pytest.raises(jsonschema.ValidationError) as ours:
        validate(instance, SCHEMA)
    with pytest.raises(jsonschema.ValidationError) as theirs:
        jsonschema.validate(instance, SCHEMA)
    assert ours.value.message == theirs.value.message
    assert list(ours.value.path) == list(theirs.value.path)
    assert not is_valid(instance, SCHEMA) and is_valid({"n": 1}, SCHEMA)


def test_a_schema_that_is_not_one_is_refused_every_time():
    for _ in range(2):
        with pytest.raises(jsonschema.SchemaError):
            validate({}, {"type": 5})


def test_changing_a_schema_after_use_does_not_change_its_cached_validator():
    mine = {"type": "object", "properties": {"k": {"type": "integer"}}, "title": "mutable"}
    validate({"k": 1}, mine)
    mine["properties"]["k"]["type"] = "string"  # now a different schema (another key)
    with pytest.raises(jsonschema.ValidationError):
        validate({"k": 1}, mine)
    validate(
        {"k": 1}, {"type": "object", "properties": {"k": {"type": "integer"}}, "title": "mutable"}
    )


def test_the_cache_keeps_at_most_its_size(monkeypatch):
    monkeypatch.setattr(validation, "CACHED_SCHEMAS", 3)
    for n in range(10):
        validate(n, {"type": "integer", "minimum": 0, "title": f"size {n}"})
    assert len(validation._compiled) <= 3
