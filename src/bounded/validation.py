"""JSON schemas checked and compiled once, then reused for every instance they validate.

`jsonschema.validate(instance, schema)` checks the schema itself (`check_schema`) and
builds a validator on every call: for an action's arguments or a state schema that do not
change during a game, that was most of a decision's harness time. `validator(schema)`
does both once per distinct schema (its JSON text is the cache key, so an equal schema
rebuilt each step hits); `validate` raises what `jsonschema.validate` raises, with the
same best-matching error.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match
from jsonschema.protocols import Validator

from bounded.core import JSON

CACHED_SCHEMAS = 512
"""Distinct schemas kept compiled (the oldest dropped first)."""


_compiled: dict[str, Validator] = {}


def validator(schema: JSON) -> Validator:
    """A validator of `schema`, checked (`jsonschema.SchemaError`) and built once (from a
    copy: a caller changing its schema later does not change the cached validator)."""
    try:
        key = json.dumps(schema)
    except (TypeError, ValueError):  # not JSON text: checked and built without the cache
        return _checked(schema)
    found = _compiled.get(key)
    if found is None:
        found = _checked(json.loads(key))
        while len(_compiled) >= CACHED_SCHEMAS:
            del _compiled[next(iter(_compiled))]  # the oldest
        _compiled[key] = found
    return found


def _checked(schema: Any) -> Validator:
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def validate(instance: Any, schema: JSON) -> None:
    """Raise the best-matching `jsonschema.ValidationError` when `instance` breaks `schema`."""
    error = best_match(validator(schema).iter_errors(instance))
    if error is not None:
        raise error


def is_valid(instance: Any, schema: JSON) -> bool:
    return bool(validator(schema).is_valid(instance))


__all__ = ["CACHED_SCHEMAS", "is_valid", "validate", "validator"]
