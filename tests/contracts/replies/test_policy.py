"""The one fallback rule: what an unusable reply executes under each policy."""

from __future__ import annotations

import pytest

from bounded.contracts.replies.policy import NOOP_ACTION, fallback_actions
from bounded.core import Action, Observation

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
