"""The vocabulary's one fallback rule, and the base classes' defaults."""

from __future__ import annotations

import pytest

from bounded.contracts.base import ContractBase
from bounded.contracts.replies.policy import NOOP_ACTION, fallback_actions
from bounded.core import Action, Observation
from bounded.protocols import ModelBase

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


def test_the_bases_give_every_optional_hook_a_default() -> None:
    contract = ContractBase()
    assert contract.fallback_policy() == "game-default"
    assert contract.env_options("bounded/Warehouse-v0", {"horizon": 3}) == {"horizon": 3}
    assert contract.paper_temperature is None and contract.memory_snapshot() is None
    assert (ModelBase.context_window, ModelBase.run_deadline_s) == (None, None)


def test_the_runner_calls_every_hook_and_probes_none() -> None:
    """Every hook the runner calls is declared on the protocols above, so it reads none of
    them with `getattr` (a plugin without a hook gets the base classes' default)."""
    from pathlib import Path

    runner = Path(__file__).parents[1] / "src" / "bounded" / "runner"
    probes = [
        f"{path.name}:{number}"
        for path in sorted(runner.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if any(f"getattr({name}" in line for name in ("contract", "env", "model", "self.contract"))
    ]
    assert probes == []


def test_an_observations_history_text_must_end_its_text() -> None:
    with pytest.raises(ValueError, match="history_text must be the end of its text"):
        Observation(kind="test", text="Room 1.", history_text="Map 1")
    assert Observation(kind="test", text="Map\nRoom.", history_text="Room.").current_only_text == (
        "Map\n"
    )
