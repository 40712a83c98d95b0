"""Each environment's `outcome()` on real played games: victory by the same rule as
`metrics()["victory"]`, the env's own score, progress in [0, 1], and how the game ended."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from bounded.core import Action, Observation, Outcome
from bounded.envs.craft import CraftEnv, CraftExpert
from bounded.envs.spire import RandomPlayer, SpireEnv, SpireExpert
from bounded.envs.warehouse import WarehouseEnv, WarehouseExpert
from bounded.envs.workbench import WorkbenchEnv, WorkbenchExpert, sandbox_available

Policy = Callable[[Observation], Action | list[Action]]


def play(env, policy: Policy, seed: int, *, limit: int = 100_000) -> Outcome:
    obs, _ = env.reset(seed=seed)
    for _ in range(limit):
        obs, _, terminated, truncated, _ = env.step(policy(obs))
        if terminated or truncated:
            break
    outcome = env.outcome()
    assert outcome.victory == env.metrics()["victory"]
    assert 0.0 <= outcome.progress <= 1.0
    return outcome


# -- warehouse ------------------------------------------------------------------------------


def test_warehouse_expert_wins_with_full_accuracy() -> None:
    outcome = play(WarehouseEnv(horizon=40), WarehouseExpert().act, seed=3)
    assert outcome == Outcome(victory=True, score=1.0, progress=1.0, ended_by="victory")


def test_warehouse_one_wrong_report_is_a_defeat_scored_by_accuracy() -> None:
    expert = WarehouseExpert()

    def wrong_first(obs: Observation) -> Action:
        action = expert.act(obs)
        if obs.state["index"] == 0:
            return action.with_args({"occupied": 99, "shipped": 0})
        return action

    outcome = play(WarehouseEnv(horizon=20), wrong_first, seed=1)
    assert outcome == Outcome(victory=False, score=19 / 20, progress=1.0, ended_by="defeat")


def test_warehouse_progress_is_the_share_of_events_answered() -> None:
    env, expert = WarehouseEnv(horizon=10), WarehouseExpert()
    obs, _ = env.reset(seed=0)
    for _ in range(4):
        obs, *_ = env.step(expert.act(obs))
    assert env.outcome() == Outcome(victory=False, score=1.0, progress=0.4, ended_by="running")


# -- spire ------------------------------------------------------------------------------------


def test_spire_expert_wins_one_act() -> None:
    env = SpireEnv(acts=1)
    outcome = play(env, SpireExpert().act, seed=1)
    assert outcome == Outcome(victory=True, score=100.0, progress=1.0, ended_by="victory")
    assert env.score() == 100.0 and env.total_floors() == 16


def test_spire_defeat_scores_the_floor_and_bosses_and_progress_counts_our_floors() -> None:
    env = SpireEnv()
    outcome = play(env, RandomPlayer(seed=0).act, seed=2)
    run = env.run
    assert run is not None and run.dead
    assert outcome.ended_by == "defeat" and not outcome.victory
    assert outcome.score == env.score() == run.floor + 16 * run.bosses_beaten
    assert outcome.progress == pytest.approx(run.floor / 51) and env.total_floors() == 51


def test_spire_progress_is_over_the_acts_configured() -> None:
    expert = SpireExpert()
    floors = {}
    for acts in (1, 2):
        env = SpireEnv(acts=acts)
        obs, _ = env.reset(seed=4)
        while env.run is not None and env.run.floor < 8:
            obs, *_ = env.step(expert.act(obs))
        floors[acts] = (env.run.floor if env.run else 0, env.outcome().progress)
    assert floors[1][1] == pytest.approx(floors[1][0] / 16)
    assert floors[2][1] == pytest.approx(floors[2][0] / 32)


def test_spire_truncation_is_reported() -> None:
    outcome = play(SpireEnv(max_decisions=5), SpireExpert().act, seed=1)
    assert outcome.ended_by == "truncated" and not outcome.victory


# -- craft --------------------------------------------------------------------------------------


def test_craft_expert_victory_scores_one() -> None:
    outcome = play(CraftEnv(level=1, style="timing"), CraftExpert("gateway").act, seed=1)
    assert outcome == Outcome(victory=True, score=1.0, progress=1.0, ended_by="victory")


def test_craft_timeout_is_a_draw_at_half_the_score() -> None:
    env = CraftEnv(level=1, time_limit=120)
    outcome = play(env, lambda obs: [Action(id="EMPTY ACTION")], seed=0)
    assert outcome == Outcome(victory=False, score=0.5, progress=1.0, ended_by="truncated")


def test_craft_progress_is_game_time_over_the_limit_while_running() -> None:
    env = CraftEnv(time_limit=600, decision_interval=10)
    obs, _ = env.reset(seed=0)
    expert = CraftExpert()
    for _ in range(15):
        obs, *_ = env.step(expert.act(obs))
    outcome = env.outcome()
    assert outcome.ended_by == "running"
    assert outcome.progress == pytest.approx(env.world.time / 600) == pytest.approx(0.25)
    assert outcome.score == pytest.approx(0.5 * outcome.progress)


def test_craft_defeat_reports_the_time_survived() -> None:
    rng = random.Random(0)
    env = CraftEnv(level=7, style="rush", time_limit=1800)
    outcome = play(env, lambda obs: [rng.choice(obs.legal)], seed=1)
    assert outcome.ended_by == "defeat", env.metrics()
    assert outcome.progress == pytest.approx(env.world.time / 1800)
    assert outcome.progress < 1.0
    assert outcome.score == pytest.approx(outcome.progress / 2)


# -- workbench ------------------------------------------------------------------------------------

needs_sandbox = pytest.mark.skipif(not sandbox_available(), reason="bubblewrap cannot run here")


@needs_sandbox
@pytest.mark.parametrize(
    ("which", "expected"),
    [
        ("good", Outcome(victory=True, score=1.0, progress=1.0, ended_by="victory")),
        ("bad", Outcome(victory=False, score=0.0, progress=0.0, ended_by="defeat")),
    ],
)
def test_workbench_outcome_is_the_oracle_verdict(which: str, expected: Outcome) -> None:
    env = WorkbenchEnv("count_files")
    try:
        assert play(env, WorkbenchExpert("count_files", which).act, seed=0) == expected
    finally:
        env.close()


@needs_sandbox
def test_workbench_running_out_of_turns_is_truncated() -> None:
    env = WorkbenchEnv("count_files", max_turns=2)
    try:
        outcome = play(env, lambda obs: Action(id="exec_shell", args={"command": "true"}), seed=0)
        assert outcome == Outcome(victory=False, score=0.0, progress=0.0, ended_by="truncated")
        env.reset(seed=0)
        assert env.outcome().ended_by == "running"
    finally:
        env.close()
