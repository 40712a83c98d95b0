"""TextEnv's spaces: observations of an env's kinds, the current decision's legal actions
(sampled with their arguments filled), the action mask in `info`, and the re-draw of a
stale sample that lets Gymnasium's step-determinism check play a state-dependent game."""

from __future__ import annotations

import copy

import jsonschema
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bounded.core import Action, IllegalActionError, Observation
from bounded.envs.base import (
    DEFERRED_DRAW,
    Choices,
    LegalActionSpace,
    ObservationSpace,
    args_fit,
    draw_action,
    sample_args,
    sample_value,
)
from bounded.envs.craft import CraftEnv
from bounded.envs.spire import SpireEnv, SpireExpert
from bounded.envs.warehouse import WarehouseEnv, WarehouseExpert


def fixed(*actions: Action, max_actions: int = 1) -> LegalActionSpace:
    return LegalActionSpace(lambda: Choices(legal=list(actions), max_actions=max_actions))


A, B, C = Action(id="a"), Action(id="b"), Action(id="c")


# -- the observation space ---------------------------------------------------------------


def test_observation_space_holds_observations_of_its_kinds() -> None:
    space = ObservationSpace(kinds=("stream",))
    assert Observation(kind="stream") in space
    assert Observation(kind="combat") not in space
    assert "stream" not in space and {"kind": "stream"} not in space
    assert Observation(kind="anything") in ObservationSpace()
    with pytest.raises(NotImplementedError):
        space.sample()


# -- the action space ----------------------------------------------------------------------


def test_sample_draws_every_legal_action_and_nothing_else() -> None:
    space = fixed(A, B, C)
    space.seed(0)
    drawn = {space.sample().id for _ in range(60)}
    assert drawn == {"a", "b", "c"}


def test_sample_is_reproducible_from_the_space_seed() -> None:
    first, second = fixed(A, B, C), fixed(A, B, C)
    first.seed(7)
    second.seed(7)
    assert [first.sample() for _ in range(10)] == [second.sample() for _ in range(10)]


def test_mask_and_probability_restrict_the_draw() -> None:
    space = fixed(A, B, C)
    space.seed(1)
    assert {space.sample(mask=np.array([0, 1, 0], dtype=np.int8)).id for _ in range(20)} == {"b"}
    assert {space.sample(probability=np.array([0, 0, 1.0])).id for _ in range(20)} == {"c"}
    with pytest.raises(ValueError, match="shape"):
        space.sample(mask=np.ones(2, dtype=np.int8))
    with pytest.raises(ValueError, match="allows no legal action"):
        space.sample(mask=np.zeros(3, dtype=np.int8))
    with pytest.raises(ValueError, match="not both"):
        space.sample(mask=np.ones(3, dtype=np.int8), probability=np.ones(3) / 3)


def test_a_sample_on_a_finished_game_is_the_same_draw_at_the_next_decision() -> None:
    """Gymnasium's checker samples before it resets: after a game that ended (nothing is
    legal) the sample is deferred, and resolves to the draw a live decision would make."""
    legal: list[Action] = []
    space = LegalActionSpace(lambda: Choices(legal=list(legal)))
    space.seed(5)
    deferred = space.sample()
    assert deferred.id == DEFERRED_DRAW and not space.contains(deferred)
    legal.extend([A, B, C])
    live = fixed(A, B, C)
    live.seed(5)
    assert space.resolve(deferred) == live.sample()


def test_a_sample_before_the_first_reset_is_deferred_too() -> None:
    env = SpireEnv(acts=1)
    env.action_space.seed(2)
    deferred = env.action_space.sample()
    assert deferred.id == DEFERRED_DRAW
    obs, _ = env.reset(seed=1)
    resolved = env.action_space.resolve(deferred)
    assert isinstance(resolved, Action) and resolved.id in {a.id for a in obs.legal}


def test_contains_means_legal_now_with_valid_arguments_and_a_plan_within_the_limit() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 3}},
        "required": ["n"],
        "additionalProperties": False,
    }
    report = Action(id="report", schema=schema)
    space = fixed(A, report, max_actions=2)
    assert space.contains(A) and space.contains([A, report.with_args({"n": 2})])
    assert not space.contains(B)
    assert not space.contains(report.with_args({"n": 9}))
    assert not space.contains(A.with_args({"extra": 1}))  # no schema: no arguments
    assert not space.contains([A, A, A])  # over max_actions
    assert not space.contains([]) and not space.contains("a")


def test_a_warehouse_sample_fills_the_report_schema() -> None:
    env = WarehouseEnv(shelves=4, horizon=10)
    obs, _ = env.reset(seed=2)
    env.action_space.seed(3)
    for _ in range(20):
        action = env.action_space.sample()
        assert action.id == "report" and set(action.args) == {"occupied", "shipped"}
        jsonschema.validate(action.args, obs.legal[0].schema_)
        assert env.action_space.contains(action)


def test_spire_samples_the_current_decision() -> None:
    env, expert = SpireEnv(acts=1), SpireExpert()
    obs, _ = env.reset(seed=5)
    for _ in range(40):
        action = env.action_space.sample()
        assert action in obs.legal and env.action_space.contains(action)
        obs, *_ = env.step(expert.act(obs))


# -- the stale sample ------------------------------------------------------------------------


def _stale_spire_sample(env: SpireEnv) -> Action:
    """A sample drawn on the map, after the opening decision (as Gymnasium's checker does)."""
    obs, _ = env.reset(seed=3)
    obs, *_ = env.step(obs.legal[0])
    while obs.kind == "neow" or obs.kind == "card_select":
        obs, *_ = env.step(obs.legal[0])
    env.action_space.seed(123)
    action = env.action_space.sample()
    assert not action.id.startswith("neow")
    return action


def test_a_stale_sample_is_redrawn_at_the_decision_it_is_stepped_on() -> None:
    env = SpireEnv(acts=1)
    action = _stale_spire_sample(env)
    results = []
    for _ in range(2):
        obs, _ = env.reset(seed=123)
        after, *_ = env.step(action)
        results.append((after.text, env.log[-1]))
    assert results[0] == results[1]
    assert results[0][1][0] in {a.id for a in obs.legal}


def test_only_the_latest_sample_is_redrawn_any_other_stale_action_is_refused() -> None:
    env = SpireEnv(acts=1)
    action = _stale_spire_sample(env)
    copy_of_it = action.model_copy()
    env.reset(seed=123)
    with pytest.raises(IllegalActionError):
        env.step(copy_of_it)
    env.action_space.sample()  # a newer sample: the old one is now an ordinary action
    env.reset(seed=123)
    with pytest.raises(IllegalActionError):
        env.step(action)


def test_a_legal_sample_is_stepped_as_drawn() -> None:
    space = fixed(A, B)
    sample = space.sample()
    assert space.resolve(sample) is sample
    assert space.resolve(C) is C


# -- the action mask and copies ----------------------------------------------------------------


@pytest.mark.parametrize(
    "make_env", [lambda: WarehouseEnv(horizon=3), lambda: SpireEnv(acts=1), CraftEnv]
)
def test_reset_and_step_report_an_action_mask_over_the_legal_list(make_env) -> None:
    env = make_env()
    obs, info = env.reset(seed=1)
    for _ in range(3):
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.tolist() == [1] * len(obs.legal)
        obs, _, terminated, truncated, info = env.step(env.action_space.sample(mask=mask))
        if terminated or truncated:
            break
    assert info["action_mask"].shape == (len(obs.legal),)


def test_warehouse_mask_is_empty_once_the_stream_ends() -> None:
    env, expert = WarehouseEnv(horizon=2), WarehouseExpert()
    obs, _ = env.reset(seed=0)
    for _ in range(2):
        obs, _, terminated, _, info = env.step(expert.act(obs))
    assert terminated and info["action_mask"].shape == (0,) and obs.legal == []


def test_a_deep_copy_samples_its_own_decisions() -> None:
    env = SpireEnv(acts=1)
    obs, _ = env.reset(seed=1)
    clone = copy.deepcopy(env)
    clone.step(obs.legal[0])
    clone_obs = clone.observe()
    assert clone.action_space.sample() in clone_obs.legal
    assert env.action_space.sample() in obs.legal


# -- arguments from schemas -------------------------------------------------------------------

SCHEMAS = [
    {"type": "object", "properties": {}},
    {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "offset": {"type": "integer", "minimum": 1},
            "limit": {"type": "integer", "minimum": 1, "maximum": 400},
        },
        "required": ["path"],
        "additionalProperties": False,
    },
    {
        "type": "object",
        "properties": {
            "x": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "flag": {"type": "boolean"},
            "mode": {"enum": ["fast", "slow"]},
            "fixed": {"const": 3},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
            "either": {"anyOf": [{"type": "integer", "maximum": -5}, {"type": "null"}]},
            "name": {"type": "string", "minLength": 2, "maxLength": 4},
            "nested": {"type": "object", "properties": {"k": {"type": ["integer", "string"]}}},
        },
        "required": ["x", "flag", "mode", "fixed", "tags", "either", "name", "nested"],
    },
]


@given(schema=st.sampled_from(SCHEMAS), seed=st.integers(0, 2**32))
def test_sampled_arguments_are_valid_under_their_schema(schema, seed) -> None:
    args = sample_args(schema, np.random.default_rng(seed))
    jsonschema.validate(args, schema)
    assert set(schema.get("required", [])) <= set(args)
    assert args_fit(args, schema)


def test_sampled_strings_are_letters_and_digits() -> None:
    rng = np.random.default_rng(0)
    values = [sample_value({"type": "string"}, rng) for _ in range(50)]
    assert all(v.isalnum() and 1 <= len(v) <= 8 for v in values)


def test_no_schema_means_no_arguments() -> None:
    assert sample_args(None, np.random.default_rng(0)) == {}
    assert args_fit({}, None) and not args_fit({"a": 1}, None)


def test_the_same_draw_on_the_same_legal_actions_is_the_same_action() -> None:
    schema = SCHEMAS[1]
    legal = [A, Action(id="read", schema=schema)]
    assert [draw_action(legal, d) for d in range(20)] == [draw_action(legal, d) for d in range(20)]
