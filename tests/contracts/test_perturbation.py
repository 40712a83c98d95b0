"""State recovery: perturbing a contract's memory and counting the decisions to recover."""

from __future__ import annotations

import pytest

from bounded.analysis.recovery import decisions_to_recover
from bounded.contracts import make_contract
from bounded.contracts.perturbation import (
    corrupt_text,
    corrupt_value,
)
from bounded.envs import make
from bounded.jobs.scripted_players import counting_model
from bounded.runner import EpisodeRunner


def test_corruption_puts_every_number_off_by_one() -> None:
    assert corrupt_value({"a": 1, "b": [2, 3.5], "c": {"d": True, "e": "x"}}) == {
        "a": 2, "b": [3, 4.5], "c": {"d": False, "e": "x"},
    }  # fmt: skip
    assert corrupt_text('{"occupied": 3, "shipped": 10}') == '{"occupied": 4, "shipped": 11}'


def play(contract: str, perturb: str) -> EpisodeRunner:
    settings = {"perturb_at": 5, "perturb": perturb}
    runner = EpisodeRunner(
        make("warehouse", horizon=10, state_hint="schema"),
        make_contract(contract, settings),
        counting_model(),
        seed=1,
        env_id="warehouse",
    )
    runner.execute()
    return runner


@pytest.mark.parametrize(
    ("contract", "perturb", "recovers"),
    [
        ("state", "wipe", False),  # the counts lived only in the state
        ("state", "corrupt", False),  # off by one, and every later report with them
        ("transcript", "wipe", False),  # the events before the wipe are gone
        ("transcript", "corrupt", True),  # its own replies were hit, the events are intact
    ],
)
def test_a_scripted_counter_recovers_only_where_the_memory_still_holds_the_events(
    contract: str, perturb: str, recovers: bool
) -> None:
    runner = play(contract, perturb)
    rewards = [d.reward for d in runner.trajectory]
    assert rewards[:5] == [1.0] * 5
    assert runner.trajectory[5].info["perturbed"] == perturb
    assert "perturbed" not in runner.trajectory[4].info
    assert (decisions_to_recover(rewards, 5) is not None) is recovers


def test_a_wiped_state_is_empty_in_the_next_prompt() -> None:
    runner = play("state", "wipe")
    state_segment = [s for s in runner.trajectory[5].segments if s.layer == "state"]
    assert state_segment[0].text == "Your state: {}"
