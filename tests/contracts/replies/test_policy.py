"""The one fallback rule: what an unusable reply executes under each policy."""

from __future__ import annotations

import pytest

from bounded.contracts.replies.policy import (
    NOOP_ACTION,
    fallback_actions,
    idles_for_an_unusable_reply,
)
from bounded.core import Action, Decision, Observation

OBS = Observation(kind="turn", legal=[Action(id="first"), Action(id="second")])
GAME = Action(id="esc")


@pytest.mark.parametrize(
    ("policy", "default", "executed"),
    [
        ("no-op", GAME, NOOP_ACTION.id),
        ("no-op", None, NOOP_ACTION.id),
        ("first-legal", GAME, "first"),
        ("first-legal", None, "first"),
        ("game-default", GAME, "esc"),
        ("game-default", None, "first"),
    ],
)
def test_one_rule_decides_every_fallback(policy, default, executed) -> None:
    assert [a.id for a in fallback_actions(OBS, policy, default)] == [executed]


def test_first_legal_with_nothing_legal_falls_back_to_the_games_default() -> None:
    assert fallback_actions(Observation(kind="turn"), "first-legal", GAME) == [GAME]


EMPTY = "EMPTY ACTION"


@pytest.mark.parametrize(
    ("decision", "empty", "idles"),
    [
        (Decision(actions=[Action(id=EMPTY)], parse_error="no Decisions:"), EMPTY, True),
        (Decision(actions=[Action(id=EMPTY), Action(id=EMPTY)], parse_error="x"), EMPTY, True),
        (Decision(actions=[Action(id=EMPTY)]), EMPTY, False),  # the agent chose to wait
        (Decision(actions=[Action(id="first")], parse_error="x"), EMPTY, False),  # it acts
        (Decision(actions=[Action(id=EMPTY), Action(id="first")], parse_error="x"), EMPTY,
         False),
        (Decision(actions=[Action(id="noop")], parse_error="x"), None, False),  # none declared
        (Decision(parse_error="x"), EMPTY, False),  # the runner fills it in: a fallback anyway
    ],
)  # fmt: skip
def test_the_empty_action_stands_in_for_an_unusable_reply_only(decision, empty, idles) -> None:
    assert idles_for_an_unusable_reply(decision, empty) is idles
