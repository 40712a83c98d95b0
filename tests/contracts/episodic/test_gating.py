"""Algorithm 2's gating schedule, step by step, against schedules worked out by hand."""

from __future__ import annotations

import pytest

from bounded.contracts.episodic import EpisodicContract
from bounded.contracts.episodic.bank import EpisodicBank
from bounded.contracts.episodic.gating import GatingClock
from bounded.core import Action, Completion, Observation, StepResult
from bounded.testing import episode

EMPTY = "EMPTY ACTION"
LEGAL = ["A", "B", EMPTY]


def test_the_clock_starts_at_zero_as_in_algorithm_2() -> None:
    clock = GatingClock(explore_every=3, queue_cooldown=2)
    # l_e = 0: t >= 0 + 3 first holds at t = 3; l_q = 0: t >= 0 + 2 first holds at t = 2.
    assert [clock.explore_due(t) for t in range(5)] == [False, False, False, True, True]
    assert [clock.pop_due(t) for t in range(4)] == [False, False, True, True]
    clock.explored(3)
    clock.popped(3)
    # l_e = 3: next at 6; l_q = 3: next at 5.
    assert [clock.explore_due(t) for t in (4, 5, 6)] == [False, False, True]
    assert [clock.pop_due(t) for t in (4, 5)] == [False, True]


def test_the_immediate_start_explores_and_pops_at_once() -> None:
    clock = GatingClock(explore_every=3, queue_cooldown=2, start="immediate")
    assert clock.explore_due(0) and clock.pop_due(0)
    clock.reset()
    assert clock.last_explore is None and clock.last_pop is None


def play(start: str, steps: int = 10) -> tuple[list[str], list[int]]:
    """The executed action and the model calls of each step: an empty bank (retrieval is
    always EmptyAction), d_e = 3, d_q = 2, each exploration proposing <A> then <B>."""
    contract = EpisodicContract(
        explore_every=3, queue_cooldown=2, explore_actions=2, gating_start=start
    )
    contract.use_bank(EpisodicBank.empty())
    contract.reset(episode(empty_action=EMPTY, instructions="Win.", seed=0))
    executed, calls = [], []
    for t in range(steps):
        obs = Observation(kind="macro", state={}, t=t, legal=[Action(id=a) for a in LEGAL])
        decision = contract.propose(obs)
        if decision is None:
            calls.append(t)
            reply = "Decisions:\n0: <A>\n1: <B>"  # the default text reply, as CoS writes it
            decision = contract.parse(Completion(text=reply), obs)
        executed.append(decision.actions[0].id)
        contract.commit(obs, decision, StepResult())
    return executed, calls


def test_paper_schedule_step_by_step() -> None:
    # Worked by hand from Algorithms 1-2 with l_e = l_q = 0, d_e = 3, d_q = 2:
    # t=0..2: no exploration (t < 3), queue empty             -> EMPTY, EMPTY, EMPTY
    # t=3: explore (3 >= 0+3), l_e=3, Q=[A,B]; pop (3 >= 0+2)  -> A, l_q=3
    # t=4: 4 < 3+2                                           -> EMPTY
    # t=5: pop (5 >= 5)                                      -> B, l_q=5
    # t=6: explore (6 >= 3+3), l_e=6, Q=[A,B]; 6 < 5+2       -> EMPTY
    # t=7: pop (7 >= 7)                                      -> A, l_q=7
    # t=8: 8 < 9                                             -> EMPTY
    # t=9: explore (9 >= 6+3), Q=[B,A,B]; pop (9 >= 9)       -> B
    executed, calls = play("paper")
    assert executed == [EMPTY, EMPTY, EMPTY, "A", EMPTY, "B", EMPTY, "A", EMPTY, "B"]
    assert calls == [3, 6, 9]


def test_immediate_schedule_step_by_step() -> None:
    # l_e and l_q unset: t=0 explores and pops at once (A); t=2 pops B (2 >= 0+2);
    # t=3 explores, 3 < 4; t=4 pops A; t=6 explores and pops B (6 >= 4+2); t=8 pops A;
    # t=9 explores, 9 < 10.
    executed, calls = play("immediate")
    assert executed == ["A", EMPTY, "B", EMPTY, "A", EMPTY, "B", EMPTY, "A", EMPTY]
    assert calls == [0, 3, 6, 9]


@pytest.mark.parametrize("start", ["paper", "immediate"])
def test_the_contract_records_its_schedule_option(start: str) -> None:
    assert EpisodicContract(gating_start=start).config_dict()["gating_start"] == start
